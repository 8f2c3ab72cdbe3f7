/**
 * The one argument layer every command parses through: node's parseArgs (strict) over an option
 * table (src/config/option.ts shapes), then each value from, in order of precedence, the command
 * line, the config file's `defaults`, the option's built-in default. The same table writes the
 * help, so the defaults it shows are the ones that apply.
 *
 * Why not commander or cac: both take the last of a repeated option silently, neither knows a
 * config file as a source below the flags, and their errors are not umpire's (file, field, fix);
 * parseArgs' tokens give all three in a few lines, with no dependency.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { loadConfig, type LoadedConfig } from "../config/loader.js";
import {
  configKey,
  defaultText,
  fromConfigValue,
  parseFlagValue,
  type OptionSpec,
  type OptionValue,
} from "../config/option.js";
import { UmpireError, messageOf } from "../errors.js";
import { createPriceBook, type PriceBook } from "../pricing.js";
import { didYouMean } from "../task/suggest.js";

/** Where a value came from; stored with the run so a reader knows what was chosen and by whom. */
export type ValueSource = "flag" | "config" | "default";

type ValueOf<O> = O extends { kind: "boolean" }
  ? boolean
  : O extends { kind: "int" | "number" }
    ? number
    : O extends { multiple: true }
      ? string[]
      : O extends { values: readonly (infer V)[] }
        ? V
        : string;

/** An option with a default, or one its command requires (src/cli/command.ts checks it), always has a value. */
export type Values<S> = {
  [K in keyof S]: S[K] extends { default: unknown } | { required: true } ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
};

export interface ParsedCommand<S> {
  values: Values<S>;
  sources: { [K in keyof S]?: ValueSource };
  positionals: string[];
  /** `--help` or `-h` was given: nothing else was resolved (a broken config file must not hide the help). */
  help: boolean;
  /** The config file read (only for commands that take `--config`). */
  config: LoadedConfig;
}

type ParseOptions = NonNullable<ParseArgsConfig["options"]>;

/** The parseArgs options of a table; config-settable booleans also get `--no-<name>`. */
function parseArgsOptions(specs: Record<string, OptionSpec>): ParseOptions {
  const options: ParseOptions = { help: { type: "boolean", short: "h" } };
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = {
      type: spec.kind === "boolean" ? "boolean" : "string",
      ...(spec.multiple ? { multiple: true } : {}),
      ...(spec.short ? { short: spec.short } : {}),
    };
    if (spec.kind === "boolean" && spec.config) options[`no-${name}`] = { type: "boolean" };
  }
  return options;
}

function usageError(command: string, error: unknown, known: string[]): UmpireError {
  const unknown = /Unknown option '(--?[^']+)'/.exec(messageOf(error))?.[1];
  // node's own sentence about positionals that start with '-' is noise for a plain typo.
  const message = unknown ? `unknown option '${unknown}'` : messageOf(error);
  const hint = unknown?.startsWith("--") ? didYouMean(unknown.slice(2), known)?.replace(/'(.+)'/, "'--$1'") : undefined;
  return new UmpireError(
    "usage",
    `${command}: ${message}`,
    hint ? `${hint} (umpire ${command} --help lists the options)` : `umpire ${command} --help lists the options`,
  );
}

/**
 * Parses `argv` for `command` against `specs`. Usage errors (unknown option, a single-valued
 * option given twice, a value out of range) throw `usage`; a bad config file throws `input`.
 */
