/**
 * What a trial's outcome carries when umpire measured the agent's model calls itself (a command agent
 * behind its model proxy, src/runner/external/model-proxy.ts). Declared with the trial, below the
 * external wing that measures and prices the calls, so the loop's outcome names them without
 * importing the wing above it.
 */
import type { ReportedUsage } from "../../vocabulary.js";

/** One model call as the proxy measured it. */
export interface ModelCall {
  /** `chat/completions`, `models`, `models/<id>`. */
  route: string;
  /** The model the agent asked for (null for listings). */
  model: string | null;
  stream: boolean;
  /** The upstream's HTTP status, or 502 when it could not be reached. */
  status: number;
  /** Tokens from the response's `usage`; every field null when it said nothing. */
  usage: ReportedUsage;
  /** From the request's arrival to the response's last byte. */
  ms: number;
  /** From the request's arrival to the response's first body byte (streamed calls only). */
  ttftMs: number | null;
  /** Why the call failed, when it did (upstream unreachable, body too large). */
  error?: string;
}

/** Stored with the trial (metrics.modelProxy): the calls umpire measured, and the requests it refused. */
export interface MeasuredModelUse {
  source: "measured";
  calls: ModelCall[];
  refused: number;
}
