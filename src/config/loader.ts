/**
 * Finds and reads the config file with the task files' error quality: every problem at once, each
 * with the file, the line, the dotted path, and a fix (did-you-mean for a misspelt key). YAML and
 * JSON go through one loader: JSON for the data when the file is `.json` (its own syntax
 * messages), the YAML parser for the lines (YAML reads JSON too).
 */
import fs from "node:fs";
import path from "node:path";
import { UmpireError, messageOf } from "../errors.js";
import { formatProblem, formatProblems } from "../task/format-problems.js";
import { dottedPath, type Problem } from "../task/problem.js";
import { parseYamlSource } from "../task/yaml-source.js";
import { plainIssues } from "../task/zod-issues.js";
import { agentProtocolNotices, agentProtocolProblems, type AgentProtocolProblem } from "./agent-protocol.js";
import { protocolMarkupIn, type ModelAgentDefinition } from "./agents.js";
import { CONFIG_FILE_NAMES, ConfigFileSchema, type ConfigFile } from "./schema.js";

export interface LoadedConfig {
  /** The file as shown to the user (relative to the working folder when inside it); null when there is none. */
  file: string | null;
  /** The validated content; `{}` without a file. */
  data: ConfigFile;
  /** Each named agent's policy text, read from its `systemPrompt` file (relative to the config file). */
  policies: Record<string, string>;
  /**
   * What the file may mean otherwise than it says, without being refused (severity `warning`, with
   * the file, line and dotted path): a named agent's `computerTool` forcing a version its model id is
   * not documented with. `umpire validate` lists them, `umpire run` prints those of its agents. Absent when none.
   */
  notices?: Problem[];
}

const SCHEMA_HINT = "docs/config.md describes every key; schema/config.schema.json lets an editor check the file";

function displayPath(absolute: string, cwd: string): string {
  const relative = path.relative(cwd, absolute);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : absolute;
}

/** The config file to read: `explicit` (must exist), else the one umpire.config.* in `cwd`, else none. */
export function findConfigFile(cwd: string, explicit?: string): string | null {
  if (explicit !== undefined) {
    const file = path.resolve(cwd, explicit);
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
      throw new UmpireError(
        "input",
        `--config ${explicit}: no such file`,
        `pass the path of an existing config file (${CONFIG_FILE_NAMES.join(", ")})`,
      );
    }
    return file;
  }
  const found = CONFIG_FILE_NAMES.map((name) => path.join(cwd, name)).filter((file) => fs.existsSync(file));
  if (found.length > 1) {
    throw new UmpireError(
      "input",
      `two config files in ${cwd}: ${found.map((f) => path.basename(f)).join(" and ")}`,
      "keep one of them, or pick one with --config FILE",
    );
  }
  return found[0] ?? null;
}

/** Reads and validates the config file. Throws an `input` UmpireError listing every problem. */
export function loadConfig(opts: { cwd: string; file?: string }): LoadedConfig {
  const absolute = findConfigFile(opts.cwd, opts.file);
  if (absolute === null) return { file: null, data: {}, policies: {} };
  const file = displayPath(absolute, opts.cwd);
  let text: string;
  try {
    text = fs.readFileSync(absolute, "utf8");
  } catch (error) {
    throw new UmpireError(
      "input",
      `${file}: cannot read the config file (${messageOf(error)})`,
      "check the file's permissions, or pass another with --config",
    );
  }
  const problems = validateConfigText(text, file, /\.json$/i.test(absolute));
  if ("problems" in problems) throw configError(problems.problems);
  const policies = readPolicies(problems.data, absolute, file, parseYamlSource(text).lineOf);
  if ("problems" in policies) throw configError(policies.problems);
  const notices = problems.notices ?? [];
  return { file, data: problems.data, policies: policies.texts, ...(notices.length > 0 && { notices }) };
}

/**
 * Reads every named agent's `systemPrompt` file (relative to the config file's folder) and
 * refuses one that carries the protocol's own markup: the output-format block, tool-call
 * formats and the observation/task wrappers are umpire's to write, so a policy cannot redefine them.
 */
