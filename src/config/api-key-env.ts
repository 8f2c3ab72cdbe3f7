/**
 * The `apiKeyEnv` field of an agent (its own model's, or a command agent's modelProxy upstream): the
 * NAME of an environment variable, never the key. One definition, so both refuse a key the same way.
 */
import { z } from "zod";
import { apiKeyEnvProblem } from "../agent/config.js";

/** A variable name; a value that looks like a key is refused without being repeated in the error. */
export function apiKeyEnvField(description: string) {
  return (
    z
      .string()
      // A refinement, not .regex(): a failed pattern is reported with the value, and here the value may be a key.
      .superRefine((value, ctx) => {
        const problem = apiKeyEnvProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .meta({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" })
      .optional()
      .describe(description)
  );
}
