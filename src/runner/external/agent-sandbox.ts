/**
 * The sandbox a command agent runs in (bubblewrap, Debian's `bubblewrap` package): the agent's
 * code is untrusted, so it gets
 * - its own mount namespace: the system read-only, a scratch `/tmp` of its own, its own command's
 *   folder read-only and the trial's `agent/` folder (trial.json, events, result) writable; the
 *   trial's workspace, the run folders, the store, other trials and the user's home are not there;
 * - its own PID namespace, ended with the trial (`--unshare-pid`, `--die-with-parent`);
 * - its own network namespace with only loopback: the trial's CDP relay and the model endpoints
 *   its config declares are tunnelled in through one unix socket per trial (`sandbox-init.mjs`
 *   inside, `openEgress` outside), where every other destination is refused and logged;
 * - an environment built from an allow-list (see `agentEnvironment`).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { browserScratchDir, processTempDir } from "../../browser/scratch.js";

/** Debian's bubblewrap; `UMPIRE_BWRAP` (read by the CLI) names another. */
export const BWRAP = "/usr/bin/bwrap";
/** The sandbox's first program (bound read-only inside). */
export const INIT_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "sandbox-init.mjs");

/** The host's file system read-only, a fresh /dev and the sandbox's own /proc: what the probe and the agent's command both see first. */
const SYSTEM_VIEW = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];

let initCopy: string | undefined;
/**
 * The init script as the sandbox binds it: a copy in this process's temp folder (readable by all), so a
 * sandbox that runs as a uid of its own (root without a cgroup) reaches it even when umpire is installed
 * under a folder only root may enter (a CI clone in a `mktemp -d` folder, a checkout under /root).
 */
export function sandboxInitScript(): string {
  if (initCopy && existsSync(initCopy)) return initCopy;
  initCopy = join(browserScratchDir(), "sandbox-init.mjs");
  copyFileSync(INIT_SCRIPT, initCopy);
  chmodSync(initCopy, 0o644);
  return initCopy;
}
/**
 * The file descriptor on which the sandbox's first program says it is up, before the agent's
 * command starts. A sandbox that exits without saying so never started: the harness's failure.
 */
export const SANDBOX_READY_FD = 3;

/** How a run sandboxes its command agents. */
export type SandboxMode =
  | { kind: "bwrap"; binary: string; hide: string[] }
  /** No sandbox: `why` says whether the user asked (--no-sandbox) or it could not start. */
  | { kind: "none"; why: string };

/** The name a trial records for its sandbox (store column `sandbox`, `umpire show`). */
export function sandboxName(mode: SandboxMode): "bubblewrap" | "none" {
  return mode.kind === "bwrap" ? "bubblewrap" : "none";
}

/**
 * Who the agent is inside the sandbox. Run as root (CI, containers), bubblewrap would otherwise hand
 * the agent root with every capability in its namespaces: enough to unmount the masks over the store
 * and remount the read-only binds writable. So the agent never holds a capability:
 * - `userns`: its own user namespace where it is uid/gid 65534 (nobody), with every capability
 *   dropped (`--unshare-user --uid 65534 --gid 65534 --cap-drop ALL`). No capability, in its namespace
 *   or any other, so the mount table bubblewrap built is the one it lives with.
 * - `capdrop`: where user namespaces cannot be made, only the capabilities are dropped
 *   (`--cap-drop ALL`): still no mount, no remount, no kernel tunable.
 * Where bubblewrap cannot drop them either, the sandbox is unavailable (see `sandboxUnavailable`).
 */
export type SandboxIdentity = "userns" | "capdrop";

/** The uid and gid the agent has in its own user namespace: nobody. */
export const SANDBOX_UID = 65534;

export function identityArgs(identity: SandboxIdentity): string[] {
  const dropAll = ["--cap-drop", "ALL"];
  return identity === "userns"
    ? ["--unshare-user", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID), ...dropAll]
    : dropAll;
}

