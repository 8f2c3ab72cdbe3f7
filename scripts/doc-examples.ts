/**
 * Rewrites the examples in docs/reporting.md's "Output, as printed" from what umpire prints now: it
 * seeds a temporary store (scripts/doc-examples-store.ts), runs the real CLI in this process against it
 * (`main(argv, io)`, no colour, an unlimited width unless an example names one), and puts each output
 * into the fenced block after its `<!-- example: NAME -->` marker, up to `<!-- /example -->`. The prose
 * between the blocks is left as it is. Run with `npm run docs:examples`; test/unit/doc-examples.test.ts
 * fails when the checked-in file differs from what this writes now.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { main } from "../src/cli/main.js";
import type { CommandIO } from "../src/cli/io.js";
import { openStore } from "../src/store/open.js";
import { BASELINE_RUN, CANDIDATE_RUN, seedExampleStore } from "./doc-examples-store.js";
import { excerptJunit, excerptShow } from "./doc-examples-excerpt.js";

export const REPORTING_DOC = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "reporting.md");

/** One example: the command as the reader would type it, and how its output becomes the block. */
interface Example {
  name: string;
  /** `umpire` argv, without `--db` (added). */
  argv: string[];
  /** The fence's language tag. */
  lang?: string;
  /** A terminal of this width (a TTY, colour still off); unset: piped output, every column kept. */
  columns?: number;
  /** Print the `$ umpire ...` line above the output. */
  prompt?: boolean;
  /** The exit code the command must end with (the gate fails on purpose). */
  exit?: number;
  /** What of the output the block shows (the whole of it when unset). */
  shape?: (out: string, files: { junit: string }) => string;
}

const JUNIT_FILE = "results/junit.xml";

const GATE = [
  "compare",
  CANDIDATE_RUN,
  "--baseline",
  "main",
  "--fail-on-regression",
  "--max-cost-increase",
  "20",
  "--junit",
  JUNIT_FILE,
];

const EXAMPLES: readonly Example[] = [
  { name: "runs", argv: ["runs"], prompt: true },
  {
    name: "show",
    argv: ["show", BASELINE_RUN],
    prompt: true,
    shape: (out) => excerptShow(out, { rows: 4, detail: "#20 " }),
  },
  {
    name: "show-turns",
    argv: ["show", CANDIDATE_RUN, "--turns"],
    prompt: true,
    shape: (out) => excerptShow(out, { rows: 2, detail: "stop: turn_limit" }),
  },
  { name: "compare-by-mode", argv: ["compare", BASELINE_RUN, "--by", "mode"], prompt: true },
  { name: "compare-by-mode-100", argv: ["compare", BASELINE_RUN, "--by", "mode"], columns: 100, shape: tableOnly },
  { name: "compare-baseline", argv: GATE, prompt: true, exit: 1 },
  { name: "markdown", argv: ["compare", CANDIDATE_RUN, "--baseline", "main", "--markdown"], lang: "markdown" },
  { name: "junit", argv: GATE, lang: "xml", exit: 1, shape: (_out, files) => excerptJunit(files.junit, 2) },
  // One trial of `show --json`, as trialToJson writes it.
  {
    name: "show-json-trial",
    argv: ["show", BASELINE_RUN, "--json"],
    lang: "json",
    shape: (out) => JSON.stringify(JSON.parse(out).trials[0], null, 2),
  },
];

/** Only the first table of an output (its box, top border to bottom border). */
function tableOnly(out: string): string {
  const lines = out.split("\n");
  const end = lines.findIndex((l) => l.startsWith("└"));
  return lines.slice(0, end + 1).join("\n");
}

/** A CommandIO whose stdout is kept as text; a terminal of `columns` when given. */
function textIO(cwd: string, columns: number | undefined): { io: CommandIO; out: () => string; err: () => string } {
  const text = { out: "", err: "" };
  const sink = (key: "out" | "err") =>
    new Writable({
      write(chunk, _encoding, done) {
        text[key] += String(chunk);
        done();
      },
    });
  const stdout = Object.assign(sink("out"), columns ? { isTTY: true, columns } : {});
  const io: CommandIO = {
    stdout,
    stderr: sink("err"),
    env: { NO_COLOR: "1" },
    cwd,
    signal: new AbortController().signal,
  };
  return { io, out: () => text.out, err: () => text.err };
}

/** Runs one example's command against the store in `dir`; its block's text (without the fence). */
async function render(example: Example, dir: string): Promise<string> {
  const { io, out, err } = textIO(dir, example.columns);
  const code = await main([...example.argv, "--db", join(dir, "umpire.db")], io);
  if (code !== (example.exit ?? 0)) {
    throw new Error(`umpire ${example.argv.join(" ")} exited ${code}, expected ${example.exit ?? 0}:\n${err()}`);
  }
  const junit = join(dir, JUNIT_FILE);
  const body = (example.shape ?? ((o: string) => o))(out(), {
    get junit() {
      return readFileSync(junit, "utf8");
    },
  }).replace(/\s+$/, "");
  return example.prompt ? `$ umpire ${example.argv.join(" ")}\n${body}` : body;
}

/** Every example's block, by name, printed from a fresh example store. */
export async function renderExamples(): Promise<Map<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-doc-examples-"));
  try {
    // A user's results/ exists (the database lives there); `--junit` writes into it and does not create it.
    mkdirSync(join(dir, dirname(JUNIT_FILE)));
    const store = openStore(join(dir, "umpire.db"));
    try {
      seedExampleStore(store);
    } finally {
      store.close();
    }
    const blocks = new Map<string, string>();
    for (const example of EXAMPLES) {
      const fence = "```";
      blocks.set(example.name, `${fence}${example.lang ?? ""}\n${await render(example, dir)}\n${fence}`);
    }
    return blocks;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const MARKED = /<!-- example: ([a-z0-9-]+) -->\n[\s\S]*?<!-- \/example -->/g;

/** `doc` with each marked block replaced by its example's; fails on a marker without an example and the reverse. */
export function withExamples(doc: string, blocks: ReadonlyMap<string, string>): string {
  const seen = new Set<string>();
  const text = doc.replace(MARKED, (_all, name: string) => {
    const block = blocks.get(name);
    if (block === undefined) throw new Error(`${REPORTING_DOC}: no example named '${name}'`);
    seen.add(name);
    return `<!-- example: ${name} -->\n${block}\n<!-- /example -->`;
  });
  const missing = [...blocks.keys()].filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`${REPORTING_DOC}: no marker for example(s) ${missing.join(", ")}`);
  return text;
}

/** docs/reporting.md as `npm run docs:examples` writes it. */
export async function reportingDocWithExamples(): Promise<string> {
  return withExamples(readFileSync(REPORTING_DOC, "utf8"), await renderExamples());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(REPORTING_DOC, await reportingDocWithExamples());
  process.stdout.write(`wrote ${REPORTING_DOC}\n`);
}
