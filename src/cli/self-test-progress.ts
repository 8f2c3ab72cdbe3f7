/**
 * The self-test's progress on stderr, as every self-test command says it (tasks and packs alike):
 * its notices, and one line per probe as its trial ends.
 */
import type { SelfTestOptions } from "../authoring/self-test.js";
import { oneLine } from "../safety/terminal.js";
import type { CommandIO } from "./io.js";

export function selfTestProgress(io: CommandIO): Pick<SelfTestOptions, "onNotice" | "onTrialEnd"> {
  return {
    onNotice: (message) => io.stderr.write(`umpire: ${message}\n`),
    onTrialEnd: (end, probe) =>
      io.stderr.write(
        `  ${oneLine(end.trial.task.id)} ${probe} [${end.trial.agent.label}]: ${end.verdict} (${end.stopReason}${end.verdict === "passed" ? "" : `: ${oneLine(end.stopLine)}`})\n`,
      ),
  };
}