const probed = new Map<string, { identity: SandboxIdentity } | { why: string }>();
/** Null when bubblewrap (`binary`) can make the namespaces here, else why not (no bwrap, no user namespaces). */
export function sandboxUnavailable(binary: string = BWRAP): string | null {
  const found = probeOnce(binary);
  return "why" in found ? found.why : null;
}

/** How the agent is kept without capabilities with this bubblewrap (after a successful probe). */
export function sandboxIdentity(binary: string = BWRAP): SandboxIdentity {
  const found = probeOnce(binary);
  return "identity" in found ? found.identity : "userns";
}

function probeOnce(binary: string): { identity: SandboxIdentity } | { why: string } {
  let found = probed.get(binary);
  if (!found) {
    const userns = probe(binary, "userns");
    found =
      userns === null
        ? { identity: "userns" }
        : probe(binary, "capdrop") === null
          ? { identity: "capdrop" }
          : { why: userns };
    probed.set(binary, found);
  }
  return found;
}

function probe(binary: string, identity: SandboxIdentity): string | null {
  if (!existsSync(binary))
    return binary === BWRAP
      ? `${BWRAP} is not installed (apt-get install bubblewrap)`
      : `${binary} (UMPIRE_BWRAP) does not exist`;
  const r = spawnSync(
    binary,
    [...SYSTEM_VIEW, ...identityArgs(identity), "--unshare-pid", "--unshare-net", "--die-with-parent", "true"],
    {
      encoding: "utf8",
      timeout: 20_000,
    },
  );
  return r.status === 0
    ? null
    : `bubblewrap could not make its namespaces without capabilities: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim().slice(0, 300)}`;
}

/** One destination the sandbox may reach, as `host:port`. */
export type Destination = string;

export interface Egress {
  /** The unix socket bound into the sandbox (in a 0700 folder only umpire and this sandbox see). */
  socket: string;
  close(): Promise<void>;
}

function egressDir(): string {
  const dir = processTempDir("egress-");
  if (join(dir, "egress.sock").length < 100) return dir;
  rmSync(dir, { recursive: true, force: true });
  return mkdtempSync(join(tmpdir(), "umpire-egress-"));
}

/**
 * The trial's one way out of the sandbox: each connection names `host:port` on its first line and
 * is tunnelled only when that destination is allowed; anything else is refused and reported.
 */
