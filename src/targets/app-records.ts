/**
 * A record of each app group a run started, so the next run can end what a killed one left. The
 * reaper (group-reaper.ts) ends a group within seconds of umpire's death, but it dies too when
 * whatever killed umpire took its session or cgroup along (an OOM kill, `kill -9 -- -SID`, a CI
 * step's cleanup), and then the app keeps its port and memory until someone notices.
 *
 * A record names umpire's pid and the app group's leader, each with its start time (field 22 of
 * /proc/PID/stat, ticks since boot) and the boot's id: a pid that was reused since is not the same
 * process, so no record ever ends a stranger. Records live in a folder of this user's own under
 * the temp folder (`umpire-apps-<uid>`, 0700; a folder another user made or can write is ignored):
 * a leftover server holds a port whatever the project, so any later run on the host ends it.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";

interface AppRecord {
  bootId: string;
  host: string;
  umpirePid: number;
  umpireStart: number;
  pgid: number;
  leaderStart: number;
  name: string;
}

/** The records' folder, made when missing; null when it is not safely this user's alone. */
function recordsDir(base = tmpdir()): string | null {
  const dir = join(base, `umpire-apps-${process.getuid?.() ?? 0}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // Already there (checked below).
  }
  try {
    const st = lstatSync(dir);
    const mine = st.isDirectory() && st.uid === (process.getuid?.() ?? st.uid) && (st.mode & 0o022) === 0;
    return mine ? dir : null;
  } catch {
    return null;
  }
}

function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

/** A process's start time (ticks since boot) and process group, or undefined when it does not exist. */
function procStat(pid: number): { start: number; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pgrp: Number(fields[2]), start: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

/**
 * Records app group `pgid` (its leader is the app's first process) as this umpire's; returns what
 * forgets it once umpire has ended the group itself. A no-op where no record can be kept.
 */
export function recordApp(pgid: number, name: string, base?: string): () => void {
  const dir = recordsDir(base);
  const self = procStat(process.pid);
  const leader = procStat(pgid);
  if (!dir || !self || !leader) return () => undefined;
  const record: AppRecord = {
    bootId: bootId(),
    host: hostname(),
    umpirePid: process.pid,
    umpireStart: self.start,
    pgid,
    leaderStart: leader.start,
    name,
  };
  const file = join(dir, `${process.pid}-${pgid}.json`);
  try {
    writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
  } catch {
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}

/** The processes of group `pgid` that are the recorded app's: none started before its leader. */
function membersOf(record: AppRecord): number[] | null {
  const members: { pid: number; start: number }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const st = procStat(Number(entry));
    if (st && st.pgrp === record.pgid) members.push({ pid: Number(entry), start: st.start });
  }
  const leader = members.find((m) => m.pid === record.pgid);
  // A leader with another start time, or a member older than the app: the pid was reused, not ours.
  if (leader && leader.start !== record.leaderStart) return null;
  if (members.some((m) => m.start < record.leaderStart)) return null;
  return members.map((m) => m.pid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone.
  }
}

/**
 * Ends the app groups of umpire processes on this host that are gone (SIGTERM, then SIGKILL after
 * 2 s), and forgets their records. Returns one line per group it ended, for the user.
 */
export async function endLeftoverApps(base?: string): Promise<string[]> {
  const dir = recordsDir(base);
  if (!dir) return [];
  const ended: string[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
    const file = join(dir, name);
    let record: AppRecord;
    try {
      record = JSON.parse(readFileSync(file, "utf8")) as AppRecord;
    } catch {
      rmSync(file, { force: true });
      continue;
    }
    if (record.host !== hostname()) continue;
    const owner = procStat(record.umpirePid);
    if (record.bootId === bootId() && owner?.start === record.umpireStart) continue; // its umpire still runs
    const members = record.bootId === bootId() ? membersOf(record) : null;
    if (members && members.length > 0) {
      signalGroup(record.pgid, "SIGTERM");
      for (let i = 0; i < 20 && (membersOf(record)?.length ?? 0) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      if ((membersOf(record)?.length ?? 0) > 0) signalGroup(record.pgid, "SIGKILL");
      ended.push(
        `ended target ${record.name}'s app (process group ${record.pgid}, ${members.length} processes), left running by umpire ${record.umpirePid}, which was killed`,
      );
    }
    rmSync(file, { force: true });
  }
  return ended;
}
