/**
 * Where imported tasks run: the target the Playwright config describes (`use.baseURL`, `webServer`),
 * merged into the project's umpire.config.yaml. A declared target that serves the same base URL (or
 * the same start command on a `${PORT}` base URL) is reused, with its marks; otherwise a new target
 * is declared from the webServer. Marks that several imported tests use are declared once on the
 * target; a mark equal to one the target already declares takes that mark's name.
 */
import path from "node:path";
import { isMap, parseDocument, type Document } from "yaml";
import type { MarkDecl, TargetDeclInput } from "../task/target-decl.js";
import type { MarkDeclaration } from "./locator.js";
import { slug } from "./locator.js";
import type { RecordedWebServer, Recording } from "./recording.js";
import type { ApiCall } from "./translate.js";

export interface TargetPlan {
  name: string;
  reused: boolean;
  /** The target's test-id attribute (a test id is a mark with no declaration when Playwright's is the same). */
  testIdAttribute: string;
  /** The declaration written for a new target. */
  decl?: TargetDeclInput;
  /** The target's marks as declared (reused ones), by name. */
  marks: Record<string, MarkDecl>;
}

type Declared = Record<string, TargetDeclInput>;

const noSlash = (url: string) => url.replace(/\/+$/, "");

function commandOf(decl: TargetDeclInput): string | null {
  const command = decl.start?.command;
  return command === undefined ? null : Array.isArray(command) ? command.join(" ") : command;
}

/** A declared base URL matches: the same URL, or the same with `${PORT}` standing for the port and the same start command. */
export function declaredMatches(decl: TargetDeclInput, baseURL: string, webServerCommand: string | null): boolean {
  if (noSlash(decl.baseUrl) === noSlash(baseURL)) return true;
  if (!decl.baseUrl.includes("${PORT}")) return false;
  const pattern = new RegExp(
    `^${noSlash(decl.baseUrl)
      .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      .replace(/\\\$\\\{PORT\\\}/g, "\\d+")}$`,
  );
  return pattern.test(noSlash(baseURL)) && webServerCommand !== null && commandOf(decl) === webServerCommand;
}

/**
 * The webServer with its port as `${PORT}` wherever the port it was given appears (the URL, the
 * command, `env`): umpire then picks a free port per run, as it must for a pool or a parallel run.
 * A server whose port appears nowhere but the URL is taken to listen there whatever it is told.
 */
