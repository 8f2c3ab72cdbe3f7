/**
 * The scripted oracle of the MiniWoB++ pack self-test (miniwob-oracle.ts), run by umpire as a command
 * agent (docs/external-agents.md): it reads the utterance (UMPIRE_INSTRUCTION), connects to the
 * trial's browser (UMPIRE_CDP_URL), does what the utterance says for the kinds it knows, and writes
 * its answer (UMPIRE_RESULT_FILE). It uses only trusted input (mouse and keyboard through CDP), as
 * a person would, the input umpire's own tools give a model (click, write, press); it reads the page
 * (texts, a synonym table the page defines) but never writes it. For an utterance it cannot read it
 * answers ORACLE_UNREAD without acting.
 */
import { writeFileSync } from "node:fs";
import type { Page } from "playwright";
import { chromium } from "../browser/playwright.js";
import { ORACLE_UNREAD } from "./miniwob-oracle.js";

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const exactly = (text: string) => new RegExp(`^\\s*${escapeRe(text)}\\s*$`);

/** One kind of environment: the utterance it gives, and what a person does on reading it. */
interface Solver {
  utterance: RegExp;
  act: (page: Page, m: RegExpExecArray) => Promise<string>;
}

const clickText = (page: Page, selector: string, text: string) =>
  page
    .locator(selector, { hasText: exactly(text) })
    .first()
    .click();

async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).first().click();
  await page.keyboard.type(text);
}

async function tick(page: Page, labels: readonly string[]): Promise<string> {
  for (const label of labels) await clickText(page, "#area label", label);
  await clickText(page, "#area button", "Submit");
  return `selected ${labels.join(", ") || "nothing"}`;
}

/** The option of the page's list, chosen as a person would: a click opens the list, arrow keys move, Enter picks. */
async function chooseFromList(page: Page, wanted: string): Promise<string> {
  const list = page.locator("#area select").first();
  const options = await list.locator("option").allTextContents();
  const target = options.findIndex((o) => o.trim() === wanted);
  if (target < 0) return ORACLE_UNREAD;
  const current = await list.evaluate((el) => (el as HTMLSelectElement).selectedIndex);
  await list.click();
  const key = target > current ? "ArrowDown" : "ArrowUp";
  for (let i = 0; i < Math.abs(target - current); i++) await page.keyboard.press(key);
  await page.keyboard.press("Enter");
  await clickText(page, "#area button", "Submit");
  return `chose ${wanted}`;
}

/**
 * click-scroll-list: a click selects the first option alone; each further one is reached with
 * Control+ArrowDown (which moves without selecting) and added with Control+Space (umpire's press tool gives both).
 */
async function chooseFromScrollList(page: Page, wanted: readonly string[]): Promise<string> {
  const options = (await page.locator("#area select option").allTextContents()).map((o) => o.trim());
  const at = wanted.map((w) => options.indexOf(w)).sort((a, b) => a - b);
  if (at.length === 0 || at[0]! < 0) return ORACLE_UNREAD;
  await page.locator("#area select option").nth(at[0]!).click();
  for (let i = 1, now = at[0]!; i < at.length; i++) {
    for (; now < at[i]!; now++) await page.keyboard.press("Control+ArrowDown");
    await page.keyboard.press("Control+Space");
  }
  await clickText(page, "#area button", "Submit");
  return `chose ${wanted.join(", ")}`;
}

/** copy-paste: select all in the text area, copy, paste into the text input (the keys a person would press). */
async function copyPaste(page: Page, nth: number): Promise<string> {
  await page.locator("#area textarea").nth(nth).click();
  await page.keyboard.press("Control+a");
  await page.keyboard.press("Control+c");
  await page.locator("#area input[type=text], #area input:not([type])").first().click();
  await page.keyboard.press("Control+v");
  await clickText(page, "#area button", "Submit");
  return `pasted the text of text area ${nth + 1}`;
}

/** click-checkboxes-soft: each label is a synonym of a word asked for, from the table the page defines. */
async function tickSynonyms(page: Page, words: readonly string[]): Promise<string> {
  const table = await page.evaluate(() => (window as unknown as { SYNONYMS?: string[][] }).SYNONYMS ?? []);
  const labels = (await page.locator("#area label").allTextContents()).map((l) => l.trim());
  const picked = words.map((word) =>
    labels.find((l) => table.some((group) => group.includes(word) && group.includes(l))),
  );
  if (picked.some((l) => l === undefined)) return ORACLE_UNREAD;
  return tick(page, picked as string[]);
}

async function solveArithmetic(page: Page): Promise<string> {
  const problem = (await page.locator("#math-problem").textContent()) ?? "";
  const m = /^\s*(-?\d+)\s*([-+x])\s*(-?\d+)\s*=\s*$/.exec(problem);
  if (!m) return ORACLE_UNREAD;
  const [a, b] = [Number(m[1]), Number(m[3])];
  const answer = m[2] === "+" ? a + b : m[2] === "-" ? a - b : a * b;
  await typeInto(page, "#math-answer", String(answer));
  await clickText(page, "#area button", "Submit");
  return `answered ${answer}`;
}

/** click-collapsible-2, click-tab-2: open one section (or tab) after the other until the link shows, then click it. */
async function findLink(page: Page, openers: string, text: string): Promise<string> {
  const link = page.locator("#area .alink:visible", { hasText: exactly(text) }).first();
  const count = await page.locator(openers).count();
  for (let i = 0; ; i++) {
    if ((await link.count()) > 0) {
      await link.click();
      return `clicked the link ${text}`;
    }
    if (i >= count) return ORACLE_UNREAD;
    await page.locator(openers).nth(i).click();
  }
}

