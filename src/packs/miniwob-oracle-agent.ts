/**
 * The scripted oracle of the MiniWoB++ pack self-test (miniwob-oracle.ts), run by umpire as a command
 * agent (docs/external-agents.md): it reads the utterance (UMPIRE_INSTRUCTION), connects to the
 * trial's browser (UMPIRE_CDP_URL), does what the utterance says for the kinds it knows, and writes
 * its answer (UMPIRE_RESULT_FILE). It uses only trusted input (mouse and keyboard through CDP), as
 * a person would; for an utterance it cannot read it answers ORACLE_UNREAD without acting.
 */
import { writeFileSync } from "node:fs";
import type { Page } from "playwright";
import { chromium } from "../browser/playwright.js";
import { ORACLE_UNREAD } from "./miniwob-oracle.js";

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function solve(page: Page, text: string): Promise<string> {
  if (/^Click the button\.?$/.test(text)) {
    await page.locator("#area button").first().click();
    return "clicked the button";
  }
  let m = /^Click on the "(.+)" button\.?$/.exec(text);
  if (m) {
    const label = m[1]!;
    await page
      .locator("#area button", { hasText: new RegExp(`^\\s*${escapeRe(label)}\\s*$`) })
      .first()
      .click();
    return `clicked ${label}`;
  }
  m = /^Enter "(.+)" into the text field and press Submit\.?$/.exec(text);
  if (m) {
    await page.locator("#area input[type=text]").first().click();
    await page.keyboard.type(m[1]!);
    await page.locator("#area button", { hasText: "Submit" }).first().click();
    return `entered ${m[1]}`;
  }
  m = /^Select (.+) and click Submit\.?$/.exec(text);
  if (m) {
    const wanted = m[1] === "nothing" ? [] : m[1]!.split(/,\s*/);
    for (const label of wanted)
      await page
        .locator("#area label", { hasText: new RegExp(`^\\s*${escapeRe(label)}\\s*$`) })
        .first()
        .click();
    await page.locator("#area button", { hasText: "Submit" }).first().click();
    return `selected ${wanted.join(", ") || "nothing"}`;
  }
  return ORACLE_UNREAD;
}

async function main(): Promise<void> {
  const resultFile = process.env.UMPIRE_RESULT_FILE;
  const endpoint = process.env.UMPIRE_CDP_URL;
  if (!resultFile || !endpoint)
    throw new Error("run by umpire as a command agent: UMPIRE_RESULT_FILE and UMPIRE_CDP_URL");
  let answer = ORACLE_UNREAD;
  const browser = await chromium.connectOverCDP(endpoint);
  try {
    const page = browser.contexts().flatMap((c) => c.pages())[0];
    if (page) answer = await solve(page, process.env.UMPIRE_INSTRUCTION ?? "");
  } finally {
    writeFileSync(resultFile, JSON.stringify({ answer, outcome: "unknown" }));
    await browser.close().catch(() => undefined);
  }
}

await main();
