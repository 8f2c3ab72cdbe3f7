/**
 * `instructionFrom`: a task whose instruction the environment gives, read from the start page in real
 * Chromium once it has loaded (an element's text or an expression's value, polled until non-empty),
 * and an environment error when none comes within `timeoutSeconds`.
 */
import type { Browser, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { readInstruction } from "../../../src/runner/page/page-instruction.js";

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser.close();
});

// The utterance arrives after load, as a MiniWoB episode writes it when it starts.
const LATE = `<div id="query"></div><script>
  window.env = { ready: false };
  setTimeout(() => { document.getElementById("query").innerHTML = "Click   on <b>Okay</b>."; window.env = { ready: true, utterance: "Pick the blue one" }; }, 300);
</script>`;

describe("instructionFrom", () => {
  it("selector: the element's visible text once the page writes it, white space folded", async () => {
    await page.setContent(LATE);
    expect(await readInstruction(page, { selector: "#query", timeoutSeconds: 5 })).toBe("Click on Okay.");
  });

  it("expression: its value (an object's utterance too), polled while it throws or is empty", async () => {
    await page.setContent(LATE);
    const from = { expression: "window.env.ready ? window.env : undefinedName", timeoutSeconds: 5 };
    expect(await readInstruction(page, from)).toBe("Pick the blue one");
  });

  it("timeoutSeconds: no text in time is an error naming the source and the wait", async () => {
    await page.setContent(`<div id="query"></div>`);
    const started = Date.now();
    await expect(readInstruction(page, { selector: "#query", timeoutSeconds: 0.5 })).rejects.toThrow(
      /gave no instruction within 0.5s \(instructionFrom: the text of #query\)/,
    );
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
