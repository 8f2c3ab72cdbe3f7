/**
 * Re-judging without re-running (issue 29 item 4), through the real CLI: a fixture task runs once on
 * the reference model; its checks are then edited so the stored end state fails them, and
 * `umpire rejudge` judges the stored evidence again (the page's DOM in a real page, the http
 * response, the command's output, the effects log) with no model turn. Both judgements are kept,
 * the latest is what show and compare use, and the custom check (which needs a live app) is named.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { capture as captureIO } from "../../support/cli-in-process.js";
import { openStore } from "../../../src/store/open.js";

const ROOT = join(__dirname, "../../..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-rejudge-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const { io, text } = captureIO({ ...process.env }, ROOT);
  return { io, out: () => text.out, err: () => text.err };
}

const db = () => join(dir, "umpire.db");
const taskFile = () => join(dir, "rejudged.yaml");

/** answer-only-bb042 with one check of each replayable kind beside its custom answer check. */
function writeTask(result: string, stdout: string): void {
  const checks = `checks:
  - kind: custom
    name: the answer states both scores and the result
    module: ${join(ROOT, "tasks/checks/cricket.ts")}
    export: answer
    options: { scores: [168/6, 169/4], result: Jaipur Kites won by 6 wickets }
  - kind: page
    name: the scorecard shows the result
    selector: '[data-mark="result-line"]'
    text: ${result}
  - kind: http
    name: the API still has the match
    url: /api/matches/BB-042
    json: [{ path: /result, equals: ${result} }]
  - kind: command
    name: the workspace probe
    command: [node, -e, "console.log('probe:' + process.env.TRIAL_ID.length)"]
    stdout: ['${stdout}']
`;
  const text = readFileSync(join(ROOT, "tasks/answer-only-bb042.yaml"), "utf8")
    .replace(/^\$schema:.*\n/m, "")
    .replace("id: answer-only-bb042", "id: rejudged-bb042")
    .replace(/^checks:\n[\s\S]*?(?=^reference:)/m, checks)
    .replace(/^negatives:\n[\s\S]*?(?=^tags:)/m, "");
  writeFileSync(taskFile(), text);
}

