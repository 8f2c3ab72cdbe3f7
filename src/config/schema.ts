/**
 * The config file (`umpire.config.yaml` or `.json`) as one zod schema composed of sections.
 * Each section is its own schema in `CONFIG_SECTIONS`; a new section (`targets`) is one
 * more entry there, and the loader, the JSON Schema export and the did-you-mean for unknown keys
 * pick it up without further changes. Unknown keys are errors at every level.
 */
import { z } from "zod";
import { ModelPriceSchema } from "../pricing.js";
import { AgentsSection, DefaultAgentsSection } from "./agents.js";
import { TargetsSection } from "../task/target-decl.js";
import { ImportSection } from "./import-section.js";
import { configKey, configSchemaOf } from "./option.js";
import { configurableOptions } from "./options.js";

/** `prices`: USD per million tokens per model id (adds to and overrides the built-in table). */
export const PricesSection = z
  .record(z.string().min(1), ModelPriceSchema)
  .describe("Prices per model id, in USD per million tokens; they add to and override the built-in table");

/**
 * `packs`: where the project's benchmark checkouts are (docs/benchmarks.md). A path relative to the
 * config file's folder. `--pack-dir` overrides it; it overrides `MINIWOB_DIR` (the built-in default).
 */
export const PacksSection = z
  .object({
    miniwob: z
      .object({
        dir: z
          .string()
          .min(1)
          .describe(
            "A MiniWoB++ checkout's miniwob/html folder (or the checkout), relative to this file's folder; --pack-dir overrides it, it overrides MINIWOB_DIR",
          ),
      })
      .strict()
      .optional()
      .describe("The MiniWoB++ pack (umpire run --pack miniwob)"),
  })
  .strict()
  .describe("Benchmark packs run from your own checkout (docs/benchmarks.md)");

/**
 * `defaults`: a default for each run option the option table marks `config` (under its camelCase
 * name: `--max-tokens` is `maxTokens`). Precedence: command-line flag > this section > built-in.
 */
export const DefaultsSection = z
  .object(
    Object.fromEntries(
      configurableOptions().map(([name, spec]) => [configKey(name), configSchemaOf(name, spec).optional()]),
    ),
  )
  .strict()
  .describe("Defaults for command-line options (a flag given on the command line wins)");

export const CONFIG_SECTIONS = {
  $schema: z.string().optional().describe("The JSON Schema of this file, for editors (ignored by umpire)"),
  prices: PricesSection.optional(),
  defaults: DefaultsSection.optional(),
  agents: AgentsSection.optional(),
  defaultAgents: DefaultAgentsSection.optional(),
  targets: TargetsSection.optional().describe(
    "Web apps under test, by name (tasks name them with target:); see docs/your-app.md",
  ),
  import: ImportSection.optional(),
  packs: PacksSection.optional(),
};

/** The sections, and the one rule across them: every default agent is defined under `agents:`. */
export const ConfigFileSchema = z
  .object(CONFIG_SECTIONS)
  .strict()
  .superRefine((file, ctx) => {
    const known = Object.keys(file.agents ?? {});
    (file.defaultAgents ?? []).forEach((name, i) => {
      if (known.includes(name)) return;
      ctx.addIssue({
        code: "custom",
        path: ["defaultAgents", i],
        message: `no agent named '${name}' under agents:${known.length ? ` (defined: ${known.join(", ")})` : " (none is defined)"}`,
      });
    });
  });
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** The file names looked for in the working folder, in this order. */
export const CONFIG_FILE_NAMES = ["umpire.config.yaml", "umpire.config.yml", "umpire.config.json"] as const;
