/**
 * The reference model's Gemini route reads umpire's own requests (#41): every turn's observation is
 * counted, also once umpire's image budget dropped a computer-use response's screenshot, so the
 * policy's turn number (which the self-test pairs with the stored actions) follows the trial.
 */
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { PROTOCOLS } from "../../../src/agent/protocols/registry.js";
import { replyFromGenerateContent } from "../../../src/agent/reply.js";
import { chatFromGenerateContent } from "../../../src/sim/gemini-wire.js";
import { readProgress } from "../../../src/sim/progress.js";

const SHOT = PNG.sync.write(new PNG({ width: 64, height: 40 }));

function conversation(imageBudget: number) {
  const [config] = resolveAgentConfigs({
    model: "gemini-2.5-computer-use-preview-10-2025",
    mode: "gemini-computer",
    baseUrl: "http://127.0.0.1:9",
    env: {},
  });
  return PROTOCOLS["gemini-computer"].open({
    config: { ...config!, imageBudget },
    instruction: "Open match BB-042.",
    offered: ["click", "write", "press", "scroll", "wait", "write_note", "answer"],
    trialId: "trial-gw",
  });
}

/** Turn k's reply: a click, or (every third turn) typing and a declared function in one content. */
function reply(k: number) {
  const calls =
    k % 3 === 2
      ? [
          { functionCall: { name: "type_text_at", args: { x: 10, y: 20, text: "BB-042" } } },
          { functionCall: { name: "write_note", args: { name: "a.md", content: "x" } } },
        ]
      : [{ functionCall: { name: "click_at", args: { x: 100 + k, y: 200 } } }];
  return replyFromGenerateContent({ candidates: [{ content: { role: "model", parts: calls }, finishReason: "STOP" }] });
}

describe("the Gemini route's reading of a conversation", () => {
  for (const budget of [1, 3]) {
    it(`counts one observation per turn with an image budget of ${budget}, evicted screenshots included`, () => {
      const conv = conversation(budget);
      for (let k = 0; k < 8; k++) {
        conv.observe({ screenshot: { data: SHOT }, url: `http://site/${k}` });
        const request = conv.request() as { contents: unknown[] };
        const body = { contents: request.contents };
        const images = JSON.stringify(body).match(/"inlineData"/g)?.length ?? 0;
        expect(images).toBe(Math.min(k + 1, budget));
        expect(readProgress(chatFromGenerateContent(body, {}).messages).turn).toBe(k);
        const parsed = conv.read(reply(k), k);
        for (const slot of parsed.slots) conv.answer(slot, "done");
      }
    });
  }
});
