/**
 * What changed between the two sides of a comparison, said at the top of `compare`, `report
 * --baseline` and `run --until-decided` (issue 36):
 *
 * - An agent of the same name with another stored definition is the change under test: its pairs
 *   count, and the line shows a short diff of the stored definitions ("agent ours changed: model
 *   reference -> reference:wrong-record"). So does an agent compared under a new name (each side
 *   ran one agent, under different names).
 * - A task whose content hash differs is not like-for-like: its pairs are left out (compare.ts),
 *   and the line names the parts of the task that changed, from the per-part hashes each run
 *   stores (`taskParts`, src/task/content-hash.ts).
 *
 * The definitions come from the runs' stored options (`agents`, `commandAgents`); the store does not
 * own their shape, so they are diffed as plain JSON, field by field.
 */
import type { RunRecord } from "../store/records.js";
import { runOptionsOf, type StoredRunOptions } from "../store/run-options.js";
import type { Comparison } from "./compare.js";

/** One side of a comparison: its label and the runs it holds. */
interface Side {
  label: string;
  runs: readonly RunRecord[];
  /** The agent labels its trials ran under. */
  agents: readonly string[];
}

/** Fields that name an agent rather than define it (a rename is not a change of definition). */
const NAMING = new Set(["label", "name"]);
/** At most this many fields of a definition are listed; the rest are counted. */
const MAX_FIELDS = 5;
const MAX_VALUE = 40;

function optionsOf(run: RunRecord): StoredRunOptions | null {
  try {
    return runOptionsOf(run);
  } catch {
    return null; // a damaged row: what changed is unknown, never guessed
  }
}

/** The stored definition of agent `label` in the side's runs (the newest run that has it). */
function definitionOf(side: Side, label: string): Record<string, unknown> | null {
  for (const run of [...side.runs].reverse()) {
    const options = optionsOf(run);
    const found =
      options?.agents.find((a) => a.label === label) ?? options?.commandAgents.find((a) => a.name === label);
    if (found) return found as Record<string, unknown>;
  }
  return null;
}

/** Dotted path -> shown value, for every leaf of a stored definition. */
function leaves(value: unknown, prefix = "", out = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (prefix === "" && NAMING.has(k)) continue;
      leaves(v, prefix ? `${prefix}.${k}` : k, out);
    }
  } else if (value !== undefined) out.set(prefix, shown(value));
  return out;
}

function shown(v: unknown): string {
  const text = typeof v === "string" ? v : Array.isArray(v) ? v.map((x) => shown(x)).join(", ") : JSON.stringify(v);
  // One line whatever the value: a short multi-line text (a policy) shows its line breaks escaped.
  if (text.length <= MAX_VALUE) return /\s/.test(text.replace(/ /g, "")) ? JSON.stringify(text) : text;
  return `"${text.slice(0, MAX_VALUE - 10).replace(/\s+/g, " ")}..." (${text.length} chars)`;
}

/** "model reference -> reference:wrong-record; temperature 0.8 -> 0.2", or null when nothing differs. */
export function definitionDiff(base: unknown, candidate: unknown): string | null {
  const [a, b] = [leaves(base), leaves(candidate)];
  const fields = [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f) !== b.get(f));
  if (fields.length === 0) return null;
  const listed = fields
    .slice(0, MAX_FIELDS)
    .map((f) => `${f} ${a.get(f) ?? "(none)"} -> ${b.get(f) ?? "(none)"}`)
    .join("; ");
  return fields.length > MAX_FIELDS ? `${listed}; and ${fields.length - MAX_FIELDS} more` : listed;
}

function agentLine(head: string, base: Side, baseLabel: string, candidate: Side, candLabel: string): string {
  const [a, b] = [definitionOf(base, baseLabel), definitionOf(candidate, candLabel)];
  if (!a || !b) return `${head}: its stored definition is not available to show what`;
  return `${head}: ${definitionDiff(a, b) ?? "the stored definitions read the same (a part umpire does not store changed)"}`;
}

/** The parts of task `taskId` whose hashes differ between the sides; null when either side stored none. */
function changedParts(base: Side, candidate: Side, taskId: string): string[] | null {
  const parts = (side: Side) =>
    [...side.runs]
      .reverse()
      .map((r) => optionsOf(r)?.taskParts?.find((p) => p.task === taskId)?.parts)
      .find((p) => p !== undefined);
  const [a, b] = [parts(base), parts(candidate)];
  if (!a || !b) return null;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

/**
 * The lines said at the top of a comparison of `sides[0]` (base) with each later side: agents
 * changed under their name or compared under a new one (their pairs count), and tasks changed
 * (their pairs are left out unless `includeChangedTasks`).
 */
export function changeLines(comparison: Comparison, sides: readonly Side[], includeChangedTasks = false): string[] {
  const [base] = sides;
  if (!base) return [];
  return comparison.paired.flatMap((p, i) => {
    const candidate = sides[i + 1];
    if (!candidate) return [];
    const lines = p.changedAgents.map((label) =>
      agentLine(`agent ${label} changed (the change under test)`, base, label, candidate, label),
    );
    const [onlyBase, onlyCand] = [base.agents, candidate.agents];
    if (onlyBase.length === 1 && onlyCand.length === 1 && onlyBase[0] !== onlyCand[0]) {
      const head = `agent ${onlyCand[0]} compared with ${onlyBase[0]} (the change under test)`;
      lines.push(agentLine(head, base, onlyBase[0]!, candidate, onlyCand[0]!));
    }
    const rows = new Map(comparison.tasks.map((r) => [r.key, r]));
    const what = includeChangedTasks ? "paired anyway (--include-changed-tasks)" : "its pairs are left out";
    for (const key of p.changedTasks) {
      const parts = changedParts(base, candidate, rows.get(key)?.taskId ?? key);
      const detail = parts === null ? "its definition (hash) differs" : parts.join(", ") || "its definition (hash)";
      lines.push(`task ${key} changed: ${detail}; not like-for-like, ${what}`);
    }
    return lines;
  });
}

/** The sides of a comparison whose groups are whole runs or sets of runs, from the store's records. */
export function sidesOf(
  comparison: Comparison,
  runOf: (id: string) => RunRecord,
  trialsOf: (label: string) => readonly { agentLabel: string }[],
): Side[] {
  return comparison.groups.map((g) => ({
    label: g.label,
    runs: g.runIds.map(runOf),
    agents: [...new Set(trialsOf(g.label).map((t) => t.agentLabel))],
  }));
}