function readPolicies(
  data: ConfigFile,
  absolute: string,
  file: string,
  lineOf: ReturnType<typeof parseYamlSource>["lineOf"],
): { texts: Record<string, string> } | { problems: Problem[] } {
  const texts: Record<string, string> = {};
  const problems: Problem[] = [];
  for (const [name, agent] of Object.entries(data.agents ?? {})) {
    if (agent.kind !== "model" || agent.systemPrompt === undefined) continue;
    const at = ["agents", name, "systemPrompt"];
    const problem = (message: string, fix: string) =>
      problems.push({
        file,
        line: lineOf(at, {}),
        path: dottedPath(at),
        message,
        fix,
        severity: "error",
        rule: "agents",
      });
    const promptFile = path.resolve(path.dirname(absolute), agent.systemPrompt);
    let text: string;
    try {
      text = fs.readFileSync(promptFile, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problem(
        `cannot read ${agent.systemPrompt} (${code === "ENOENT" ? "no such file" : (code ?? messageOf(error))}; relative to the config file's folder)`,
        "write the policy text in that file, or correct the path (it is relative to the config file)",
      );
      continue;
    }
    if (text.trim() === "") {
      problem(
        `${agent.systemPrompt} is empty`,
        "write the agent's policy text in it, or remove systemPrompt to keep umpire's default policy",
      );
      continue;
    }
    const markup = protocolMarkupIn(text);
    if (markup) {
      problem(
        `${agent.systemPrompt} holds ${markup}; the protocol's parts are written by umpire, so a policy text cannot carry them`,
        "remove it from the file: keep only the agent's policy (how to behave), umpire adds the task, the observation conventions and the output format",
      );
      continue;
    }
    texts[name] = text.trim();
  }
  return problems.length > 0 ? { problems } : { texts };
}

/** Validates a config file's text; `file` is only used to label problems. */
export function validateConfigText(
  text: string,
  file: string,
  json: boolean,
): { data: ConfigFile; notices?: Problem[] } | { problems: Problem[] } {
  const problem = (message: string, fix?: string, line?: number, rule = "syntax"): Problem => ({
    file,
    line,
    path: "",
    message,
    fix,
    severity: "error",
    rule,
  });
  const source = parseYamlSource(text);
  let data: unknown;
  if (json) {
    try {
      data = JSON.parse(text);
    } catch (error) {
      return {
        problems: [
          problem(`not valid JSON (${messageOf(error)})`, 'write it as JSON, e.g. {"defaults": {"repeat": 3}}'),
        ],
      };
    }
  } else {
    if (source.problems.length > 0) return { problems: source.problems.map((p) => problem(p.message, p.fix, p.line)) };
    data = source.data;
  }
  // An empty file is an empty config: nothing to default, nothing to price.
  if (data === null || data === undefined) return { data: {} };
  if (typeof data !== "object" || Array.isArray(data)) {
    return {
      problems: [
        problem(
          `expected a mapping of sections at the top level, got ${Array.isArray(data) ? "a list" : "a single value"}`,
          "start the file with a section such as defaults: or prices:",
          1,
          "schema",
        ),
      ],
    };
  }
  const parsed = ConfigFileSchema.safeParse(data, { reportInput: true });
  const lineOf = source.problems.length === 0 ? source.lineOf : () => undefined;
  if (parsed.success) {
    const problems = agentsProtocolProblems(parsed.data, file, lineOf, agentProtocolProblems, "error");
    if (problems.length > 0) return { problems };
    const notices = agentsProtocolProblems(parsed.data, file, lineOf, agentProtocolNotices, "warning");
    return notices.length > 0 ? { data: parsed.data, notices } : { data: parsed.data };
  }
  return {
    problems: sortByLine(
      plainIssues(parsed.error.issues, ConfigFileSchema, data).map((issue) => ({
        file,
        line: lineOf(issue.path, { key: issue.atKey }),
        path: dottedPath(issue.path),
        message: issue.message,
        fix: issue.fix,
        severity: "error",
        rule: "schema",
      })),
    ),
  };
}

/**
 * Each model agent's protocol and knobs checked against its protocol's registry entry (#41): its
 * refusals (`agentProtocolProblems`, errors) or its notices (`agentProtocolNotices`, warnings).
 */
function agentsProtocolProblems(
  data: ConfigFile,
  file: string,
  lineOf: ReturnType<typeof parseYamlSource>["lineOf"],
  check: (def: ModelAgentDefinition) => AgentProtocolProblem[],
  severity: Problem["severity"],
): Problem[] {
  return Object.entries(data.agents ?? {}).flatMap(([name, agent]) =>
    agent.kind !== "model"
      ? []
      : check(agent).map((p) => {
          const at = ["agents", name, p.field];
          return {
            file,
            line: lineOf(at, { key: true }),
            path: dottedPath(at),
            message: p.message,
            fix: p.fix,
            severity,
            rule: "agents",
          };
        }),
  );
}

function sortByLine(problems: Problem[]): Problem[] {
  return problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function configError(problems: Problem[]): UmpireError {
  if (problems.length === 1) {
    const [p] = problems;
    return new UmpireError("input", formatProblem({ ...p!, fix: undefined }), p!.fix ?? SCHEMA_HINT);
  }
  return new UmpireError(
    "input",
    `the config file has ${problems.length} problems:\n${formatProblems(problems, "  ")}`,
    SCHEMA_HINT,
  );
}
