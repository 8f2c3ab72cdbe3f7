/**
 * `umpire marks --url URL` (or `--target NAME --path /x`): opens the page in umpire's Chromium and
 * lists its controls, each with a ready-to-paste mark declaration (src/targets/page-controls.ts),
 * ambiguous ones flagged, iframe ones said to be out of reach of a mark; writes a screenshot with
 * every control boxed and numbered as listed. `--json` prints the same for machines.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { launchChromium } from "../../browser/chromium.js";
import { UmpireError, firstLineOf } from "../../errors.js";
import { drawNumberedBoxes, pageControls, type PageControl } from "../../targets/page-controls.js";
import { startWebTarget } from "../../targets/web-target.js";
import type { Target } from "../../targets/contract.js";
import type { TargetDecl } from "../../task/target-decl.js";
import { OPTIONS as O } from "../../config/options.js";
import { EXIT } from "../exit-codes.js";
import { describeControl } from "../page-survey.js";
import { surveyAfterSteps } from "../../authoring/survey-after.js";
import { loadOne } from "./try.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandIO } from "../io.js";

const OPTIONS = {
  url: { kind: "string", arg: "URL", help: "the page to survey" },
  after: {
    kind: "int",
    arg: "N",
    min: 0,
    help: "with TASK: survey the page after the first N steps of the task's gold (played as umpire try plays them)",
  },
  target: {
    kind: "string",
    arg: "NAME",
    help: "a target of the config file: umpire starts it (its start command) and opens --path on it",
  },
  path: { kind: "string", arg: "PATH", default: "/", help: "with --target: the path to open" },
  screenshot: { kind: "string", arg: "FILE", default: "marks.png", help: "where the numbered screenshot goes" },
  viewport: { kind: "string", arg: "WxH", default: "1280x800", help: "the browser's viewport (a task's default)" },
  "test-id-attribute": {
    kind: "string",
    arg: "ATTR",
    defaultText: "the target's testIdAttribute, else data-testid",
    help: "the attribute whose value names a mark",
  },
  config: O.config,
  json: O.json,
} as const;

function viewportOf(text: string): { width: number; height: number } {
  const m = /^(\d{3,4})x(\d{3,4})$/.exec(text);
  if (!m) throw new UmpireError("usage", `marks: --viewport ${text}: not WIDTHxHEIGHT`, "e.g. --viewport 1280x800");
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** The page to open, and the target started for it (stopped by the caller), with its test-id attribute. */
async function pageToOpen(
  values: Record<string, unknown>,
  targets: Record<string, TargetDecl>,
  configFile: string | null,
  io: CommandIO,
  logDir: string,
) {
  if (values.url && values.target)
    throw new UmpireError(
      "usage",
      "marks: --url and --target are both given",
      "give one: --url URL, or --target NAME --path /x",
    );
  if (values.url) {
    const url = String(values.url);
    if (!URL.canParse(url))
      throw new UmpireError("usage", `marks: --url ${url}: not an absolute URL`, "e.g. --url http://127.0.0.1:3000/");
    return { url, target: null as Target | null, testIdAttribute: "data-testid" };
  }
  if (!values.target)
    throw new UmpireError(
      "usage",
      "marks: no page given",
      "give --url URL, or --target NAME --path /x (a target of umpire.config.yaml)",
    );
  const name = String(values.target);
  const decl = targets[name];
  if (!decl) {
    const known = Object.keys(targets);
    throw new UmpireError(
      "input",
      `marks: --target ${name}: ${configFile ? `${configFile} declares no target of that name` : "no config file (umpire.config.yaml) in this folder"}`,
      known.length
        ? `one of: ${known.join(", ")}`
        : "declare it under targets: (npx umpire init writes one), or use --url",
    );
  }
  const configDir = configFile ? dirname(resolve(io.cwd, configFile)) : io.cwd;
  const target = await startWebTarget({
    name,
    decl,
    configDir,
    logDir,
    env: io.env,
    signal: io.signal,
    onNotice: (message) => io.stderr.write(`umpire: ${message}\n`),
  });
  return {
    url: new URL(String(values.path), `${target.baseUrl}/`).toString(),
    target,
    testIdAttribute: decl.testIdAttribute,
  };
}

