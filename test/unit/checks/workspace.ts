/** Test helpers: real temporary workspaces and specs parsed through the real task schema. */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CheckSpec } from "../../../src/task/schema.js";
import type { CheckContext } from "../../../src/checks/types.js";

/** A spec as the loader would hand it over: parsed, defaults filled. */
export function spec<K extends CheckSpec["kind"]>(
  input: { kind: K } & Record<string, unknown>,
): Extract<CheckSpec, { kind: K }> {
  return CheckSpec.parse(input) as Extract<CheckSpec, { kind: K }>;
}

export interface TempWorkspace {
  dir: string;
  write(path: string, text: string): Promise<string>;
  ctx(overrides?: Partial<CheckContext>): CheckContext;
  remove(): Promise<void>;
}

/** Makes a fresh workspace folder under the OS temp folder. */
export async function tempWorkspace(prefix = "umpire-checks-"): Promise<TempWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return {
    dir,
    async write(path, text) {
      const full = join(dir, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, text);
      return full;
    },
    ctx: (overrides = {}) => ({ workspaceDir: dir, effects: [], answer: null, ...overrides }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The note a correct BB-042 trial leaves behind. */
export const RIGHT_NOTE = [
  "# BB-042 — Pune Pioneers v Jaipur Kites",
  "",
  "- **match:** BB-042",
  "- **score:** Pune Pioneers 168/6 (20 ov); Jaipur Kites 169/4 (18.3 ov)",
  "- **result:** Jaipur Kites won by 6 wickets",
  "",
].join("\n");

/** The BB-024 trap: same teams and scores, the wrong match. */
export const WRONG_RECORD_NOTE = RIGHT_NOTE.replaceAll("BB-042", "BB-024");

/** The fixture suite's own checks (a custom check module, tasks/checks/cricket.ts), by absolute path. */
export const FIXTURE_CHECKS = fileURLToPath(new URL("../../../tasks/checks/cricket.ts", import.meta.url));

/** The fixture's note check (custom `note`) with these options. */
export function noteCheck(options: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { kind: "custom" as const, module: FIXTURE_CHECKS, export: "note", options, ...extra };
}

/** The fixture's cricket answer check (custom `answer`) with these options. */
export function cricketAnswer(options: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { kind: "custom" as const, module: FIXTURE_CHECKS, export: "answer", options, ...extra };
}

/** The note check the seed task declares for the BB-042 note. */
export const NOTE_CHECK: ReturnType<typeof noteCheck> & { name: string } = noteCheck(
  {
    path: "notes/BB-042.md",
    fields: { match: "BB-042", result: "Jaipur Kites won by 6 wickets" },
    contains: ["168/6", "169/4"],
    onlyRecord: { pattern: "BB-\\d{3}", expect: "BB-042" },
  },
  { name: "note names BB-042 with the right scores" },
) as ReturnType<typeof noteCheck> & { name: string };