export async function openEgress(
  allowed: ReadonlySet<Destination>,
  onRefused: (destination: string) => void,
): Promise<Egress> {
  // In this process's temp folder (a killed umpire's is removed by the next one), unless the socket's
  // path would pass the 108 bytes a unix socket's name may have (a long host name).
  const dir = egressDir();
  chmodSync(dir, 0o700);
  const socket = join(dir, "egress.sock");
  const open = new Set<Socket>();
  const server: Server = createServer((inside) => {
    open.add(inside);
    inside.on("close", () => open.delete(inside));
    inside.on("error", () => undefined);
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const end = head.indexOf("\n");
      if (end < 0) {
        if (head.length > 300) inside.destroy();
        return;
      }
      inside.off("data", onData);
      inside.pause();
      const destination = head.slice(0, end).trim().slice(0, 300);
      if (!allowed.has(destination)) {
        onRefused(destination);
        inside.end(
          `no: umpire's sandbox does not let the agent reach ${destination} (declare model endpoints in the agent's network)\n`,
        );
        return;
      }
      const at = destination.lastIndexOf(":");
      const outside = connect(Number(destination.slice(at + 1)), destination.slice(0, at).replace(/^\[|\]$/g, ""));
      outside.once("connect", () => {
        inside.write("ok\n");
        const rest = Buffer.from(head.slice(end + 1), "latin1");
        if (rest.length > 0) outside.write(rest);
        inside.pipe(outside).pipe(inside);
        inside.resume();
      });
      outside.on("error", () => inside.destroy());
      inside.on("close", () => outside.destroy());
    };
    inside.on("data", onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => resolve());
  });
  chmodSync(socket, 0o600);
  return {
    socket,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SandboxPlan {
  command: string[];
  cwd: string;
  /** The trial's `agent/` folder: the one place outside /tmp the agent may write. */
  agentDir: string;
  /** Folders and files the agent must not see (run folders, the store, the home folder). */
  hide: string[];
  env: Record<string, string>;
  egressSocket: string;
  /** Loopback ports inside that lead to the same address outside. */
  forwards: { port: number; to: Destination }[];
  /** The port of the CONNECT proxy for remote endpoints, or 0 for none. */
  proxyPort: number;
  /** How the agent holds no capability (default `userns`). */
  identity?: SandboxIdentity;
}

/** Folders the sandbox replaces with private, empty ones. */
const PRIVATE_FOLDERS = ["/tmp", "/var/tmp", "/run"];

/**
 * An agent whose files live under a folder the sandbox makes private (a checkout in /tmp, as a CI job's
 * clone often is) keeps its tree, read-only: the top folder under the private one that holds its working
 * folder (its packages, e.g. node_modules beside it, live there too). Hidden places inside stay hidden.
 */
function agentTreeUnderPrivate(path: string): string | undefined {
  const base = PRIVATE_FOLDERS.find((folder) => path.startsWith(`${folder}/`));
  return base ? join(base, path.slice(base.length + 1).split("/")[0]!) : undefined;
}

/** The argv that runs the agent's command inside the sandbox. */
export function sandboxArgv(plan: SandboxPlan): string[] {
  const args = [...SYSTEM_VIEW, ...PRIVATE_FOLDERS.flatMap((f) => ["--tmpfs", f]), "--dir", "/tmp/home"];
  // The agent's tree, and umpire's own (an agent may use the packages installed beside umpire), when private.
  const trees = new Set(
    [agentTreeUnderPrivate(plan.cwd), agentTreeUnderPrivate(INIT_SCRIPT)].filter((t) => t !== undefined),
  );
  for (const tree of trees) args.push("--ro-bind", tree, tree);
  const hidden = [...new Set(plan.hide)].filter((path) => existsSync(path));
  const holdsCwd = (path: string) => plan.cwd === path || plan.cwd.startsWith(`${path}/`);
  const mask = (path: string) =>
    statSync(path).isDirectory() ? args.push("--tmpfs", path) : args.push("--ro-bind", "/dev/null", path);
  // Hidden folders that hold the agent's own folder first, then its folder over them, then the ones inside it.
  for (const path of hidden.filter(holdsCwd)) mask(path);
  args.push("--ro-bind", plan.cwd, plan.cwd);
  for (const path of hidden.filter((p) => !holdsCwd(p))) mask(path);
  // Its trial folder (writable) and the init script, over the hidden places.
  args.push("--bind", plan.agentDir, plan.agentDir, "--ro-bind", sandboxInitScript(), "/tmp/umpire-init.mjs");
  args.push("--bind", plan.egressSocket, "/tmp/umpire-egress.sock");
  args.push(
    ...identityArgs(plan.identity ?? "userns"),
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    "--new-session",
  );
  args.push("--clearenv");
  for (const [name, value] of Object.entries(plan.env)) args.push("--setenv", name, value);
  args.push("--chdir", plan.cwd);
  const init = {
    socket: "/tmp/umpire-egress.sock",
    forwards: plan.forwards,
    proxyPort: plan.proxyPort,
    command: plan.command,
    cwd: plan.cwd,
    readyFd: SANDBOX_READY_FD,
  };
  args.push(process.execPath, "/tmp/umpire-init.mjs", JSON.stringify(init));
  return args;
}

/** Variables of umpire's own environment an agent gets without asking: none of them a key. */
const BASE_VARIABLES = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM"];

/**
 * The command's environment, from an allow-list: a few plain variables, the names the agent's
 * config passes (`passEnv`), its `env` values, and the `UMPIRE_*` contract. Whatever else umpire's
 * environment holds (HAI_API_KEY, the run's --api-key-env, anything) stays out.
 */
export function agentEnvironment(
  parent: NodeJS.ProcessEnv,
  passEnv: readonly string[],
  own: Record<string, string>,
  contract: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...BASE_VARIABLES, ...passEnv]) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...own, ...contract };
}
