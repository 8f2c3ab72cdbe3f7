/**
 * Native dialogs reach the agent (issue 23 §3), through the real CLI: real Chromium, the fixture
 * site's /dialogs page (window.alert, confirm, prompt, a beforeunload guard, a target=_blank link and
 * window.open), the reference model over real HTTP playing gold trajectories that answer the drawn
 * dialog by its marks (dialog.ok, dialog.cancel) or by keys, in both output modes, at DPR 1 and 2.
 * The page's own reaction (its result line, or the URL it ends on) proves each answer arrived; the
 * trial log holds each dialog's opening and answer (by whom, how), the report shows them, and the
 * observation drawn while a dialog was open has the OK button where the executed click landed.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

type Step = Record<string, unknown>;
const click = (target: string): Step => ({ tool: "click", target });

/** A task on /dialogs whose check reads the page's result line (or its URL). */
function task(
  id: string,
  opts: {
    steps: Step[];
    result?: string;
    url?: string;
    dpr?: number;
    dialogs?: string;
    turns?: number;
    negatives?: Record<string, Step[]>;
  },
): string {
  const check = opts.url
    ? { kind: "page", name: "the page the agent ended on", url: { regex: opts.url } }
    : { kind: "page", name: "the page's reaction", selector: "[data-mark=dialog-result]", text: opts.result };
  const doc = {
    id,
    title: `Native dialog: ${id}`,
    instruction: `On the dialogs page of the cricket site, do the dialog exercise called ${id} and answer done.`,
    start: { path: "/dialogs" },
    viewport: { width: 1280, height: 800, deviceScaleFactor: opts.dpr ?? 1 },
    tools: ["click", "write", "press", "wait", "answer"],
    ...(opts.dialogs ? { dialogs: opts.dialogs } : {}),
    ...(opts.turns ? { limits: { turns: opts.turns } } : {}),
    checks: [check],
    reference: [...opts.steps, { tool: "answer", args: { content: "done" } }],
    ...(opts.negatives ? { negatives: opts.negatives } : {}),
  };
  return JSON.stringify(doc, null, 1);
}

const TASKS: Record<string, string> = {
  "confirm-ok": task("confirm-ok", {
    steps: [click("confirm-button"), click("dialog.ok")],
    result: "confirm: deleted",
  }),
  "confirm-cancel": task("confirm-cancel", {
    steps: [click("confirm-button"), click("dialog.cancel")],
    result: "confirm: kept",
  }),
  "confirm-ok-dpr2": task("confirm-ok-dpr2", {
    steps: [click("confirm-button"), click("dialog.ok")],
    result: "confirm: deleted",
    dpr: 2,
  }),
  "confirm-cancel-dpr2": task("confirm-cancel-dpr2", {
    steps: [click("confirm-button"), click("dialog.cancel")],
    result: "confirm: kept",
    dpr: 2,
  }),
  "alert-enter": task("alert-enter", {
    steps: [click("alert-button"), { tool: "press", args: { keys: ["Enter"] } }],
    result: "alert: closed",
  }),
  "prompt-write": task("prompt-write", {
    steps: [click("prompt-button"), { tool: "write", args: { content: "final.md" } }, click("dialog.ok")],
    result: "prompt: renamed to final.md",
    dpr: 2,
  }),
  "prompt-escape": task("prompt-escape", {
    steps: [click("prompt-button"), { tool: "press", args: { keys: ["Escape"] } }],
    result: "prompt: cancelled",
  }),
  "leave-site": task("leave-site", {
    steps: [click("leave-guard"), click("leave-link"), click("dialog.ok")],
    url: "/$",
  }),
  "policy-accept": task("policy-accept", {
    steps: [click("confirm-button")],
    result: "confirm: deleted",
    dialogs: "accept",
  }),
  "policy-dismiss": task("policy-dismiss", {
    steps: [click("prompt-button")],
    result: "prompt: cancelled",
    dialogs: "dismiss",
  }),
  "new-tab": task("new-tab", { steps: [click("new-tab-link"), click("result-BB-042")], url: "/match/BB-042$" }),
  "window-open": task("window-open", { steps: [click("window-open")], url: "/match/BB-042$" }),
  "left-open": task("left-open", {
    steps: [click("confirm-button"), click("dialog.ok")],
    result: "confirm: deleted",
    turns: 3,
    negatives: {
      "leave-open": [
        click("confirm-button"),
        { tool: "wait", args: { seconds: 1 } },
        { tool: "wait", args: { seconds: 1 } },
        { tool: "answer", args: { content: "done" } },
      ],
    },
  }),
};

