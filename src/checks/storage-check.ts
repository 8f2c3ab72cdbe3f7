/**
 * The `storage` check: a value the app keeps in the trial's browser context (localStorage,
 * sessionStorage, a cookie), read by the harness after the loop. Many single-page apps keep their
 * state there, so it is `verified` application state, not the agent's word.
 */
import type { z } from "zod";
import type { StorageCheck } from "../task/schema.js";
import { clip } from "./evidence.js";
import { judgeJson, parseJson } from "./json-expect.js";
import { checkMatchers } from "./text-match.js";
import { CheckUnjudgeableError, type Evidence, type Handler } from "./types.js";

export type StorageCheckSpec = z.output<typeof StorageCheck>;

export const storageCheck: Handler<StorageCheckSpec> = {
  confidence: "verified",
  defaultName: (spec) => `${spec.area} ${spec.key}`,
  async judge(spec, ctx) {
    if (!ctx.storage) throw new CheckUnjudgeableError("the trial has no browser context to read storage from");
    const origin = new URL(spec.origin ?? ctx.target?.baseUrl ?? "").origin;
    let value: string | undefined;
    let keys: string[] = [];
    if (spec.area === "sessionStorage") {
      const items = await ctx.storage.sessionStorage(origin);
      if (items === null)
        throw new CheckUnjudgeableError(`no page of the trial is on ${origin}, so its sessionStorage cannot be read`);
      keys = Object.keys(items);
      value = items[spec.key];
    } else {
      const state = await ctx.storage.state();
      if (spec.area === "localStorage") {
        const items = state.origins.find((o) => o.origin === origin)?.localStorage ?? [];
        keys = items.map((i) => i.name);
        value = items.find((i) => i.name === spec.key)?.value;
      } else {
        const host = new URL(origin).hostname;
        const cookies = state.cookies.filter(
          (c) =>
            c.domain.replace(/^\./, "") === host || host.endsWith(c.domain.startsWith(".") ? c.domain : `.${c.domain}`),
        );
        keys = cookies.map((c) => c.name);
        value = cookies.find((c) => c.name === spec.key)?.value;
      }
    }
    const where = `${spec.area}[${JSON.stringify(spec.key)}] on ${origin}`;
    const evidence: Evidence = {
      origin,
      area: spec.area,
      key: spec.key,
      value: value === undefined ? null : clip(value, 1_000),
      keys: keys.slice(0, 50),
    };
    if (!spec.exists) {
      return value === undefined
        ? { pass: true, reason: `${where} is absent, as expected`, evidence }
        : { pass: false, reason: `${where} is set but must be absent`, evidence };
    }
    if (value === undefined)
      return { pass: false, reason: `${where} is not set (keys there: ${keys.join(", ") || "none"})`, evidence };
    const failures: string[] = [];
    const matchers = checkMatchers(value, spec.contains, spec.notContains, spec.normalize);
    failures.push(...matchers.failures);
    if (spec.json.length > 0) {
      const parsed = parseJson(value);
      if (!parsed.ok) failures.push(`is not JSON (${parsed.error})`);
      else {
        const judged = judgeJson(parsed.value, spec.json);
        evidence.values = judged.seen;
        failures.push(...judged.failures);
      }
    }
    if (failures.length > 0) return { pass: false, reason: `${where}: ${failures.join("; ")}`, evidence };
    return { pass: true, reason: `${where} holds what was expected`, evidence };
  },
};