function read<T>(fn: (store: ReturnType<typeof openStore>) => T): T {
  const store = openStore(db(), { readonly: true });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

describe("umpire rejudge", () => {
  let runs: string[] = [];
  beforeAll(async () => {
    writeTask("Jaipur Kites won by 6 wickets", "probe:");
    for (let i = 0; i < 2; i++) {
      const c = capture();
      const code = await main(
        ["run", taskFile(), "--db", db(), "--out", join(dir, "runs"), "--mode", "structured", "--reporter", "dot"],
        c.io,
      );
      expect(code, c.err()).toBe(0);
    }
    runs = read((s) =>
      s
        .listRuns()
        .map((r) => r.id)
        .reverse(),
    );
  }, 600_000);

  it("keeps the end state the checks read in the trial folder", () => {
    const [run, trial] = read((s) => [s.getRun(runs[1]!), s.trials(runs[1]!)[0]!] as const);
    const evidence = JSON.parse(readFileSync(join(run.folder!, trial.folder!, "evidence.json"), "utf8"));
    expect(evidence.pages.current.url).toMatch(/\/match\/BB-042$/);
    expect(evidence.pages.current.html).toContain('data-mark="result-line"');
    expect(evidence.pages.current.html).not.toContain("<script");
    expect(Object.keys(evidence.http)).toEqual([
      expect.stringMatching(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/matches\/BB-042$/),
    ]);
    expect(Object.values(evidence.commands)).toEqual([
      expect.objectContaining({ code: 0, stdout: expect.stringMatching(/^probe:\d+/) }),
    ]);
    expect(evidence.effects).toEqual([]);
    // The run's environment came with it (issue 29 item 6).
    expect(run.environment).toMatchObject({
      chromium: { version: expect.stringMatching(/^\d+\./), endpoint: "local" },
      deviceScaleFactors: [1],
      os: { platform: process.platform },
    });
  });

  it("judges the stored end state with today's checks, keeps both judgements, and makes no model turn", async () => {
    const before = read((s) => {
      const t = s.trials(runs[1]!)[0]!;
      return { trial: t, turns: s.turns(t.id).length };
    });
    expect(before.trial.verdict).toBe("passed");
    // Today's checks: the page and the API are now expected to say another result; the command's output another prefix.
    writeTask("Pune Pioneers won by 1 run", "nope:");
    const c = capture();
    expect(await main(["rejudge", runs[1]!, "--db", db()], c.io), c.err()).toBe(0);
    expect(c.out()).toContain(`${before.trial.id}  rejudged-bb042: passed -> failed`);
    expect(c.out()).toMatch(
      /^needs a live app: 1 custom check in 1 trial \("the answer states both scores and the result"\): a custom check's code may read the live app; kept its earlier result$/m,
    );
    expect(c.out()).toMatch(/no model turn made/);

    const after = read((s) => {
      const t = s.trials(runs[1]!)[0]!;
      return { trial: t, turns: s.turns(t.id).length, checks: s.checks(t.id), judgements: s.judgements(t.id) };
    });
    expect(after.turns).toBe(before.turns);
    expect(after.trial).toMatchObject({ verdict: "failed", turns: before.trial.turns, rejudgedAt: expect.any(String) });
    const byName = Object.fromEntries(after.checks.map((ch) => [ch.name, ch]));
    expect(byName["the scorecard shows the result"]).toMatchObject({
      pass: false,
      reason: expect.stringContaining("does not match"),
    });
    expect(byName["the API still has the match"]).toMatchObject({ pass: false });
    expect(byName["the workspace probe"]).toMatchObject({ pass: false, reason: expect.stringContaining("nope:") });
    expect(byName["the answer states both scores and the result"]).toMatchObject({ pass: true });
    expect(after.judgements.map((j) => [j.source, j.verdict])).toEqual([
      ["run", "passed"],
      ["rejudge", "failed"],
    ]);
    expect(after.judgements[1]!.taskHash).not.toBe(after.judgements[0]!.taskHash);
    expect(after.judgements[1]!.liveChecks).toEqual([expect.objectContaining({ kind: "custom", kept: true })]);

    const show = capture();
    await main(["show", runs[1]!, "--db", db()], show.io);
    expect(show.out()).toContain("failed (re-judged)");
    // The trial's own header says so too, as documented.
    expect(show.out()).toMatch(/^#\d+ rejudged-bb042 · .* · repeat 0: failed \(re-judged\)$/m);
    const report = capture();
    expect(await main(["report", runs[1]!, "--db", db(), "--out", join(dir, "report")], report.io)).toBe(0);
    const seq = read((s) => s.trials(runs[1]!)[0]!.seq);
    expect(readFileSync(join(dir, "report/trials", `${seq}.html`), "utf8")).toMatch(
      /<h2 class="trial-title">.*<span class="muted">\(re-judged\)<\/span><\/h2>/,
    );

    // compare reads the latest judgement: the first run (not re-judged) passed, the second now fails.
    const compare = capture();
    await main(["compare", runs[0]!, runs[1]!, "--db", db(), "--include-changed-tasks"], compare.io);
    expect(compare.out()).toMatch(/re-judged/);
    expect(compare.out()).toMatch(/1\/1[\s\S]*0\/1/);
  }, 600_000);

  it("a check the evidence cannot answer is named: it keeps its earlier result, or, new, is not judged", async () => {
    // The http check now asks for a path the trial never requested; a new page check opens a page it never opened.
    writeTask("Jaipur Kites won by 6 wickets", "probe:");
    const edited = readFileSync(taskFile(), "utf8")
      .replace("url: /api/matches/BB-042", "url: /api/matches/BB-024")
      .replace(
        "reference:",
        "  - kind: page\n    name: the other scorecard\n    open: /match/BB-024\n    selector: '[data-mark=\"result-line\"]'\nreference:",
      );
    writeFileSync(taskFile(), edited);
    const c = capture();
    expect(await main(["rejudge", runs[0]!, "--db", db(), "--task", "rejudged-bb042"], c.io), c.err()).toBe(0);
    expect(c.out()).toMatch(
      /^needs a live app: 1 http check in 1 trial \("the API still has the match"\): no stored response for GET \S+\/api\/matches\/BB-024; kept its earlier result$/m,
    );
    expect(c.out()).toMatch(
      /^needs a live app: 1 page check in 1 trial \("the other scorecard"\): no stored page for open \/match\/BB-024; not judged$/m,
    );
    // Not judged is not the agent's failure: the verdict is error (the page check on the stored scorecard still passes).
    expect(c.out()).toContain(": passed -> error");
    const checks = read((s) => s.checks(s.trials(runs[0]!)[0]!.id));
    expect(checks.find((ch) => ch.name === "the scorecard shows the result")).toMatchObject({ pass: true });
    expect(checks.find((ch) => ch.name === "the other scorecard")).toMatchObject({
      pass: false,
      reason: expect.stringMatching(/^not judged: .*needs a live app/),
    });
  }, 600_000);
});
