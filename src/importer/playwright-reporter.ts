/**
 * umpire's Playwright reporter: `npx playwright test --reporter <this file>` (added by `umpire import
 * playwright`, beside the user's own reporters) records each test's steps through Playwright's public
 * Reporter API, plus the config's baseURL, testIdAttribute and webServer, into the JSON file named by
 * UMPIRE_IMPORT_RECORDING. Loaded by Playwright on its own: it imports nothing of umpire's at run time.
 */
import { writeFileSync } from "node:fs";
import type { FullConfig, Reporter, Suite, TestCase, TestResult, TestStep } from "playwright/types/testReporter";
import { RECORDING_FILE_ENV, type RecordedStep, type RecordedTest, type Recording } from "./recording.js";

/** Steps that say nothing of what the test did to the page. */
const SKIPPED_CATEGORIES = new Set(["fixture", "hook", "test.attach"]);

function recordStep(step: TestStep): RecordedStep {
  return {
    category: step.category,
    title: step.title,
    params: plainParams(step.params ?? {}),
    ...(step.location ? { file: step.location.file, line: step.location.line, column: step.location.column } : {}),
    steps: step.steps.filter((s) => !SKIPPED_CATEGORIES.has(s.category) || s.category === "hook").map(recordStep),
  };
}

/** Params as JSON keeps them: a RegExp (`toHaveURL(/#\\/active$/)`) as {regex, flags}, not `{}`. */
function plainParams(params: Record<string, unknown>): Record<string, unknown> {
  const plain = (v: unknown): unknown =>
    v instanceof RegExp ? { regex: v.source, flags: v.flags } : Array.isArray(v) ? v.map(plain) : v;
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, plain(v)]));
}

/** beforeEach hooks hold steps of the test too (a `page.goto` in beforeEach): their pw:api steps are kept, in order. */
function stepsOf(result: TestResult): RecordedStep[] {
  const out: RecordedStep[] = [];
  for (const step of result.steps) {
    if (step.category === "hook" && /before/i.test(step.title))
      out.push(...step.steps.filter((s) => s.category !== "fixture").map(recordStep));
    else if (!SKIPPED_CATEGORIES.has(step.category)) out.push(recordStep(step));
  }
  return out;
}

export default class UmpireImportReporter implements Reporter {
  private config: FullConfig | null = null;
  private readonly tests: RecordedTest[] = [];

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, _suite: Suite): void {
    this.config = config;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // A retried test ends once per attempt: the last attempt is the one kept.
    const at = this.tests.findIndex(
      (t) => t.file === test.location.file && t.line === test.location.line && t.project === projectOf(test),
    );
    const recorded: RecordedTest = {
      title: test.title,
      titlePath: test.titlePath().slice(3),
      file: test.location.file,
      line: test.location.line,
      project: projectOf(test),
      status: result.status,
      steps: stepsOf(result),
    };
    if (at >= 0) this.tests[at] = recorded;
    else this.tests.push(recorded);
  }

  onEnd(): void {
    const file = process.env[RECORDING_FILE_ENV];
    if (!file || !this.config) return;
    const server = this.config.webServer as (Record<string, unknown> & { command?: string }) | null;
    const recording: Recording = {
      version: 1,
      configFile: this.config.configFile,
      rootDir: this.config.rootDir,
      webServer: server?.command
        ? {
            command: server.command,
            ...(typeof server.cwd === "string" ? { cwd: server.cwd } : {}),
            ...(typeof server.url === "string" ? { url: server.url } : {}),
            ...(typeof server.port === "number" ? { port: server.port } : {}),
            ...(server.env && typeof server.env === "object" ? { env: server.env as Record<string, string> } : {}),
          }
        : null,
      projects: this.config.projects.map((p) => ({
        name: p.name,
        ...(typeof p.use.baseURL === "string" ? { baseURL: p.use.baseURL } : {}),
        ...(typeof p.use.testIdAttribute === "string" ? { testIdAttribute: p.use.testIdAttribute } : {}),
      })),
      tests: this.tests,
    };
    writeFileSync(file, JSON.stringify(recording, null, 1));
  }
}

function projectOf(test: TestCase): string {
  return test.parent.project()?.name ?? "";
}
