/**
 * JUnit XML for CI: one <testsuite> per group (run, mode, ...), one <testcase> per trial. A failed
 * trial carries a <failure> listing its failed checks' reasons; an infrastructure error is an
 * <error>; a trial cancelled by the user, or not finished, is <skipped>. Output is well-formed XML whatever the reasons contain.
 */
import type { CheckSummary, TrialRecord } from "../store/records.js";

export interface JUnitSuite {
  name: string;
  trials: readonly { trial: TrialRecord; checks: readonly CheckSummary[] }[];
}

// Characters XML 1.0 forbids even when escaped (C0 controls except tab, LF, CR; lone surrogates; U+FFFE/F).
// eslint-disable-next-line no-control-regex
const INVALID_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escapes text for an XML attribute or element, replacing forbidden characters with U+FFFD. */
export function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

const attrs = (pairs: Record<string, string | number>) =>
  Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeXml(String(v))}"`)
    .join(" ");

const seconds = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(3);

function testcase(trial: TrialRecord, checks: readonly CheckSummary[]): string {
  const name = `${trial.taskId} [${trial.mode}] #${trial.repeat}`;
  const head = `    <testcase ${attrs({ classname: `umpire.${trial.taskId}`, name, time: seconds(trial.wallMs), file: trial.taskFile })}`;
  const stop = `stop: ${trial.stopReason ?? "none"}${trial.stopDetail ? `: ${trial.stopDetail}` : ""}; claimed ${trial.claimed}, verified ${trial.verified}; model ${trial.model}; trial ${trial.id}`;
  const out = `      <system-out>${escapeXml(stop)}</system-out>`;
  if (trial.status !== "done") {
    return `${head}>\n      <skipped ${attrs({ message: `not finished (${trial.status})` })}/>\n    </testcase>`;
  }
  if (trial.verdict === "cancelled") {
    return `${head}>\n      <skipped ${attrs({ message: `cancelled by the user (umpire run --resume ${trial.runId} runs it again)` })}/>\n${out}\n    </testcase>`;
  }
  if (trial.verdict === "error") {
    const message = trial.error ?? trial.stopDetail ?? "infrastructure error";
    return `${head}>\n      <error ${attrs({ message, type: trial.stopReason ?? "error" })}>${escapeXml(message)}</error>\n${out}\n    </testcase>`;
  }
  if (trial.verdict === "failed") {
    const failed = checks.filter((c) => !c.pass);
    const required = failed.filter((c) => c.required);
    const message =
      required.length > 0 ? required.map((c) => `${c.name}: ${c.reason}`).join("; ") : (trial.stopDetail ?? "failed");
    const body = failed
      .map((c) => `${c.kind} "${c.name}" (${c.required ? "required" : "advisory"}, ${c.confidence}): ${c.reason}`)
      .join("\n");
    return `${head}>\n      <failure ${attrs({ message, type: "failed" })}>${escapeXml(body || message)}</failure>\n${out}\n    </testcase>`;
  }
  return `${head}>\n${out}\n    </testcase>`;
}

function counts(trials: JUnitSuite["trials"]) {
  const done = trials.filter((t) => t.trial.status === "done");
  return {
    tests: trials.length,
    failures: done.filter((t) => t.trial.verdict === "failed").length,
    errors: done.filter((t) => t.trial.verdict === "error").length,
    skipped: trials.length - done.length + done.filter((t) => t.trial.verdict === "cancelled").length,
    time: seconds(trials.reduce((acc, t) => acc + (t.trial.wallMs ?? 0), 0)),
  };
}

/** The whole JUnit document. */
export function junitXml(suites: readonly JUnitSuite[]): string {
  const all = suites.flatMap((s) => s.trials);
  const body = suites.map((s) => {
    const cases = s.trials.map((t) => testcase(t.trial, t.checks)).join("\n");
    return `  <testsuite ${attrs({ name: s.name, ...counts(s.trials) })}>\n${cases}${cases ? "\n" : ""}  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ${attrs({ name: "umpire", ...counts(all) })}>\n${body.join("\n")}\n</testsuites>\n`;
}
