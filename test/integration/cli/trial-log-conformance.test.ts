/**
 * Real trials through the real CLI (`node bin/umpire.js` as a child process, real Chromium, the
 * reference model over real HTTP, a real SQLite file):
 * - every line of every trial's events.jsonl validates against H's published Agents API schema
 *   (schema/agents-api-openapi.json, OpenAPI 3.1 = JSON Schema 2020-12) in both modes, for a stuck
 *   trial (reference:loop), an infeasible one and one whose replies umpire refused; the first event
 *   states the log's format version and a newer version is refused by the reader (issue #12 §4, #14
 *   "Versioned formats");
 * - a refused reply's kind (#41) is in its error_event (`invalid_kind`), on its stored turn, and counted
 *   by kind per agent config in `show` (text and --json);
 * - the stored trial is complete (#12 §3): `show --json` has the answer and the task as it was run,
 *   and the HTML report shows the task's title from the store after the task file is gone.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import formatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrialLog, TRIAL_LOG_VERSION } from "../../../src/runner/trial/trial-log.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";
import { execChild } from "../../support/cli-child.js";

const ROOT = join(__dirname, "../../..");
const run = execChild;

async function umpire(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, "bin/umpire.js"), ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, out: e.stdout ?? "", err: e.stderr ?? "" };
  }
}

/** A validator per event `type`: the SessionEvent member for that type (its anyOf fallback, TrajectoryEvent, accepts anything). */
function eventValidators() {
  const text = readFileSync(join(ROOT, "schema/agents-api-openapi.json"), "utf8");
  const doc = JSON.parse(text);
  expect(doc.openapi).toMatch(/^3\.1\./); // OpenAPI 3.1 schemas are JSON Schema draft 2020-12
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // ajv-formats is CommonJS with `exports.default`: under NodeNext the plugin is that default.
  type Plugin = (ajv: Ajv2020) => unknown;
  const loaded = formatsModule as unknown as Plugin & { default?: Plugin };
  const addFormats: Plugin = loaded.default ?? loaded;
  addFormats(ajv);
  // OpenAPI's discriminator (with `mapping`, which Ajv's own discriminator support refuses) is an
  // annotation here: every AgentEvent kind has a `const` kind, so `oneOf` alone picks exactly one.
  ajv.addKeyword({ keyword: "discriminator", schemaType: "object" });
  // The component schemas as one 2020-12 document: OpenAPI's `#/components/schemas/X` is `#/$defs/X`.
  const schemas = JSON.parse(JSON.stringify(doc.components.schemas).split("#/components/schemas/").join("#/$defs/"));
  ajv.addSchema({ $id: "agents-api", $defs: schemas });
  const ref = (name: string) => ajv.compile({ $ref: `agents-api#/$defs/${name}` });
  const types = ["AgentStartedEvent", "AgentEvent", "MetricsUpdateEvent", "AgentCompletionEvent", "AgentErrorEvent"];
  return new Map(types.map((t) => [t, ref(t)]));
}

let dir: string;
const db = () => join(dir, "umpire.db");
interface TrialJson {
  id: string;
  task: string;
  mode: string;
  folder: string;
  stopReason: string;
  verdict: string;
  answer: string | null;
  taskTitle: string | null;
  taskTags: string[] | null;
  taskHash: string | null;
}
let trials: TrialJson[] = [];
let mainRun: string;
let refusedRun: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-log-"));
  // Task files copied out of the repository, so the test can delete them before reporting.
  for (const id of ["scorecard-note-bb042", "infeasible-bb999"])
    writeFileSync(join(dir, `${id}.yaml`), readFixtureTask(join(ROOT, "tasks", `${id}.yaml`)));
  const both = await umpire(
    [
      "run",
      "scorecard-note-bb042.yaml",
      "infeasible-bb999.yaml",
      "--mode",
      "both",
      "--concurrency",
      "1",
      "--json",
      "--db",
      db(),
      "--out",
      "runs",
    ],
    dir,
  );
  const body = JSON.parse(both.out);
  const summary = (b: { trials: { task: string; mode: string; stopReason: string; stopDetail: string }[] }) =>
    b.trials.map((t) => `${t.task}/${t.mode}: ${t.stopReason} ${t.stopDetail}`).join("\n");
  expect(both.code, `${both.err}\n${summary(body)}`).toBe(0);
  mainRun = body.runId;
  const stuck = await umpire(
    [
      "run",
      "scorecard-note-bb042.yaml",
      "--model",
      "reference:loop",
      "--mode",
      "structured",
      "--json",
      "--db",
      db(),
      "--out",
      "runs",
    ],
    dir,
  );
  expect(stuck.code, stuck.err).toBe(1);
  // Replies umpire refuses, one of each kind the malformed profile gives the Qwen3-VL protocol on its first
  // four turns (seed 0): unparseable arguments, an unknown function, a click without its coordinate, and a
  // right_click (documented by Qwen, no umpire equivalent). The config file is written after the runs above.
  writeFileSync(
    join(dir, "umpire.config.yaml"),
    "agents:\n  qwen:\n    model: reference:malformed\n    protocol: qwen3-vl\n    maxInvalidOutputs: 4\n",
  );
  const refused = await umpire(
    ["run", "scorecard-note-bb042.yaml", "--agent", "qwen", "--json", "--db", db(), "--out", "runs"],
    dir,
  );
  expect(refused.code, refused.err).toBe(1);
  refusedRun = JSON.parse(refused.out).runId;
  trials = [...body.trials, ...JSON.parse(stuck.out).trials, ...JSON.parse(refused.out).trials];
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function logOf(t: TrialJson): string {
  // Trial folders are stored relative to the run folder: runs/<runId>/<folder>.
  const runDir = join(dir, "runs", t.id.slice(0, t.id.lastIndexOf("-")));
  return join(runDir, t.folder, "events.jsonl");
}

