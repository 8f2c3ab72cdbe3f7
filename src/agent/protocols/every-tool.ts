import type { ProtocolTools } from "./protocol.js";

/**
 * The tools of a protocol that offers every tool: its computer actions cover some, and every other
 * one is a function (or tool) of its own beside them. A protocol with a fixed action space (UI-TARS)
 * writes its own table.
 */
export const EVERY_TOOL: ProtocolTools = {
  click: true,
  double_click: true,
  write: true,
  press: true,
  scroll: true,
  wait: true,
  navigate: true,
  go_back: true,
  answer: true,
  http_get: true,
  write_note: true,
};
