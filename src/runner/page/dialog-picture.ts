/**
 * The picture of an open native dialog, as a headed Chromium draws it: the page as it was last
 * painted, and over it, hanging from the top centre, the dialog with its title ("<host> says"), its
 * message, a prompt's text field, and its buttons (OK / Cancel; Leave / Cancel for beforeunload).
 *
 * Headless Chromium draws no dialog, and the page's own renderer is stopped while one is open (no
 * capture, no script), so umpire draws it: the backdrop is the page's last painted frame (a
 * screencast frame, which Chromium still hands out while a dialog blocks the page), and the
 * drawing is done by a scratch page in its own browser context with no network, at the trial's
 * viewport and device scale factor. The PNG therefore has exactly the size of every other
 * observation, and the buttons' boxes are measured on the same layout that was drawn, so a click
 * the model aims at them lands where it saw them.
 */
import type { Browser, BrowserContext, CDPSession, Page } from "playwright";
import { okLabel, type DialogLayout, type OpenDialog } from "./dialogs.js";

export interface DialogPicture {
  png: Buffer;
  layout: DialogLayout;
}

export class DialogPainter {
  private scratch: Promise<{ context: BrowserContext; page: Page }> | undefined;

  constructor(
    private readonly browser: Browser,
    private readonly viewport: { width: number; height: number; deviceScaleFactor: number },
  ) {}

  async paint(backdrop: Buffer | undefined, dialog: OpenDialog, pageUrl: string): Promise<DialogPicture> {
    const { page } = await (this.scratch ??= this.open());
    await page.setContent(dialogHtml(backdrop, dialog, pageUrl, this.viewport));
    // Inline arrows only: a named helper inside the function would not survive its serialisation into the page.
    const [ok, cancel, input, panel] = await page.evaluate(() =>
      ["#ok", "#cancel", "#field", "#panel"].map((selector) => {
        const r = document.querySelector(selector)?.getBoundingClientRect();
        return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
      }),
    );
    const layout: DialogLayout = { ok: ok!, panel: panel!, ...(cancel ? { cancel } : {}), ...(input ? { input } : {}) };
    const png = await page.screenshot({ type: "png", animations: "disabled", caret: "hide" });
    return { png, layout };
  }

  async close(): Promise<void> {
    const scratch = this.scratch;
    this.scratch = undefined;
    if (scratch) await (await scratch.catch(() => undefined))?.context.close().catch(() => undefined);
  }

