import { EFFECT_TYPES, SCENARIOS, type Task } from "./schema.js";
import { normalizeWorkspacePath } from "./normalize.js";
import type { DataPath, RuleFinding } from "./problem.js";
import { didYouMean } from "./suggest.js";
import { error, isPathOrHttpUrl, type TaskRule } from "./rule.js";

/**
 * `allowedOrigins` entries are origins: "target" (the task's target), "fixture" or scheme://host[:port] over http(s). Anything
 * else used to pass validation and then fail every trial at run time as an environment error.
 */
export function originProblem(entry: string): string | undefined {
  if (entry === "fixture" || entry === "target") return undefined;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `${JSON.stringify(entry)} is not a URL origin`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `${JSON.stringify(entry)} is not an http(s) origin (${url.protocol} pages are never on a task's origins)`;
  if (url.username || url.password)
    return `${JSON.stringify(entry)} carries credentials; an origin is scheme://host[:port] only`;
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash)
    return `${JSON.stringify(entry)} has a path, query or fragment; an origin is scheme://host[:port] only`;
  return undefined;
}

export const allowedOriginsAreOrigins: TaskRule = {
  name: "allowed-origins-are-origins",
  check: (task) =>
    task.permissions.allowedOrigins.flatMap((entry, i) => {
      const problem = originProblem(entry);
      return problem
        ? [
            error(
              ["permissions", "allowedOrigins", i],
              problem,
              'write "target", "fixture" or an origin such as https://example.com or http://127.0.0.1:8080',
            ),
          ]
        : [];
    }),
};

export const narrowToolsConfigured: TaskRule = {
  name: "narrow-tools-configured",
  check: (task) => {
    const findings: RuleFinding[] = [];
    if (task.tools.includes("write_note") && normalizeWorkspacePath(task.permissions.writeScope) === "") {
      findings.push(
        error(
          ["permissions", "writeScope"],
          "write_note is allowed but writeScope names no folder",
          "set writeScope, e.g. notes/",
        ),
      );
    }
    if (task.tools.includes("http_get") && task.permissions.httpAllow.length === 0) {
      findings.push(
        error(
          ["permissions", "httpAllow"],
          "http_get is allowed but httpAllow lists no path prefix, so every request would be refused",
          'add a prefix, e.g. httpAllow: ["/api/matches/"]',
        ),
      );
    }
    return findings;
  },
};

export const knownTarget: TaskRule = {
  name: "known-target",
  check: (task, ctx) =>
    ctx.targets.has(task.target)
      ? []
      : [
          error(
            ["target"],
            `no target named ${JSON.stringify(task.target)} is declared`,
            didYouMean(task.target, [...ctx.targets.keys()]) ??
              `declare it under targets: in umpire.config.yaml (known: ${[...ctx.targets.keys()].join(", ")})`,
          ),
        ],
};

/** Effect types a task names: in effects checks and in forbiddenEffects. */
function effectTypesOf(task: Task): { type: string; path: DataPath }[] {
  const out: { type: string; path: DataPath }[] = task.permissions.forbiddenEffects.map((type, j) => ({
    type,
    path: ["permissions", "forbiddenEffects", j],
  }));
  task.checks.forEach((check, i) => {
    if (check.kind !== "effects") return;
    check.require.forEach((r, j) => out.push({ type: r.type, path: ["checks", i, "require", j, "type"] }));
    check.forbid.forEach((r, j) => out.push({ type: r.type, path: ["checks", i, "forbid", j, "type"] }));
  });
  return out;
}

/** A task that judges effects (an effects check, permissions.forbiddenEffects) on a target with no effects source. */
function effectsWithoutSource(task: Task): RuleFinding[] {
  const declare = `declare effects: {url: ...} on target ${task.target} in umpire.config.yaml`;
  const findings: RuleFinding[] = [];
  const checkAt = task.checks.findIndex((c) => c.kind === "effects");
  if (checkAt >= 0)
    findings.push(
      error(
        ["checks", checkAt],
        `target ${task.target} has no effects source, so effects cannot be judged`,
        `${declare}, or check the app with http, storage or command checks`,
      ),
    );
  if (task.permissions.forbiddenEffects.length > 0) {
    const message = `target ${task.target} has no effects source, so forbidden effects could never be seen and would fail no trial`;
    findings.push(
      error(
        ["permissions", "forbiddenEffects"],
        message,
        `${declare}, or remove permissions.forbiddenEffects and guard the app with an http, storage or command check`,
      ),
    );
  }
  return findings;
}

/** The fixture site's own vocabulary (scenario, effect types, start path) is judged only for tasks on it. */
export const targetVocabulary: TaskRule = {
  name: "target-vocabulary",
  check: (task, ctx) => {
    const target = ctx.targets.get(task.target);
    if (!target) return [];
    const findings: RuleFinding[] = [];
    if (target.fixture) {
      if (!task.start.path.startsWith("/") || task.start.path.startsWith("//"))
        findings.push(
          error(
            ["start", "path"],
            `"${task.start.path}" is not a path on the fixture site`,
            "start it with a single /, e.g. /notes?match=BB-042",
          ),
        );
      for (const { type, path: at } of effectTypesOf(task)) {
        if (!(EFFECT_TYPES as readonly string[]).includes(type))
          findings.push(
            error(
              at,
              `the fixture site records no effect ${JSON.stringify(type)}`,
              didYouMean(type, EFFECT_TYPES) ?? `use one of ${EFFECT_TYPES.join(", ")}`,
            ),
          );
      }
      return findings;
    }
    if (task.start.scenario !== "plain")
      findings.push(
        error(
          ["start", "scenario"],
          `scenario ${task.start.scenario} belongs to the fixture site, but this task runs on target ${task.target}`,
          `remove start.scenario (scenarios: ${SCENARIOS.join(", ")} exist only on the fixture)`,
        ),
      );
    if (!isPathOrHttpUrl(task.start.path))
      findings.push(
        error(
          ["start", "path"],
          `"${task.start.path}" is neither a path on ${task.target} nor an http(s) URL`,
          "e.g. path: / or path: http://127.0.0.1:3000/app",
        ),
      );
    if (!target.hasEffects) findings.push(...effectsWithoutSource(task));
    return findings;
  },
};