export function portAsVariable(
  baseURL: string,
  server: RecordedWebServer | null,
): { baseUrl: string; command?: string; env?: Record<string, string>; readyUrl?: string } {
  let port = "";
  try {
    port = new URL(baseURL).port;
  } catch {
    // Not a URL: kept as written.
  }
  const env = { ...(server?.env ?? {}) };
  const inEnv = Object.entries(env).filter(([, v]) => v === port);
  const wordPort = new RegExp(`(?<![\\d])${port}(?![\\d])`, "g");
  const inCommand = port !== "" && server !== null && new RegExp(wordPort.source).test(server.command);
  if (!port || !server || (inEnv.length === 0 && !inCommand)) {
    return { baseUrl: noSlash(baseURL), command: server?.command, env: server?.env, readyUrl: server?.url };
  }
  // PORT is what umpire sets itself; another variable that carried the port now reads it.
  for (const [name] of inEnv) {
    if (name === "PORT") delete env[name];
    else env[name] = "${PORT}";
  }
  const withPort = (text: string) => text.replace(new RegExp(`:${port}(?![\\d])`), ":${PORT}");
  return {
    baseUrl: withPort(noSlash(baseURL)),
    command: server.command.replace(wordPort, "${PORT}"),
    env,
    ...(server.url
      ? { readyUrl: sameOrigin(server.url, baseURL) ? new URL(server.url).pathname : withPort(server.url) }
      : {}),
  };
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

export function planTarget(
  recording: Recording,
  declared: Declared,
  umpireDir: string,
  fallbackName: string,
  reset: ApiCall | null = null,
): TargetPlan {
  const project = recording.projects.find((p) => p.baseURL) ?? recording.projects[0];
  const baseURL = project?.baseURL ?? recording.webServer?.url ?? "";
  const playwrightTestId = project?.testIdAttribute ?? "data-testid";
  const server = recording.webServer;
  const ported = portAsVariable(baseURL, server);
  const found = Object.entries(declared).find(
    ([, decl]) =>
      declaredMatches(decl, baseURL, server?.command ?? null) ||
      (ported.command !== undefined && declaredMatches(decl, baseURL, ported.command)),
  );
  if (found) {
    const [name, decl] = found;
    return {
      name,
      reused: true,
      testIdAttribute: decl.testIdAttribute ?? "data-testid",
      marks: (decl.marks ?? {}) as Record<string, MarkDecl>,
    };
  }
  let name = slug(fallbackName).replace(/[^a-z0-9-]/g, "") || "app";
  if (name === "fixture") name = "fixture-app";
  for (let n = 2; Object.hasOwn(declared, name); n++) name = `${slug(fallbackName)}-${n}`;
  const configDir = recording.configFile ? path.dirname(recording.configFile) : recording.rootDir;
  const cwd = server ? path.relative(umpireDir, server.cwd ?? configDir) : "";
  const decl: TargetDeclInput = {
    baseUrl: ported.baseUrl,
    ...(server
      ? {
          start: {
            command: ported.command ?? server.command,
            ...(cwd ? { cwd } : {}),
            ...(ported.env && Object.keys(ported.env).length ? { env: ported.env } : {}),
            ...(ported.readyUrl ? { readyUrl: ported.readyUrl } : {}),
          },
        }
      : {}),
    // The suite's beforeEach reset (`request.post("/__reset")`) is what every trial needs before it too.
    reset: reset ? { kind: "http", method: reset.method as "POST", url: reset.url } : { kind: "none" },
    ...(playwrightTestId !== "data-testid" ? { testIdAttribute: playwrightTestId } : {}),
    isolated: false,
  };
  return { name, reused: false, testIdAttribute: playwrightTestId, decl, marks: {} };
}

const keyOf = (decl: MarkDeclaration | MarkDecl) =>
  JSON.stringify(
    "selector" in decl
      ? { selector: decl.selector }
      : { role: decl.role, name: decl.name ?? null, exact: decl.exact === true },
  );

export interface MarkPlan {
  /** Per task: its mark names renamed (to a target mark's name) and the marks left to declare in the task. */
  rename: Map<string, string>[];
  taskMarks: Record<string, MarkDeclaration>[];
  /** New marks to declare on the target (shared by two tests or more). */
  targetMarks: Record<string, MarkDeclaration>;
}

/** Shares marks: equal to a target mark -> its name; used by two tests or more -> declared on the target; else on the task. */
export function planMarks(
  perTask: readonly Map<string, MarkDeclaration | null>[],
  targetMarks: Record<string, MarkDecl>,
): MarkPlan {
  const byKey = new Map(Object.entries(targetMarks).map(([name, decl]) => [keyOf(decl), name]));
  const uses = new Map<string, number>();
  for (const marks of perTask)
    for (const decl of marks.values()) if (decl) uses.set(keyOf(decl), (uses.get(keyOf(decl)) ?? 0) + 1);
  const taken = new Set(Object.keys(targetMarks));
  const added: Record<string, MarkDeclaration> = {};
  const rename: Map<string, string>[] = [];
  const taskMarks: Record<string, MarkDeclaration>[] = [];
  for (const marks of perTask) {
    const names = new Map<string, string>();
    const own: Record<string, MarkDeclaration> = {};
    for (const [name, decl] of marks) {
      if (!decl) continue;
      const key = keyOf(decl);
      const shared = byKey.get(key);
      if (shared) names.set(name, shared);
      else if ((uses.get(key) ?? 0) > 1) {
        let unique = name;
        for (let n = 2; taken.has(unique); n++) unique = `${name}-${n}`;
        taken.add(unique);
        byKey.set(key, unique);
        added[unique] = decl;
        names.set(name, unique);
      } else own[name] = decl;
    }
    rename.push(names);
    taskMarks.push(own);
  }
  return { rename, taskMarks, targetMarks: added };
}

/** The config file's text with the target (when new) and its new marks added; comments and order kept. */
export function mergeConfig(text: string, plan: TargetPlan, marks: Record<string, MarkDeclaration>): string {
  const doc: Document = parseDocument(text || "targets:\n");
  const targets = doc.get("targets");
  // An empty `targets: {}` (or `targets:`) becomes a block map as the rest of a config is written.
  if (!isMap(targets) || targets.items.length === 0) doc.set("targets", doc.createNode({}, { flow: false }));
  if (!plan.reused) doc.setIn(["targets", plan.name], doc.createNode(plan.decl));
  for (const [name, decl] of Object.entries(marks))
    doc.setIn(["targets", plan.name, "marks", name], doc.createNode(decl, { flow: true }));
  // No line width: a long command or comment the user wrote is not folded onto two lines.
  return doc.toString({ lineWidth: 0 });
}
