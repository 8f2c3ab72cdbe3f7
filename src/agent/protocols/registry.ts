/**
 * Every protocol umpire speaks, keyed by its name. The type is a `Record` over the names, so a
 * name added to `OUTPUT_MODES` (src/vocabulary.ts) does not compile until it has its entry here;
 * `--mode` choices, the help text and the order of `compare --by mode` all come from this table
 * (in the names' order), so none of them is typed a second time.
 */
import { OUTPUT_MODES } from "../../vocabulary.js";
import { holoStructured } from "./holo-structured.js";
import { holoTools } from "./holo-tools.js";
import { anthropicComputer } from "./anthropic-computer.js";
import { geminiComputer } from "./gemini-computer.js";
import { openaiComputer } from "./openai-computer.js";
import type { Protocol, ProtocolName } from "./protocol.js";
import { qwen25, qwen3 } from "./qwen.js";
import { uiTars } from "./ui-tars.js";

export const PROTOCOLS: Readonly<Record<ProtocolName, Protocol>> = {
  structured: holoStructured,
  tools: holoTools,
  "openai-computer": openaiComputer,
  "anthropic-computer": anthropicComputer,
  "gemini-computer": geminiComputer,
  "qwen2.5-vl": qwen25,
  "qwen3-vl": qwen3,
  "ui-tars": uiTars,
};

/** The protocol of a name. */
export function protocolOf(name: ProtocolName): Protocol {
  return PROTOCOLS[name];
}

/** The protocols in the names' order (help, docs, compare). */
export function protocolList(): Protocol[] {
  return OUTPUT_MODES.map((name) => PROTOCOLS[name]);
}