describe("events.jsonl conforms to the Agents API schema", () => {
  it("covers both modes, a stuck trial, an infeasible one and a refused family's", () => {
    expect(trials.map((t) => `${t.task}/${t.mode}/${t.stopReason}/${t.verdict}`).sort()).toEqual([
      "infeasible-bb999/structured/answered/passed",
      "infeasible-bb999/tools/answered/passed",
      "scorecard-note-bb042/qwen3-vl/invalid_output/failed",
      "scorecard-note-bb042/structured/answered/passed",
      "scorecard-note-bb042/structured/stuck/failed",
      "scorecard-note-bb042/tools/answered/passed",
    ]);
  });

  it("every line of every trial validates; the first states the format version; the enums are the schema's", () => {
    const validators = eventValidators();
    for (const t of trials) {
      const lines = readFileSync(logOf(t), "utf8").trim().split("\n");
      const events = lines.map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
      events.forEach((event, i) => {
        const validate = validators.get(event.type);
        expect(validate, `${t.id} line ${i + 1}: unknown type ${event.type}`).toBeDefined();
        const ok = validate!(event);
        expect(
          ok ? [] : validate!.errors,
          `${t.id} line ${i + 1} (${event.type} ${String(event.data.kind ?? "")})`,
        ).toEqual([]);
      });
      expect(events[0]).toMatchObject({
        type: "AgentStartedEvent",
        data: { format: "umpire.trial-log", format_version: TRIAL_LOG_VERSION },
      });
      const completion = events.at(-1)!;
      expect(completion.type).toBe("AgentCompletionEvent");
      expect(completion.data).toMatchObject({
        reason: t.stopReason === "answered" ? "finished" : "stopped",
        stop_reason: t.stopReason,
        verdict: t.verdict,
      });
      const answers = events.filter((e) => e.data.kind === "answer_event");
      if (t.stopReason === "answered") expect(answers.map((a) => a.data.outcome)).toEqual([null]);
      expect(readTrialLog(logOf(t)).version).toBe(TRIAL_LOG_VERSION);
    }
  });

  it("the validator bites: umpire's old values where the schema has an enum are rejected", () => {
    const validators = eventValidators();
    const at = "2026-01-01T00:00:00Z";
    const answer = {
      type: "AgentEvent",
      timestamp: at,
      data: { kind: "answer_event", answer: "done", outcome: "claimed" },
    };
    const completion = { type: "AgentCompletionEvent", timestamp: at, data: { reason: "answered", verdict: "passed" } };
    const policy = {
      type: "AgentEvent",
      timestamp: at,
      data: { kind: "policy_event", tool_reqs: [], validation_errors: [{ id: "c1", message: "bad" }] },
    };
    expect(validators.get("AgentEvent")!(answer)).toBe(false);
    expect(validators.get("AgentCompletionEvent")!(completion)).toBe(false);
    expect(validators.get("AgentEvent")!(policy)).toBe(false);
    expect(validators.get("AgentEvent")!({ ...answer, data: { ...answer.data, outcome: null } })).toBe(true);
    expect(
      validators.get("AgentCompletionEvent")!({ ...completion, timestamp: "yesterday", data: { reason: "finished" } }),
    ).toBe(false);
  });

  it("a reader refuses a log from a newer format version, naming the file and both versions", () => {
    const t = trials[0]!;
    const lines = readFileSync(logOf(t), "utf8").trim().split("\n");
    const first = JSON.parse(lines[0]!);
    first.data.format_version = TRIAL_LOG_VERSION + 1;
    const newer = join(dir, "newer-events.jsonl");
    writeFileSync(newer, [JSON.stringify(first), ...lines.slice(1)].join("\n"));
    expect(() => readTrialLog(newer)).toThrow(
      new RegExp(
        `newer-events\\.jsonl is trial log format version ${TRIAL_LOG_VERSION + 1}; this umpire reads versions up to ${TRIAL_LOG_VERSION}`,
      ),
    );
  });
});