  private async open(): Promise<{ context: BrowserContext; page: Page }> {
    const { width, height, deviceScaleFactor } = this.viewport;
    const context = await this.browser.newContext({
      viewport: { width, height },
      deviceScaleFactor,
      javaScriptEnabled: true,
      serviceWorkers: "block",
    });
    // The drawing is umpire's own markup and a data: image: nothing may leave the browser from here.
    await context.route("**/*", (route) => route.abort("blockedbyclient"));
    const page = await context.newPage();
    return { context, page };
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Chromium's title line: "127.0.0.1:5173 says", or "Leave site?" before unloading. */
export function dialogTitle(dialog: OpenDialog, pageUrl: string): string {
  if (dialog.record.kind === "beforeunload") return "Leave site?";
  try {
    return `${new URL(pageUrl).host || "This page"} says`;
  } catch {
    return "This page says";
  }
}

export function dialogHtml(
  backdrop: Buffer | undefined,
  dialog: OpenDialog,
  pageUrl: string,
  viewport: { width: number; height: number },
): string {
  const { kind } = dialog.record;
  // Chromium's beforeunload dialog shows its own sentence, never the page's text.
  const message = kind === "beforeunload" ? "Changes that you made may not be saved." : dialog.record.message;
  const image = backdrop ? `<img alt="" src="data:${mediaType(backdrop)};base64,${backdrop.toString("base64")}">` : "";
  const field =
    kind === "prompt"
      ? `<div id="field" class="field${dialog.fieldSelected && dialog.field ? " selected" : ""}"><span>${escapeHtml(dialog.field)}</span><i class="caret"></i></div>`
      : "";
  const cancel = kind === "alert" ? "" : `<button id="cancel">Cancel</button>`;
  return `<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;width:${viewport.width}px;height:${viewport.height}px;overflow:hidden;background:#fff}
img{position:fixed;left:0;top:0;width:${viewport.width}px;height:${viewport.height}px}
#panel{position:fixed;top:8px;left:50%;transform:translateX(-50%);width:min(448px,calc(100% - 32px));box-sizing:border-box;
 background:#fff;border-radius:12px;padding:24px 24px 20px;box-shadow:0 2px 6px rgba(0,0,0,.3),0 8px 24px rgba(0,0,0,.15);
 font:14px/20px system-ui,"DejaVu Sans",Arial,sans-serif;color:#1f1f1f}
h1{font-size:16px;line-height:24px;font-weight:500;margin:0 0 12px}
p{margin:0 0 16px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:240px;overflow:hidden}
.field{border:2px solid #0b57d0;border-radius:4px;height:32px;box-sizing:border-box;padding:4px 8px;margin:0 0 20px;white-space:pre;overflow:hidden}
.field.selected span{background:#a8c7fa}
.caret{display:inline-block;width:1px;height:18px;background:#1f1f1f;vertical-align:text-bottom}
.buttons{display:flex;justify-content:flex-end;gap:8px}
button{font:500 14px/20px system-ui,"DejaVu Sans",Arial,sans-serif;min-width:72px;height:36px;padding:0 16px;border-radius:18px}
#ok{background:#0b57d0;color:#fff;border:1px solid #0b57d0}
#cancel{background:#fff;color:#0b57d0;border:1px solid #747775}
</style></head><body>${image}<div id="panel" role="alertdialog"><h1>${escapeHtml(dialogTitle(dialog, pageUrl))}</h1>
<p>${escapeHtml(message)}</p>${field}<div class="buttons"><button id="ok">${okLabel(kind)}</button>${cancel}</div></div></body></html>`;
}

function mediaType(image: Buffer): string {
  return image[0] === 0xff && image[1] === 0xd8 ? "image/jpeg" : "image/png";
}

/**
 * The page's last painted frame while a dialog blocks it: `Page.captureScreenshot` waits for a new
 * frame that a blocked page never paints, but a screencast hands out the frame it has. Undefined
 * without CDP or when no frame came within `timeoutMs` (the caller then uses its last observation).
 */
export async function lastPaintedFrame(
  session: CDPSession | null,
  size: { width: number; height: number },
  timeoutMs = 3_000,
): Promise<Buffer | undefined> {
  if (!session) return undefined;
  type Frame = { data: string; sessionId: number };
  let settle: (frame: Frame | undefined) => void = () => undefined;
  const frame = new Promise<Frame | undefined>((resolve) => (settle = resolve));
  const onFrame = (got: Frame) => settle(got);
  // The deadline covers the command as well as the frame: some Chromium builds (150 among them)
  // send the frame but hold the command's reply until the dialog closes, so awaiting the reply
  // first would never end while the dialog is open.
  const timer = setTimeout(() => settle(undefined), timeoutMs);
  try {
    session.on("Page.screencastFrame", onFrame);
    session
      .send("Page.startScreencast", { format: "png", maxWidth: size.width, maxHeight: size.height, everyNthFrame: 1 })
      .catch(() => settle(undefined));
    const got = await frame;
    if (got) void session.send("Page.screencastFrameAck", { sessionId: got.sessionId }).catch(() => undefined);
    return got ? Buffer.from(got.data, "base64") : undefined;
  } finally {
    clearTimeout(timer);
    session.off("Page.screencastFrame", onFrame);
    void session.send("Page.stopScreencast").catch(() => undefined);
  }
}
