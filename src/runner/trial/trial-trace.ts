/**
 * A trial's Playwright trace (`--trace on | retain-on-failure | off`): recorded on the trial's
 * browser context from its creation (DOM snapshots, screenshots, network, console), written to
 * `trace.zip` in the trial folder when the context closes, and, with `retain-on-failure`,
 * deleted once the verdict says the trial passed. `npx playwright show-trace trace.zip` opens it.
 *
 * A trace is evidence, never a judge: failing to record or write one changes no verdict; the
 * reason is kept (`problem`) for the trial log.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext } from "playwright";
import { TRACE_FILE, type TraceMode, type Verdict } from "../../vocabulary.js";
import { firstLineOf } from "../../errors.js";

export interface TraceSpec {
  mode: TraceMode;
  /** Where the zip goes (the trial folder's TRACE_FILE). */
  path: string;
}

/** The trace spec of a trial folder, or undefined when tracing is off. */
export function traceSpecFor(mode: TraceMode | undefined, folder: string): TraceSpec | undefined {
  return mode && mode !== "off" ? { mode, path: join(folder, TRACE_FILE) } : undefined;
}

export class TrialTrace {
  /** Why the trace is missing or incomplete, if it is. */
  problem: string | null = null;
  private recording = false;

  constructor(readonly spec: TraceSpec) {}

  /** Starts recording on a fresh context (before its first page, so the start page is in the trace). */
  async start(context: BrowserContext): Promise<void> {
    try {
      await context.tracing.start({ screenshots: true, snapshots: true, sources: false });
      this.recording = true;
    } catch (error) {
      this.problem = `the trace could not start: ${firstLineOf(error)}`;
    }
  }

  /** Writes the zip; call before the context closes. */
  async stop(context: BrowserContext): Promise<void> {
    if (!this.recording) return;
    this.recording = false;
    try {
      await context.tracing.stop({ path: this.spec.path });
    } catch (error) {
      this.problem = `the trace could not be written to ${this.spec.path}: ${firstLineOf(error)}`;
    }
  }

  /** With `retain-on-failure`, a passed trial's trace is deleted: only the ones worth reading stay. */
  async settle(verdict: Verdict): Promise<void> {
    if (this.spec.mode === "retain-on-failure" && verdict === "passed") await rm(this.spec.path, { force: true });
  }
}