describe("a refused reply's kind (#41)", () => {
  const KINDS = ["invalid_json", "unknown_tool", "missing_fields", "unsupported_action"];

  it("each refused call's error_event carries its kind beside the schema's fields (every line validated above)", () => {
    const refused = trials.find((t) => t.mode === "qwen3-vl")!;
    const events = readTrialLog(logOf(refused)).events.map((e) => e.data);
    const errors = events.filter((d) => d.kind === "error_event" && d.origin === "validation");
    expect(errors.map((d) => d.invalid_kind)).toEqual(KINDS);
    expect(errors.at(-1)).toMatchObject({
      tool_req: { tool_name: "computer_use" },
      error: expect.stringContaining("right_click"),
    });
    // The policy event's details name the kind too, call by call.
    const details = events
      .filter((d) => d.kind === "policy_event")
      .flatMap((d) => d.validation_details as { kind: string }[]);
    expect(details.map((d) => d.kind)).toEqual(KINDS);
  });

  it("show --json counts them by kind per agent, on the trial and each turn; show's text says them", async () => {
    const json = await umpire(["show", refusedRun, "--json", "--turns", "--db", db()], dir);
    expect(json.code, json.err).toBe(0);
    const body = JSON.parse(json.out) as {
      invalidCalls: unknown[];
      trials: { metrics: { invalid?: unknown }; turnLog: { flags: { invalid?: unknown } }[] }[];
    };
    const byKind = { invalid_json: 1, missing_fields: 1, unknown_tool: 1, unsupported_action: 1 };
    expect(body.invalidCalls).toEqual([
      { agent: "qwen", model: "reference:malformed", mode: "qwen3-vl", total: 4, byKind },
    ]);
    expect(body.trials[0]!.metrics.invalid).toEqual(byKind);
    expect(body.trials[0]!.turnLog.map((t) => t.flags.invalid)).toEqual(KINDS.map((k) => ({ [k]: 1 })));

    const text = await umpire(["show", refusedRun, "--db", db()], dir);
    expect(text.out).toMatch(
      /^qwen \(reference:malformed · qwen3-vl\): 0\/1 passed, .*; invalid calls 4 \(invalid_json 1, missing_fields 1, unknown_tool 1, unsupported_action 1\)$/m,
    );
  });

  it("a run with none: a count of 0 per agent config in --json, nothing said in the text", async () => {
    const json = await umpire(["show", mainRun, "--json", "--db", db()], dir);
    const calls = (JSON.parse(json.out) as { invalidCalls: { mode: string; total: number }[] }).invalidCalls;
    expect(calls.map((c) => [c.mode, c.total]).sort()).toEqual([
      ["structured", 0],
      ["tools", 0],
    ]);
    const text = await umpire(["show", mainRun, "--db", db()], dir);
    expect(text.out).toContain("passed, cost per success");
    expect(text.out).not.toContain("invalid calls");
  });

  const refusedWords =
    "1.00 per turn: invalid calls 4 (invalid_json 1, missing_fields 1, unknown_tool 1, unsupported_action 1) in 4 turns";

  it("compare shows them per group, per turn: run against run (text, --json, --markdown) and --by agent", async () => {
    const text = await umpire(["compare", mainRun, refusedRun, "--db", db()], dir);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toMatch(/│ invalid\/turn │/);
    expect(text.out).toContain(
      `invalid calls per turn (the model's proposals umpire's loop refused, by kind):\n  ${mainRun}: 0 per turn: no invalid calls in `,
    );
    expect(text.out).toContain(`\n  ${refusedRun}: ${refusedWords}\n`);

    const json = await umpire(["compare", mainRun, refusedRun, "--json", "--db", db()], dir);
    const groups = (JSON.parse(json.out) as { comparison: { groups: { label: string; summary: unknown }[] } })
      .comparison.groups;
    expect(groups.map((g) => g.label)).toEqual([mainRun, refusedRun]);
    expect(groups[0]!.summary).toMatchObject({ invalidCalls: { total: 0, perTurn: 0, recorded: 4, notRecorded: 0 } });
    expect(groups[1]!.summary).toMatchObject({
      invalidCalls: {
        total: 4,
        turns: 4,
        perTurn: 1,
        byKind: { invalid_json: 1, missing_fields: 1, unknown_tool: 1, unsupported_action: 1 },
      },
    });

    const md = await umpire(["compare", mainRun, refusedRun, "--markdown", "--db", db()], dir);
    expect(md.out).toContain("| actions | invalid/turn | cancelled |");
    expect(md.out).toContain(`- ${refusedRun}: 1.00 per turn: invalid calls 4 (invalid\\_json 1, missing\\_fields 1,`);

    // One row per agent of compare's own grouping: the named agent with its family, the unnamed ones by mode.
    const byAgent = await umpire(["compare", mainRun, refusedRun, "--by", "agent", "--db", db()], dir);
    expect(byAgent.code, byAgent.err).toBe(0);
    expect(byAgent.out).toContain(`\n  qwen (qwen3-vl): ${refusedWords}\n`);
    expect(byAgent.out).toMatch(/\n {2}reference\/structured: 0 per turn: no invalid calls in \d+ turns\n/);
  });

  it("the HTML report: per agent config in the summary, and on the trial page each refusing turn's kind", async () => {
    const report = await umpire(["report", refusedRun, "--db", db(), "--out", "report-refused"], dir);
    expect(report.code, report.err).toBe(0);
    const index = readFileSync(join(dir, "report-refused", "index.html"), "utf8");
    expect(index).toContain(">invalid calls per turn</th>");
    expect(index).toContain(`<td class="invalid-calls">${refusedWords}</td>`);
    const [page] = readdirSync(join(dir, "report-refused", "trials"));
    const trialPage = readFileSync(join(dir, "report-refused", "trials", page!), "utf8");
    expect(trialPage).toContain(
      "<dt>refused calls</dt><dd>invalid calls 4 (invalid_json 1, missing_fields 1, unknown_tool 1, unsupported_action 1)</dd>",
    );
    const refusedTurns = [...trialPage.matchAll(/<strong>Refused by umpire:<\/strong> invalid calls 1 \((\w+) 1\)/g)];
    expect(refusedTurns.map((m) => m[1])).toEqual(KINDS);
  });
});

