/**
 * Target declarations and the tasks that name them, through the CLI (in-process: the same parsing,
 * messages and exit codes as `node bin/umpire.js`, without a node start per call):
 * effects on a target without an effects source are rejected, the fixture's vocabulary is judged
 * only on the fixture, a bad config names its file, line and field, and `umpire init` writes a
 * project that validates as written.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runInProcess } from "../../support/cli-in-process.js";

const dirs: string[] = [];

async function umpire(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await runInProcess(args, { cwd });
  return { code, out: stdout, err: stderr };
}

function project(config: string, tasks: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "umpire-targets-"));
  dirs.push(dir);
  writeFileSync(join(dir, "umpire.config.yaml"), config);
  mkdirSync(join(dir, "tasks"));
  for (const [id, text] of Object.entries(tasks)) writeFileSync(join(dir, "tasks", `${id}.yaml`), text);
  return dir;
}

afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const CONFIG = `targets:
  shop:
    baseUrl: http://127.0.0.1:3999
`;
const task = (id: string, extra: string, checks = "  - { kind: page, url: { regex: '/cart$' } }") => `id: ${id}
title: A task on the shop
target: shop
instruction: Put the blue mug in the cart and answer Done.
tools: [click, answer]
${extra}
checks:
${checks}
reference:
  - { tool: click, target: add-to-cart }
  - { tool: answer, args: { content: Done } }
`;

describe("umpire validate with targets", () => {
  it("rejects effects on a target without an effects source, naming the fix", async () => {
    const dir = project(CONFIG, {
      "with-effects": task("with-effects", "", "  - { kind: effects, require: [{ type: order_placed }] }"),
    });
    const { code, out } = await umpire(["validate"], dir);
    expect(code).toBe(2);
    expect(out).toMatch(/tasks\/with-effects\.yaml:\d+: checks\[0\]: target shop has no effects source/);
    expect(out).toContain("target shop has no effects source, so effects cannot be judged");
    expect(out).toContain("declare effects: {url: ...} on target shop");
  });

  it("accepts any effect type on a target with an effects source, and only the fixture's on the fixture", async () => {
    const withSource = `${CONFIG}    effects: { url: /test/effects }\n`;
    const dir = project(withSource, {
      ok: task("ok", "", "  - { kind: effects, require: [{ type: order_placed }] }"),
      "on-fixture": `id: on-fixture
title: fixture effects
instruction: Look up match BB-042 and answer Done.
tools: [click, answer]
checks:
  - { kind: effects, forbid: [{ type: order_placed }] }
reference:
  - { tool: answer, args: { content: Done } }
`,
    });
    const { code, out } = await umpire(["validate"], dir);
    expect(code).toBe(2);
    expect(out).toContain('the fixture site records no effect "order_placed"');
    expect(out).not.toMatch(/tasks\/ok\.yaml/);
  });

  it("judges the fixture's scenario only on the fixture, and names unknown targets", async () => {
    const dir = project(CONFIG, {
      scenario: task("scenario", "start: { path: /, scenario: cookie-escape }"),
      unknown: task("unknown", "").replace("target: shop", "target: shp"),
    });
    const { code, out } = await umpire(["validate"], dir);
    expect(code).toBe(2);
    expect(out).toContain("scenario cookie-escape belongs to the fixture site, but this task runs on target shop");
    expect(out).toContain('no target named "shp" is declared');
    expect(out).toContain("did you mean 'shop'?");
  });

  it("names the config file, line and field of a bad target", async () => {
    const dir = project("targets:\n  shop:\n    baseUrl: ftp://nope\n    isolatd: true\n", {});
    const { code, err } = await umpire(["validate"], dir);
    expect(code).toBe(2);
    expect(err).toMatch(/umpire\.config\.yaml:3: targets\.shop\.baseUrl: /);
    expect(err).toMatch(/umpire\.config\.yaml:4: targets\.shop(\.isolatd)?: .*isolatd/);
  });
});

describe("umpire init", () => {
  it("writes a commented config and a first task that validate as written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umpire-init-"));
    dirs.push(dir);
    const init = await umpire(["init", "--url", "http://127.0.0.1:4173"], dir);
    expect(init.code).toBe(0);
    expect(init.out).toContain("umpire.config.yaml");
    const { code, out } = await umpire(["validate"], dir);
    expect(code).toBe(0);
    expect(out).toContain("1 of 1 task file valid; 0 errors, 0 warnings");
    const again = await umpire(["init"], dir);
    expect(again.code).toBe(2);
    expect(again.err).toContain("--force");
  });
});
