/**
 * The `command` check: for apps whose truth is in a database or a file the harness can query. The
 * command comes from the task file (never from model output), gets TRIAL_ID, WORKSPACE and
 * TARGET_URL in its environment, and is judged on its exit code and output. A command that cannot
 * start, runs past its timeout, or crashed (crash.ts: not found, a module it imports missing, an
 * uncaught error) could not judge: the trial is not judged (verdict `error`), and the reason shows
 * the line of stderr that says why. Its JSON expectations name their path (`/label`), not "the command".
 */
import path from "node:path";
import type { z } from "zod";
import type { CommandCheck } from "../task/schema.js";
import { crashOf } from "./crash.js";
import { clip } from "./evidence.js";
import { judgeJson, parseJson } from "./json-expect.js";
import { runCommand } from "./run-command.js";
import { checkMatchers, DEFAULT_NORMALIZE } from "./text-match.js";
import { CheckUnjudgeableError, type Evidence, type Handler } from "./types.js";
import { matchersWithVars, trialVars } from "./vars.js";

export type CommandCheckSpec = z.output<typeof CommandCheck>;

const shown = (command: string | readonly string[]) => (typeof command === "string" ? command : command.join(" "));

export const commandCheck: Handler<CommandCheckSpec> = {
  confidence: "verified",
  defaultName: (spec) => `command ${clip(shown(spec.command), 60)}`,
  async judge(spec, ctx) {
    const base = ctx.taskFile ? path.dirname(path.resolve(ctx.taskFile)) : process.cwd();
    const cwd = spec.cwd ? path.resolve(base, spec.cwd) : base;
    const outcome = await (ctx.io?.runCommand ?? runCommand)(spec.command, {
      cwd,
      env: { ...process.env, ...trialVars(ctx) },
      timeoutMs: spec.timeoutSeconds * 1000,
    });
    const evidence: Evidence = {
      command: shown(spec.command),
      cwd,
      exitCode: outcome.code,
      stdout: clip(outcome.stdout, 1_500),
      stderr: clip(outcome.stderr, 1_000),
    };
    if (outcome.error) throw new CheckUnjudgeableError(`the command could not start: ${outcome.error}`);
    if (outcome.timedOut)
      throw new CheckUnjudgeableError(`the command ran past its ${spec.timeoutSeconds} s timeout and was stopped`);
    const crash = outcome.code === spec.exitCode ? null : crashOf(outcome);
    if (crash) throw new CheckUnjudgeableError(`the command could not run: ${crash}`);
    const failures: string[] = [];
    if (outcome.code !== spec.exitCode)
      failures.push(`the command exited with ${outcome.code ?? `signal ${outcome.signal}`}, expected ${spec.exitCode}`);
    failures.push(
      ...checkMatchers(
        outcome.stdout,
        matchersWithVars(spec.stdout, ctx),
        matchersWithVars(spec.notStdout, ctx),
        DEFAULT_NORMALIZE,
      ).failures.map((f) => `the command's output ${f}`),
    );
    if (spec.json.length > 0) {
      const parsed = parseJson(outcome.stdout);
      if (!parsed.ok) failures.push(`the command's output is not JSON (${parsed.error})`);
      else {
        const judged = judgeJson(parsed.value, spec.json);
        evidence.values = judged.seen;
        failures.push(...judged.failures);
      }
    }
    if (failures.length > 0) return { pass: false, reason: failures.join("; "), evidence };
    return { pass: true, reason: `the command exited ${outcome.code} with the expected output`, evidence };
  },
};
