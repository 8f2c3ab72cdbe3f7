/**
 * The rules that cut a long output down to the excerpt docs/reporting.md shows, so an excerpt is
 * regenerated as exactly as a whole output: `show` keeps its head, the first rows of its trial table
 * (then a row of `…`), the lines under the table, and one trial's detail block; a JUnit file keeps its
 * first test cases.
 */

export interface ShowExcerpt {
  /** Trial rows kept before the `…` row. */
  rows: number;
  /** Which trial's detail block to keep: the first that contains this (`#20 `, `turn_limit`). */
  detail: string;
}

/** A table row of the same cell widths with `…` in every cell, aligned as the cell's text is. */
function ellipsisRow(row: string): string {
  const cells = row.split("│");
  return cells
    .map((cell, i) => {
      if (i === 0 || i === cells.length - 1) return cell;
      // cli-table3 pads a right-aligned cell on the left; a full one is told by its figure.
      const right = /^ {2}/.test(cell) || /^ [\d$]/.test(cell);
      return right ? `${" ".repeat(cell.length - 2)}… ` : ` …${" ".repeat(cell.length - 2)}`;
    })
    .join("│");
}

/** `umpire show`'s output cut down by `excerpt` (see the module's comment). */
export function excerptShow(out: string, excerpt: ShowExcerpt): string {
  const lines = out.replace(/\s+$/, "").split("\n");
  const headerEnd = lines.findIndex((l) => l.startsWith("├"));
  const tableEnd = lines.findIndex((l) => l.startsWith("└"));
  if (headerEnd < 0 || tableEnd < 0) throw new Error("show printed no trial table");
  const rows = lines.slice(headerEnd + 1, tableEnd);
  const kept = rows.slice(0, excerpt.rows);
  const table = [
    ...lines.slice(0, headerEnd + 1),
    ...kept,
    ...(kept.length < rows.length ? [ellipsisRow(rows[0])] : []),
    lines[tableEnd],
  ];
  const blocks = lines
    .slice(tableEnd + 1)
    .join("\n")
    .split("\n\n");
  const block = blocks.slice(1).find((b) => b.includes(excerpt.detail));
  if (block === undefined) throw new Error(`show printed no trial detail that contains '${excerpt.detail}'`);
  return [...table, blocks[0], "", block].join("\n");
}

/** A JUnit file cut after its first `cases` test cases, with a `…` line where the rest were. */
export function excerptJunit(xml: string, cases: number): string {
  const lines = xml.replace(/\s+$/, "").split("\n");
  let seen = 0;
  const end = lines.findIndex((l) => l.trim() === "</testcase>" && ++seen === cases);
  if (end < 0) throw new Error(`the JUnit file has fewer than ${cases} test cases`);
  const indent = /^\s*/.exec(lines[end])?.[0] ?? "";
  return [...lines.slice(0, end + 1), `${indent}…`].join("\n");
}
