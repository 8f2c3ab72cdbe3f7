/**
 * A problem found while loading task files: one file, one dotted path, one message a person can
 * act on. Loading reports every problem at once instead of stopping at the first.
 */

export type Severity = "error" | "warning";

/** A path into the task file's data, as the parser and zod give it: keys and array indexes. */
export type DataPath = ReadonlyArray<string | number>;

/** What one rule finds in one task, before it is placed in a file and a line (a `Problem`). */
export interface RuleFinding {
  path: DataPath;
  message: string;
  fix?: string;
  severity: Severity;
  /** The finding concerns the key at `path` rather than its value. */
  atKey?: boolean;
}

export interface Problem {
  /** The task file, relative to the working directory when it lies inside it. */
  file: string;
  /** 1-based line in the file, when the path could be located. */
  line?: number;
  /** Dotted path into the file, e.g. `checks[2].path`; empty for the file as a whole. */
  path: string;
  message: string;
  /** How to fix it, in words. */
  fix?: string;
  severity: Severity;
  /** The rule that found it: `yaml`, `schema`, or a named rule from rules.ts. */
  rule: string;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `["checks", 2, "path"]` -> `checks[2].path`; odd keys are quoted: `fields["a b"]`. */
export function dottedPath(path: DataPath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === "error");
}