export function parseCommand<const S extends Record<string, OptionSpec>>(
  command: string,
  argv: string[],
  specs: S,
  io: { cwd: string },
): ParsedCommand<S> {
  const table = specs as Record<string, OptionSpec>;
  const options = parseArgsOptions(table);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    throw usageError(command, error, Object.keys(options));
  }
  const raw = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const empty = {
    values: {} as Values<S>,
    sources: {},
    positionals: parsed.positionals,
    help: true,
    config: { file: null, data: {}, policies: {} },
  };
  if (raw.help) return empty;

  // A value-taking option given twice is a mistake to point out, not a choice to make silently.
  const given = new Map<string, string[]>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option") continue;
    given.set(token.name, [...(given.get(token.name) ?? []), token.value ?? ""]);
  }
  for (const [name, seen] of given) {
    const spec = table[name] ?? table[name.replace(/^no-/, "")];
    if (!spec || spec.multiple || seen.length < 2) continue;
    const shown = spec.kind === "boolean" ? "" : ` (${seen.map((v) => JSON.stringify(v)).join(", then ")})`;
    throw new UmpireError(
      "usage",
      `${command}: --${name} is given ${seen.length} times${shown}`,
      `give --${name} once; only options marked repeatable in umpire ${command} --help may repeat`,
    );
  }
  for (const name of Object.keys(table)) {
    if (given.has(name) && given.has(`no-${name}`))
      throw new UmpireError("usage", `${command}: --${name} and --no-${name} are both given`, `keep one of them`);
  }

  const config: LoadedConfig =
    "config" in table
      ? loadConfig({ cwd: io.cwd, file: raw.config as string | undefined })
      : { file: null, data: {}, policies: {} };
  const defaults = (config.data.defaults ?? {}) as Record<string, unknown>;
  const values: Record<string, OptionValue | undefined> = {};
  const sources: Record<string, ValueSource> = {};
  for (const [name, spec] of Object.entries(table)) {
    const flag = raw[name] ?? (raw[`no-${name}`] ? false : undefined);
    if (flag !== undefined) {
      values[name] =
        typeof flag === "string"
          ? parseFlagValue(name, spec, flag)
          : Array.isArray(flag)
            ? flag.map((v) => String(parseFlagValue(name, spec, v)))
            : flag;
      sources[name] = "flag";
    } else if (spec.config && defaults[configKey(name)] !== undefined) {
      values[name] = fromConfigValue(spec, defaults[configKey(name)]);
      sources[name] = "config";
    } else if (spec.default !== undefined) {
      values[name] = Array.isArray(spec.default) ? [...spec.default] : (spec.default as OptionValue);
      sources[name] = "default";
    }
  }
  return {
    values: values as Values<S>,
    sources: sources as ParsedCommand<S>["sources"],
    positionals: parsed.positionals,
    help: false,
    config,
  };
}

/**
 * The options part of a command's help, generated from its table: one line per option with its
 * placeholder, its help and its real default; `sections` puts headings over groups of options.
 */
export function optionsHelp(sections: Record<string, Record<string, OptionSpec>>): string {
  const width = 26;
  const out: string[] = [];
  for (const [heading, specs] of Object.entries(sections)) {
    if (heading) out.push(heading);
    for (const [name, spec] of Object.entries(specs)) {
      const flag = `  ${spec.kind === "boolean" && spec.config ? `--[no-]${name}` : `--${name}`}${spec.short ? `, -${spec.short}` : ""}${spec.arg ? ` ${spec.arg}` : ""}`;
      const def = defaultText(spec);
      const lines = `${spec.help}${spec.multiple && !/repeatable/.test(spec.help) ? "; repeatable" : ""}`.split("\n");
      // The default goes on the last line, or on a line of its own when that would run past 100 columns.
      if (def) {
        const tail = `(default ${def})`;
        if (width + lines.at(-1)!.length + tail.length + 1 <= 100) lines[lines.length - 1] += ` ${tail}`;
        else lines.push(tail);
      }
      const first =
        flag.length + 2 <= width ? `${flag.padEnd(width)}${lines[0]}` : `${flag}\n${" ".repeat(width)}${lines[0]}`;
      out.push(first, ...lines.slice(1).map((line) => `${" ".repeat(width)}${line}`));
    }
  }
  out.push(`${"  -h, --help".padEnd(width)}show this help`);
  return `${out.join("\n")}\n`;
}

/** The price book: built-in prices, then the config file's `prices`, then `--price-in`/`--price-out`. */
export function pricesOf(values: { "price-in"?: number; "price-out"?: number }, config: LoadedConfig): PriceBook {
  return createPriceBook({ config: config.data.prices, priceIn: values["price-in"], priceOut: values["price-out"] });
}
