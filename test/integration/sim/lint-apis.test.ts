/**
 * `umpire lint` on requests of every API, recorded as umpire sends them: each protocol's session
 * talks through its real SDK to the recording server, whose path, headers and body are written out
 * as the files a user would record. A conformant request of each family is conformant, checked as its
 * API (by its path, or by its shape when only the body was kept); a request that breaks a vendor's
 * rule names the rule; a body that fits two APIs, or is no object, is refused naming the file while
 * the other files are still checked.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession } from "../../../src/agent/session.js";
import type { OutputMode } from "../../../src/vocabulary.js";
import { runInProcess } from "../../support/cli-in-process.js";
import {
  type RecordedRequest,
  type RecordingModel,
  reply,
  type ScriptedResponse,
  startRecordingModel,
  stepReply,
} from "../../support/recording-model.js";

const SCREEN = PNG.sync.write(new PNG({ width: 1280, height: 800 }));
let server: RecordingModel;
let dir: string;
const recorded: Partial<Record<OutputMode, RecordedRequest>> = {};

const json = (body: unknown): ScriptedResponse => ({ kind: "json", body });

/** Replies that make each protocol's second request carry a call's answer (with a safety check to acknowledge). */
const SCRIPTS: Partial<Record<OutputMode, { model: string; first: ScriptedResponse; last: ScriptedResponse }>> = {
  tools: {
    model: "reference",
    first: json({
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Home page.",
            tool_calls: [
              {
                id: "call_0",
                type: "function",
                function: { name: "click", arguments: '{"element":"box","x":500,"y":300}' },
              },
            ],
          },
        },
      ],
    }),
    last: stepReply({ note: null, thought: "done", tool_call: { tool_name: "answer", content: "Done." } }),
  },
  "qwen3-vl": {
    model: "reference",
    first: reply({
      toolCalls: [{ id: "call_q", name: "computer_use", arguments: '{"action":"left_click","coordinate":[500,500]}' }],
    }),
    last: reply({ content: "Done." }),
  },
  "ui-tars": {
    model: "reference",
    first: reply({ content: "Thought: Open the match.\nAction: click(start_box='(644,406)')" }),
    last: reply({ content: "Thought: Done.\nAction: finished(content='Done.')" }),
  },
  "openai-computer": {
    model: "gpt-5.4",
    first: json({
      id: "resp_1",
      object: "response",
      status: "completed",
      output: [
        {
          type: "computer_call",
          id: "cu_1",
          call_id: "call_1",
          status: "completed",
          pending_safety_checks: [{ id: "sc_1", code: "malicious_instructions", message: "Page text asks." }],
          actions: [{ type: "click", button: "left", x: 640, y: 400 }],
        },
      ],
    }),
    last: json({ id: "resp_2", object: "response", status: "completed", output: [] }),
  },
  "anthropic-computer": {
    model: "claude-opus-4-6",
    first: json({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-opus-4-6",
      stop_reason: "tool_use",
      content: [
        { type: "tool_use", id: "toolu_1", name: "computer", input: { action: "left_click", coordinate: [640, 400] } },
      ],
      usage: { input_tokens: 10, output_tokens: 5 },
    }),
    last: json({ id: "msg_2", type: "message", role: "assistant", content: [], stop_reason: "end_turn", usage: {} }),
  },
  "gemini-computer": {
    model: "gemini-2.5-computer-use-preview-10-2025",
    first: json({
      candidates: [
        {
          index: 0,
          finishReason: "STOP",
          content: {
            role: "model",
            parts: [
              {
                functionCall: {
                  name: "click_at",
                  args: { x: 500, y: 500, safety_decision: { decision: "require_confirmation" } },
                },
              },
            ],
          },
        },
      ],
    }),
    last: json({
      candidates: [{ index: 0, finishReason: "STOP", content: { role: "model", parts: [{ text: "Done." }] } }],
    }),
  },
};

/** Plays one turn of `mode` and keeps the second request: the one that answers the turn's call. */
async function record(mode: OutputMode): Promise<RecordedRequest> {
  const script = SCRIPTS[mode]!;
  const [config] = resolveAgentConfigs({
    model: script.model,
    baseUrl: server.baseUrl,
    mode,
    env: {},
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 5, retryAfterCapMs: 5 },
  });
  const session = createAgentSession({
    config: config!,
    instruction: "Open match BB-042 and say who won.",
    tools: ["click", "write", "answer"],
    trialId: `trial-${mode}`,
    baseUrl: server.baseUrl,
  });
  server.requests.length = 0;
  server.enqueue(script.first, script.last);
  const turn = await session.nextTurn({ screenshot: { data: SCREEN }, url: "http://site/" });
  session.addResults(turn.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
  await session.nextTurn({ screenshot: { data: SCREEN }, url: "http://site/match" });
  return server.requests[1]!;
}

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const asRecorded = (r: RecordedRequest, body: unknown = r.body, headers = r.headers) => ({
  body,
  headers,
  path: r.path,
});

