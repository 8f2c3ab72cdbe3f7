/** `umpire lint` and `umpire serve-model` through the real CLI dispatcher. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { CommandIO } from "../../../src/cli/io.js";
import { samplePng, sampleRequest } from "../../../src/sim/sample-request.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";

const ROOT = resolve(import.meta.dirname, "../../..");
let dir: string;

function capture(signal = new AbortController().signal) {
  const text = { out: "", err: "" };
  const sink = (key: "out" | "err") =>
    new Writable({
      write(chunk, _enc, done) {
        text[key] += String(chunk);
        done();
      },
    });
  const io: CommandIO = { stdout: sink("out"), stderr: sink("err"), env: {}, cwd: ROOT, signal };
  return { io, text };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umpire-lint-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("umpire lint", () => {
  const good = () => sampleRequest({ mode: "tools", instruction: "Find BB-042.", screenshot: samplePng(8, 5) });

  it("exits 0 on a conformant request and 1 with each violation listed", async () => {
    await writeFile(join(dir, "good.json"), JSON.stringify(good()));
    const bad = { ...good(), tool_choice: "auto", extra_body: { chat_template_kwargs: { enable_thinking: true } } };
    await writeFile(join(dir, "bad.json"), JSON.stringify({ body: bad, headers: {} }));
    const ok = capture();
    expect(await main(["lint", join(dir, "good.json")], ok.io)).toBe(0);
    expect(ok.text.out).toContain("good.json: conformant");
    const failed = capture();
    expect(await main(["lint", join(dir, "good.json"), join(dir, "bad.json")], failed.io)).toBe(1);
    expect(failed.text.out).toMatch(/bad\.json: 2 violations/);
    expect(failed.text.out).toContain("tool-choice-required");
    expect(failed.text.out).toContain("no-extra-body  extra_body");
  });

  it("prints JSON with --json and the rules with --rules", async () => {
    const json = capture();
    await writeFile(join(dir, "one.json"), JSON.stringify({ ...good(), tool_choice: "none" }));
    expect(await main(["lint", "--json", join(dir, "one.json")], json.io)).toBe(1);
    expect(JSON.parse(json.text.out)[0].violations[0]).toMatchObject({
      rule: "tool-choice-required",
      path: "tool_choice",
    });
    const rules = capture();
    expect(await main(["lint", "--rules"], rules.io)).toBe(0);
    expect(rules.text.out).toContain("image-budget");
  });

  it("names the file when it is missing or not JSON", async () => {
    await writeFile(join(dir, "broken.json"), "{nope");
    const broken = capture();
    expect(await main(["lint", join(dir, "broken.json")], broken.io)).toBe(2);
    expect(broken.text.err).toMatch(/broken\.json: not valid JSON/);
    const missing = capture();
    expect(await main(["lint", join(dir, "absent.json")], missing.io)).toBe(2);
    expect(missing.text.err).toMatch(/absent\.json: cannot read \(ENOENT\)/);
  });
});

describe("umpire serve-model", () => {
  it("prints the base URL, serves the task files, and stops on abort", async () => {
    const controller = new AbortController();
    const { io, text } = capture(controller.signal);
    const exit = main(["serve-model", "--port", "0", "--profile", "answer-now", "--strict", "--quiet"], io);
    for (let i = 0; i < 200 && !text.out.includes("\n"); i++) await new Promise((r) => setTimeout(r, 50));
    const baseUrl = text.out.trim();
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(text.err).toMatch(/reference model: \d+ task\(s\), default profile answer-now, strict lint/);
    // a task from tasks/: its instruction is recognised, and answer-now answers at once
    const [task] = loadTasksOrThrow(["tasks/answer-only-bb042.yaml"], { cwd: ROOT });
    const body = sampleRequest({ mode: "structured", instruction: task.instruction, screenshot: samplePng(8, 5) });
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(JSON.parse(completion.choices[0].message.content).tool_call).toEqual({
      tool_name: "answer",
      content: "Done.",
    });
    controller.abort();
    expect(await exit).toBe(0);
    expect(text.err).toMatch(/stopped after 1 request/);
  });

  it("refuses an unknown profile and a control URL without its token", async () => {
    const unknown = capture();
    expect(await main(["serve-model", "--profile", "sloppy"], unknown.io)).toBe(2);
    expect(unknown.text.err).toMatch(/--profile sloppy: no such profile[\s\S]*fix: Use one of: gold, misclick/);
    const noToken = capture();
    expect(await main(["serve-model", "--fixtures-control", "http://127.0.0.1:9"], noToken.io)).toBe(2);
    expect(noToken.text.err).toMatch(/needs the control token/);
  });
});
