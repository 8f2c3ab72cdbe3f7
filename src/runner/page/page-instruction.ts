/**
 * A task whose instruction comes from the environment (`instructionFrom`): once the start page has
 * loaded, its text is read from the page (an element's visible text, or an expression's value),
 * polling until it is non-empty. A benchmark environment writes its utterance when its episode starts
 * (MiniWoB++'s `#query`), so the instruction differs per seed and is stored with each trial.
 */
import type { Page } from "playwright";
import type { Task } from "../../task/schema.js";
import { oneLine } from "../../safety/terminal.js";
import { firstLineOf } from "../../errors.js";

type InstructionFrom = NonNullable<Task["instructionFrom"]>;

/** The longest instruction kept: an environment's utterance is a sentence or two. */
const MAX_INSTRUCTION = 4_000;

/** The instruction the page gives; throws (an environment error of the trial) when none comes in time. */
export async function readInstruction(page: Page, from: InstructionFrom): Promise<string> {
  // The value as text: a string, or an object's `utterance` (MiniWoB++'s getUtterance() may return either).
  const asText =
    "(v) => { if (v && typeof v === 'object' && 'utterance' in v) v = v.utterance; return typeof v === 'string' ? v.replace(/\\s+/g, ' ').trim() : ''; }";
  const read =
    from.selector !== undefined
      ? `(() => { const el = document.querySelector(${JSON.stringify(from.selector)}); return el ? (el.innerText ?? el.textContent) : ''; })()`
      : // The task file's own expression (never model output); one that throws (a script not loaded yet) is polled again.
        `(${from.expression})`;
  const handle = await page
    .waitForFunction(`(${asText})((() => { try { return ${read}; } catch { return ''; } })()) || false`, undefined, {
      timeout: from.timeoutSeconds * 1000,
      polling: 50,
    })
    .catch((e: unknown) => {
      const what = from.selector !== undefined ? `the text of ${from.selector}` : `the expression ${from.expression}`;
      throw new Error(
        `the start page gave no instruction within ${from.timeoutSeconds}s (instructionFrom: ${what}): ${firstLineOf(e)}`,
      );
    });
  const text = String(await handle.jsonValue());
  await handle.dispose().catch(() => undefined);
  return oneLine(text).slice(0, MAX_INSTRUCTION);
}
