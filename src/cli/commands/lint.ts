/**
 * `umpire lint <request.json>...`: checks recorded chat-completions requests against the Holo
 * conventions (the same lint the reference model runs on every request). A file holds either
 * the request body itself or an object with `body` (and optionally `headers`), such as an entry
 * of the reference model's log. Exit 0 when every file is conformant, 1 when any breaks a rule.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { UmpireError, messageOf } from "../../errors.js";
import { LINT_RULES, lintRequest, type RequestHeaders, type Violation } from "../../sim/lint.js";
import { EXIT } from "../exit-codes.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandIO } from "../io.js";

const OPTIONS = {
  json: { kind: "boolean", help: "print {file, violations} objects as JSON" },
  rules: { kind: "boolean", help: "list the rules and what each checks" },
} as const;

export const run = defineCommand({
  name: "lint",
  options: OPTIONS,
  positionals: [{ name: "request.json", variadic: true }],
  example: "umpire lint request.json",
  description: `Forms: umpire lint <request.json>... [--json], or umpire lint --rules.
Checks recorded chat-completions request bodies against the Holo agent-loop conventions.
A file holds the request body, or {"body": ..., "headers": ...}.`,
  run: execute,
});

/** The body (and headers) inside a recorded request file. */
function unwrap(recorded: unknown): { body: unknown; headers?: RequestHeaders } {
  if (recorded && typeof recorded === "object" && !Array.isArray(recorded)) {
    const r = recorded as Record<string, unknown>;
    if (!("messages" in r) && r.body && typeof r.body === "object") {
      const headers = r.headers && typeof r.headers === "object" ? (r.headers as RequestHeaders) : undefined;
      return { body: r.body, headers };
    }
  }
  return { body: recorded };
}

async function readRequest(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UmpireError(
      "input",
      `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`,
      "Give the path of a JSON file holding a request body.",
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UmpireError(
      "input",
      `${file}: not valid JSON (${messageOf(error)})`,
      "The file must hold one JSON request body.",
    );
  }
}

async function execute({ values, positionals }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  if (values.rules) {
    const width = Math.max(...Object.keys(LINT_RULES).map((r) => r.length));
    io.stdout.write(
      `${Object.entries(LINT_RULES)
        .map(([rule, text]) => `${rule.padEnd(width)}  ${text}`)
        .join("\n")}\n`,
    );
    return EXIT.ok;
  }
  if (positionals.length === 0)
    throw new UmpireError("usage", "lint: no request file given", "e.g. umpire lint request.json");

  const results: { file: string; violations: Violation[] }[] = [];
  for (const file of positionals) {
    const { body, headers } = unwrap(await readRequest(resolve(io.cwd, file)));
    results.push({ file, violations: lintRequest(body, headers) });
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    for (const { file, violations } of results) {
      if (violations.length === 0) {
        io.stdout.write(`${file}: conformant\n`);
        continue;
      }
      io.stdout.write(`${file}: ${violations.length} violation${violations.length === 1 ? "" : "s"}\n`);
      for (const v of violations) io.stdout.write(`  ${v.rule}  ${v.path}\n    ${v.message}\n`);
    }
  }
  return results.some((r) => r.violations.length > 0) ? EXIT.failed : EXIT.ok;
}
