/**
 * The `http` check: asks the app itself (a REST endpoint, an admin API) after the trial, so its
 * confidence is `verified`. The URL must be on an allowed origin of the trial's target. Header
 * values may carry secrets as ${env:NAME}: they are sent, never shown in evidence.
 */
import type { z } from "zod";
import type { HttpCheck } from "../task/schema.js";
import { clip } from "./evidence.js";
import { judgeJson, parseJson } from "./json-expect.js";
import { checkMatchers, DEFAULT_NORMALIZE } from "./text-match.js";
import { CheckUnjudgeableError, type Evidence, type Handler } from "./types.js";
import { substituteTrialVarsDeep } from "../task/trial-vars.js";
import { matchersWithVars, targetUrl, trialVars, withSecrets, withVars } from "./vars.js";
import { messageOf } from "../errors.js";

export type HttpCheckSpec = z.output<typeof HttpCheck>;

/** A JSON expectation that held, with the value seen (a length as its count). */
function heldJson(e: HttpCheckSpec["json"][number], seen: unknown): string {
  const where = e.path || "the value";
  if (e.exists === false) return `${where} is absent`;
  if (e.length !== undefined) return `${where} has ${e.length} item${e.length === 1 ? "" : "s"}`;
  return `${where} = ${JSON.stringify(seen)}`;
}

function describeMatcher(m: string | { regex: string }): string {
  return typeof m === "string" ? JSON.stringify(m) : `/${m.regex}/`;
}

export const httpCheck: Handler<HttpCheckSpec> = {
  confidence: "verified",
  defaultName: (spec) => `http ${spec.method} ${spec.url}`,
  async judge(spec, ctx) {
    const url = targetUrl(spec.url, ctx);
    const headers: Record<string, string> = {};
    const shownHeaders: Record<string, string> = {};
    for (const [name, raw] of Object.entries(spec.headers)) {
      const { value, secret } = withSecrets(raw, ctx);
      headers[name] = value;
      // Evidence shows the header as declared ("Bearer ${env:TOKEN}"), never the secret itself.
      shownHeaders[name] = secret ? raw : value;
    }
    let body: string | undefined;
    if (spec.body !== undefined) {
      // Filled in per string, then serialised: a value with a quote or backslash (a Windows workspace) stays JSON.
      body =
        typeof spec.body === "string"
          ? withVars(spec.body, ctx)
          : JSON.stringify(substituteTrialVarsDeep(spec.body, trialVars(ctx)));
      if (typeof spec.body !== "string") headers["content-type"] ??= "application/json";
    }
    let response: Response;
    try {
      response = await (ctx.io?.fetch ?? fetch)(url, {
        method: spec.method,
        headers,
        body,
        signal: AbortSignal.timeout(spec.timeoutSeconds * 1000),
        redirect: "manual",
      });
    } catch (e) {
      throw new CheckUnjudgeableError(`${spec.method} ${url} failed: ${messageOf(e)}`);
    }
    const text = await response.text();
    const evidence: Evidence = {
      request: { method: spec.method, url, headers: shownHeaders },
      status: response.status,
      body: clip(text, 1_000),
    };
    const failures: string[] = [];
    const held: string[] = [];
    const wanted = spec.status === undefined ? undefined : Array.isArray(spec.status) ? spec.status : [spec.status];
    const expectedStatus = wanted ? wanted.join(" or ") : "2xx";
    const statusOk = wanted ? wanted.includes(response.status) : response.status >= 200 && response.status <= 299;
    if (statusOk) held.push(`answered ${response.status} (expected ${expectedStatus})`);
    else failures.push(`answered ${response.status}, expected ${expectedStatus}`);
    const contains = matchersWithVars(spec.contains, ctx);
    const matchers = checkMatchers(text, contains, [], DEFAULT_NORMALIZE);
    failures.push(...matchers.failures.map((f) => `the body ${f}`));
    if (contains.length > 0 && matchers.failures.length === 0)
      held.push(`the body contains ${contains.map(describeMatcher).join(", ")}`);
    // A wrong status already says what went wrong: an error page is not also "not JSON".
    if (spec.json.length > 0 && statusOk) {
      const parsed = parseJson(text);
      if (!parsed.ok) failures.push(`the body is not JSON (${parsed.error})`);
      else {
        const judged = judgeJson(parsed.value, spec.json);
        evidence.values = judged.seen;
        failures.push(...judged.failures);
        held.push(...spec.json.map((e) => heldJson(e, judged.seen[e.path || "/"])));
      }
    }
    const where = `${spec.method} ${new URL(url).pathname}`;
    if (failures.length > 0) return { pass: false, reason: `${where}: ${failures.join("; ")}`, evidence };
    return { pass: true, reason: `${where}: ${held.join("; ")}`, evidence };
  },
};
