/**
 * Model prices: the built-in table, the config file's `prices`, and `--price-in` / `--price-out`.
 * Prices are USD per million tokens. A model with no price has an unknown cost (null), never 0:
 * a free model says so explicitly in the table (the reference model does).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { UmpireError } from "../errors.js";

const usdPerMillion = z.number().finite().min(0);

export const ModelPriceSchema = z
  .object({
    input: usdPerMillion.describe("USD per million input (prompt) tokens"),
    output: usdPerMillion.describe("USD per million output (completion) tokens"),
    cachedInput: usdPerMillion.optional().describe("USD per million cached input tokens; default: the input price"),
    reasoning: usdPerMillion.optional().describe("USD per million reasoning tokens; default: the output price"),
    reasoningInOutput: z
      .boolean()
      .optional()
      .describe("Whether the server's completion_tokens already include reasoning tokens (default true, as on OpenAI-compatible servers)"),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export type PriceTable = Record<string, ModelPrice>;

/**
 * Built-in prices. Holo figures are H Company's published ones (shared/reference/holo-api-facts.md);
 * H publishes no cached-input discount, so cached input is billed at the input price.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = Object.freeze({
  "holo3-1-35b-a3b": { input: 0.25, output: 1.8 },
  "holo3-122b-a10b": { input: 0.4, output: 3.0 },
  // The reference model runs locally and costs nothing: declared, so its cost is $0, not unknown.
  reference: { input: 0, output: 0 },
});

const ConfigFileSchema = z.looseObject({ prices: z.record(z.string().min(1), ModelPriceSchema).optional() });

/** Where a price came from; reports say so next to costs they recomputed. */
export type PriceSource = "built-in" | "config" | "flags";

export interface PriceBook {
  /** The price for a model id; `reference:<profile>` falls back to `reference`. Null when unknown. */
  lookup(model: string): ModelPrice | null;
  /** True when the user supplied prices (config file or flags): reports then re-price stored tokens. */
  readonly userPrices: boolean;
  readonly sources: PriceSource[];
}

export interface PriceOptions {
  /** The `prices` of a config file, already read (see `readPriceConfig`). */
  config?: PriceTable;
  /** `--price-in`: overrides the input price of every model. */
  priceIn?: number;
  /** `--price-out`: overrides the output price of every model. */
  priceOut?: number;
}

/** Builds the price book: built-in table, then the config file, then the flags. */
export function createPriceBook(opts: PriceOptions = {}): PriceBook {
  const table: PriceTable = { ...DEFAULT_PRICES, ...(opts.config ?? {}) };
  const flags = opts.priceIn !== undefined || opts.priceOut !== undefined;
  const sources: PriceSource[] = ["built-in"];
  if (opts.config && Object.keys(opts.config).length > 0) sources.push("config");
  if (flags) sources.push("flags");
  const lookup = (model: string): ModelPrice | null => {
    const base = table[model] ?? table[model.split(":")[0]] ?? null;
    if (!flags) return base;
    const input = opts.priceIn ?? base?.input;
    const output = opts.priceOut ?? base?.output;
    // With only one flag and no table entry, half a price is no price.
    if (input === undefined || output === undefined) return null;
    return { ...(base ?? {}), input, output };
  };
  return { lookup, userPrices: sources.length > 1, sources };
}

/**
 * Reads the `prices` of a config file (`umpire.config.json`). Returns undefined when the file does
 * not exist and `required` is false. Throws `input` errors naming the file and the field.
 */
export function readPriceConfig(file: string, required = false): PriceTable | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UmpireError("input", `${file}: cannot read the config file (${(error as Error).message})`, "pass --config with an existing JSON file");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UmpireError("input", `${file}: not valid JSON (${(error as Error).message})`, 'write it as JSON, e.g. {"prices": {"my-model": {"input": 0.5, "output": 2}}}');
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.map(String).join(".");
    throw new UmpireError(
      "input",
      `${file}: ${path || "(top level)"}: ${issue.message}`,
      'each price is {"input": USD per million, "output": USD per million} with optional "cachedInput", "reasoning", "reasoningInOutput"',
    );
  }
  return parsed.data.prices;
}

/** Parses a `--price-in` / `--price-out` value: USD per million tokens, a non-negative number. */
export function parsePriceFlag(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0) {
    throw new UmpireError("usage", `${flag} ${JSON.stringify(text)}: not a price`, `give USD per million tokens, e.g. ${flag} 0.25`);
  }
  return value;
}

/**
 * The price book a command uses: built-in prices, then `configFile` (default `<cwd>/umpire.config.json`,
 * optional unless named explicitly), then the flags.
 */
export function loadPriceBook(opts: { cwd: string; configFile?: string; priceIn?: string; priceOut?: string }): PriceBook {
  const explicit = opts.configFile !== undefined;
  const file = explicit ? resolve(opts.cwd, opts.configFile!) : join(opts.cwd, "umpire.config.json");
  return createPriceBook({
    config: readPriceConfig(file, explicit),
    priceIn: parsePriceFlag(opts.priceIn, "--price-in"),
    priceOut: parsePriceFlag(opts.priceOut, "--price-out"),
  });
}
