/**
 * Rendering rows with cli-table3, fitted to the terminal: columns carry a priority, and while the
 * table is wider than the terminal the least important column is dropped (a table that wraps is
 * unreadable). Colour is plain ANSI, applied only when asked (a TTY), so piped output stays clean.
 */
import { oneLine } from "../safety/terminal.js";
import Table from "cli-table3";

export interface TableStyle {
  /** ANSI colours (on a TTY). */
  color: boolean;
  /** Terminal width to fit into; undefined: no limit. */
  width?: number;
}

export type Colour = "red" | "green" | "yellow" | "cyan" | "dim" | "bold";

const ANSI: Record<Colour, [number, number]> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
  bold: [1, 22],
};

/** Wraps `text` in an ANSI colour when `enabled`. */
export function paint(text: string, colour: Colour | undefined, enabled: boolean): string {
  if (!enabled || !colour || text === "") return text;
  const [open, close] = ANSI[colour];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

// eslint-disable-next-line no-control-regex
const ANSI_PATTERN = /\u001b\[[0-9;]*m/g;

/** Display width of a line, ignoring ANSI codes (every character we print is one column wide). */
export function visibleWidth(line: string): number {
  return [...line.replace(ANSI_PATTERN, "")].length;
}

/** A cell: its text and, optionally, the colour it takes on a TTY. */
export interface Cell {
  text: string;
  colour?: Colour;
  align?: "left" | "right";
}

export interface Column<Row> {
  head: string;
  /** Higher stays longer when the table must shrink; the first column should be highest. */
  priority: number;
  align?: "left" | "right";
  cell(row: Row): Cell | string;
}

/** A separator row between the per-task rows and the summary rows. */
export const SEPARATOR = Symbol("separator");

/**
 * Renders rows as a table that fits `style.width`, dropping the lowest-priority columns first.
 * Returns the table without a trailing newline.
 */
export function renderTable<Row>(
  columns: readonly Column<Row>[],
  rows: readonly (Row | typeof SEPARATOR)[],
  style: TableStyle,
): string {
  let shown = [...columns];
  for (;;) {
    const text = render(shown, rows, style);
    const widest = Math.max(...text.split("\n").map(visibleWidth));
    if (style.width === undefined || widest <= style.width || shown.length <= 2) return text;
    const lowest = shown.reduce((min, c) => (c.priority < min.priority ? c : min), shown[0]);
    shown = shown.filter((c) => c !== lowest);
  }
}

function render<Row>(
  columns: readonly Column<Row>[],
  rows: readonly (Row | typeof SEPARATOR)[],
  style: TableStyle,
): string {
  const table = new Table({
    head: columns.map((c) => paint(c.head, "bold", style.color)),
    style: { head: [], border: [], "padding-left": 1, "padding-right": 1, compact: true },
    colAligns: columns.map((c) => c.align ?? "left"),
    wordWrap: false,
  });
  for (const row of rows) {
    if (row === SEPARATOR) {
      table.push(columns.map(() => ({ content: "" })));
      continue;
    }
    table.push(
      columns.map((c) => {
        const raw = c.cell(row);
        const cell = typeof raw === "string" ? { text: raw } : raw;
        // Cells hold stored text (task ids, stop details, model output): one line, controls shown.
        return {
          content: paint(oneLine(cell.text), cell.colour, style.color),
          hAlign: cell.align ?? c.align ?? "left",
        };
      }),
    );
  }
  return table.toString();
}

/**
 * The style for a stream: colour and width only on a TTY, colour off when NO_COLOR is set
 * (https://no-color.org) and on when FORCE_COLOR is set.
 */
export function terminalStyle(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): TableStyle {
  const tty = stream.isTTY === true;
  const color = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" ? true : tty && env.NO_COLOR === undefined;
  return { color, width: tty && stream.columns ? stream.columns : undefined };
}
