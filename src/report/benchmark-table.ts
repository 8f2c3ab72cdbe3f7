/**
 * The table a benchmark's papers print, for a pack run (docs/benchmarks.md): per environment and
 * agent, the success rate over its judged repeats; and per agent the overall rate over every judged
 * episode, each with its 95% Wilson interval. Trials with verdict `error` or `cancelled` were not
 * judged: they are counted beside the rate, never as failures.
 */
import type { TrialRecord } from "../store/records.js";
import { formatInterval, formatPercent } from "./format.js";
import { wilson } from "./stats.js";

interface Cell {
  passes: number;
  judged: number;
  unjudged: number;
}

function add(cells: Map<string, Cell>, key: string, verdict: string | null): void {
  const cell = cells.get(key) ?? { passes: 0, judged: 0, unjudged: 0 };
  if (verdict === "passed" || verdict === "failed") {
    cell.judged += 1;
    if (verdict === "passed") cell.passes += 1;
  } else cell.unjudged += 1;
  cells.set(key, cell);
}

function rate(cell: Cell): string {
  const head = `${cell.passes}/${cell.judged}`;
  const share =
    cell.judged === 0
      ? ""
      : ` ${formatPercent(cell.passes / cell.judged, 0)} (${formatInterval(wilson(cell.passes, cell.judged))})`;
  return `${head}${share}${cell.unjudged > 0 ? ` +${cell.unjudged} not judged` : ""}`;
}

/** Lines of the table: `environment  agent  passes rate (95% CI)`, then `all` per agent. */
export function benchmarkTable(
  trials: readonly Pick<TrialRecord, "taskId" | "agentLabel" | "verdict">[],
  prefix = "",
): string[] {
  const cells = new Map<string, Cell>();
  const overall = new Map<string, Cell>();
  for (const t of trials) {
    add(cells, `${t.taskId}\u0000${t.agentLabel}`, t.verdict);
    add(overall, t.agentLabel, t.verdict);
  }
  const rows: [string, string, string][] = [...cells]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, cell]) => {
      const [task, agent] = key.split("\u0000") as [string, string];
      return [task.startsWith(prefix) ? task.slice(prefix.length) : task, agent, rate(cell)];
    });
  for (const [agent, cell] of overall) rows.push(["all environments", agent, rate(cell)]);
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i].length), i === 0 ? 11 : 5));
  const line = (r: readonly string[]) => `${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`;
  return [line(["environment", "agent", "success (95% CI)"]), ...rows.map(line)];
}