async function closeDialog(page: Page, label: string): Promise<string> {
  if (label === "x") await page.locator(".ui-dialog-titlebar-close").first().click();
  else await clickText(page, ".ui-dialog-buttonpane button", label);
  return `clicked ${label}`;
}

/** The kinds the oracle knows, by utterance; the first that matches acts (the more specific come first). */
const SOLVERS: readonly Solver[] = [
  {
    utterance: /^Click the button\.?$/,
    act: async (page) => {
      await page.locator("#area button").first().click();
      return "clicked the button";
    },
  },
  {
    utterance: /^Click button ONE, then click button TWO\.$/,
    act: async (page) => {
      await clickText(page, "#area button", "ONE");
      await clickText(page, "#area button", "TWO");
      return "clicked ONE, then TWO";
    },
  },
  {
    utterance: /^Click button (ONE|TWO)\.$/,
    act: async (page, m) => {
      await clickText(page, "#area button", m[1]!);
      return `clicked ${m[1]}`;
    },
  },
  {
    utterance: /^Click on the "(.+)" button\.?$/,
    act: async (page, m) => {
      await clickText(page, "#area button", m[1]!);
      return `clicked ${m[1]}`;
    },
  },
  {
    utterance: /^Click on the link "(.+)"\.$/,
    act: async (page, m) => {
      await clickText(page, "#area .alink", m[1]!);
      return `clicked the link ${m[1]}`;
    },
  },
  {
    utterance: /^Expand the sections below, to find and click on the link "(.+)"\.$/,
    act: (page, m) => findLink(page, "#area h3", m[1]!),
  },
  {
    utterance: /^Switch between the tabs to find and click on the link "(.+)"\.$/,
    act: (page, m) => findLink(page, "#area ul a", m[1]!),
  },
  {
    utterance: /^Click on Tab #(\d+)\.$/,
    act: async (page, m) => {
      await clickText(page, "#area ul a", `Tab #${m[1]}`);
      return `clicked Tab #${m[1]}`;
    },
  },
  { utterance: /^Close the dialog box by clicking the "x"\.$/, act: (page) => closeDialog(page, "x") },
  { utterance: /^Click the button in the dialog box labeled "(.+)"\.$/, act: (page, m) => closeDialog(page, m[1]!) },
  {
    utterance: /^Expand the section below and click submit\.$/,
    act: async (page) => {
      await page.locator("#area h3").first().click();
      await page.locator("#area .ui-accordion-content").first().waitFor({ state: "visible" });
      await clickText(page, "#area button", "Submit");
      return "expanded the section";
    },
  },
  {
    utterance: /^Focus into the textbox\.$/,
    act: async (page) => {
      await page.locator("#area input").first().click();
      return "focused the textbox";
    },
  },
  {
    utterance: /^Focus into the (\d)(?:st|nd|rd|th) input textbox\.$/,
    act: async (page, m) => {
      await page
        .locator("#area input")
        .nth(Number(m[1]) - 1)
        .click();
      return `focused textbox ${m[1]}`;
    },
  },
  {
    utterance: /^Enter "(.+)" into the text field and press Submit\.?$/,
    act: async (page, m) => {
      await typeInto(page, "#area input[type=text]", m[1]!);
      await clickText(page, "#area button", "Submit");
      return `entered ${m[1]}`;
    },
  },
  {
    utterance: /^Type "(.+)" in all (upper|lower) case letters in the text input and press Submit\.$/,
    act: async (page, m) => {
      const text = m[2] === "upper" ? m[1]!.toUpperCase() : m[1]!.toLowerCase();
      await typeInto(page, "#area input[type=text]", text);
      await clickText(page, "#area button", "Submit");
      return `entered ${text}`;
    },
  },
  {
    utterance: /^Enter the password "(.+)" into both text fields and press submit\.$/,
    act: async (page, m) => {
      await typeInto(page, "#password", m[1]!);
      await typeInto(page, "#verify", m[1]!);
      await clickText(page, "#area button", "Submit");
      return "entered the password twice";
    },
  },
  {
    utterance: /^Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.$/,
    act: async (page, m) => {
      await typeInto(page, "#username", m[1]!);
      await typeInto(page, "#password", m[2]!);
      await clickText(page, "#area button", "Login");
      return `logged in as ${m[1]}`;
    },
  },
  {
    utterance: /^Copy the text in the textarea below, paste it into the textbox and press Submit\.$/,
    act: (page) => copyPaste(page, 0),
  },
  {
    utterance:
      /^Copy the text from the (\d)(?:st|nd|rd|th) text area below and paste it into the text input, then press Submit\.$/,
    act: (page, m) => copyPaste(page, Number(m[1]) - 1),
  },
  {
    utterance: /^Solve the math problem and type your answer into the textbox\. Press submit when done\.$/,
    act: (page) => solveArithmetic(page),
  },
  {
    utterance: /^Select (.+) from the scroll list and click Submit\.$/,
    act: (page, m) => chooseFromScrollList(page, m[1]!.split(/,\s*/)),
  },
  { utterance: /^Select (.+) from the list and click Submit\.$/, act: (page, m) => chooseFromList(page, m[1]!) },
  {
    utterance: /^Select words similar to (.+) and click Submit\.$/,
    act: (page, m) => tickSynonyms(page, m[1]!.split(/,\s*/)),
  },
  {
    utterance: /^Select (.+) and click Submit\.?$/,
    act: (page, m) => tick(page, m[1] === "nothing" ? [] : m[1]!.split(/,\s*/)),
  },
];

async function solve(page: Page, text: string): Promise<string> {
  for (const solver of SOLVERS) {
    const m = solver.utterance.exec(text);
    if (m) return solver.act(page, m);
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
