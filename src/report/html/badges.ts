/**
 * Small pieces of markup several pages share: verdict and status badges, yes/no cells, the
 * stop-reason line. Colour comes from CSS classes (report.css), never inline styles (CSP).
 */
import type { TrialRecord } from "../../store/records.js";
import { html, type Raw } from "./escape.js";

/** `passed` / `failed` / `error`, or `not run` for a trial that never finished. */
export function verdictText(verdict: TrialRecord["verdict"]): string {
  return verdict ?? "not run";
}

/** The CSS class (and filter value) of a verdict. */
export function verdictKey(verdict: TrialRecord["verdict"]): string {
  return verdict ?? "none";
}

export function verdictBadge(verdict: TrialRecord["verdict"]): Raw {
  return html`<span class="badge verdict-${verdictKey(verdict)}">${verdictText(verdict)}</span>`;
}

/** An action's status: success, rejected, failed, skipped. */
export function statusBadge(status: string): Raw {
  return html`<span class="badge status-${status.replace(/[^a-z_]/g, "")}">${status}</span>`;
}

export function yesNo(value: boolean | null): string {
  return value === null ? "—" : value ? "yes" : "no";
}

/** `stop: answered — model finished, note wrong`. */
export function stopLine(trial: Pick<TrialRecord, "stopReason" | "stopDetail" | "status">): Raw {
  if (!trial.stopReason)
    return html`<p class="stop">stop: <strong>${trial.status === "done" ? "unknown" : "not finished"}</strong></p>`;
  return html`<p class="stop">stop: <strong class="stop-reason">${trial.stopReason}</strong>${trial.stopDetail ? html` — ${trial.stopDetail}` : ""}</p>`;
}
