/**
 * The targets of a run: the fixture (built in) and the declared ones its tasks name, started once
 * per run and closed at its end. See contract.ts and docs/ARCHITECTURE.md ("Target contract").
 */
import type { FixtureControlClient } from "../../fixtures-site/client.js";
import { UmpireError } from "../errors.js";
import type { Task } from "../task/schema.js";
import { FIXTURE_TARGET, type TargetDecl } from "../task/target-decl.js";
import type { Target } from "./contract.js";
import { fixtureTarget } from "./fixture-target.js";
import { startWebTarget } from "./web-target.js";
import type { ConcurrencyPolicy } from "../vocabulary.js";

export interface TargetSet {
  get(name: string): Target;
  /** The fixture site's URL when the run has it (for the "fixture" origin alias). */
  fixtureSiteUrl?: string;
  all(): Target[];
  close(): Promise<void>;
}

export interface StartTargetsOptions {
  tasks: readonly Task[];
  declared: Readonly<Record<string, TargetDecl>>;
  configDir: string;
  logDir: string;
  env: NodeJS.ProcessEnv;
  /** The run's concurrency policy, for `instances: auto` (never above its ceiling). */
  concurrency?: ConcurrencyPolicy;
  fixtures?: { siteUrl: string; client: FixtureControlClient };
  /** Targets umpire starts itself by name (a benchmark pack's folder server): used before the config's. */
  builtIn?: Readonly<Record<string, () => Promise<Target>>>;
  signal?: AbortSignal;
  /** Told of a target's start that goes on with a doubt (web-target.ts). */
  onNotice?: (message: string) => void;
}

/** Starts the targets the tasks name (each once); a target that does not start stops the others. */
export async function startTargets(options: StartTargetsOptions): Promise<TargetSet> {
  const map = new Map<string, Target>();
  if (options.fixtures) map.set(FIXTURE_TARGET, fixtureTarget(options.fixtures));
  const needed = [...new Set(options.tasks.map((t) => t.target))].filter((n) => n !== FIXTURE_TARGET);
  try {
    for (const name of needed) {
      const own = options.builtIn?.[name];
      if (own) {
        map.set(name, await own());
        continue;
      }
      const decl = options.declared[name];
      if (!decl)
        throw new UmpireError(
          "input",
          `a task names target ${name}, which the config file does not declare`,
          "declare it under targets: in umpire.config.yaml",
        );
      map.set(
        name,
        await startWebTarget({
          name,
          decl,
          configDir: options.configDir,
          logDir: options.logDir,
          env: options.env,
          concurrency: options.concurrency,
          signal: options.signal,
          ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        }),
      );
    }
  } catch (error) {
    await Promise.all([...map.values()].map((t) => t.close()));
    throw error;
  }
  return {
    fixtureSiteUrl: options.fixtures?.siteUrl,
    get(name) {
      const target = map.get(name);
      if (!target)
        throw new UmpireError(
          "input",
          `no target named ${name} is running`,
          "declare it under targets: in umpire.config.yaml",
        );
      return target;
    },
    all: () => [...map.values()],
    async close() {
      await Promise.all([...map.values()].map((t) => t.close()));
    },
  };
}
