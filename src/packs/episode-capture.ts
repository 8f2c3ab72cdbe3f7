/**
 * The episode capture: an init script that runs in a MiniWoB++ page before the page's own scripts
 * (the target's `initScripts`), so the reward the `episode` check reads is umpire's record, not a
 * global anyone in the page can write.
 *
 * - The reward globals of MiniWoB's protocol (`WOB_RAW_REWARD_GLOBAL`, `WOB_REWARD_GLOBAL`,
 *   `WOB_REWARD_REASON`, `WOB_DONE_GLOBAL`) become non-configurable accessors on `window` before
 *   core.js declares them (a `var` on an existing property keeps it; its initialiser calls the setter).
 * - A write is kept only when the page's own code made it: the stack at the setter must end (its
 *   outermost frame) in a script served from the pack's origin, with nothing but the page's scripts,
 *   native frames and this capture on the way. A write from an agent's script (CDP Runtime.evaluate,
 *   a `setTimeout` string, an eval) has its own code at the bottom and is refused and recorded, which
 *   fails the check. The folder server's Content-Security-Policy (folder-server.ts) refuses inline
 *   scripts the page did not ship, so an agent cannot dress its code as the page's. The stack is read
 *   with Error's stack settings frozen here, first, so no later script can trim or rewrite it.
 * - The first finished episode (done set true) is the record; later episodes are ignored.
 * - The episode starts the way BrowserGym starts it: after the page's load handler, `Math.seedrandom(seed)`,
 *   `core.EPISODE_MAX_TIME`, `core.startEpisodeReal()`; the human display (reward bar, timer, click
 *   canvas, START cover, the utterance in #query) is hidden, as BrowserGym removes it.
 * - `window.__umpireEpisode()` (read-only) returns a copy of the record.
 * What it relies on: the page's CSP stays on (umpire's CDP relay refuses Page.setBypassCSP to command
 * agents, src/runner/external/trial-browser.ts) and a reload fails the trial (the pack's effects check).
 */
import { EPISODE_READER } from "../checks/episode-check.js";

/** The capture's scripts name themselves so its own frames are known in a stack. */
const CAPTURE_URL = "umpire-episode-capture.js";

export interface CaptureOptions {
  /** The episode's seed (Math.seedrandom). */
  seed: number;
  /** core.EPISODE_MAX_TIME in ms (BrowserGym: 1,000,000). */
  episodeMaxMs: number;
  /** The origin the pack's pages are served from: only its scripts may write the reward. */
  origin: string;
  /** Hide the human display (BrowserGym's remove_human_display). */
  removeDisplay: boolean;
}

