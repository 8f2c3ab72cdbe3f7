/**
 * `umpire lint <request.json>...`: checks recorded requests against the rules of the API each was
 * sent to (the same lint the reference model runs on every request): chat completions (Holo, Qwen,
 * UI-TARS), the Responses API (OpenAI computer use), the Messages API (Anthropic) or generateContent
 * (Gemini). A file holds the request body, or `{body, headers?, path?}` such as an entry of the
 * reference model's log; which API is decided by `--api`, else the path, else the body's shape
 * (src/sim/request-api.ts). A file that cannot be read or told apart is an error of its own: the
 * other files are still checked. Exit 0 when every file is conformant, 1 when any breaks a rule,
 * 2 when any file could not be checked.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { ProtocolApi } from "../../agent/protocols/protocol.js";
import { UmpireError, messageOf } from "../../errors.js";
import { LINT_RULES, type LintRule, type Violation } from "../../sim/lint.js";
import { LINT_RULE_FAMILIES, ruleApis } from "../../sim/lint-families.js";
import { type ApiDecision, decideApi, lintAs, REQUEST_APIS, recordedRequest } from "../../sim/request-api.js";
import { isRecord } from "../../sim/request.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";

const OPTIONS = {
  api: {
    kind: "enum",
    arg: "API",
    values: REQUEST_APIS,
    help: `${REQUEST_APIS.join(" | ")}:\ncheck every file as a request of this API (default: the file's path, else its shape)`,
  },
  json: { kind: "boolean", help: "print {file, api, decidedBy, violations} objects (or {file, error}) as JSON" },
  rules: { kind: "boolean", help: "list the rules, the family and API each belongs to, and what each checks" },
} as const;

export const run = defineCommand({
  name: "lint",
  options: OPTIONS,
  positionals: [{ name: "request.json", variadic: true }],
  example: "umpire lint request.json",
  description: `Forms: umpire lint <request.json>... [--api API] [--json], or umpire lint --rules [--json].
Checks recorded request bodies against the documented rules of the API each was sent to:
chat-completions (Holo's agent-loop conventions, Qwen, UI-TARS), responses (OpenAI computer use),
messages (Anthropic computer use) or generate-content (Gemini computer use).
A file holds the request body, or {"body": ..., "headers": ..., "path": ...} (an entry of the
reference model's log is one). The API is --api's, else the path's (/chat/completions, /responses,
/messages, /v1beta/models/M:generateContent), else the body's shape; a body that could be for more
than one API is refused, naming the file: name its API with --api. Rules on headers (anthropic-beta,
Authorization) are checked only when the file records the headers.
Exit 0 when every file is conformant, 1 when any breaks a rule, 2 when any could not be checked
(unreadable, not JSON, not an object, API unknown); the other files are still checked.`,
  run: execute,
});

type FileResult =
  | { file: string; api: ProtocolApi; decidedBy: "--api" | "path" | "shape"; violations: Violation[] }
  | { file: string; api: null; error: { message: string; fix: string } };

/** The file's JSON, or the UmpireError that says why there is none. */
async function readRecorded(file: string, path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
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

function undecided(file: string, decision: Extract<ApiDecision, { api: null }>): UmpireError {
  return new UmpireError(
    "input",
    `${file}: cannot tell which API this request is for: ${decision.problem}`,
    `pass ${decision.candidates.map((api) => `--api ${api}`).join(" or ")} (umpire lint --api ${decision.candidates[0]} ${file}), or record {"body", "path"} with the URL path it was sent to`,
  );
}

async function checkFile(file: string, io: CommandIO, forced: ProtocolApi | undefined): Promise<FileResult> {
  try {
    const recorded = await readRecorded(file, resolve(io.cwd, file));
    const request = recordedRequest(recorded);
    if (!isRecord(request.body))
      throw new UmpireError(
        "input",
        `${file}: not a request: the JSON is ${Array.isArray(request.body) ? "an array" : typeof request.body === "object" ? "null" : `a ${typeof request.body}`}, not an object`,
        'The file must hold one request body (a JSON object), or {"body": {...}, "headers": {...}}.',
      );
    const decision = decideApi(request, forced);
    if (decision.api === null) throw undecided(file, decision);
    return { file, api: decision.api, decidedBy: decision.by, violations: lintAs(decision.api, request) };
  } catch (error) {
    if (!(error instanceof UmpireError)) throw error;
    io.stderr.write(`umpire: ${error.message}\n${error.hint ? `  fix: ${error.hint}\n` : ""}`);
    return { file, api: null, error: { message: error.message, fix: error.hint ?? "" } };
  }
}

function listRules(io: CommandIO, json: boolean): number {
  const rules = (Object.keys(LINT_RULES) as LintRule[]).map((rule) => ({
    rule,
    apis: ruleApis(rule),
    families: LINT_RULE_FAMILIES[rule],
    text: LINT_RULES[rule],
  }));
  if (json) {
    io.stdout.write(`${JSON.stringify(rules, null, 2)}\n`);
    return EXIT.ok;
  }
  const label = (r: (typeof rules)[number]) =>
    r.apis.length === REQUEST_APIS.length ? "every API" : `${r.apis.join(", ")}: ${r.families.join(", ")}`;
  const width = Math.max(...rules.map((r) => r.rule.length));
  const labelWidth = Math.max(...rules.map((r) => label(r).length));
  io.stdout.write(
    `${rules.map((r) => `${r.rule.padEnd(width)}  ${label(r).padEnd(labelWidth)}  ${r.text}`).join("\n")}\n`,
  );
  return EXIT.ok;
}

const DECIDED_BY = { "--api": "--api", path: "by its path", shape: "by its shape" } as const;

function writeText(results: FileResult[], io: CommandIO): void {
  for (const result of results) {
    if (result.api === null) continue; // said on stderr as it happened
    const as = `as ${result.api}, ${DECIDED_BY[result.decidedBy]}`;
    const { file, violations } = result;
    if (violations.length === 0) {
      io.stdout.write(`${file}: conformant (${as})\n`);
      continue;
    }
    io.stdout.write(`${file}: ${violations.length} violation${violations.length === 1 ? "" : "s"} (${as})\n`);
    for (const v of violations) io.stdout.write(`  ${v.rule}  ${v.path}\n    ${v.message}\n`);
  }
}

async function execute({ values, positionals }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  if (values.rules) return listRules(io, values.json === true);
  if (positionals.length === 0)
    throw new UmpireError("usage", "lint: no request file given", "e.g. umpire lint request.json");

  const forced = values.api as ProtocolApi | undefined;
  const results: FileResult[] = [];
  for (const file of positionals) results.push(await checkFile(file, io, forced));
  if (values.json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else writeText(results, io);
  if (results.some((r) => r.api === null)) return EXIT.usage;
  return results.some((r) => r.api !== null && r.violations.length > 0) ? EXIT.failed : EXIT.ok;
}
