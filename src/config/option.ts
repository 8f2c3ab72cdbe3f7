/**
 * One option: its kind, range, built-in default and help line. The same description parses a
 * command-line value (text) and validates a config-file value (already typed), so a flag and
 * its config key can never disagree about what is allowed.
 */
import { z } from "zod";
import { UmpireError } from "../errors.js";
import { didYouMean } from "../task/suggest.js";

export type OptionKind = "string" | "int" | "number" | "boolean" | "enum";

export interface OptionSpec {
  kind: OptionKind;
  /** The value's placeholder in help (`N`, `URL`); booleans have none. */
  arg?: string;
  /** One line (or a few) of help; the default is appended from `default`/`defaultText`. */
  help: string;
  /** Repeatable on the command line (`--model a --model b`); a list in the config file. */
  multiple?: boolean;
  short?: string;
  /** Inclusive range of `int` and `number` options. */
  min?: number;
  max?: number;
  /** The allowed words of an `enum` option. */
  values?: readonly string[];
  /** The built-in default, used when neither a flag nor the config file gives one. */
  default?: string | number | boolean | readonly string[];
  /** How a default that is computed at run time reads in help (`the number of cores`). */
  defaultText?: string;
  /** True when the config file's `defaults` section may set it (under its camelCase key). */
  config?: boolean;
}

export type OptionValue = string | number | boolean | string[];

/** `max-tokens` -> `maxTokens`: the option's key in the config file's `defaults`. */
export function configKey(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function rangeText(spec: OptionSpec): string {
  const { min, max } = spec;
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return `>= ${min}`;
  if (max !== undefined) return `<= ${max}`;
  return "";
}

/** An example value for a fix: the default when there is one, else the bottom of the range. */
function example(spec: OptionSpec): string {
  if (typeof spec.default === "number" || typeof spec.default === "string") return String(spec.default);
  if (spec.values?.length) return spec.values[0]!;
  return String(spec.min ?? 1);
}

/**
 * Parses one command-line value of `--name`. Every integer and number option goes through here,
 * so they all accept the same forms and fail with the same kind of message.
 */
export function parseFlagValue(name: string, spec: OptionSpec, raw: string): string | number {
  const flag = `--${name}`;
  // Quoted only when the value would otherwise be invisible or ambiguous in the message.
  const shown = raw === "" || /\s/.test(raw) ? JSON.stringify(raw) : raw;
  switch (spec.kind) {
    case "int":
    case "number": {
      const whole = spec.kind === "int";
      const n = raw.trim() === "" ? NaN : Number(raw);
      const range = rangeText(spec);
      const wanted = `${whole ? "a whole number" : "a number"}${range ? ` ${range}` : ""}`;
      if (
        !Number.isFinite(n) ||
        (whole && !Number.isInteger(n)) ||
        (spec.min !== undefined && n < spec.min) ||
        (spec.max !== undefined && n > spec.max)
      ) {
        throw new UmpireError("usage", `${flag} ${shown}: expected ${wanted}`, `e.g. ${flag} ${example(spec)}`);
      }
      return n;
    }
    case "enum": {
      const values = spec.values ?? [];
      if (!values.includes(raw)) {
        const hint = didYouMean(raw, values);
        throw new UmpireError(
          "usage",
          `${flag} ${shown}: unknown value, expected one of ${values.join(", ")}`,
          hint ?? `e.g. ${flag} ${example(spec)}`,
        );
      }
      return raw;
    }
    default:
      return raw;
  }
}

/** The zod schema of the option's value in the config file (same kind and range as the flag). */
export function configSchemaOf(name: string, spec: OptionSpec): z.ZodType {
  let one: z.ZodType;
  switch (spec.kind) {
    case "int":
    case "number": {
      let n = spec.kind === "int" ? z.number().int() : z.number();
      if (spec.min !== undefined) n = n.min(spec.min);
      if (spec.max !== undefined) n = n.max(spec.max);
      one = n;
      break;
    }
    case "enum":
      one = z.enum(spec.values as [string, ...string[]]);
      break;
    case "boolean":
      one = z.boolean();
      break;
    default:
      one = z.string().min(1);
  }
  const value = spec.multiple ? z.union([one, z.array(one).min(1)]) : one;
  return value.describe(`${spec.help.replace(/\s+/g, " ")} (command line: --${name})`);
}

/** A config value as the option's value: a single word for a repeatable option becomes a list. */
export function fromConfigValue(spec: OptionSpec, value: unknown): OptionValue {
  if (spec.multiple) return Array.isArray(value) ? value.map(String) : [String(value)];
  return value as OptionValue;
}

/** How the default reads in help, or undefined when there is none worth saying. */
export function defaultText(spec: OptionSpec): string | undefined {
  if (spec.defaultText) return spec.defaultText;
  if (spec.default === undefined || spec.default === false) return undefined;
  return Array.isArray(spec.default) ? spec.default.join(", ") : String(spec.default);
}
