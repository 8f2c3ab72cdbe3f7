/**
 * A minimal external agent in TypeScript: its own (scripted) loop, driving the trial's browser
 * through Playwright's connectOverCDP. It solves scorecard-note-bb042 and shows the contract:
 * read the trial from UMPIRE_* variables, report each step to UMPIRE_EVENTS_FILE as Agents API
 * envelope events, write the result to UMPIRE_RESULT_FILE. A real agent asks its model what to do
 * where this one follows a script.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { chromium, type Page } from "playwright";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run me through umpire run --agent`);
  return value;
};

let step = 0;
function report(type: string, data: Record<string, unknown>): void {
  appendFileSync(env("UMPIRE_EVENTS_FILE"), `${JSON.stringify({ type, data, timestamp: new Date().toISOString() })}\n`);
}

/** One step of the loop: what the "policy" decided, then the action and its result. */
async function act(
  page: Page,
  thought: string,
  tool: string,
  args: Record<string, unknown>,
  run: () => Promise<unknown>,
): Promise<void> {
  step += 1;
  const id = `ts-${step}`;
  report("AgentEvent", {
    kind: "policy_event",
    reasoning_content: null,
    content: thought,
    tool_reqs: [{ tool_name: tool, args, id }],
    validation_errors: [],
  });
  await run();
  report("AgentEvent", {
    kind: "tool_result",
    tool_req: { tool_name: tool, args, id },
    result: { status: "success", message: `${tool} done on ${page.url()}` },
  });
}

const browser = await chromium.connectOverCDP(env("UMPIRE_CDP_URL"));
// The trial's page is already open on the start URL, in the trial's context.
const page = browser.contexts().flatMap((c) => c.pages())[0] ?? (await browser.contexts()[0]!.newPage());
const mark = (name: string) => page.locator(`[data-mark="${name}"]`);
const note =
  "match: BB-042\nteams: Pune Pioneers vs Jaipur Kites\nscores: Pune Pioneers 168/6, Jaipur Kites 169/4\nresult: Jaipur Kites won by 6 wickets\n";

await act(
  page,
  "Search for the match id",
  "write",
  { element: "search box", content: "BB-042", press_enter: true },
  async () => {
    await mark("search-box").fill("BB-042");
    await mark("search-box").press("Enter");
    await page.waitForLoadState("load");
  },
);
await act(page, "Open BB-042, not its look-alikes", "click", { element: "BB-042 result" }, () =>
  Promise.all([page.waitForURL(/\/match\/BB-042/), mark("result-BB-042").click()]),
);
await act(page, "Go to the notes page", "click", { element: "Add note" }, () =>
  Promise.all([page.waitForURL(/\/notes/), mark("add-note").click()]),
);
await act(page, "Write the four lines", "write", { element: "note body", content: note }, () =>
  mark("note-body").fill(note),
);
await act(page, "Save", "click", { element: "Save" }, () => mark("note-save").click());
await act(page, "Confirm the save", "click", { element: "Confirm" }, async () => {
  await mark("confirm-save").click();
  await mark("save-status").filter({ hasText: "Saved" }).waitFor();
});
const answer = "Saved notes/BB-042.md: Pune Pioneers 168/6, Jaipur Kites 169/4; Jaipur Kites won by 6 wickets.";
report("AgentEvent", { kind: "answer_event", answer, outcome: "success" });
writeFileSync(
  env("UMPIRE_RESULT_FILE"),
  JSON.stringify({ answer, outcome: "success", usage: { inputTokens: 1200, outputTokens: 300 }, model: "scripted-ts" }),
);
// Disconnect only: the browser is umpire's, and closing it would be refused anyway.
await browser.close();
