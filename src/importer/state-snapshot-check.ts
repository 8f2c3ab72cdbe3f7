/**
 * A custom check `umpire import playwright` adds (advisory) to its drafts while it plays their gold
 * and answer-now probes: it never judges, it writes down the app's state as the trial left it (the
 * target origin's localStorage and sessionStorage, and the JSON the app's HTTP API returns for the
 * GET URLs the test itself read) into `<dir>/<trial id>.json`. The import compares the gold's state
 * with the untouched one (answer-now) and turns what the gold changed into checks (state-diff.ts).
 *
 * Loaded by umpire's custom-check loader like any user module: it imports nothing of umpire's, so
 * only the shape of the context it reads is declared here.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What a snapshot holds: per storage area, key -> raw value; per URL, the parsed JSON body. */
export interface StateSnapshot {
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
  http: Record<string, unknown>;
}

interface SnapshotContext {
  trialId?: string;
  target?: { baseUrl: string };
  storage?: {
    state(): Promise<{ origins: { origin: string; localStorage: { name: string; value: string }[] }[] }>;
    sessionStorage(origin: string): Promise<Record<string, string> | null>;
  };
  page?: {
    current(): Promise<{ request: { get(url: string): Promise<{ ok(): boolean; text(): Promise<string> }> } }>;
  };
}

interface SnapshotOptions {
  dir: string;
  urls?: string[];
}

async function readHttp(ctx: SnapshotContext, urls: readonly string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (!ctx.page || !ctx.target || urls.length === 0) return out;
  // The page's own request context: the trial's cookies and headers, as the app's own calls carry them.
  const page = await ctx.page.current();
  for (const url of urls) {
    try {
      const res = await page.request.get(new URL(url, ctx.target.baseUrl).href);
      if (res.ok()) out[url] = JSON.parse(await res.text());
    } catch {
      // Not JSON, or not answering: no state to compare at this URL.
    }
  }
  return out;
}

export const snapshot = {
  name: "state snapshot (umpire import)",
  confidence: "verified",
  async judge(ctx: SnapshotContext, options: SnapshotOptions) {
    const origin = ctx.target ? new URL(ctx.target.baseUrl).origin : "";
    const state = ctx.storage ? await ctx.storage.state() : { origins: [] };
    const local = state.origins.find((o) => o.origin === origin)?.localStorage ?? [];
    const snap: StateSnapshot = {
      localStorage: Object.fromEntries(local.map((i) => [i.name, i.value])),
      sessionStorage: (ctx.storage && origin ? await ctx.storage.sessionStorage(origin) : null) ?? {},
      http: await readHttp(ctx, options.urls ?? []),
    };
    mkdirSync(options.dir, { recursive: true });
    writeFileSync(join(options.dir, `${ctx.trialId ?? "trial"}.json`), JSON.stringify(snap));
    return { pass: true, reason: "the app's state, written down for the import", evidence: {} };
  },
};