interface TrialJson {
  id: string;
  task: string;
  mode: string;
  folder: string;
  stopReason: string;
  stopDetail: string;
  verdict: string;
}
interface Event {
  type: string;
  data: Record<string, any>;
}
let dir: string;
let trials: TrialJson[] = [];
let runId: string;
let leftOpen: TrialJson;

function events(t: TrialJson, run = runId): Event[] {
  return readFileSync(join(dir, "runs", run, t.folder, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Event);
}
const trialOf = (task: string, mode = "structured") => trials.find((t) => t.task === task && t.mode === mode)!;
const flows = (evs: Event[], flow: string) =>
  evs.filter((e) => e.type === "AgentEvent" && e.data.kind === "flow_event" && e.data.flow === flow);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-dialogs-"));
  const files = Object.entries(TASKS).map(([id, text]) => {
    writeFileSync(join(dir, `${id}.json`), text);
    return `${id}.json`;
  });
  const res = await umpire(
    [
      "run",
      ...files,
      "--mode",
      "both",
      "--concurrency",
      "2",
      "--json",
      "--db",
      join(dir, "umpire.db"),
      "--out",
      "runs",
    ],
    dir,
  );
  const body = JSON.parse(res.out || "{}");
  trials = body.trials ?? [];
  runId = body.runId;
  expect(trials.length, res.err).toBe(files.length * 2);
  const neg = await umpire(
    [
      "run",
      "left-open.json",
      "--model",
      "reference:negative-leave-open",
      "--mode",
      "structured",
      "--json",
      "--db",
      join(dir, "umpire.db"),
      "--out",
      "runs",
    ],
    dir,
  );
  const negBody = JSON.parse(neg.out || "{}");
  leftOpen = { ...negBody.trials?.[0], runId: negBody.runId } as TrialJson & { runId: string };
}, 2_400_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("native dialogs through the real CLI", () => {
  it("every dialog kind is answered as the gold trajectory says, in both modes, at DPR 1 and 2 (the page's reaction proves it)", () => {
    const wrong = trials
      .filter((t) => t.verdict !== "passed")
      .map((t) => `${t.task}/${t.mode}: ${t.verdict} ${t.stopReason} ${t.stopDetail}`);
    expect(wrong).toEqual([]);
  });

  it("logs each dialog's opening and its answer: kind, message, by whom and how", () => {
    const cases: [string, string, string, string][] = [
      ["confirm-ok", "confirm", "accepted", "click on OK"],
      ["confirm-cancel-dpr2", "confirm", "dismissed", "click on Cancel"],
      ["alert-enter", "alert", "accepted", "Enter"],
      ["prompt-escape", "prompt", "dismissed", "Escape"],
      ["leave-site", "beforeunload", "accepted", "click on Leave"],
    ];
    for (const mode of ["structured", "tools"]) {
      for (const [taskId, kind, answer, how] of cases) {
        const evs = events(trialOf(taskId, mode));
        expect(
          flows(evs, "dialog_opened").map((e) => e.data.dialog.kind),
          `${taskId}/${mode}`,
        ).toEqual([kind]);
        const answered = flows(evs, "dialog_answered").map((e) => e.data.dialog);
        expect(answered, `${taskId}/${mode}`).toMatchObject([{ kind, answer, by: "agent", how }]);
      }
    }
    const prompt = flows(events(trialOf("prompt-write")), "dialog_answered")[0]!.data.dialog;
    expect(prompt).toMatchObject({
      kind: "prompt",
      message: "New name for the draft:",
      defaultValue: "draft.md",
      answer: "accepted",
      text: "final.md",
      by: "agent",
    });
  });

  it("dialogs: accept / dismiss answer at once, by policy, and the agent never sees the dialog", () => {
    for (const [taskId, answer] of [
      ["policy-accept", "accepted"],
      ["policy-dismiss", "dismissed"],
    ] as const) {
      const evs = events(trialOf(taskId));
      expect(flows(evs, "dialog_answered").map((e) => e.data.dialog)).toMatchObject([{ answer, by: "policy" }]);
    }
  });

  it("draws the dialog at the screenshot's full size, with OK exactly where the click aimed from that image (DPR 1 and 2)", () => {
    for (const [taskId, dpr] of [
      ["confirm-ok", 1],
      ["confirm-ok-dpr2", 2],
    ] as const) {
      for (const mode of ["structured", "tools"]) {
        const t = trialOf(taskId, mode);
        const evs = events(t);
        const observations = evs.filter((e) => e.data.kind === "observation_event");
        const results = evs.filter((e) => e.data.kind === "tool_result");
        // The second observation shows the dialog; the second action clicked OK on it.
        const shot = observations[1]!.data;
        expect(shot.metadata.image_size).toEqual([1280 * dpr, 800 * dpr]);
        const png = PNG.sync.read(readFileSync(join(dir, "runs", runId, t.folder, shot.image.source)));
        expect([png.width, png.height]).toEqual([1280 * dpr, 800 * dpr]);
        const point = results[1]!.data.result.point as { x: number; y: number };
        // Chromium's OK button is filled blue (#0b57d0) around its white label; the page behind is never
        // that colour there. Most of the box around the click (label included) must be that blue.
        let blue = 0;
        let all = 0;
        for (let dy = -12; dy <= 12; dy += 2) {
          for (let dx = -20; dx <= 20; dx += 2) {
            const i = (Math.round((point.y + dy) * dpr) * png.width + Math.round((point.x + dx) * dpr)) * 4;
            const [r, g, b] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
            all += 1;
            if (b > 150 && r < 60 && g < 120) blue += 1;
          }
        }
        expect({ taskId, mode, point, mostlyBlue: blue / all > 0.6 }).toMatchObject({ mostlyBlue: true });
      }
    }
  });

  it("a link with target=_blank and window.open show the new tab, and the log says a tab opened", () => {
    for (const taskId of ["new-tab", "window-open"]) {
      const tabs = flows(events(trialOf(taskId)), "tab_opened");
      expect(tabs.length, taskId).toBe(1);
      expect(tabs[0]!.data.tab.url).toMatch(taskId === "new-tab" ? /\/search\?q=BB-042$/ : /\/match\/BB-042$/);
    }
  });

  it("a dialog left open at the turn limit is named in the stop detail", () => {
    expect(leftOpen.stopReason).toBe("turn_limit");
    expect(leftOpen.stopDetail).toMatch(/a confirm dialog was still open \("Delete the draft note\?"\)/);
  });

  it("the HTML report shows each dialog and tab with how it was answered", async () => {
    const out = join(dir, "report");
    const res = await umpire(["report", runId, "--db", join(dir, "umpire.db"), "--out", out], dir);
    expect(res.code, res.err).toBe(0);
    const pages = readdirSync(join(out, "trials")).map((f) => readFileSync(join(out, "trials", f), "utf8"));
    expect(
      pages.some(
        (p) =>
          p.includes("Dialogs and tabs") &&
          /confirm<\/b> dialog on .*Delete the draft note\?.* accepted by agent \(click on OK\)/.test(p),
      ),
    ).toBe(true);
    expect(pages.some((p) => /tab opened<\/b>: .*\/search\?q=BB-042/.test(p))).toBe(true);
  });
});
