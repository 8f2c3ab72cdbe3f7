// A scripted oracle for MiniWoB++-protocol environments: a command agent (docs/external-agents.md) that
// reads the utterance umpire gives it (UMPIRE_INSTRUCTION) and the page's DOM, and does what it says for
// the test pack's kinds (click the button, click a named button, a link or a tab, enter a text, log in, tick
// checkboxes), as umpire's shipped oracle (src/packs/miniwob-oracle-agent.ts) does. For any other kind it answers
// without acting: those environments are the ones no probe exercises. It uses only trusted input (mouse
// and keyboard through CDP), as a person would.
//   ORACLE_MODE=answer-now  answers at once (every environment must fail)
//   ORACLE_MODE=forge        writes the reward globals and calls core.endEpisode itself (must fail: forged)
//   ORACLE_MODE=forge-click  clicks the right button from its own script (must fail: forged)
//   ORACLE_MODE=reload       reloads the page, then solves the replayed episode (must fail: one episode per trial)
//   ORACLE_MODE=forge-script adds an inline script that ends the episode (must fail: the page's CSP blocks it)
import { writeFileSync } from "node:fs";
import { chromium } from "playwright";

const instruction = process.env.UMPIRE_INSTRUCTION ?? "";
const mode = process.env.ORACLE_MODE ?? "oracle";
const finish = (answer) =>
  writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer, outcome: "unknown" }));

if (mode === "answer-now") {
  finish("done");
  process.exit(0);
}
const browser = await chromium.connectOverCDP(process.env.UMPIRE_CDP_URL);
const page = browser.contexts().flatMap((c) => c.pages())[0];
let answer = "no probe for this environment";
try {
  if (mode === "forge") {
    await page.evaluate(() => {
      window.WOB_RAW_REWARD_GLOBAL = 1;
      window.WOB_REWARD_GLOBAL = 1;
      window.WOB_DONE_GLOBAL = true;
      window.core.endEpisode(1);
    });
    answer = "forged";
  } else if (mode === "forge-click") {
    // A synthetic click from the agent's own script on the right button: its code is at the bottom of the stack.
    await page.evaluate((text) => {
      const m = /"(.+)"/.exec(text);
      for (const b of document.querySelectorAll("#area button")) if (m && b.textContent === m[1]) b.click();
    }, instruction);
    answer = "clicked by script";
  } else if (mode === "forge-script") {
    // An inline script added to the page: the folder server's script policy does not let it run.
    await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "core.endEpisode(1)";
      document.body.appendChild(script);
    });
    answer = "script injected";
  } else if (mode === "reload") {
    // Reloads (the same seeded episode in a fresh document), then solves it: one episode per trial, so it must fail.
    await page.reload();
    await page.waitForFunction(() => window.__umpireEpisode?.().started);
    answer = await solve(page, instruction);
  } else {
    answer = await solve(page, instruction);
  }
} finally {
  finish(answer);
  await browser.close().catch(() => undefined);
}

async function solve(page, text) {
  if (/^Click the button\.?$/.test(text)) {
    await page.locator("#area button").first().click();
    return "clicked the button";
  }
  let m = /^Click on the "(.+)" button\.?$/.exec(text);
  if (m) {
    await page
      .locator("#area button", { hasText: m[1] })
      .filter({ hasText: new RegExp(`^${escapeRe(m[1])}$`) })
      .first()
      .click();
    return `clicked ${m[1]}`;
  }
  m = /^Click on the link "(.+)"\.$/.exec(text);
  if (m) {
    await page
      .locator("#area .alink", { hasText: exactly(m[1]) })
      .first()
      .click();
    return `clicked the link ${m[1]}`;
  }
  m = /^Click on Tab #(\d+)\.$/.exec(text);
  if (m) {
    await page
      .locator("#area ul a", { hasText: exactly(`Tab #${m[1]}`) })
      .first()
      .click();
    return `clicked Tab #${m[1]}`;
  }
  m = /^Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.$/.exec(text);
  if (m) {
    await page.locator("#username").click();
    await page.keyboard.type(m[1]);
    await page.locator("#password").click();
    await page.keyboard.type(m[2]);
    await page
      .locator("#area button", { hasText: exactly("Login") })
      .first()
      .click();
    return `logged in as ${m[1]}`;
  }
  m = /^Enter "(.+)" into the text field and press Submit\.?$/.exec(text);
  if (m) {
    await page.locator("#area input[type=text]").first().click();
    await page.keyboard.type(m[1]);
    await page.locator("#area button", { hasText: "Submit" }).first().click();
    return `entered ${m[1]}`;
  }
  m = /^Select (.+) and click Submit\.?$/.exec(text);
  if (m) {
    const wanted = m[1] === "nothing" ? [] : m[1].split(/,\s*/);
    for (const label of wanted)
      await page
        .locator("#area label", { hasText: new RegExp(`^\\s*${escapeRe(label)}\\s*$`) })
        .first()
        .click();
    await page.locator("#area button", { hasText: "Submit" }).first().click();
    return `selected ${wanted.join(", ") || "nothing"}`;
  }
  return "no probe for this environment";
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function exactly(s) {
  return new RegExp(`^\\s*${escapeRe(s)}\\s*$`);
}
