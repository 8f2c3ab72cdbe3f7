/**
 * The pack self-test's scripted oracle for MiniWoB++ (`umpire validate --self-test --pack miniwob`):
 * a command agent umpire ships (miniwob-oracle-agent.ts) that reads the environment's utterance and
 * the page's DOM and solves the few environment kinds it knows with trusted mouse and keyboard
 * input. Its passing an environment proves the pipe end to end (the served folder, the seed, the
 * utterance as instruction, the agent's input reaching the page, the episode capture, the check).
 * The episodes are random per seed, so no gold trajectory exists: an environment it does not know
 * is one no probe exercises, and the self-test says so.
 */
import { fileURLToPath } from "node:url";

/** The environments the oracle solves (by the utterance each one gives). */
export const ORACLE_ENVIRONMENTS: readonly string[] = [
  "click-test",
  "click-test-2",
  "click-button",
  "click-button-sequence",
  "unicode-test",
  "click-link",
  "click-tab",
  "click-dialog",
  "click-dialog-2",
  "click-collapsible",
  "click-collapsible-nodelay",
  "click-collapsible-2",
  "click-collapsible-2-nodelay",
  "click-tab-2",
  "click-tab-2-easy",
  "click-tab-2-hard",
  "focus-text",
  "focus-text-2",
  "enter-text",
  "enter-text-2",
  "enter-text-dynamic",
  "enter-password",
  "login-user",
  "simple-arithmetic",
  "copy-paste",
  "copy-paste-2",
  "choose-list",
  "click-scroll-list",
  "click-option",
  "click-checkboxes",
  "click-checkboxes-large",
  "click-checkboxes-soft",
  "click-checkboxes-transfer",
];

/** The answer the oracle gives, without acting, to an utterance it cannot read. */
export const ORACLE_UNREAD = "no probe for this environment";

/** The oracle's script (compiled next to this module), run as `node <script>`. */
export function oracleScript(): string {
  return fileURLToPath(new URL("./miniwob-oracle-agent.js", import.meta.url));
}

/** Whether the oracle knows pack task `taskId` (`miniwob-<environment>`). */
export function oracleKnows(taskId: string): boolean {
  return ORACLE_ENVIRONMENTS.some((name) => taskId === `miniwob-${name}`);
}