const CAPTURE_SOURCE = String.raw`(function (cfg) {
  var W = window;
  if (W !== W.top || Object.prototype.hasOwnProperty.call(W, cfg.reader)) return;
  var defineProperty = Object.defineProperty, SavedError = Error, apply = Reflect.apply;
  var split = String.prototype.split, indexOf = String.prototype.indexOf, lastIndexOf = String.prototype.lastIndexOf;
  var slice = String.prototype.slice, trim = String.prototype.trim, push = Array.prototype.push;
  var setTimeoutSaved = W.setTimeout;
  try { defineProperty(SavedError, "stackTraceLimit", { value: 200, writable: false, configurable: false }); } catch (e) {}
  try { defineProperty(SavedError, "prepareStackTrace", { value: undefined, writable: false, configurable: false }); } catch (e) {}
  var pageOrigin = cfg.origin + "/";
  var starting = false;
  var record = { started: false, seed: cfg.seed, done: false, rawReward: null, reward: null, reason: null, refused: [] };
  var values = { WOB_RAW_REWARD_GLOBAL: 0, WOB_REWARD_GLOBAL: 0, WOB_REWARD_REASON: null, WOB_DONE_GLOBAL: false };
  function starts(text, prefix) { return apply(indexOf, text, [prefix]) === 0; }
  function frameLocation(line) {
    var text = apply(trim, line, []);
    if (!starts(text, "at ")) return null;
    var open = apply(indexOf, text, ["("]);
    if (open < 0 || text[text.length - 1] !== ")") return apply(slice, text, [3]);
    return apply(slice, text, [open + 1, text.length - 1]);
  }
  // Whose code made this write: "page" (the pack's scripts), else why not.
  function provenance() {
    var stack = String(new SavedError().stack || "");
    var lines = apply(split, stack, ["\n"]);
    var kinds = [];
    for (var i = 1; i < lines.length; i++) {
      var at = frameLocation(lines[i]);
      if (at === null) continue;
      if (starts(at, "${CAPTURE_URL}")) apply(push, kinds, ["own"]);
      else if (starts(at, pageOrigin)) apply(push, kinds, ["page"]);
      else if (at === "<anonymous>" || at === "native") apply(push, kinds, ["native"]);
      else return { ok: false, stack: stack };
    }
    var outer = kinds.length - 1;
    while (outer >= 0 && kinds[outer] === "native") outer--;
    return { ok: outer >= 0 && kinds[outer] === "page", stack: stack };
  }
  function accessor(name) {
    defineProperty(W, name, {
      configurable: false,
      enumerable: true,
      get: function () { return values[name]; },
      set: function (value) {
        if (!starting) {
          var made = provenance();
          if (!made.ok) {
            if (record.refused.length < 20) apply(push, record.refused, [{ name: name, value: String(value), stack: apply(slice, made.stack, [0, 2000]) }]);
            return;
          }
        }
        values[name] = value;
        if (name === "WOB_DONE_GLOBAL" && value === true && !record.done && record.started && !starting) {
          record.done = true;
          record.rawReward = Number(values.WOB_RAW_REWARD_GLOBAL);
          record.reward = Number(values.WOB_REWARD_GLOBAL);
          record.reason = values.WOB_REWARD_REASON == null ? null : String(values.WOB_REWARD_REASON);
        }
      },
    });
  }
  accessor("WOB_RAW_REWARD_GLOBAL");
  accessor("WOB_REWARD_GLOBAL");
  accessor("WOB_REWARD_REASON");
  accessor("WOB_DONE_GLOBAL");
  defineProperty(W, cfg.reader, {
    configurable: false,
    writable: false,
    value: function () {
      var refused = [];
      for (var i = 0; i < record.refused.length; i++) apply(push, refused, [{ name: record.refused[i].name, value: record.refused[i].value, stack: record.refused[i].stack }]);
      return { started: record.started, seed: record.seed, done: record.done, rawReward: record.rawReward, reward: record.reward, reason: record.reason, refused: refused };
    },
  });
  if (cfg.removeDisplay) {
    // BrowserGym removes these from the DOM; hiding them keeps core.js's own lookups working.
    var css = "#reward-display, #click-canvas, #sync-task-cover { display: none !important; }" +
      " #query { font-size: 0 !important; } #query * { visibility: hidden !important; }";
    document.addEventListener("DOMContentLoaded", function () {
      var style = document.createElement("style");
      style.textContent = css;
      (document.head || document.documentElement).appendChild(style);
    });
  }
  function start() {
    var core = W.core;
    if (!core || typeof core.startEpisodeReal !== "function" || typeof Math.seedrandom !== "function") return;
    starting = true;
    try {
      Math.seedrandom(cfg.seed);
      core.EPISODE_MAX_TIME = cfg.episodeMaxMs;
      core.startEpisodeReal();
      record.started = true;
    } finally {
      starting = false;
    }
  }
  // After the page's own load handler (core.startEpisode, which shows the START cover).
  W.addEventListener("load", function () { apply(setTimeoutSaved, W, [start, 0]); });
})`;

/** The capture as an init script for one trial: its seed and limits filled in. */
export function episodeCaptureScript(options: CaptureOptions): string {
  const cfg = { ...options, reader: EPISODE_READER };
  return `${CAPTURE_SOURCE}(${JSON.stringify(cfg)});\n//# sourceURL=${CAPTURE_URL}\n`;
}

/**
 * The expression the pack's tasks read their instruction with (`instructionFrom`): the utterance, once
 * the capture has started the episode and the environment says it is ready (WOB_TASK_READY).
 */
export const UTTERANCE_EXPRESSION = `window.${EPISODE_READER} && window.${EPISODE_READER}().started && window.WOB_TASK_READY !== false ? core.getUtterance() : ""`;
