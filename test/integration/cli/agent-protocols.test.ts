/**
 * Named agents choose a protocol (#41), through the real CLI: one run of a bundled task with one named
 * agent per registered protocol (the list comes from the registry, so a protocol added later joins
 * the run) against the embedded reference model in strict mode (a request breaking its family's
 * documented rules is answered 400, so the trial would error), real HTTP through each vendor's SDK,
 * real Chromium and a real SQLite file, then `umpire compare RUN --by agent` as a table and as JSON.
 * Also: the protocol of an agent that writes none, said in the run's header and by `show` of a stored run
 * (its model id a Claude one, sent to a reference model that does not serve it); and the config refusals
 * (a `mode:` disagreeing with `protocol:`, a knob its family does not read, pixels out of range).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { protocolList } from "../../../src/agent/protocols/registry.js";
import { startReferenceModel } from "../../../src/sim/server.js";
import { ROOT, runInProcess } from "../../support/cli-in-process.js";

const TASK = join(ROOT, "tasks/answer-only-bb042.yaml");
const PROTOCOLS = protocolList().map((p) => p.name);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-agent-protocols-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(name: string, config: string): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "umpire.config.yaml"), config);
  return folder;
}

async function umpire(args: string[], cwd: string) {
  const { code, stdout, stderr } = await runInProcess(args, { cwd, env: {} });
  return { code, out: stdout, err: stderr };
}

describe("named agents choose a protocol", () => {
  it("one run, one named agent per registered protocol, then compare --by agent: a row each, every one passed", async () => {
    const agents = PROTOCOLS.map((p) => `  ${p}:\n    model: reference\n    protocol: ${p}\n`).join("");
    const cwd = project("families", `agents:\n${agents}`);
    const run = await umpire(
      ["run", TASK, ...PROTOCOLS.flatMap((p) => ["--agent", p]), "--db", "u.db", "--out", "runs", "--json"],
      cwd,
    );
    expect(run.err).not.toMatch(/umpire_lint|lint/);
    const body = JSON.parse(run.out) as { runId: string; trials: { agent: string; mode: string; verdict: string }[] };
    expect(body.trials.map((t) => [t.mode, t.verdict]).sort()).toEqual(PROTOCOLS.map((p) => [p, "passed"]).sort());
    expect(run.code).toBe(0);

    const table = await umpire(["compare", body.runId, "--by", "agent", "--db", "u.db"], cwd);
    expect(table.code).toBe(0);
    // The per-task rows and the all-tasks rows: one each per agent, with its passes.
    for (const p of PROTOCOLS) {
      const rows = table.out.split("\n").filter((line) => new RegExp(`│ ${p.replace(".", "\\.")}\\s+│`).test(line));
      expect(rows, p).toHaveLength(2);
      for (const row of rows) expect(row).toMatch(/│ 1\/1\b/);
    }

    const json = await umpire(["compare", body.runId, "--by", "agent", "--db", "u.db", "--json"], cwd);
    const groups = JSON.parse(json.out).comparison.groups as {
      label: string;
      summary: { n: number; passes: number };
    }[];
    expect(groups.map((g) => g.label).sort()).toEqual([...PROTOCOLS].sort());
    for (const g of groups) expect(g.summary).toMatchObject({ n: 1, passes: 1 });
  }, 600_000);

  it("an agent that writes no protocol: inferred from a known model id, else Holo structured, and said in the run's header", async () => {
    const cwd = project(
      "inferred",
      [
        "agents:",
        "  claude:",
        "    model: claude-opus-4-5",
        "    baseUrl: http://127.0.0.1:9/v1",
        "  tars:",
        "    model: ByteDance-Seed/UI-TARS-1.5-7B",
        "    baseUrl: http://127.0.0.1:9/v1",
        "  mine:",
        "    model: my-local-model",
        "    baseUrl: http://127.0.0.1:9/v1",
        "  chosen:",
        "    model: claude-opus-4-5",
        "    baseUrl: http://127.0.0.1:9/v1",
        "    protocol: openai-computer",
        "",
      ].join("\n"),
    );
    const agents = ["claude", "tars", "mine", "chosen"].flatMap((a) => ["--agent", a]);
    const r = await umpire(["run", TASK, ...agents, "--list", "--json"], cwd);
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      "umpire: agent claude: protocol anthropic-computer (Anthropic), inferred from its model id claude-opus-4-5; set protocol: to choose another",
    );
    expect(r.err).toContain("umpire: agent tars: protocol ui-tars (UI-TARS), inferred from its model id");
    expect(r.err).toContain("umpire: agent mine: protocol structured (Holo), the default");
    // An agent that writes its protocol speaks it, and nothing needs saying.
    expect(r.err).not.toContain("agent chosen:");
  });

  it("show of a stored run says the protocol inferred from the model id, in text and in --json inferredProtocols", async () => {
    // The reference model serves no Claude model: the trial ends in error (404), but the run, and what
    // its header said about the agent's protocol, is stored.
    const served = await startReferenceModel({ tasks: [] });
    try {
      const cwd = project(
        "stored-inferred",
        `agents:\n  claude:\n    model: claude-opus-4-6\n    baseUrl: ${served.baseUrl}\n`,
      );
      const store = ["--db", "u.db", "--out", "runs"];
      const run = await umpire(["run", TASK, "--agent", "claude", "--no-preflight", ...store, "--json"], cwd);
      const body = JSON.parse(run.out) as { runId: string; trials: { mode: string; verdict: string }[] };
      expect(body.trials.map((t) => [t.mode, t.verdict])).toEqual([["anthropic-computer", "error"]]);

      const line = "agent claude: protocol anthropic-computer (Anthropic), inferred from its model id claude-opus-4-6";
      const text = await umpire(["show", body.runId, "--db", "u.db"], cwd);
      expect(text.code).toBe(0);
      expect(text.out.split("\n")).toContain(line);
      const json = await umpire(["show", body.runId, "--db", "u.db", "--json"], cwd);
      expect(JSON.parse(json.out).inferredProtocols).toEqual([
        {
          agent: "claude",
          protocol: "anthropic-computer",
          family: "Anthropic",
          source: "model",
          model: "claude-opus-4-6",
        },
      ]);
    } finally {
      await served.close();
    }
  }, 600_000);

  it("refuses, naming file, line, field and fix: mode disagreeing with protocol, a knob its family does not read, pixels out of range", async () => {
    const cwd = project(
      "refused",
      [
        "agents:",
        "  mixed:",
        "    model: reference",
        "    protocol: qwen3-vl",
        "    mode: tools",
        "  claude:",
        "    model: claude-opus-4-5",
        "    baseUrl: http://127.0.0.1:9/v1",
        "    reasoningEffort: high",
        "  tars:",
        "    model: reference",
        "    protocol: ui-tars",
        "    maxPixels: 99999999",
        "  holo:",
        "    model: reference",
        "    displaySize: { width: 1024, height: 768 }",
        "  same:",
        "    model: reference",
        "    protocol: tools",
        "    mode: tools",
        "  gpt:",
        "    model: reference",
        "    protocol: openai-computer",
        "    computerTool: computer_toolset_20260801",
        "",
      ].join("\n"),
    );
    const r = await umpire(["run", TASK, "--list"], cwd);
    expect(r.code).toBe(2);
    expect(r.err).toContain("the config file has 5 problems");
    expect(r.err).toContain(
      "umpire.config.yaml:5: agents.mixed.mode: mode: tools disagrees with protocol: qwen3-vl (mode is protocol's older name) (fix: keep one of them",
    );
    expect(r.err).toMatch(
      /umpire\.config\.yaml:9: agents\.claude\.reasoningEffort: reasoningEffort is not a knob of protocol anthropic-computer \(inferred from the model id claude-opus-4-5\).*\(fix: remove reasoningEffort, or set protocol: to one that takes it \(structured, tools, openai-computer/,
    );
    expect(r.err).toMatch(
      /umpire\.config\.yaml:13: agents\.tars\.maxPixels: maxPixels: 99999999 is outside 78400 to 12845056 \(UI-TARS's own smart_resize bounds\)/,
    );
    expect(r.err).toMatch(
      /umpire\.config\.yaml:24: agents\.gpt\.computerTool: computerTool is not a knob of protocol openai-computer.*\(fix: remove computerTool, or set protocol: to one that takes it \(anthropic-computer\)\)/,
    );
    expect(r.err).toMatch(
      /umpire\.config\.yaml:16: agents\.holo\.displaySize: displaySize is not a knob of protocol structured .*\(fix: remove displaySize, or set protocol: to one that takes it \(openai-computer, anthropic-computer/,
    );
    expect(r.err).not.toContain("agents.same");
  });
});
