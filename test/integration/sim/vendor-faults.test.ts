/**
 * Every fault profile of the reference model on its vendor routes (OpenAI's Responses API, Anthropic's
 * Messages API, with the single computer tool and with the computer toolset), through umpire's session and the vendors' real SDKs over real HTTP, in strict mode:
 * each profile is played as it is on chat completions, never silently replaced by gold (a profile the
 * table below does not know fails the test, so a new one must say what it does there). The HTTP
 * faults (flaky-http, the rate limit) are answered on these routes too, and retried to a good turn.
 */
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession, type Turn } from "../../../src/agent/session.js";
import { PROFILE_NAMES, type ProfileName } from "../../../src/sim/profiles.js";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";

const INSTRUCTION = "Open match BB-042 and answer with its result.";
const click = (x: number, y: number) => ({ tool: "click" as const, args: { element: "a point", x, y } });
const answer = (content: string) => ({ tool: "answer" as const, args: { content } });
const TASK = {
  id: "vendor-faults",
  instruction: INSTRUCTION,
  reference: [click(400, 300), answer("Jaipur won")],
  negatives: {
    loop: [click(100, 100)],
    "wrong-record": [click(200, 200), answer("Pune won")],
    "forget-save": [answer("forgot to save")],
    "premature-answer": [answer("too early")],
  },
};
// anthropic-toolset: anthropic-computer with computerTool: computer_toolset_20260801 (member tool_use blocks).
const VENDORS = ["openai-computer", "anthropic-computer", "anthropic-toolset"] as const;
type Vendor = (typeof VENDORS)[number];
const RETRY = { maxRetries: 6, baseDelayMs: 30, maxDelayMs: 60, retryAfterCapMs: 2_000 };
const screenshot = { data: PNG.sync.write(new PNG({ width: 1280, height: 800 })) };

let model: ReferenceModel;
let limited: ReferenceModel;
beforeAll(async () => {
  model = await startReferenceModel({ tasks: [TASK], strict: true, latencyMs: 1, turnLatencyMs: 1, jitterMs: 0 });
  // A request costs more tokens than the bucket holds, so it takes it all: the next waits for the refill.
  limited = await startReferenceModel({ tasks: [TASK], strict: true, rateLimit: { tokens: 100, windowMs: 1_500 } });
});
afterAll(async () => {
  await model?.close();
  await limited?.close();
});

function session(server: ReferenceModel, mode: Vendor, modelId: string, trialId: string) {
  const toolset = mode === "anthropic-toolset";
  const [config] = resolveAgentConfigs({
    model: modelId,
    mode: toolset ? "anthropic-computer" : mode,
    env: {},
    retry: RETRY,
  });
  return createAgentSession({
    config: toolset ? { ...config!, computerTool: "computer_toolset_20260801" } : config!,
    instruction: INSTRUCTION,
    tools: ["click", "write", "press", "answer"],
    trialId,
    baseUrl: server.baseUrl,
  });
}

