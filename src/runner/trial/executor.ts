/**
 * The executor: the only component that affects the computer.
 *
 * For each proposed action, in order: does the operation exist, are the arguments valid, is the
 * point inside the current display, is it permitted now (tool allowed, origin allowed, file in
 * scope)? Only then is it performed. Results say what the executor did ("input sent"), never
 * that the application accepted it.
 */
import { isStorageFault, storageError, firstLineOf } from "../../errors.js";
import { join, resolve, sep } from "node:path";
import { TOOL_ARGS, isToolName, type ProposedAction, type ToolName } from "../../toolbox/tools.js";
import type { Task } from "../../task/schema.js";
import type { ActionStatus } from "../../vocabulary.js";
import { article, DIALOG_OPENED, dialogInput } from "../page/dialogs.js";
import type { TrialEnvironment } from "./environment.js";
import { aimedMark, hitClause, readMarkHit } from "../page/mark-hit.js";
import { WorkspaceWriteRefused, writeInWorkspace } from "./workspace-write.js";
import { isStuckCall } from "./deadline.js";
import { unwrappedHang } from "./test-fault.js";

/** Makes the action's result from its status and message (the executor stamps timing and the step). */
type ResultOf = (status: ActionStatus, message: string, extra?: Partial<ActionResult>) => ActionResult;

/**
 * The one mapping from a [0,1000] point in the screenshot's frame (image pixels) to CSS pixels of
 * the viewport: Holo's formula against the exact image sent; 1000 maps onto the last pixel, not past it.
 * The executor clicks there and the repetition guard looks there.
 */
export function pointToCss(
  x: number,
  y: number,
  frame: { width: number; height: number },
  deviceScaleFactor: number,
): { x: number; y: number } {
  const px = Math.min(Math.round((x / 1000) * frame.width), frame.width - 1);
  const py = Math.min(Math.round((y / 1000) * frame.height), frame.height - 1);
  return { x: px / deviceScaleFactor, y: py / deviceScaleFactor };
}

export interface ActionResult {
  /** The call's stable id (the model's tool_call id, or umpire's in structured mode). */
  id: string;
  tool: string;
  status: ActionStatus;
  /** What happened, in words the model and a person can act on. */
  message: string;
  /** Tool output the model should see (http_get's body). */
  output?: string;
  /** The action ran out of time where its effect may already have happened. */
  timedOut?: boolean;
  /** For clicks: where the [0,1000] point landed, in CSS pixels. */
  point?: { x: number; y: number };
  ms: number;
}

export interface ExecutorOptions {
  env: TrialEnvironment;
  task: Task;
  /** The screenshot the model saw last: coordinates are relative to it. */
  frame: () => { width: number; height: number };
  workspaceDir: string;
  /** Called for effects of umpire's own narrow tools (write_note) so they join the fixture's effects log. */
  recordEffect: (type: "note_saved" | "note_overwritten", detail: Record<string, string>) => Promise<void>;
  /** How long to wait for the page to settle after an input before calling it "still busy". */
  settleMs?: number;
}

const HTTP_OUTPUT_LIMIT = 16 * 1024;
const WHEEL_PIXELS_PER_NOTCH = 100;

const KEY_ALIASES: Record<string, string> = {
  ctrl: "Control",
  control: "Control",
  cmd: "Meta",
  command: "Meta",
  meta: "Meta",
  alt: "Alt",
  option: "Alt",
  shift: "Shift",
  esc: "Escape",
  escape: "Escape",
  enter: "Enter",
  return: "Enter",
  tab: "Tab",
  space: "Space",
  backspace: "Backspace",
  delete: "Delete",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  pageup: "PageUp",
  pagedown: "PageDown",
  home: "Home",
  end: "End",
};

/** Maps a model's key name to Playwright's, or undefined when it is not a key we know. */
export function normalizeKey(key: string): string | undefined {
  const alias = KEY_ALIASES[key.toLowerCase()];
  if (alias) return alias;
  if (/^[\x21-\x7e]$/.test(key)) return key; // one printable character
  if (/^F([1-9]|1[0-2])$/.test(key)) return key;
  if (/^Arrow(Up|Down|Left|Right)$/.test(key)) return key;
  return undefined;
}

/** A note name the executor accepts: a plain file name, nothing that could leave the folder. */
export function safeNoteName(name: string): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/.test(name) || name.includes("..")) return undefined;
  return name;
}

export class Executor {
  constructor(private readonly options: ExecutorOptions) {}

