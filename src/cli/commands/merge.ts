/**
 * `umpire merge <db...> --into <db>`: merges result stores (the shards of one run, or runs made on
 * several machines) into one, and brings each run's trial folders together so every stored
 * screenshot path and trial folder (relative to the run folder) still resolves.
 *
 * Folders: a merged run's folder is `<--out>/<runId>` (default `--out`: `runs/` beside the target
 * database, which is where `umpire run --db results/x.db` with the default `--out results/runs`
 * puts it). Each source run's folder is looked for where that store recorded it, then in `runs/`
 * beside the source database (a results folder downloaded from another machine); its files are
 * copied in unless they are already there. Trial folder names start with the trial's position in
 * the whole plan, so shards never collide.
 */
import { cpSync, existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { mergeStores, type MergedRun, type MergeResult } from "../../store/merge.js";
import { EXIT } from "../exit-codes.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandIO } from "../io.js";

const OPTIONS = {
  into: {
    kind: "string",
    arg: "FILE",
    required: true,
    help: "the database to merge into (created when missing; skipped if also listed)",
  },
  out: { kind: "string", arg: "DIR", defaultText: "runs/ beside --into", help: "where merged runs' trial folders go" },
  json: { kind: "boolean", help: "print the result as JSON" },
} as const;

export const run = defineCommand({
  name: "merge",
  options: OPTIONS,
  positionals: [{ name: "db", required: true, variadic: true }],
  example: "umpire merge results/shard-*.db --into results/umpire.db",
  description: `Merges umpire result databases into one: the shard stores of one run (same --run-id) become one
run that reads like a run made on one machine; other runs are copied as they are. Merging the same
files again changes nothing. Files with a different store schema version are refused.`,
  epilogue: `example (CI merge job): umpire merge results/shard-*.db --into results/umpire.db
`,
  run: execute,
});

async function execute({ values, positionals }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const into = resolve(io.cwd, values.into);
  const outDir = resolve(io.cwd, values.out ?? join(dirname(into), "runs"));
  const result = mergeStores({
    sources: positionals.map((p) => resolve(io.cwd, p)),
    into,
    runFolder: (id) => join(outDir, id),
  });
  for (const merged of result.runs) gatherFolders(merged, result.warnings);

  if (values.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    io.stdout.write(summary(result, io.cwd));
    for (const w of result.warnings) io.stderr.write(`umpire: warning: ${w}\n`);
  }
  return EXIT.ok;
}

/** Copies each source run folder's files into the merged run's folder (existing files are kept). */
function gatherFolders(merged: MergedRun, warnings: string[]): void {
  for (const source of merged.sources) {
    const candidates = [source.folder, join(dirname(source.file), "runs", merged.id)].filter((p): p is string =>
      Boolean(p),
    );
    const found = candidates.find((p) => existsSync(p) && statSync(p).isDirectory());
    if (!found) {
      if (source.trials > 0) {
        warnings.push(
          `run ${merged.id} from ${source.file}: its trial folders were not found (looked in ${candidates.join(" and ")}); screenshots and logs of those trials are missing from ${merged.folder}. Put that machine's results folder beside its database and merge again`,
        );
      }
      continue;
    }
    if (resolve(found) === resolve(merged.folder)) continue;
    cpSync(found, merged.folder, { recursive: true, force: false, errorOnExist: false });
  }
}

function summary(result: MergeResult, cwd: string): string {
  const show = (p: string) => {
    const rel = relative(cwd, p);
    return rel.startsWith("..") ? p : rel || ".";
  };
  const lines: string[] = [];
  for (const s of result.skipped) lines.push(`skipped ${s}: it is the target`);
  for (const r of result.runs) {
    const from = r.sources.map((s) => show(s.file)).join(", ");
    lines.push(
      `run ${r.id}: ${r.status}, ${r.done} of ${r.planned} trials done (from ${from}); folder ${show(r.folder)}`,
    );
  }
  const files = new Set(result.runs.flatMap((r) => r.sources.map((s) => s.file)));
  lines.push(`merged ${result.runs.length} run(s) from ${files.size} file(s) into ${show(result.into)}`);
  return `${lines.join("\n")}\n`;
}
