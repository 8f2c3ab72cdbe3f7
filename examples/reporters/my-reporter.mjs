// A custom umpire reporter (docs/reporting.md, "Your own reporter"):
//   npx umpire run --reporter ./my-reporter.mjs            writes my-report.txt
//   npx umpire run --reporter ./my-reporter.mjs:out.txt    writes out.txt
// umpire loads the module from your project and constructs its default export with
// { file, cwd }; every hook is optional. It writes one line per finished trial while the run
// happens, then a closing line from the stored run (`umpire show RUN --reporter ...` calls
// only that last hook).
import { appendFileSync } from "node:fs";
import { join } from "node:path";

export default class MyReporter {
  constructor({ file, cwd }) {
    this.file = file ?? join(cwd, "my-report.txt");
  }

  onRunBegin({ runId, trials }) {
    appendFileSync(this.file, `run ${runId}: ${trials.length} trials\n`);
  }

  onTrialEnd({ trial, verdict, stopReason, turns }) {
    appendFileSync(this.file, `${trial.task.id} [${trial.agent.label}] ${verdict} (${stopReason}, ${turns} turns)\n`);
  }

  // The run as `--reporter json` writes it. Return a line to tell the user where the output went.
  onStoredRun({ json }) {
    const passed = json.trials.filter((t) => t.verdict === "passed").length;
    appendFileSync(this.file, `stored ${json.runId}: ${passed}/${json.trials.length} passed\n`);
    return `my-reporter: ${this.file}`;
  }
}