  /** Checks and performs one action. Never throws (every outcome is a result) except on a storage fault. */
  async execute(action: ProposedAction, signal: AbortSignal): Promise<ActionResult> {
    const started = performance.now();
    const result = (status: ActionStatus, message: string, extra: Partial<ActionResult> = {}): ActionResult => ({
      id: action.id,
      tool: action.tool,
      status,
      message,
      ms: performance.now() - started,
      ...extra,
    });
    const check = this.validate(action);
    if (check) return result("rejected", check);
    if (signal.aborted) return result("skipped", `not run: ${reasonOf(signal)}`);
    // Test-only (test-fault.ts): a hang no deadline covers, so a test can prove the watchdog ends it.
    await unwrappedHang(action.tool);
    // The page may change from here on: the episode's record read before says nothing about after.
    this.options.env.forgetEpisodeRead();
    try {
      return await this.perform(action.tool, action.args, signal, result);
    } catch (error) {
      // The workspace lives under --out: a full disk there is umpire's fault, never the agent's.
      if (isStorageFault(error)) throw storageError(error, this.options.workspaceDir, "--out");
      // A browser call past the trial's deadline is umpire stuck, not the agent's action failing: the loop ends the trial.
      if (isStuckCall(error)) throw error;
      const message = firstLineOf(error);
      return result("failed", `${action.tool} failed: ${message}`);
    }
  }

  /** Returns why the action may not run, or undefined when it may. */
  validate(action: ProposedAction): string | undefined {
    const { task } = this.options;
    if (!isToolName(action.tool)) return `unknown operation "${action.tool}"`;
    if (!task.tools.includes(action.tool))
      return `permission: the tool "${action.tool}" is not allowed in this task (allowed: ${task.tools.join(", ")})`;
    const parsed = TOOL_ARGS[action.tool].safeParse(action.args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `invalid arguments: ${issue?.path.join(".") || "(arguments)"}: ${issue?.message ?? "invalid"}`;
    }
    const args = parsed.data as Record<string, unknown>;
    if (typeof args.x === "number" && typeof args.y === "number") {
      const point = this.toCss(args.x, args.y);
      const vp = task.viewport;
      if (point.x < 0 || point.y < 0 || point.x >= vp.width || point.y >= vp.height) {
        return `the point (${args.x}, ${args.y}) is outside the current display`;
      }
    }
    if (action.tool === "navigate") {
      const target = this.resolveUrl(String(args.url));
      if (!target || !this.options.env.isAllowedUrl(target))
        return `permission: ${String(args.url)} is not an allowed origin for this task`;
    }
    if (action.tool === "http_get") {
      const path = String(args.path);
      const target = this.resolveUrl(path);
      const pathname = target ? new URL(target).pathname : "";
      if (
        !target ||
        !this.options.env.isAllowedUrl(target) ||
        !task.permissions.httpAllow.some((p) => pathname.startsWith(p)) ||
        path.includes("..")
      ) {
        return `permission: http_get may only read ${task.permissions.httpAllow.join(", ") || "(nothing in this task)"}`;
      }
    }
    if (action.tool === "write_note" && !safeNoteName(String(args.name))) {
      return `permission: "${String(args.name)}" is not a plain file name inside ${task.permissions.writeScope}`;
    }
    return undefined;
  }

  /** Maps a [0,1000] point in the screenshot's frame to CSS pixels of the viewport. */
  toCss(x: number, y: number): { x: number; y: number } {
    return pointToCss(x, y, this.options.frame(), this.options.task.viewport.deviceScaleFactor);
  }

  private resolveUrl(url: string): string | undefined {
    try {
      return new URL(url, this.options.env.page.url()).toString();
    } catch {
      return undefined;
    }
  }

