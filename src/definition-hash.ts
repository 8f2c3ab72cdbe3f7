/**
 * A stable hash of a resolved definition (a task today; an agent definition later, issue #16):
 * sha256 over canonical JSON, i.e. object keys sorted at every depth and `undefined` members
 * dropped, so two definitions that mean the same thing hash the same whatever order their file
 * wrote the keys in, and any change of content changes the hash. Bottom layer: every layer may
 * hash what it owns without importing another's code.
 */
import { createHash } from "node:crypto";

/** JSON text with sorted keys; `undefined` members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v as Record<string, unknown>).sort())
      sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** `sha256:<64 hex>` of the definition's canonical JSON. The prefix names the algorithm for later readers. */
export function definitionHash(value: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value)).digest("hex")}`;
}