describe("the stored trial is complete", () => {
  it("show --json has each trial's answer and the task as it was run", async () => {
    const shown = await umpire(["show", mainRun, "--json", "--db", db()], dir);
    expect(shown.code, shown.err).toBe(0);
    const byKey = new Map((JSON.parse(shown.out).trials as TrialJson[]).map((t) => [`${t.task}/${t.mode}`, t]));
    const note = byKey.get("scorecard-note-bb042/structured")!;
    expect(note.answer).toBeTruthy();
    expect(note).toMatchObject({
      taskTitle: "Save a note on match BB-042",
      taskHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(byKey.get("scorecard-note-bb042/tools")!.taskHash).toBe(note.taskHash);
    const infeasible = byKey.get("infeasible-bb999/tools")!;
    expect(infeasible.answer).toMatch(/BB-999/);
    expect(infeasible.taskTags).toContain("infeasible");
    expect(infeasible.taskHash).not.toBe(note.taskHash);
  });

  it("the report reads title, tags and answer from the store: the task files are gone", async () => {
    for (const id of ["scorecard-note-bb042", "infeasible-bb999"]) rmSync(join(dir, `${id}.yaml`));
    const report = await umpire(["report", mainRun, "--db", db(), "--out", "report"], dir);
    expect(report.code, report.err).toBe(0);
    expect(readFileSync(join(dir, "report", "index.html"), "utf8")).toContain("Save a note on match BB-042");
    const pages = readdirSync(join(dir, "report", "trials"));
    const texts = pages.map((p) => readFileSync(join(dir, "report", "trials", p), "utf8"));
    expect(texts.some((html) => html.includes("said-answer") && html.includes("BB-999"))).toBe(true);
  });
});
