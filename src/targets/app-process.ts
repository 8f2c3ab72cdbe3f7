/**
 * A target's start command: started once per run in its own process group, its output written
 * to a file in the run's folder, ready when its readiness URL answers below 500, stopped (the
 * whole group) when the run ends, by its reaper when umpire is killed (group-reaper.ts), and by
 * the next run when the reaper died too (app-records.ts).
 */
import type { ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import { spawnInGroup } from "../checks/run-command.js";
import { UmpireError } from "../errors.js";
import { recordApp } from "./app-records.js";
import { reapWithUmpire } from "./group-reaper.js";

export interface AppProcess {
  logFile: string;
  /** How the app ended on its own once ready (crashed, killed from outside); null while it runs or once umpire stopped it. */
  died(): string | null;
  /** Resident memory of the app's process group now (bytes); undefined where /proc cannot be read. */
  memoryBytes(): number | undefined;
  stop(): Promise<void>;
}

const PAGE_BYTES = 4096;

/** The summed resident set of every process in a process group, from /proc (Linux). */
export function groupMemoryBytes(pgid: number): number | undefined {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state ppid pgrp ... rss is the 22nd.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) total += Number(fields[21]) * PAGE_BYTES;
    } catch {
      // gone meanwhile
    }
  }
  return total > 0 ? total : undefined;
}

export interface StartOptions {
  name: string;
  command: string | readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  readyUrl: string;
  readyTimeoutMs: number;
  logFile: string;
  signal?: AbortSignal;
  /** Told what the run should know but goes on despite: readyUrl answered 4xx (ready, but maybe not the page meant). */
  onNotice?: (message: string) => void;
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export async function startAppProcess(options: StartOptions): Promise<AppProcess> {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: "a" });
  const child = spawnInGroup(options.command, options);
  const reaper = child.pid ? reapWithUmpire(child.pid) : undefined;
  // Should the reaper die with umpire, the next run finds the group by this record (app-records.ts).
  const forget = child.pid ? recordApp(child.pid, options.name) : () => undefined;
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  let exited: { code: number | null; signal: string | null } | undefined;
  let spawnError: Error | undefined;
  const closed = new Promise<void>((resolve) => {
    child.on("error", (e) => {
      spawnError = e;
      resolve();
    });
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      resolve();
    });
  });
  let stopping = false;
  const stop = async () => {
    stopping = true;
    if (!exited && !spawnError) {
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5_000);
      await closed;
      clearTimeout(timer);
    }
    // The app's own children may outlive it: end the group either way.
    killGroup(child, "SIGKILL");
    reaper?.stop();
    forget();
    await new Promise<void>((resolve) => log.end(resolve));
  };

  const shown = typeof options.command === "string" ? options.command : options.command.join(" ");
  const deadline = Date.now() + options.readyTimeoutMs;
  for (;;) {
    if (spawnError || exited) {
      await stop();
      const why = spawnError
        ? `could not start: ${spawnError.message}`
        : `exited with ${exited!.code ?? exited!.signal} before ${options.readyUrl} answered`;
      throw new UmpireError(
        "config",
        `target ${options.name}: the start command \`${shown}\` ${why}\n${tail(options.logFile)}`,
        `run the command yourself in ${options.cwd}; its output is in ${options.logFile}`,
      );
    }
    // "Answers" means any HTTP response below 500 (a redirect included): the server is up and routing.
    const status = await fetch(options.readyUrl, { signal: AbortSignal.timeout(2_000), redirect: "manual" }).then(
      (r) => r.status,
      () => null,
    );
    const ok = status !== null && status < 500;
    if (ok && status >= 400)
      options.onNotice?.(
        `target ${options.name}: start.readyUrl ${options.readyUrl} answered ${status}; umpire counts any answer below 500 as ready, so the app may not be ready yet (point readyUrl at a page that answers 2xx once the app is)`,
      );
    if (ok) {
      const died = () => (stopping || !exited ? null : `exited with ${exited.code ?? exited.signal}`);
      const memoryBytes = () => (child.pid ? groupMemoryBytes(child.pid) : undefined);
      return { logFile: options.logFile, stop, died, memoryBytes };
    }
    if (Date.now() > deadline || options.signal?.aborted) {
      await stop();
      throw new UmpireError(
        "config",
        `target ${options.name}: ${options.readyUrl} did not answer within ${Math.round(options.readyTimeoutMs / 1000)} s of starting \`${shown}\`\n${tail(options.logFile)}`,
        `check start.readyUrl and the port the app listens on; its output is in ${options.logFile}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
