/**
 * Argument parsing shared by the commands: node's parseArgs, strict, with `--help`, turning a
 * parse failure into a usage error that points at the command's help; and the price flags that
 * every command showing costs accepts.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UmpireError } from "../errors.js";
import { loadPriceBook, type PriceBook } from "../pricing.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/** `--config FILE`, `--price-in USD`, `--price-out USD`. */
export const PRICE_OPTIONS = {
  config: { type: "string" },
  "price-in": { type: "string" },
  "price-out": { type: "string" },
} as const;

export function parseCommandArgs<const O extends Options>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, ...HELP_OPTION }, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UmpireError("usage", (error as Error).message, `umpire ${command} --help lists the options`);
  }
}

/** The price book from the price flags (built-in prices, then the config file, then the flags). */
export function pricesFromFlags(values: { config?: string; "price-in"?: string; "price-out"?: string }, cwd: string): PriceBook {
  return loadPriceBook({ cwd, configFile: values.config, priceIn: values["price-in"], priceOut: values["price-out"] });
}
