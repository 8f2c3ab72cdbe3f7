/**
 * The reference model's request log: one record per request with what it was, what the
 * server answered, the lint violations and the server's own time. Bodies (with their
 * screenshots) are kept only for the most recent requests so a long run stays small;
 * headers are never stored (they may carry an API key).
 */
import type { Violation } from "./lint.js";
import type { MissingMark } from "./policy.js";

export interface RequestRecord {
  seq: number;
  at: string;
  method: string;
  path: string;
  status: number;
  model: string | null;
  profile: string | null;
  /** The request's `user` field: the trial id naming the fixture session. */
  user: string | null;
  mode: string | null;
  stream: boolean;
  taskId: string | null;
  turn: number | null;
  step: number | null;
  trajectory: string | null;
  /** A `hold` or `lost` turn's step whose mark the page did not show (what the self-test reports). */
  missing?: MissingMark;
  /** `action`, `refusal`, `truncated`, `malformed:<kind>`, a fault (`server-error`, ...) or an error code. */
  outcome: string;
  /** The tool of the emitted action, when there was one. */
  tool: string | null;
  lint: Violation[];
  /** Time the server spent on the request itself (read and parse the body, lint, layout, policy, render), excluding deliberate latency. */
  serverMs: number;
  /** The body as received; dropped for all but the latest `keepBodies` records. */
  body?: unknown;
}

export class RequestLog {
  readonly entries: RequestRecord[] = [];
  private seq = 0;

  constructor(
    private readonly keepBodies = 200,
    private readonly onLine?: (line: string) => void,
  ) {}

  add(record: Omit<RequestRecord, "seq" | "at">): RequestRecord {
    const full: RequestRecord = { seq: ++this.seq, at: new Date().toISOString(), ...record };
    this.entries.push(full);
    const stale = this.entries.length - 1 - this.keepBodies;
    if (stale >= 0) delete this.entries[stale].body;
    this.onLine?.(formatRecord(full));
    return full;
  }

  /** Records of one trial (the request `user` field), oldest first. */
  forUser(user: string): RequestRecord[] {
    return this.entries.filter((e) => e.user === user);
  }

  /** Records with at least one lint violation. */
  violations(): RequestRecord[] {
    return this.entries.filter((e) => e.lint.length > 0);
  }

  /** Median of the server's own time over the chat-completions requests logged so far. */
  medianServerMs(): number | null {
    const times = this.entries
      .filter((e) => e.path.endsWith("/chat/completions"))
      .map((e) => e.serverMs)
      .sort((a, b) => a - b);
    if (times.length === 0) return null;
    const mid = Math.floor(times.length / 2);
    return times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  }
}

/** One log line: status, model, trial, task, turn, outcome, time and lint result. */
export function formatRecord(r: RequestRecord): string {
  const parts = [
    `${r.method} ${r.path} ${r.status}`,
    r.model ?? "-",
    r.user ? `user=${r.user}` : null,
    r.taskId ? `task=${r.taskId}` : null,
    r.turn !== null ? `turn=${r.turn}` : null,
    r.trajectory ? `${r.trajectory}${r.step !== null ? `[${r.step}]` : ""}` : null,
    r.tool ? `${r.outcome}:${r.tool}` : r.outcome,
    r.stream ? "stream" : null,
    `${r.serverMs.toFixed(1)}ms`,
    r.lint.length ? `lint=${r.lint.map((v) => v.rule).join(",")}` : "lint=ok",
  ];
  return parts.filter(Boolean).join(" ");
}