/** Plays `turns` turns, answering every action with success; a reflection is sent before turn `reflectAt`. */
async function play(mode: Vendor, profile: ProfileName, turns: number, reflectAt?: number): Promise<Turn[]> {
  const s = session(model, mode, `reference:${profile}`, `${mode}-${profile}`);
  const out: Turn[] = [];
  for (let i = 0; i < turns; i++) {
    if (i === reflectAt) s.addUserText("<reflection>You repeated the same click; look again.</reflection>");
    const turn = await s.nextTurn({ screenshot });
    out.push(turn);
    if (turn.outcome === "actions" || turn.outcome === "invalid")
      s.addResults(turn.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
  }
  return out;
}

const first = (t: Turn) => (t.actions[0] ? [t.actions[0].tool, t.actions[0].args.x ?? t.actions[0].args.content] : []);

/** What each profile does on a vendor route, proven against the first turns. */
const EXPECTED: Record<ProfileName, (mode: Vendor) => Promise<void>> = {
  gold: async (mode) =>
    expect((await play(mode, "gold", 2)).map(first)).toEqual([
      ["click", 400],
      ["answer", "Jaipur won"],
    ]),
  misclick: async (mode) => {
    const [t] = await play(mode, "misclick", 1);
    expect(t!.actions[0]?.tool).toBe("click");
    expect([t!.actions[0]?.args.x, t!.actions[0]?.args.y]).not.toEqual([400, 300]);
  },
  loop: async (mode) =>
    expect((await play(mode, "loop", 3)).map(first)).toEqual([
      ["click", 100],
      ["click", 100],
      ["click", 100],
    ]),
  recover: async (mode) =>
    expect((await play(mode, "recover", 3, 2)).map(first)).toEqual([
      ["click", 100],
      ["click", 100],
      ["click", 400],
    ]),
  "wrong-record": async (mode) => expect((await play(mode, "wrong-record", 1)).map(first)).toEqual([["click", 200]]),
  "forget-save": async (mode) =>
    expect((await play(mode, "forget-save", 1)).map(first)).toEqual([["answer", "forgot to save"]]),
  "premature-answer": async (mode) =>
    expect((await play(mode, "premature-answer", 1)).map(first)).toEqual([["answer", "too early"]]),
  "answer-now": async (mode) => expect((await play(mode, "answer-now", 1)).map(first)).toEqual([["answer", "Done."]]),
  refuse: async (mode) => expect((await play(mode, "refuse", 1))[0]).toMatchObject({ outcome: "refused", actions: [] }),
  truncate: async (mode) =>
    expect((await play(mode, "truncate", 1))[0]).toMatchObject({ outcome: "truncated", actions: [] }),
  malformed: async (mode) => {
    for (const t of await play(mode, "malformed", 3)) {
      expect(t.actions.filter((a) => a.tool !== "click" || a.args.y === null)).toEqual([]);
      expect(t.invalid.length).toBeGreaterThan(0);
    }
  },
  "flaky-http": async (mode) => {
    // The cycle from seed 0: two 500s, one 429, a connection dropped mid-body, none; each retried to gold.
    const turns = await play(mode, "flaky-http", 4);
    expect(turns.map((t) => t.outcome)).toEqual(["actions", "actions", "actions", "actions"]);
    const records = model.log.forUser(`${mode}-flaky-http`);
    expect(records.map((r) => r.outcome)).toEqual(
      expect.arrayContaining(["server-error", "rate-limited", "dropped-connection"]),
    );
    expect(turns.reduce((n, t) => n + t.timing.retries, 0)).toBeGreaterThanOrEqual(4);
  },
  slow: async (mode) => expect((await play(mode, "slow", 1)).map(first)).toEqual([["click", 400]]),
  latency: async (mode) => expect((await play(mode, "latency", 1)).map(first)).toEqual([["click", 400]]),
};

describe.each(VENDORS)("%s route of the reference model", (mode) => {
  it("knows what every fault profile does there", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...PROFILE_NAMES].sort());
  });

  it.each(PROFILE_NAMES)("plays the %s profile, not gold in its place", async (profile) => {
    await EXPECTED[profile](mode);
    const records = model.log.forUser(`${mode}-${profile}`);
    expect(records.every((r) => r.lint.length === 0 && r.profile === profile)).toBe(true);
  });

  it("answers the rate limit 429 with retry-after, and the session retries to a good turn", async () => {
    // Two trials' first turns at once: each request takes the whole token bucket, so one waits its refill.
    const a = session(limited, mode, "reference", `${mode}-rate-limited-1`);
    const b = session(limited, mode, "reference", `${mode}-rate-limited-2`);
    const turns = await Promise.all([a.nextTurn({ screenshot }), b.nextTurn({ screenshot })]);
    expect(turns.map(first)).toEqual([
      ["click", 400],
      ["click", 400],
    ]);
    const records = [1, 2].flatMap((n) => limited.log.forUser(`${mode}-rate-limited-${n}`));
    expect(records.filter((r) => r.status === 429).map((r) => r.outcome)).toContain("rate-limited");
    expect(records.filter((r) => r.status === 200)).toHaveLength(2);
  });
});
