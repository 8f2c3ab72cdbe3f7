/**
 * `umpire import playwright` on an app that keeps its state on the server (the reading list of
 * test/integration/targets/app, not umpire code), through the real CLI and the real Playwright test
 * runner, in a project with no umpire config yet. The suite resets the app in `beforeEach` with
 * `request.post("/reset")` and reads its API with `request.get("/api/books")`, as many teams' do.
 * The import must declare the target with that reset and `${PORT}` (not the port the suite used),
 * add an http check on the API state the gold changed, catch the agent that does nothing and the
 * one that opens the dialog without confirming, and a second import must reuse the target it
 * declared, keeping the comment a person added.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type CliResult, runCli } from "../../support/cli-child.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const PORT = String(43_000 + (process.pid % 9_000));
let dir: string;

function umpire(args: string[]): Promise<CliResult> {
  return runCli(args, { cwd: dir, env: { READING_PORT: PORT, CI: "1", UMPIRE_CHROMIUM: "" }, killAfterMs: 1_200_000 });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-import-reading-"));
  copyFileSync(join(ROOT, "test/integration/targets/app/reading-list.mjs"), join(dir, "reading-list.mjs"));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  writeFileSync(
    join(dir, "playwright.config.ts"),
    `import { defineConfig } from "@playwright/test";
const port = Number(process.env.READING_PORT ?? 4300);
export default defineConfig({
  testDir: "./e2e",
  outputDir: "./results/playwright",
  workers: 1,
  use: {
    baseURL: \`http://127.0.0.1:\${port}\`,
    launchOptions: process.env.UMPIRE_CHROMIUM ? { executablePath: process.env.UMPIRE_CHROMIUM } : {},
  },
  webServer: { command: "node reading-list.mjs", url: \`http://127.0.0.1:\${port}/\`, env: { PORT: String(port) } },
});
`,
  );
  mkdirSync(join(dir, "e2e"));
  writeFileSync(
    join(dir, "e2e/books.spec.ts"),
    `import { expect, test } from "@playwright/test";

test.beforeEach(async ({ page, request }) => {
  await request.post("/reset");
  await page.goto("/");
});

test("clears the list", async ({ page, request }) => {
  await page.getByTestId("clear-list").click();
  await page.getByTestId("confirm-clear").click();
  await expect(page.locator("#count")).toHaveText("0 books");
  const books = await request.get("/api/books");
  expect(await books.json()).toEqual([]);
});
`,
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("umpire import playwright on a server-state app", () => {
  it("takes the beforeEach reset and ${PORT}, checks the API state the gold changed, and a re-import reuses the target", async () => {
    const first = await umpire(["import", "--concurrency", "2", "playwright"]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const config = parse(readFileSync(join(dir, "umpire.config.yaml"), "utf8"));
    const [name] = Object.keys(config.targets);
    expect(config.targets[name!]).toMatchObject({
      baseUrl: "http://127.0.0.1:${PORT}",
      start: { command: "node reading-list.mjs", readyUrl: "/" },
      reset: { kind: "http", method: "POST", url: "/reset" },
    });
    expect(config.targets[name!].start.env).toBeUndefined();
    expect(readFileSync(join(dir, "umpire.config.yaml"), "utf8")).not.toContain(PORT);

    const task = parse(readFileSync(join(dir, "tasks/imported/clears-the-list.yaml"), "utf8"));
    expect(task.checks).toContainEqual({
      kind: "http",
      name: "state: GET /api/books as the gold left it",
      method: "GET",
      url: "/api/books",
      json: [{ path: "", length: 0 }],
    });
    // Opening the dialog and not confirming: the API still lists the books.
    expect(first.stdout).toMatch(
      /kept mutation-drop-step-2: dropping step 2 \(click confirm-clear\) failed .*'state: GET \/api\/books as the gold left it'/,
    );
    expect(first.stdout).toMatch(/clears-the-list: (\d+) of \1 checks shown to fail a wrong trajectory/);
    expect(first.stdout).not.toContain("check gap");

    // A person's comment in the config, then the suite imported again (its server on another port).
    const commented = `# ours: the reading list\n${readFileSync(join(dir, "umpire.config.yaml"), "utf8")}`;
    writeFileSync(join(dir, "umpire.config.yaml"), commented);
    const again = await runCli(["import", "--no-probes", "playwright"], {
      cwd: dir,
      env: { READING_PORT: String(Number(PORT) + 1), CI: "1", UMPIRE_CHROMIUM: "" },
    });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`umpire.config.yaml: reused target ${name}`);
    const after = readFileSync(join(dir, "umpire.config.yaml"), "utf8");
    expect(after).toContain("# ours: the reading list");
    expect(Object.keys(parse(after).targets)).toEqual([name]);
  }, 1_800_000);
});
