/**
 * `defineCommand`: what every `umpire <command>` shares, written once. A command declares its
 * options (the option-table shape of src/config/option.ts), its positionals and its help prose;
 * from these come the usage line, the options list, `--help`, the argument parsing, the count
 * of positionals and the required options. The usage line is generated from the same table the
 * parser reads, so it cannot leave out an option the command accepts
 * (test/unit/cli/command-usage.test.ts holds every command to it).
 */
import type { OptionSpec } from "../config/option.js";
import { UmpireError } from "../errors.js";
import { optionsHelp, parseCommand, type ParsedCommand } from "./args.js";
import { EXIT } from "./exit-codes.js";
import type { Command, CommandIO } from "./io.js";

/** One positional argument: `<name>` when required, `[name]` when not; `...` when it repeats. */
export interface PositionalSpec {
  name: string;
  required?: boolean;
  variadic?: boolean;
}

/** A command's option, which may also be required (its absence is a usage error). */
export type CommandOption = OptionSpec & { required?: boolean };

export interface CommandDefinition<S extends Record<string, CommandOption>> {
  name: string;
  options: S;
  positionals: readonly PositionalSpec[];
  /** What the command does: the help's paragraph(s) between the usage line and the options. */
  description: string;
  /** Headings over groups of the options in help (every option of `options` in exactly one); default: one list. */
  sections?: Record<string, Record<string, CommandOption>>;
  /** Help after the options list (exit codes, profiles). */
  epilogue?: string;
  /**
   * The word after which the arguments are another program's (`umpire import playwright ...`): they are
   * not parsed here, and `run` gets them as `passed` (null when the word is absent).
   */
  passThrough?: { word: string; args: string };
  /** An example invocation, the fix named by a wrong count of positionals or a missing required option. */
  example?: string;
  /**
   * Boolean flags this command no longer has, with the one line an old use prints: accepted and
   * ignored, so a script written for an earlier umpire keeps working and learns why (not in help).
   */
  retired?: Record<string, string>;
  run(parsed: ParsedCommand<S>, io: CommandIO, passed: string[] | null): Promise<number>;
}

/** A command, callable as before (`run(argv, io)`), that also carries its definition for help and tests. */
export type DefinedCommand<S extends Record<string, CommandOption> = Record<string, CommandOption>> = Command & {
  definition: CommandDefinition<S>;
};

const USAGE_WIDTH = 100;

function positionalText(p: PositionalSpec): string {
  const name = `${p.name}${p.variadic ? "..." : ""}`;
  return p.required ? `<${name}>` : `[${name}]`;
}

function optionText(name: string, spec: CommandOption): string {
  const flag = spec.kind === "boolean" && spec.config ? `--[no-]${name}` : `--${name}`;
  const word = `${flag}${spec.arg ? ` ${spec.arg}` : ""}`;
  return `${spec.required ? word : `[${word}]`}${spec.multiple ? "..." : ""}`;
}

/** `usage: umpire NAME <positionals> [--option ARG]...`, every option listed, wrapped under the first word. */
export function usageLine(definition: CommandDefinition<Record<string, CommandOption>>): string {
  const head = `usage: umpire ${definition.name}`;
  const words = [
    ...definition.positionals.map(positionalText),
    ...Object.entries(definition.options).map(([n, s]) => optionText(n, s)),
  ];
  if (definition.passThrough) words.push(`${definition.passThrough.word} [${definition.passThrough.args}...]`);
  const lines = [head];
  for (const word of words) {
    if (lines.at(-1)!.length + 1 + word.length > USAGE_WIDTH) lines.push(" ".repeat(head.length));
    lines[lines.length - 1] += ` ${word}`;
  }
  return lines.join("\n");
}

export function helpText(definition: CommandDefinition<Record<string, CommandOption>>): string {
  const sections = definition.sections ?? { "": definition.options };
  const epilogue = definition.epilogue ? `\n${definition.epilogue.replace(/\n*$/, "")}\n` : "";
  const description = definition.description.replace(/\n*$/, "");
  return `${usageLine(definition)}\n\n${description}\n\noptions:\n${optionsHelp(sections)}${epilogue}`;
}

function checkPositionals(definition: CommandDefinition<Record<string, CommandOption>>, given: string[]): void {
  const { name, positionals } = definition;
  const min = positionals.filter((p) => p.required).length;
  const max = positionals.some((p) => p.variadic) ? Infinity : positionals.length;
  if (given.length >= min && given.length <= max) return;
  const wanted = positionals.length === 0 ? "no arguments" : positionals.map(positionalText).join(" ");
  const got = given.length ? `got ${given.join(" ")}` : "got none";
  throw new UmpireError(
    "usage",
    `${name} takes ${wanted}, ${got}`,
    `${definition.example ? `e.g. ${definition.example}; ` : ""}umpire ${name} --help lists the options`,
  );
}

function checkRequired(
  definition: CommandDefinition<Record<string, CommandOption>>,
  values: Record<string, unknown>,
): void {
  for (const [option, spec] of Object.entries(definition.options)) {
    if (!spec.required || values[option] !== undefined) continue;
    const hint = definition.example
      ? `e.g. ${definition.example}`
      : `umpire ${definition.name} --help lists the options`;
    throw new UmpireError("usage", `${definition.name} needs --${option}${spec.arg ? ` ${spec.arg}` : ""}`, hint);
  }
}

/** `argv` without the command's retired flags (before `--` or the pass-through word), each noted on stderr once. */
function withoutRetired(
  definition: CommandDefinition<Record<string, CommandOption>>,
  argv: readonly string[],
  io: CommandIO,
): string[] {
  const retired = definition.retired ?? {};
  const ends = [argv.indexOf("--"), definition.passThrough ? argv.indexOf(definition.passThrough.word) : -1];
  const end = Math.min(...ends.map((i) => (i < 0 ? argv.length : i)));
  const noted = new Set<string>();
  return argv.filter((arg, i) => {
    const name = arg.startsWith("--") ? arg.slice(2) : "";
    if (i >= end || !Object.hasOwn(retired, name)) return true;
    if (!noted.has(name)) io.stderr.write(`umpire ${definition.name}: --${name}: ${retired[name]}\n`);
    noted.add(name);
    return false;
  });
}

/**
 * A command from its definition: parses `argv` against the options (flags, then the config
 * file's defaults, then built-in defaults), answers `--help`, checks the positionals' count and
 * the required options, then hands the parsed values to `run`.
 */
export function defineCommand<const S extends Record<string, CommandOption>>(
  definition: CommandDefinition<S>,
): DefinedCommand<S> {
  const loose = definition as unknown as CommandDefinition<Record<string, CommandOption>>;
  const command: Command = async (given, io) => {
    const argv = withoutRetired(definition, given, io);
    const split = definition.passThrough ? argv.indexOf(definition.passThrough.word) : -1;
    const parsed = parseCommand(definition.name, split < 0 ? argv : argv.slice(0, split), definition.options, io);
    if (parsed.help) {
      io.stdout.write(helpText(loose));
      return EXIT.ok;
    }
    checkPositionals(loose, parsed.positionals);
    checkRequired(loose, parsed.values as Record<string, unknown>);
    return definition.run(parsed, io, split < 0 ? null : argv.slice(split + 1));
  };
  return Object.assign(command, { definition });
}