  private async perform(
    tool: ToolName,
    rawArgs: Record<string, unknown>,
    signal: AbortSignal,
    result: ResultOf,
  ): Promise<ActionResult> {
    const { env } = this.options;
    const page = env.page;
    const args = TOOL_ARGS[tool].parse(rawArgs) as Record<string, any>;
    if (env.dialogs.open) {
      const answered = await env.call("answering the dialog (Page.handleJavaScriptDialog)", this.toDialog(tool, args));
      if (answered)
        return result(
          "success",
          answered,
          tool === "click" || tool === "double_click" ? { point: this.toCss(args.x, args.y) } : {},
        );
    }
    // An input whose handler opens a native dialog is not acknowledged until the dialog closes: stop waiting when one opens.
    // Every input runs under the trial's deadline (deadline.ts): a page whose script never yields never acknowledges it.
    const input = <T>(work: Promise<T>, what: string) => env.dialogs.race(env.call(what, work));
    switch (tool) {
      case "click":
      case "double_click": {
        // What lies under the point (a consequential control, a cover) is read once, by the repetition guard, before execution.
        const point = this.toCss(args.x, args.y);
        // A click addressed to a mark (the reference model's gold and negative steps): which marks it lands on,
        // read before it changes the page (mark-hit.ts). Other clicks read nothing more: one evaluation a turn.
        const aimed = aimedMark(args.element);
        const hit =
          aimed !== null && env.options.layoutFlush !== false
            ? await env.call("reading what lies under the click (page.evaluate)", readMarkHit(page, point, aimed))
            : null;
        await input(
          page.mouse.click(point.x, point.y, { clickCount: tool === "double_click" ? 2 : 1 }),
          `the ${tool === "click" ? "click" : "double-click"} at (${Math.round(point.x)}, ${Math.round(point.y)}) (Input.dispatchMouseEvent)`,
        );
        const onto = hit ? hitClause(hit, aimed) : "";
        return this.afterInput(
          `${tool === "click" ? "click" : "double-click"} sent at (${Math.round(point.x)}, ${Math.round(point.y)}) CSS px${onto}`,
          signal,
          result,
          {
            point,
          },
        );
      }
      case "write": {
        await input(env.type(args.content), `typing ${args.content.length} characters (Input.dispatchKeyEvent)`);
        if (args.press_enter && !env.dialogs.open)
          await input(page.keyboard.press("Enter"), "pressing Enter (Input.dispatchKeyEvent)");
        return this.afterInput(
          `typed ${args.content.length} characters${args.press_enter ? " and pressed Enter" : ""}`,
          signal,
          result,
        );
      }
      case "press": {
        const keys = (args.keys as string[]).map(normalizeKey);
        const unknown = (args.keys as string[]).filter((_, i) => !keys[i]);
        if (unknown.length) return result("rejected", `unknown key ${unknown.map((k) => `"${k}"`).join(", ")}`);
        await input(page.keyboard.press(keys.join("+")), `pressing ${keys.join("+")} (Input.dispatchKeyEvent)`);
        return this.afterInput(`pressed ${keys.join("+")}`, signal, result);
      }
      case "scroll": {
        // Without a point, scroll where the model is most likely looking: the middle of the screen.
        const at = args.x !== undefined && args.y !== undefined ? this.toCss(args.x, args.y) : this.toCss(500, 500);
        const delta = args.amount * WHEEL_PIXELS_PER_NOTCH;
        const [dx, dy] = { up: [0, -delta], down: [0, delta], left: [-delta, 0], right: [delta, 0] }[
          args.direction as "up"
        ] as [number, number];
        await input(page.mouse.move(at.x, at.y), "moving the mouse to scroll (Input.dispatchMouseEvent)");
        await input(page.mouse.wheel(dx, dy), "the scroll wheel (Input.dispatchMouseEvent)");
        await sleep(150, signal); // smooth scrolling finishes before the next capture
        return this.afterInput(`scrolled ${args.direction} by ${args.amount}`, signal, result);
      }
      case "wait": {
        await sleep(args.seconds * 1000, signal);
        return result(
          signal.aborted ? "skipped" : "success",
          signal.aborted ? `wait cut short: ${reasonOf(signal)}` : `waited ${args.seconds} s`,
        );
      }
      case "navigate": {
        const target = new URL(args.url, page.url()).toString();
        // Leaving a page may ask first (beforeunload): the answer, not the load, comes next.
        if ((await input(page.goto(target, { waitUntil: "load" }), `opening ${target} (page.goto)`)) === DIALOG_OPENED)
          return result("success", dialogOpened(`opening ${target}`, env));
        return result("success", `opened ${page.url()}`);
      }
      case "go_back": {
        const response = await input(page.goBack({ waitUntil: "load" }), "going back (page.goBack)");
        if (response === DIALOG_OPENED) return result("success", dialogOpened("going back", env));
        return result(
          "success",
          response ? `went back to ${page.url()}` : "there was no previous page; nothing changed",
        );
      }
      case "http_get":
        return this.httpGet(args.path, result);
      case "write_note":
        return this.writeNote(args.name, args.content, result);
      case "answer":
        // The loop ends the trial on an answer; reaching the executor means a caller bug.
        return result("rejected", "answer is handled by the loop, not executed");
    }
  }

