/**
 * A task whose instruction comes from the environment (`instructionFrom`): once the start page has
 * loaded, its text is read from the page (an element's visible text, or an expression's value),
 * polling until it is non-empty. A benchmark environment writes its utterance when its episode starts
 * (MiniWoB++'s `#query`), so the instruction differs per seed and is stored with each trial.
 */
import type { Page } from "playwright";
import type { Task } from "../task/schema.js";
import { oneLine } from "../safety/terminal.js";

type InstructionFrom = NonNullable<Task["instructionFrom"]>;

/** The longest instruction kept: an environment's utterance is a sentence or two. */
const MAX_INSTRUCTION = 4_000;

/** The instruction the page gives; throws (an environment error of the trial) when none comes in time. */
export async function readInstruction(page: Page, from: InstructionFrom): Promise<string> {
  const source: { selector?: string; expression?: string } =
    from.selector !== undefined ? { selector: from.selector } : { expression: from.expression ?? "" };
  const handle = await page
    .waitForFunction(
      (src) => {
        let value: unknown;
        if (src.selector !== undefined) {
          const el = document.querySelector(src.selector);
          value = el instanceof HTMLElement ? el.innerText : (el?.textContent ?? "");
        } else {
          // The task file's own expression (never model output), evaluated as the page would.
          value = (0, eval)(src.expression ?? "");
        }
        if (value && typeof value === "object" && "utterance" in value)
          value = (value as { utterance: unknown }).utterance;
        const text = typeof value === "string" ? value.replace(/\s+/g, " ").trim() : "";
        return text || false;
      },
      source,
      { timeout: from.timeoutSeconds * 1000, polling: 50 },
    )
    .catch((e: unknown) => {
      const what = from.selector !== undefined ? `the text of ${from.selector}` : `the expression ${from.expression}`;
      throw new Error(
        `the start page gave no instruction within ${from.timeoutSeconds}s (instructionFrom: ${what}): ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`,
      );
    });
  const text = String(await handle.jsonValue());
  await handle.dispose().catch(() => undefined);
  return oneLine(text).slice(0, MAX_INSTRUCTION);
}