beforeAll(async () => {
  server = await startRecordingModel();
  dir = await mkdtemp(join(tmpdir(), "umpire-lint-apis-"));
  for (const mode of Object.keys(SCRIPTS) as OutputMode[]) recorded[mode] = await record(mode);
});
afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("umpire lint on every API's requests", () => {
  it("finds a recorded request of each family conformant, checked as its API, by its path or by its shape", async () => {
    const apis = {
      tools: "chat-completions",
      "qwen3-vl": "chat-completions",
      "ui-tars": "chat-completions",
      "openai-computer": "responses",
      "anthropic-computer": "messages",
      "gemini-computer": "generate-content",
    } as const;
    const files: string[] = [];
    for (const mode of Object.keys(apis)) {
      const r = recorded[mode as OutputMode]!;
      expect(r.path).toMatch(/chat\/completions$|responses$|messages$|:generateContent$/);
      files.push(await file(`${mode}.json`, asRecorded(r)), await file(`${mode}-body.json`, r.body));
    }
    const result = await runInProcess(["lint", "--json", ...files]);
    expect([result.code, result.stderr]).toEqual([0, ""]);
    const checked = JSON.parse(result.stdout) as {
      file: string;
      api: string;
      decidedBy: string;
      violations: unknown[];
    }[];
    expect(checked.map((c) => [c.api, c.decidedBy, c.violations])).toEqual(
      Object.values(apis).flatMap((api) => [
        [api, "path", []],
        [api, "shape", []],
      ]),
    );
    const text = await runInProcess(["lint", files[6]!, files[9]!]);
    expect(text.stdout).toContain("openai-computer.json: conformant (as responses, by its path)");
    expect(text.stdout).toContain("anthropic-computer-body.json: conformant (as messages, by its shape)");
  });

  it("names the vendor rule a request breaks", async () => {
    const openai = recorded["openai-computer"]!;
    const unacked = structuredClone(openai.body);
    const output = unacked.input.find((i: { type: string }) => i.type === "computer_call_output");
    expect(output.acknowledged_safety_checks).toEqual([expect.objectContaining({ id: "sc_1" })]);
    delete output.acknowledged_safety_checks;

    const anthropic = recorded["anthropic-computer"]!;
    expect(anthropic.headers["anthropic-beta"]).toContain("computer-use-2025-11-24");
    const wrongBeta = { ...anthropic.headers, "anthropic-beta": "computer-use-2025-01-24" };

    const gemini = recorded["gemini-computer"]!;
    const unackedGemini = structuredClone(gemini.body);
    const answer = unackedGemini.contents[2].parts[0].functionResponse;
    expect(answer.response.safety_acknowledgement).toBe("true");
    delete answer.response.safety_acknowledgement;

    const files = [
      await file("openai-unacked.json", unacked),
      await file("anthropic-beta.json", asRecorded(anthropic, anthropic.body, wrongBeta)),
      await file("gemini-unacked.json", asRecorded(gemini, unackedGemini)),
    ];
    const result = await runInProcess(["lint", ...files]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /openai-unacked\.json: 1 violation \(as responses, by its shape\)\n {2}openai-safety-acknowledged {2}input\[\d+\]/,
    );
    expect(result.stdout).toMatch(
      /anthropic-beta\.json: 1 violation \(as messages, by its path\)\n {2}anthropic-computer-tool {2}tools/,
    );
    expect(result.stdout).toMatch(
      /gemini-unacked\.json: 1 violation \(as generate-content, by its path\)\n {2}gemini-safety-acknowledged/,
    );
  });

  it("refuses a body two APIs accept and one that is no object, naming each file, and checks the others", async () => {
    const both = await file("both.json", { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
    const list = await file("list.json", [1, 2]);
    const broken = await file("broken.json", "{nope");
    const good = await file("good.json", recorded["openai-computer"]!.body);
    const result = await runInProcess(["lint", both, list, broken, good]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`umpire: ${both}: cannot tell which API this request is for`);
    expect(result.stderr).toContain(
      `fix: pass --api chat-completions or --api messages (umpire lint --api chat-completions ${both})`,
    );
    expect(result.stderr).toContain(`umpire: ${list}: not a request: the JSON is an array, not an object`);
    expect(result.stderr).toContain(`umpire: ${broken}: not valid JSON`);
    expect(result.stdout).toBe(`${good}: conformant (as responses, by its shape)\n`);

    const forced = await runInProcess(["lint", "--api", "messages", "--json", both]);
    // Checked as a Messages request: it declares no computer tool, which Anthropic's rule asks for.
    expect(forced.code).toBe(1);
    expect(JSON.parse(forced.stdout)).toEqual([
      {
        file: both,
        api: "messages",
        decidedBy: "--api",
        violations: [expect.objectContaining({ rule: "anthropic-computer-tool" })],
      },
    ]);
  });

  it("lists every rule with its family and API", async () => {
    const result = await runInProcess(["lint", "--rules", "--json"]);
    const rules = JSON.parse(result.stdout) as { rule: string; apis: string[]; families: string[] }[];
    expect(rules.find((r) => r.rule === "openai-safety-acknowledged")).toMatchObject({
      apis: ["responses"],
      families: ["OpenAI"],
    });
    expect(rules.find((r) => r.rule === "anthropic-computer-tool")).toMatchObject({ apis: ["messages"] });
    expect(rules.find((r) => r.rule === "gemini-contents")).toMatchObject({ apis: ["generate-content"] });
    expect(rules.find((r) => r.rule === "ui-tars-prompt")).toMatchObject({
      apis: ["chat-completions"],
      families: ["UI-TARS"],
    });
    const text = await runInProcess(["lint", "--rules"]);
    expect(text.stdout).toMatch(/^openai-call-outputs +responses: OpenAI +OpenAI: every computer_call/m);
    expect(text.stdout).toMatch(/^body-shape +every API /m);
  });
});
