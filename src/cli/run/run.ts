/**
 * `umpire run` after its options are parsed: the run as phases (`phases.ts`), in order
 *
 *   select   open the store; choose the tasks and agents (or restore a stored run's)   closes the store
 *   plan     the run id, its folder and the trials to run now; `--list` ends here
 *   persist  preflight, start the runtime, then store the run                          closes the runtime
 *   execute  run the trials (and --until-decided's repeats) with a heartbeat           stops the heartbeat
 *   finish   mark the run finished or interrupted, write the outputs, the exit code
 *
 * persist and execute form one group, so the runtime is closed before finish writes the outputs
 * (the reports read only the store) and the store stays open until the very end.
 */
import { fromPhase, runSettings, type RunContext, type RunRequest } from "./context.js";
import { executePhase } from "./execute.js";
import { finishPhase } from "./finish.js";
import { phaseGroup, runPhases } from "./phases.js";
import { persistPhase } from "./persist.js";
import { planPhase } from "./plan-trials.js";
import { selectPhase } from "./select.js";

const RUN_PHASES = [selectPhase, planPhase, phaseGroup("trials", [persistPhase, executePhase]), finishPhase];

/** Runs what `request` asks for; the exit code. */
export async function executeRun(request: RunRequest): Promise<number> {
  const context: RunContext = { ...request, settings: await runSettings(request), baselineId: null, finished: false };
  return fromPhase(await runPhases(context, RUN_PHASES), "finish");
}