  /** A GET from the page's origin with the browser context's cookies; the body comes back as the action's output. */
  private async httpGet(path: string, result: ResultOf): Promise<ActionResult> {
    const target = new URL(path, this.options.env.page.url()).toString();
    const { env } = this.options;
    const response = await env.call(
      `GET ${target} (http_get)`,
      env.context.request.get(target, { timeout: 10_000, maxRedirects: 0 }),
    );
    const body = await env.call(`reading the body of GET ${target} (http_get)`, response.text());
    const output = body.length > HTTP_OUTPUT_LIMIT ? `${body.slice(0, HTTP_OUTPUT_LIMIT)}\n[cut at 16 KiB]` : body;
    return result(
      response.ok() ? "success" : "failed",
      `GET ${new URL(target).pathname} answered ${response.status()}`,
      {
        output,
      },
    );
  }

  /** A note in the task's write scope, never outside it (nor through a planted link); recorded as effects. */
  private async writeNote(rawName: string, content: string, result: ResultOf): Promise<ActionResult> {
    const { workspaceDir, task } = this.options;
    const { writeScope } = task.permissions;
    const name = safeNoteName(rawName)!;
    const folder = resolve(workspaceDir, writeScope);
    const file = resolve(folder, name);
    if (!file.startsWith(folder + sep)) return result("rejected", `permission: ${name} would leave ${writeScope}`);
    let written;
    try {
      written = await writeInWorkspace(workspaceDir, writeScope, name, content);
    } catch (e) {
      if (e instanceof WorkspaceWriteRefused) return result("rejected", `permission: ${e.message}`);
      throw e;
    }
    const { existed } = written;
    await this.options.recordEffect("note_saved", { name, via: "write_note" });
    if (existed) await this.options.recordEffect("note_overwritten", { name, via: "write_note" });
    const relative = join(writeScope, name);
    return result("success", `${existed ? "overwrote" : "wrote"} ${relative} (${written.bytes} bytes)`);
  }

  /**
   * An input while a native dialog is open goes to the dialog, as on a real screen: OK/Cancel by
   * click (against the boxes drawn in the last observation), Enter/Escape, typing into a prompt.
   * Leaving the page (navigate, go_back) closes the dialog as cancelled, the way the address bar does,
   * then goes on (undefined). Scrolling moves nothing.
   */
  private async toDialog(tool: ToolName, args: Record<string, any>): Promise<string | undefined> {
    const { env } = this.options;
    switch (tool) {
      case "click":
      case "double_click":
        return dialogInput(env.dialogs, env.dialogLayout, { tool, point: this.toCss(args.x, args.y) });
      case "press": {
        const keys = (args.keys as string[]).map(normalizeKey);
        if (keys.some((k) => !k)) return undefined; // the usual rejection names the unknown key
        return dialogInput(env.dialogs, env.dialogLayout, { tool, keys: keys as string[] });
      }
      case "write":
        return dialogInput(env.dialogs, env.dialogLayout, {
          tool,
          content: args.content,
          pressEnter: args.press_enter === true,
        });
      case "scroll":
        return `nothing scrolled: the ${env.dialogs.open!.record.kind} dialog is open and the page takes no input`;
      case "navigate":
      case "go_back":
        await env.call(
          "dismissing the dialog (Page.handleJavaScriptDialog)",
          env.dialogs.answer(false, "agent", tool === "navigate" ? "left by navigate" : "left by go_back"),
        );
        return undefined;
      default:
        return undefined;
    }
  }

  /** After an input: wait for the page to settle; if it stays busy, say so rather than guess. */
  private async afterInput(
    sent: string,
    signal: AbortSignal,
    result: (status: ActionStatus, message: string, extra?: Partial<ActionResult>) => ActionResult,
    extra: Partial<ActionResult> = {},
  ): Promise<ActionResult> {
    const { env } = this.options;
    const settled = await env.call(
      "waiting for the page to settle after the input",
      env.settle(this.options.settleMs ?? 2_500, signal),
    );
    if (this.options.env.dialogs.open) return result("success", dialogOpened(sent, this.options.env), extra);
    if (settled) return result("success", `${sent}; input sent (the next screenshot shows its effect, if any)`, extra);
    return result(
      "failed",
      `${sent}, but the application had not answered after ${((this.options.settleMs ?? 2_500) / 1000).toFixed(1)} s: its effect may already have happened. Look at the new screenshot before repeating it.`,
      { ...extra, timedOut: true },
    );
  }
}

/** The result of an input that opened a native dialog: the agent sees it in the next screenshot. */
function dialogOpened(sent: string, env: TrialEnvironment): string {
  const kind = env.dialogs.open?.record.kind ?? "native";
  return `${sent}; input sent, and the page opened ${article(kind)} ${kind} dialog (the next screenshot shows it)`;
}

export function reasonOf(signal: AbortSignal): string {
  const reason = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "cancelled";
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolveSleep) => {
    if (signal.aborted) return resolveSleep();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolveSleep();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
