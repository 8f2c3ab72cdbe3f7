/**
 * The CLI's entry: dispatches to one module per command and is the only place that turns
 * errors into messages and exit codes.
 */
import { isStorageFault, isUmpireError, type ErrorCode } from "../errors.js";
import { EXIT } from "./exit-codes.js";
import type { Command, CommandIO } from "./io.js";
import { scrubbingStream } from "./scrubbing-stream.js";
import { listenForStop } from "./stop-signals.js";
import { VERSION } from "../runtime/version.js";

/** Commands load lazily so `umpire validate` does not pay for Playwright or SQLite. */
export const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  run: {
    summary: "run task files against a model and store the results",
    load: async () => (await import("./commands/run.js")).run,
  },
  validate: {
    summary: "check task files (add --self-test to prove each task sound)",
    load: async () => (await import("./commands/validate.js")).run,
  },
  import: {
    summary: "turn your Playwright tests into draft tasks (umpire import playwright)",
    load: async () => (await import("./commands/import.js")).run,
  },
  negatives: {
    summary: "derive wrong trajectories from a task's gold; keep the caught ones, name check gaps",
    load: async () => (await import("./commands/negatives.js")).run,
  },
  init: {
    summary: "write a config and a first task for your own web app",
    load: async () => (await import("./commands/init.js")).run,
  },
  marks: {
    summary: "list a page's controls with ready-to-paste mark declarations, and a numbered screenshot",
    load: async () => (await import("./commands/marks.js")).run,
  },
  try: {
    summary: "play a task's gold reference (or a negative) once: a line and a picture per step, then the checks",
    load: async () => (await import("./commands/try.js")).run,
  },
  runs: { summary: "list stored runs", load: async () => (await import("./commands/runs.js")).run },
  show: {
    summary: "show one run's trials, checks and stop reasons",
    load: async () => (await import("./commands/show.js")).run,
  },
  compare: {
    summary: "compare runs, modes or models with statistics",
    load: async () => (await import("./commands/compare.js")).run,
  },
  rejudge: {
    summary: "judge a run's trials again with today's checks, on their stored end state (no model turn)",
    load: async () => (await import("./commands/rejudge.js")).run,
  },
  plan: {
    summary: "the repeats per task a run needs to detect a given pass-rate drop",
    load: async () => (await import("./commands/plan.js")).run,
  },
  history: {
    summary: "cost per task over time: pass rate, cost per success, tokens, wall time per task and agent",
    load: async () => (await import("./commands/history.js")).run,
  },
  report: { summary: "write the HTML report of a run", load: async () => (await import("./commands/report.js")).run },
  "show-report": {
    summary: "serve a report folder on 127.0.0.1 and print its URL",
    load: async () => (await import("./commands/show-report.js")).run,
  },
  merge: {
    summary: "merge result databases (shards of one run, other machines) into one",
    load: async () => (await import("./commands/merge.js")).run,
  },
  "serve-fixtures": {
    summary: "start the fixture website standalone",
    load: async () => (await import("./commands/serve-fixtures.js")).run,
  },
  "serve-model": {
    summary: "start the reference model server standalone",
    load: async () => (await import("./commands/serve-model.js")).run,
  },
  lint: {
    summary: "check a recorded chat-completions request against the Holo conventions",
    load: async () => (await import("./commands/lint.js")).run,
  },
};

const EXIT_FOR_CODE: Record<ErrorCode, number> = {
  usage: EXIT.usage,
  input: EXIT.usage,
  config: EXIT.usage,
  browser: EXIT.usage,
  store: EXIT.usage,
  not_found: EXIT.usage,
  storage: EXIT.internal,
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: umpire <command> [options]\n\ncommands:\n${lines.join("\n")}\n\n'umpire <command> --help' shows a command's options; 'umpire --version' (-v) prints the version.\n`;
}

export function defaultIO(signal: AbortSignal): CommandIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal };
}

/** Runs one command; returns the exit code. Never throws. */
export async function main(argv: string[], io?: CommandIO): Promise<number> {
  const controller = new AbortController();
  const ownsSignal = !io;
  const stop = ownsSignal ? listenForStop(controller) : null;
  const raw = io ?? defaultIO(controller.signal);
  // Everything a command prints passes the scrubber: a key that surfaced in a message stays hidden.
  const ctx: CommandIO = { ...raw, stdout: scrubbingStream(raw.stdout), stderr: scrubbingStream(raw.stderr) };
  const [name, ...rest] = argv;
  try {
    if (!name || name === "--help" || name === "-h" || name === "help") {
      ctx.stdout.write(help());
      return name ? EXIT.ok : EXIT.usage;
    }
    if (name === "--version" || name === "-v" || name === "version") {
      ctx.stdout.write(`umpire ${VERSION}\n`);
      return EXIT.ok;
    }
    const entry = COMMANDS[name];
    if (!entry) {
      ctx.stderr.write(`umpire: unknown command '${name}'\n\n${help()}`);
      return EXIT.usage;
    }
    const command = await entry.load();
    const code = await command(rest, ctx);
    return ctx.signal.aborted && code !== EXIT.ok ? (stop?.exitCode() ?? EXIT.interrupted) : code;
  } catch (error) {
    if (isUmpireError(error)) {
      ctx.stderr.write(`umpire: ${error.message}\n${error.hint ? `  fix: ${error.hint}\n` : ""}`);
      return EXIT_FOR_CODE[error.code];
    }
    if (isStorageFault(error)) {
      // A write fault no layer named (it should have): still say what it is, without a stack trace.
      const { code, path } = error as { code?: string; path?: string };
      ctx.stderr.write(
        `umpire: cannot write${path ? ` ${path}` : ""}: ${code ?? "storage fault"}\n  fix: free space there or pass --out / --db on another filesystem (\`umpire runs\` lists a run it stopped; \`umpire run --resume <run>\` finishes it)\n`,
      );
      return EXIT.internal;
    }
    // A crash of umpire itself: exit 4, never 1 ("some trial failed"), so CI cannot mistake it for a verdict.
    ctx.stderr.write(
      `umpire: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.internal;
  } finally {
    stop?.remove();
  }
}
