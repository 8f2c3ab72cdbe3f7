/**
 * Native JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) as a person at a headed
 * browser meets them: the dialog stays open, blocking the page, until someone answers it.
 *
 * Playwright dismisses a dialog nobody listens for; listening without answering keeps it open. While
 * one is open the page's main thread is stopped inside the dialog call, so nothing may wait on the
 * page (an evaluation, a capture, an input's acknowledgement): `race` lets a caller stop waiting the
 * moment a dialog opens. Under the policy `accept` or `dismiss` umpire answers at once (a prompt is
 * accepted with its default value); under `agent` the dialog is the agent's to answer, and the
 * observation draws it (dialog-picture.ts) and the executor routes its input to it (`dialogInput`).
 */
import type { Dialog, Page } from "playwright";
import type { DialogPolicy } from "../../task/target-decl.js";

export type { DialogPolicy };
export type DialogKind = "alert" | "confirm" | "prompt" | "beforeunload";

/** Who answered a dialog: the agent by its input, or umpire by the task's policy (or at the trial's end). */
export type DialogAnswerer = "agent" | "policy" | "umpire";

/** One dialog of the trial, as the trial log and the report show it. */
export interface DialogRecord {
  kind: DialogKind;
  message: string;
  /** A prompt's default value. */
  defaultValue?: string;
  url: string;
  openedAt: string;
  /** `accepted` / `dismissed`, or null while still open. */
  answer: "accepted" | "dismissed" | null;
  /** The text a prompt was accepted with. */
  text?: string;
  by?: DialogAnswerer;
  /** How: "click on OK", "Enter", "policy accept", "trial ended". */
  how?: string;
}

/** The dialog now open, with the agent's text in a prompt's field. */
export interface OpenDialog {
  record: DialogRecord;
  /** What the prompt's field holds now. */
  field: string;
  /** Chromium opens a prompt with its default value selected: the first typing replaces it. */
  fieldSelected: boolean;
}

export const DIALOG_OPENED: unique symbol = Symbol("dialog opened");

export class DialogWatch {
  private current: { open: OpenDialog; dialog: Dialog } | undefined;
  private waiters: (() => void)[] = [];
  readonly records: DialogRecord[] = [];

  constructor(
    private readonly policy: DialogPolicy,
    /** Told when a dialog opens and when it is answered (the trial log). */
    private readonly onEvent: (event: "opened" | "answered", record: DialogRecord) => void = () => undefined,
  ) {}

  /** Starts watching a page of the trial (the first page and every tab it opens). */
  attach(page: Page): void {
    page.on("dialog", (dialog) => void this.opened(dialog, page));
  }

  get open(): OpenDialog | undefined {
    return this.current?.open;
  }

  /** `work`'s result, or DIALOG_OPENED as soon as a dialog is open (`work` then settles unobserved). */
  async race<T>(work: Promise<T>): Promise<T | typeof DIALOG_OPENED> {
    if (this.current) {
      work.catch(() => undefined);
      return DIALOG_OPENED;
    }
    let release: () => void = () => undefined;
    const opened = new Promise<typeof DIALOG_OPENED>((resolve) => {
      release = () => resolve(DIALOG_OPENED);
      this.waiters.push(release);
    });
    try {
      const winner = await Promise.race([work, opened]);
      if (winner === DIALOG_OPENED) work.catch(() => undefined);
      return winner;
    } finally {
      this.waiters = this.waiters.filter((w) => w !== release);
    }
  }

  /** Answers the open dialog. A prompt is accepted with its field's text. */
  async answer(accept: boolean, by: DialogAnswerer, how: string): Promise<DialogRecord | undefined> {
    const current = this.current;
    if (!current) return undefined;
    this.current = undefined;
    const { record } = current.open;
    record.answer = accept ? "accepted" : "dismissed";
    record.by = by;
    record.how = how;
    if (accept && record.kind === "prompt") record.text = current.open.field;
    this.onEvent("answered", record);
    await (accept
      ? current.dialog.accept(record.kind === "prompt" ? current.open.field : undefined)
      : current.dialog.dismiss()
    ).catch(() => undefined);
    return record;
  }

  /** Words for a stop detail: `a confirm dialog was still open ("Delete?")`, or undefined. */
  describeOpen(): string | undefined {
    const open = this.open;
    if (!open) return undefined;
    return `${article(open.record.kind)} ${open.record.kind} dialog was still open (${JSON.stringify(cut(open.record.message, 120))})`;
  }

