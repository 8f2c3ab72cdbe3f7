/**
 * `--resume` and `--last-failed` rebuild a stored run's agents with one function, `restoreAgents`,
 * from the run's options as the store reads them back (`readStoredRun`): a run stored by an earlier
 * umpire (no named agents, numbers stored as text) gets its unnamed agent back with today's flags
 * on top, and a run whose base URL carried credentials asks for the URL again under either flag.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { restoreAgents, type AgentRequest } from "../../../src/cli/run/agents.js";
import { readStoredRun } from "../../../src/cli/run/select.js";
import { openStore } from "../../../src/store/open.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-restore-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function storedRunWith(options: Record<string, unknown>) {
  const file = join(dir, "umpire.db");
  const store = openStore(file);
  const id = store.createRun({ umpireVersion: "0.1.0", options: {} }).id;
  store.close();
  // Written as an earlier umpire wrote it, past today's typed createRun.
  const db = new Database(file);
  db.prepare("UPDATE runs SET options = ? WHERE id = ?").run(JSON.stringify(options), id);
  db.close();
  const reader = openStore(file, { readonly: true });
  try {
    return readStoredRun(reader, id, "--resume");
  } finally {
    reader.close();
  }
}

function request(values: AgentRequest["values"] = {}, sources: AgentRequest["sources"] = {}): AgentRequest {
  return {
    values,
    sources,
    config: { file: null, data: {}, policies: {} },
    cwd: dir,
    env: {},
    loopDefaults: { repetitionWindow: 3, recoveryLimit: 1, maxInvalidOutputs: 3 },
  };
}

describe("restoreAgents", () => {
  it("rebuilds the unnamed agent of a run stored before named agents existed, today's flags on top", () => {
    const run = storedRunWith({
      paths: [],
      agentOptions: { model: ["reference"], mode: "structured", temperature: "0.5" },
      repeat: 1,
      agents: [],
    });
    const restored = restoreAgents(run, "--resume", request());
    expect(restored.unnamedAgents).toBe(true);
    expect(restored.agents.map((a) => [a.label, a.temperature])).toEqual([["reference/structured", 0.5]]);
    expect(restored.commandAgents).toEqual([]);
    const flagged = restoreAgents(run, "--last-failed", request({ temperature: 0.2 }, { temperature: "flag" }));
    expect(flagged.agents.map((a) => [a.label, a.temperature])).toEqual([["reference/structured", 0.2]]);
    expect(flagged.agentValues).toMatchObject({ model: ["reference"], mode: "structured", temperature: 0.2 });
  });

  it("runs no unnamed agent when the run had none", () => {
    const run = storedRunWith({ agentOptions: {}, agents: [], unnamedAgents: false });
    expect(restoreAgents(run, "--resume", request()).agents).toEqual([]);
  });

  it("asks for a base URL whose credentials were never stored, with the command of the flag used", () => {
    const run = storedRunWith({
      agentOptions: {
        model: ["m"],
        mode: "structured",
        "base-url": "http://127.0.0.1:9/v1",
        "base-url-had-credentials": true,
      },
    });
    expect(() => restoreAgents(run, "--resume", request())).toThrow(
      `run ${run.id} used a --base-url with credentials in it, which are never stored`,
    );
    try {
      restoreAgents(run, "--last-failed", request());
    } catch (error) {
      expect((error as { hint?: string }).hint).toBe(
        "pass the same --base-url again: umpire run --last-failed --base-url <url>",
      );
    }
    const withUrl = restoreAgents(
      run,
      "--resume",
      request({ "base-url": "http://u:p@127.0.0.1:9/v1" }, { "base-url": "flag" }),
    );
    expect(withUrl.agents).toHaveLength(1);
  });
});