export const run = defineCommand({
  name: "marks",
  options: OPTIONS,
  positionals: [{ name: "task", required: false }],
  example: "umpire marks --url http://127.0.0.1:3000/",
  description: `Forms: umpire marks --url URL [options], umpire marks --target NAME [--path /x] [options],
or umpire marks TASK --after N (the page after the first N steps of the task's gold, played as
umpire try plays them: a tray or dialog that opens mid-task is surveyed open).
Lists the page's controls (buttons, links, fields, selects, elements with a widget role, inside
iframes too), each with the mark declaration to paste under targets.<name>.marks in
umpire.config.yaml: the test id first (a mark already), else role + accessible name, else a CSS
selector. AMBIGUOUS means the declaration matches more than one element (umpire would take the
first); a selector that matches only this one is given. Marks resolve in the main frame only: a
control inside an iframe is listed, and cannot be a mark. The screenshot boxes and numbers every
control as listed (red: ambiguous or in an iframe). Controls drawn in SVG (groups with an id, a
role or a name) and named canvases are listed too; an icon-font control is named by its
aria-label, title or id, never by its glyph.`,
  run: execute,
});

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { values } = parsed;
  const task = parsed.positionals[0];
  if (task !== undefined || values.after !== undefined) return executeAfter(parsed, io, task);
  const viewport = viewportOf(String(values.viewport));
  const logDir = mkdtempSync(join(tmpdir(), "umpire-marks-"));
  const targets = (parsed.config.data.targets ?? {}) as Record<string, TargetDecl>;
  const { url, target, testIdAttribute } = await pageToOpen(values, targets, parsed.config.file, io, logDir);
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport, deviceScaleFactor: 1 })).newPage();
    try {
      await page.goto(url, { waitUntil: "load", timeout: 30_000 });
    } catch (error) {
      throw new UmpireError(
        "input",
        `marks: cannot open ${url}: ${firstLineOf(error)}`,
        "check the app is running and the URL is right",
      );
    }
    await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
    const controls = await pageControls(page, {
      testIdAttribute: String(values["test-id-attribute"] ?? testIdAttribute),
    });
    const screenshot = resolve(io.cwd, String(values.screenshot));
    mkdirSync(dirname(screenshot), { recursive: true });
    const remove = await drawNumberedBoxes(page, controls);
    await page.screenshot({ path: screenshot });
    await remove();
    printSurvey({ url: page.url(), viewport, screenshot, controls }, Boolean(values.json), io);
    return EXIT.ok;
  } finally {
    await browser.close().catch(() => undefined);
    await target?.close();
    rmSync(logDir, { recursive: true, force: true });
  }
}

/** `marks TASK --after N`: the page after N gold steps (survey-after.ts). */
async function executeAfter(
  parsed: ParsedCommand<typeof OPTIONS>,
  io: CommandIO,
  arg: string | undefined,
): Promise<number> {
  const { values } = parsed;
  if (arg === undefined || values.after === undefined)
    throw new UmpireError(
      "usage",
      arg === undefined ? "marks: --after N needs a TASK" : `marks: ${arg}: a task needs --after N`,
      "e.g. umpire marks tasks/first-task.yaml --after 2 (--after 0: the task's start page)",
    );
  if (values.url || values.target)
    throw new UmpireError("usage", "marks: TASK --after is given with --url or --target", "the task names its page");
  // A survey changes nothing: a draft (imported, under review) is surveyed as any task is.
  const { task, project } = await loadOne(arg, parsed, io, "marks", true);
  io.stderr.write(
    `umpire marks: playing the first ${values.after} steps of ${task.id}'s gold on the reference model\n`,
  );
  const survey = await surveyAfterSteps({
    task,
    project,
    after: values.after,
    testIdAttribute: String(
      values["test-id-attribute"] ?? project.targets[task.target]?.testIdAttribute ?? "data-testid",
    ),
    env: io.env,
    signal: io.signal,
  });
  const screenshot = resolve(io.cwd, String(values.screenshot));
  mkdirSync(dirname(screenshot), { recursive: true });
  writeFileSync(screenshot, survey.png);
  if (survey.broken)
    io.stderr.write(`umpire marks: a step did not play as written, the page is where it stopped: ${survey.broken}\n`);
  printSurvey(
    {
      url: survey.url,
      viewport: survey.viewport,
      screenshot,
      controls: survey.controls,
      after: values.after,
      broken: survey.broken,
    },
    Boolean(values.json),
    io,
  );
  return survey.broken ? EXIT.failed : EXIT.ok;
}

function printSurvey(
  out: {
    url: string;
    viewport: { width: number; height: number };
    screenshot: string;
    controls: PageControl[];
    after?: number;
    broken?: string | null;
  },
  json: boolean,
  io: CommandIO,
): void {
  const { controls, viewport, screenshot } = out;
  if (json) {
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const flagged = controls.filter((c) => c.ambiguous).length;
  const framed = controls.filter((c) => !c.resolvable).length;
  const when = out.after === undefined ? "" : ` (after ${out.after} gold steps)`;
  io.stdout.write(
    `${out.url}${when}: ${controls.length} control${controls.length === 1 ? "" : "s"}${flagged ? `, ${flagged} ambiguous` : ""}${framed ? `, ${framed} in iframes` : ""}\n`,
  );
  io.stdout.write(
    `paste the declarations under targets.<name>.marks; steps aim at a mark by its name (target: NAME)\n\n`,
  );
  io.stdout.write(controls.map(describeControl).join("\n") + (controls.length ? "\n" : ""));
  io.stdout.write(
    `\nscreenshot: ${screenshot} (${viewport.width}x${viewport.height}, controls boxed and numbered as above)\n`,
  );
}