  private async opened(dialog: Dialog, page: Page): Promise<void> {
    const record: DialogRecord = {
      kind: dialog.type() as DialogKind,
      message: dialog.message(),
      ...(dialog.type() === "prompt" ? { defaultValue: dialog.defaultValue() } : {}),
      url: page.url(),
      openedAt: new Date().toISOString(),
      answer: null,
    };
    this.records.push(record);
    this.onEvent("opened", record);
    if (this.policy !== "agent" || this.current) {
      // A second dialog while one is open cannot happen on one page; on another tab, the policy's word or dismissal.
      const accept = this.policy === "accept";
      record.answer = accept ? "accepted" : "dismissed";
      record.by = "policy";
      record.how = this.policy === "agent" ? "dismissed: another dialog was already open" : `policy ${this.policy}`;
      if (accept && record.kind === "prompt") record.text = record.defaultValue ?? "";
      this.onEvent("answered", record);
      await (accept ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
      return;
    }
    this.current = { open: { record, field: record.defaultValue ?? "", fieldSelected: true }, dialog };
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** The parts of the drawn dialog the agent can click, in CSS pixels of the viewport. */
export interface DialogLayout {
  ok: Box;
  cancel?: Box;
  input?: Box;
  panel: Box;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Dialog input: the executor's tools while a dialog is open, answered like Chromium's own dialog. */
export async function dialogInput(
  watch: DialogWatch,
  layout: DialogLayout | undefined,
  input:
    | { tool: "click" | "double_click"; point: { x: number; y: number } }
    | { tool: "press"; keys: string[] }
    | { tool: "write"; content: string; pressEnter: boolean },
): Promise<string> {
  const open = watch.open;
  if (!open) return "nothing happened: no dialog is open";
  const kind = open.record.kind;
  if (input.tool !== "press" && input.tool !== "write") {
    const at = `(${Math.round(input.point.x)}, ${Math.round(input.point.y)}) CSS px`;
    if (layout && inside(layout.ok, input.point))
      return answered(await watch.answer(true, "agent", `click on ${okLabel(kind)}`));
    if (layout?.cancel && inside(layout.cancel, input.point))
      return answered(await watch.answer(false, "agent", "click on Cancel"));
    if (layout?.input && inside(layout.input, input.point))
      return `click sent at ${at}: the ${kind} dialog's text field has the focus`;
    return `click sent at ${at}: the page takes no input while the ${kind} dialog is open; nothing happened`;
  }
  if (input.tool === "press") {
    const combo = input.keys.join("+");
    if (combo === "Enter") return answered(await watch.answer(true, "agent", "Enter"));
    if (combo === "Escape") return answered(await watch.answer(false, "agent", "Escape"));
    if (kind === "prompt" && combo === "Backspace") {
      open.field = open.fieldSelected ? "" : open.field.slice(0, -1);
      open.fieldSelected = false;
      return "pressed Backspace in the prompt's text field";
    }
    return `pressed ${combo}: the ${kind} dialog has the focus; nothing happened`;
  }
  if (kind !== "prompt") {
    const typed = `typed ${input.content.length} characters: the ${kind} dialog has no text field; nothing took them`;
    return input.pressEnter
      ? `${typed}; pressed Enter: ${answered(await watch.answer(true, "agent", "Enter"))}`
      : typed;
  }
  open.field = (open.fieldSelected ? "" : open.field) + input.content;
  open.fieldSelected = false;
  const typed = `typed ${input.content.length} characters into the prompt's text field`;
  return input.pressEnter
    ? `${typed} and pressed Enter: ${answered(await watch.answer(true, "agent", "Enter"))}`
    : typed;
}

function answered(record: DialogRecord | undefined): string {
  if (!record) return "nothing happened: no dialog is open";
  const text =
    record.answer === "accepted" && record.kind === "prompt" ? ` with ${JSON.stringify(record.text ?? "")}` : "";
  return `the ${record.kind} dialog was ${record.answer}${text} (${record.how})`;
}

/** The label Chromium gives the accepting button. */
export function okLabel(kind: DialogKind): string {
  return kind === "beforeunload" ? "Leave" : "OK";
}

function inside(box: Box, point: { x: number; y: number }): boolean {
  return point.x >= box.x && point.y >= box.y && point.x < box.x + box.width && point.y < box.y + box.height;
}

/** "an alert", "a confirm". */
export function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
