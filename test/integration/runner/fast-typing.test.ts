/**
 * The fast typing must give the page exactly the input `page.keyboard.type` gives: the same
 * key events with the same fields in the same order, the same input events, the same values and
 * the same focus changes. Each path types into a fresh copy of a real page in real Chromium that
 * logs every keyboard and input event; the logs are compared whole.
 */
import type { Browser, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { typeText } from "../../../src/runner/page/fast-typing.js";
import { PageCdpSession } from "../../../src/runner/page/page-cdp.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

// Two text areas and a contenteditable; a "|" typed into the first moves focus to the second (a
// page reacting to a key mid-typing), a "~" typed into the second moves it to the editable div.
const PAGE = `<!doctype html><html><body>
<textarea id=a></textarea><textarea id=b></textarea><div id=c contenteditable style="min-height:20px"></div>
<script>
window.log = [];
const describe = (e) => [e.type, e.target.id, e.key, e.code, e.keyCode, e.which, e.charCode, e.location, e.repeat, e.isComposing, e.shiftKey, e.data, e.inputType].join(",");
for (const type of ["keydown", "keypress", "keyup", "beforeinput", "input", "focusin"]) document.addEventListener(type, (e) => log.push(describe(e)), true);
document.addEventListener("keydown", (e) => {
  if (e.key === "|" && e.target.id === "a") { e.preventDefault(); document.getElementById("b").focus(); }
  if (e.key === "~" && e.target.id === "b") { e.preventDefault(); document.getElementById("c").focus(); }
});
</script></body></html>`;

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");

async function typedBy(
  path: "playwright" | "fast",
  text: string,
  cdp?: (page: Page) => PageCdpSession,
): Promise<{ log: string[]; values: string[]; focused: string }> {
  const context = await browser.newContext({ viewport: { width: 640, height: 400 } });
  try {
    const page = await context.newPage();
    await page.setContent(PAGE);
    await page.click("#a");
    if (path === "playwright") await page.keyboard.type(text);
    else await typeText(page, cdp ? cdp(page) : new PageCdpSession(page), text);
    return await page.evaluate(() => ({
      log: (window as unknown as { log: string[] }).log,
      values: [
        (document.getElementById("a") as HTMLTextAreaElement).value,
        (document.getElementById("b") as HTMLTextAreaElement).value,
        document.getElementById("c")!.innerText,
      ],
      focused: document.activeElement?.id ?? "",
    }));
  } finally {
    await context.close();
  }
}

describe("fast typing", () => {
  it("gives the page the same events, values and focus as keyboard.type for every printable character, Enter, a tab and characters outside the layout", async () => {
    // Printable ASCII without the focus movers first, then newlines, a tab, accents, a symbol, an emoji,
    // then "|" (focus to b), more text, "~" (focus to the editable div), more text.
    const text = `${PRINTABLE.replace(/[|~]/g, "")}\nline two\r\tindented é ß ✓ 😀 end|into b\nstill b~into c`;
    const playwright = await typedBy("playwright", text);
    const fast = await typedBy("fast", text);
    // The log is long (every character: keydown, keypress, beforeinput, input, keyup); a slip anywhere shows here.
    expect(playwright.log.length).toBeGreaterThan(5 * PRINTABLE.length);
    expect(playwright.values[0]).toContain("é ß ✓ 😀 end");
    expect(playwright.values[1]).toBe("into b\nstill b");
    expect(playwright.focused).toBe("c");
    expect(fast).toEqual(playwright);
  });

  it("is keyboard.type itself when the page has no CDP session (a dropped session, a remote browser)", async () => {
    const text = "Ravi 4-0-31-2, key wicket ✓";
    const dropped = (page: Page) => {
      const cdp = new PageCdpSession(page);
      cdp.drop();
      return cdp;
    };
    const fallback = await typedBy("fast", text, dropped);
    const playwright = await typedBy("playwright", text);
    expect(fallback).toEqual(playwright);
    expect(fallback.values[0]).toBe(text);
  });
});
