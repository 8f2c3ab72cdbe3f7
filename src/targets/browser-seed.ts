/**
 * A declared target's `context:` made concrete for one trial: cookies, extra headers and storage seeds
 * with the trial variables filled in (and ${env:NAME} secrets in headers and cookie values), plus a
 * Playwright storage-state file. A namespaced app then tells trials apart, so they run in parallel.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { BrowserContextDecl } from "../task/target-decl.js";
import { substituteTrialVars, type TrialVars } from "../task/trial-vars.js";
import { TargetResetError, type OriginStorage, type TargetCookie, type TrialBrowserSeed } from "./contract.js";
import { withEnvSecrets } from "./env-secrets.js";
import { messageOf } from "../errors.js";

export interface SeedOptions {
  vars: TrialVars;
  /** The target's base URL: cookies and storage seeds belong to its origin. */
  base: URL;
  /** storageState resolves against the config file's folder. */
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** Names the declaration in errors, e.g. "target notes context". */
  where: string;
}

interface StorageStateFile {
  cookies?: TargetCookie[];
  origins?: { origin: string; localStorage?: { name: string; value: string }[] }[];
}

function readStorageState(file: string, where: string): StorageStateFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new TargetResetError(`${where}: the storage state ${file} could not be read as JSON: ${messageOf(error)}`);
  }
  const state = parsed as StorageStateFile;
  if (
    !state ||
    typeof state !== "object" ||
    (state.cookies && !Array.isArray(state.cookies)) ||
    (state.origins && !Array.isArray(state.origins))
  ) {
    throw new TargetResetError(
      `${where}: the storage state ${file} is not {cookies: [...], origins: [...]} (Playwright's storageState format)`,
    );
  }
  return state;
}

export function browserSeed(decl: BrowserContextDecl, options: SeedOptions): TrialBrowserSeed {
  const { vars, base, env, where } = options;
  const fill = (text: string) => substituteTrialVars(text, vars);
  const secretFill = (text: string) => withEnvSecrets(fill(text), env, where);
  const cookies: TargetCookie[] = decl.cookies.map((c) => ({
    name: fill(c.name),
    value: secretFill(c.value),
    domain: base.hostname,
    path: fill(c.path),
  }));
  const localStorage: OriginStorage[] = [];
  if (decl.storageState) {
    const state = readStorageState(path.resolve(options.configDir, fill(decl.storageState)), where);
    cookies.push(...(state.cookies ?? []));
    for (const o of state.origins ?? []) {
      localStorage.push({
        origin: o.origin,
        items: Object.fromEntries((o.localStorage ?? []).map((i) => [i.name, i.value])),
      });
    }
  }
  const declaredLocal = Object.entries(decl.localStorage).map(([k, v]) => [k, fill(v)] as const);
  if (declaredLocal.length) localStorage.push({ origin: base.origin, items: Object.fromEntries(declaredLocal) });
  const session = Object.entries(decl.sessionStorage).map(([k, v]) => [k, fill(v)] as const);
  return {
    cookies,
    headers: Object.fromEntries(Object.entries(decl.headers).map(([k, v]) => [k.toLowerCase(), secretFill(v)])),
    localStorage,
    sessionStorage: session.length ? [{ origin: base.origin, items: Object.fromEntries(session) }] : [],
  };
}
