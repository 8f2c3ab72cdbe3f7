/**
 * A trial's own Chromium for an agent that brings its own loop (kind `command`), and the one
 * CDP endpoint through which the agent reaches it.
 *
 * Why a browser per trial, and why a relay instead of Chromium's own debugging port:
 * - A separate browser process per trial means another trial's pages do not exist in it: no
 *   `Target.getTargets`, cookie store or context id can name them.
 * - Chromium listens on no port at all (`--remote-debugging-pipe`): a port would be open to any
 *   process on the machine, so an agent could scan 127.0.0.1 and find another trial's browser.
 *   The relay listens on 127.0.0.1 under a random path token per client, so knowing a port is
 *   not enough.
 * - Each relay client gets its own browser-level DevTools session (`Target.attachToBrowserTarget`
 *   on the pipe): its own auto-attach state, its own child sessions and events, as if it had
 *   its own connection. umpire's Playwright is one client (unfiltered); the agent is another,
 *   whose commands are filtered: it cannot make a browser context (a context is where the
 *   origin guard and the session cookie live, and `createBrowserContext` could even set its own
 *   proxy), dispose one, close or crash the browser, and every page it creates is put in the
 *   trial's context.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, realpathSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { isAbsolute, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { WebSocketServer as WsServerCtor, type WebSocket } from "ws";
import { CHROMIUM_FLAGS, requireChromium } from "../../browser/chromium.js";
import { processTempDir } from "../../browser/scratch.js";
import { startBrowserProxy, type ProxyRefusal } from "./browser-proxy.js";

interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * What an agent may call: an allow-list, not a deny-list. Whole domains that act inside a page
 * (what Playwright's connectOverCDP, Puppeteer and a plain CDP client send for a page), and named
 * methods of the domains that reach further (targets, the browser, the network stack, storage).
 * Anything else is refused, with the reason, and logged as a `cdp_guard` event.
 */
const AGENT_DOMAINS: ReadonlySet<string> = new Set([
  "Page",
  "Runtime",
  "DOM",
  "DOMSnapshot",
  "DOMDebugger",
  "CSS",
  "Input",
  "Emulation",
  "Log",
  "Accessibility",
  "Overlay",
  "Performance",
  "PerformanceTimeline",
  "Animation",
  "Console",
  "Debugger",
  "Inspector",
  "LayerTree",
  "IO",
  "Profiler",
  "HeapProfiler",
  "Schema",
  "Tracing",
]);
const AGENT_METHODS: ReadonlySet<string> = new Set([
  "Target.getTargets",
  "Target.getTargetInfo",
  "Target.attachToTarget",
  "Target.detachFromTarget",
  "Target.setAutoAttach",
  "Target.setDiscoverTargets",
  "Target.autoAttachRelated",
  "Target.createTarget",
  "Target.closeTarget",
  "Target.activateTarget",
  "Target.getBrowserContexts",
  "Target.attachToBrowserTarget",
  "Browser.getVersion",
  "Browser.getWindowForTarget",
  "Browser.getWindowBounds",
  "Browser.setWindowBounds",
  "Browser.setDownloadBehavior",
  "Browser.cancelDownload",
  // The network stack, read-only parts and per-page emulation; never cookies, interception or fetches of its own.
  "Network.enable",
  "Network.disable",
  "Network.getResponseBody",
  "Network.getRequestPostData",
  "Network.getCookies",
  "Network.setCacheDisabled",
  "Network.setBypassServiceWorker",
  "Network.setExtraHTTPHeaders",
  "Network.setUserAgentOverride",
  "Network.emulateNetworkConditions",
  "Network.setAttachDebugStack",
  "Network.searchInResponseBody",
  "Network.setBlockedURLs",
  "Storage.getCookies",
  "Storage.getStorageKeyForFrame",
  "Storage.getUsageAndQuota",
]);
/** Methods of allowed domains that are still refused, and why. */
const REFUSED_IN_ALLOWED_DOMAINS: Readonly<Record<string, string>> = {
  "Page.crash": "umpire owns the trial's browser",
  // A page's policy is the application's: a benchmark pack's reward capture relies on it (src/packs/).
  "Page.setBypassCSP": "the page's content security policy is the application's",
  "Page.setDownloadBehavior": "", // rewritten, see downloadRewrite
};
/** Reasons for the refusals an agent is most likely to meet (the error it receives says so). */
export const REFUSED_AGENT_METHODS: Readonly<Record<string, string>> = {
  "Target.createBrowserContext":
    "the trial's browser context is the only one: it carries the origin guard and the session",
  "Target.disposeBrowserContext": "the trial's browser context belongs to umpire",
  "Target.sendMessageToTarget": "nested (non-flattened) sessions are not relayed: attach with flatten: true",
  "Target.exposeDevToolsProtocol": "the agent's pages get no DevTools binding",
  "Target.setRemoteLocations": "the agent's browser reaches no other browser",
  "Browser.close": "umpire closes the trial's browser when the trial ends",
  "Browser.crash": "umpire owns the trial's browser",
  "Browser.crashGpuProcess": "umpire owns the trial's browser",
  "Browser.setPermission": "permissions are the task's",
  "Browser.grantPermissions": "permissions are the task's",
  "Network.setCookie": "cookies are the application's; the trial's session is umpire's",
  "Network.setCookies": "cookies are the application's; the trial's session is umpire's",
  "Network.deleteCookies": "cookies are the application's; the trial's session is umpire's",
  "Network.clearBrowserCookies": "cookies are the application's; the trial's session is umpire's",
  "Network.loadNetworkResource": "the browser fetches only what the trial's pages request",
  "Storage.setCookies": "cookies are the application's; the trial's session is umpire's",
  "Storage.clearCookies": "cookies are the application's; the trial's session is umpire's",
  "Storage.clearDataForOrigin": "the application's storage is judged after the trial",
};

/**
 * The host paths (and `file:` URLs) a command names. The browser runs outside the sandbox, as
 * umpire's user: a file input, a file chooser's answer or a drag with files would hand the page any
 * file umpire can read (the home folder, the run's database, the sibling trial's token), and a
 * `file:` (or `view-source:file:`, `chrome:`) page would show it. Methods not listed here take no path.
 */
export function hostPathsOf(method: string, params: Record<string, unknown> | undefined): string[] {
  const list = (value: unknown) => (Array.isArray(value) ? value.map((v) => String(v)) : []);
  switch (method) {
    case "DOM.setFileInputFiles":
    case "Page.handleFileChooser":
      return list(params?.files);
    case "Input.dispatchDragEvent":
      return list((params?.data as { files?: unknown } | undefined)?.files);
    case "Page.navigate":
    case "Target.createTarget": {
      const url = String(params?.url ?? "").trim();
      return url === "" || PAGE_SCHEMES.test(url) ? [] : [url];
    }
    default:
      return [];
  }
}

/** Schemes an agent may open a page at (the origin guard judges http(s) further). */
const PAGE_SCHEMES = /^(https?|about|data|blob):/i;

/** Why a command's host paths are refused (one outside `root`, or a `file:` URL), or null. */
export function hostPathRefusal(
  method: string,
  params: Record<string, unknown> | undefined,
  root: string | null,
): string | null {
  const paths = hostPathsOf(method, params);
  if (paths.length === 0) return null;
  const realRoot = root && existsSync(root) ? realpathSync(root) : null;
  for (const path of paths) {
    if (method === "Page.navigate" || method === "Target.createTarget")
      return `${path.slice(0, 200)} is not a web page: file:, view-source: and browser pages would show the host's files`;
    // Chromium reads a relative path against its own working folder, not the workspace.
    if (!isAbsolute(path)) return `${path.slice(0, 200)} is not an absolute path in the trial's workspace`;
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      real = resolve(path);
    }
    if (realRoot === null || (real !== realRoot && !real.startsWith(`${realRoot}/`)))
      return `${path.slice(0, 200)} is outside the trial's workspace: the browser hands pages no other host file`;
  }
  return null;
}

/** Why an agent's command is refused, or null when it may pass (after `rewrite`). */
export function refusalOf(method: string, params: Record<string, unknown> | undefined): string | null {
  const named = REFUSED_AGENT_METHODS[method];
  if (named) return named;
  const domain = method.split(".")[0]!;
  const inDomain = REFUSED_IN_ALLOWED_DOMAINS[method];
  if (inDomain) return inDomain;
  if (!AGENT_DOMAINS.has(domain) && !AGENT_METHODS.has(method))
    return `${domain} is not a domain umpire relays for agents (see docs/security.md)`;
  if (
    (method === "Target.attachToTarget" || method === "Target.setAutoAttach") &&
    params?.flatten !== true &&
    !(method === "Target.setAutoAttach" && params?.autoAttach === false)
  ) {
    return "only flattened sessions are relayed (flatten: true), so every message is checked by the same rules";
  }
  return null;
}

interface Client {
  socket: WebSocket;
  /** The client's browser-level session on the pipe. */
  browserSession: string | null;
  /** Child sessions this client attached (flattened), which it alone may address. */
  sessions: Set<string>;
  filtered: boolean;
  /** Messages that arrived before the browser session was attached. */
  queue: CdpMessage[];
}

export interface TrialBrowser {
  /** For umpire's own Playwright (`chromium.connectOverCDP`). Never given to the agent. */
  readonly umpireEndpoint: string;
  /** For the agent: a filtered CDP WebSocket endpoint that reaches only this browser. */
  readonly agentEndpoint: string;
  /** Sets the context every page the agent creates lands in. */
  setTrialContext(browserContextId: string): void;
  /** The origins the browser's network may reach (the task's); everything else is refused by its proxy. */
  allowOrigins(origins: Iterable<string>): void;
  /** Called at each connection the proxy refused (a page WebSocket or request the route guard did not see). */
  onNetworkRefusal(listener: (refusal: ProxyRefusal) => void): void;
  /** Methods the agent tried and was refused (or rewritten), as evidence for the trial log. */
  readonly refused: GuardRefusal[];
  /** Called at each refusal as it happens (the trial log's `cdp_guard` events). */
  onRefusal(listener: (refusal: GuardRefusal) => void): void;
  /** Why the browser is gone (it exited or was killed before umpire closed it), or null while it runs. */
  gone(): string | null;
  /**
   * The agent's turn is over: its connections are closed and its endpoint takes no new ones, so
   * nothing it left behind reaches the browser while the checks judge.
   */
  shutOutAgent(): void;
  close(): Promise<void>;
}

export interface GuardRefusal {
  method: string;
  reason: string;
  /** `refused`: the agent got an error; `rewritten`: the call went on with umpire's parameters. */
  action: "refused" | "rewritten";
}

/** Launches a dedicated headless Chromium over a pipe and the relay in front of it. */
export async function launchTrialBrowser(
  options: { env?: NodeJS.ProcessEnv; downloadsDir?: string; workspaceDir?: string } = {},
): Promise<TrialBrowser> {
  const chromium = requireChromium(options.env);
  const proxy = await startBrowserProxy();
  // In this process's temp folder: a profile a killed umpire leaves behind is removed by the next one.
  const profile = processTempDir("umpire-trial-browser-");
  const child = spawn(
    chromium.path,
    [
      ...CHROMIUM_FLAGS,
      "--headless=new",
      "--remote-debugging-pipe",
      "--no-startup-window",
      `--user-data-dir=${profile}`,
      "--disable-features=Translate,MediaRouter",
      // Every connection, loopback included (Chromium bypasses proxies for it unless told), through umpire's proxy.
      `--proxy-server=${proxy.url}`,
      "--proxy-bypass-list=<-loopback>",
    ],
    // Its own process group: a terminal's Ctrl-C reaches umpire (which cancels the trial and closes
    // this browser), not the browser under the trial. It ends with umpire anyway: the pipe closes.
    { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"], detached: true },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  const relay = new Relay(child, toBrowser, options.downloadsDir ?? null, options.workspaceDir ?? null);
  let pending = "";
  fromBrowser.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    let end: number;
    while ((end = pending.indexOf("\0")) >= 0) {
      const text = pending.slice(0, end);
      pending = pending.slice(end + 1);
      try {
        relay.fromBrowser(JSON.parse(text) as CdpMessage);
      } catch {
        // A message that is not JSON cannot come from Chromium; ignore rather than crash the run.
      }
    }
  });
  toBrowser.on("error", () => undefined);
  let closing = false;
  let gone: string | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      if (!closing)
        gone = `the trial's browser exited (${signal ? `killed by ${signal}` : `code ${code}`}) before the trial ended`;
      // Nothing more will come from the pipe: every client learns it now instead of waiting forever.
      relay.browserGone();
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("spawn", () => resolve());
  });

  const umpireToken = randomBytes(16).toString("hex");
  const agentToken = randomBytes(16).toString("hex");
  const server = new WsServerCtor({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  let agentShutOut = false;
  server.on("connection", (socket: WebSocket, request: IncomingMessage) => {
    const path = (request.url ?? "").split("?")[0];
    const filtered =
      path === `/devtools/browser/${agentToken}` ? true : path === `/devtools/browser/${umpireToken}` ? false : null;
    if (filtered === null || (filtered && agentShutOut)) {
      socket.close(1008, "unknown endpoint");
      return;
    }
    relay.addClient(socket, filtered);
  });
  const port = (server.address() as { port: number }).port;
  return {
    umpireEndpoint: `ws://127.0.0.1:${port}/devtools/browser/${umpireToken}`,
    agentEndpoint: `ws://127.0.0.1:${port}/devtools/browser/${agentToken}`,
    setTrialContext: (id) => relay.setTrialContext(id),
    allowOrigins: (origins) => proxy.allow(origins),
    onNetworkRefusal: (listener) => proxy.onRefused(listener),
    refused: relay.refused,
    onRefusal: (listener) => (relay.onRefusal = listener),
    gone: () => gone,
    shutOutAgent() {
      agentShutOut = true;
      relay.dropFilteredClients();
    },
    async close() {
      closing = true;
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      relay.send({ id: relay.nextId(), method: "Browser.close" });
      const killer = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(killer);
      await proxy.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Multiplexes relay clients over the one pipe, remapping command ids and routing by session. */
class Relay {
  private id = 0;
  private readonly replies = new Map<number, { client: Client; id: number } | ((message: CdpMessage) => void)>();
  private readonly clients = new Set<Client>();
  private trialContext: string | null = null;
  readonly refused: GuardRefusal[] = [];
  onRefusal: (refusal: GuardRefusal) => void = () => undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly pipe: Writable,
    private readonly downloadsDir: string | null,
    /** The only folder whose files the agent may hand the browser (file inputs, drags). */
    private readonly workspaceDir: string | null,
  ) {}

  /** The browser exited: close every client's socket, so no caller waits for a reply that cannot come. */
  browserGone(): void {
    for (const client of this.clients) client.socket.terminate();
    this.clients.clear();
    this.replies.clear();
  }

  /** Closes every agent (filtered) connection; umpire's own stays. */
  dropFilteredClients(): void {
    for (const client of this.clients) if (client.filtered) client.socket.terminate();
  }

  private guard(refusal: GuardRefusal): void {
    this.refused.push(refusal);
    this.onRefusal(refusal);
  }

  nextId(): number {
    return ++this.id;
  }

  send(message: CdpMessage): void {
    if (this.child.exitCode === null) this.pipe.write(`${JSON.stringify(message)}\0`);
  }

  setTrialContext(id: string): void {
    this.trialContext = id;
  }

  addClient(socket: WebSocket, filtered: boolean): void {
    const client: Client = { socket, browserSession: null, sessions: new Set(), filtered, queue: [] };
    this.clients.add(client);
    const id = this.nextId();
    this.replies.set(id, (reply) => {
      const sessionId = reply.result?.sessionId;
      if (typeof sessionId !== "string") {
        socket.close(1011, "the browser refused a session");
        return;
      }
      client.browserSession = sessionId;
      for (const queued of client.queue.splice(0)) this.fromClient(client, queued);
    });
    this.send({ id, method: "Target.attachToBrowserTarget" });
    socket.on("message", (data: Buffer) => {
      let message: CdpMessage;
      try {
        message = JSON.parse(data.toString("utf8")) as CdpMessage;
      } catch {
        return; // not CDP: nothing to forward
      }
      if (typeof message.id !== "number" || typeof message.method !== "string") return;
      if (client.browserSession === null) client.queue.push(message);
      else this.fromClient(client, message);
    });
    socket.on("close", () => {
      this.clients.delete(client);
      if (client.browserSession)
        this.send({
          id: this.nextId(),
          method: "Target.detachFromTarget",
          params: { sessionId: client.browserSession },
        });
    });
    socket.on("error", () => undefined);
  }

  private reply(client: Client, message: CdpMessage): void {
    if (client.socket.readyState === 1) client.socket.send(JSON.stringify(message));
  }

  private fromClient(client: Client, message: CdpMessage): void {
    const sessionId = message.sessionId ?? client.browserSession!;
    if (message.sessionId !== undefined && !client.sessions.has(message.sessionId)) {
      this.reply(client, {
        id: message.id,
        sessionId: message.sessionId,
        error: { code: -32001, message: `Session with given id not found.` },
      });
      return;
    }
    let params = message.params;
    if (client.filtered) {
      const reason = refusalOf(message.method!, params) ?? hostPathRefusal(message.method!, params, this.workspaceDir);
      if (reason) {
        this.guard({ method: message.method!, reason, action: "refused" });
        this.reply(client, {
          id: message.id,
          ...(message.sessionId ? { sessionId: message.sessionId } : {}),
          error: { code: -32000, message: `umpire refused ${message.method}: ${reason}` },
        });
        return;
      }
      // Every page the agent opens is a page of the trial's context (guarded, with the session cookie).
      if (message.method === "Target.createTarget" && this.trialContext)
        params = { ...params, browserContextId: this.trialContext };
      if (message.method === "Browser.setDownloadBehavior" || message.method === "Page.setDownloadBehavior")
        params = this.downloads(message.method, params);
    }
    const id = this.nextId();
    this.replies.set(id, { client, id: message.id! });
    this.send({ id, method: message.method, ...(params ? { params } : {}), sessionId });
  }

  /**
   * Downloads land in the trial's `workspace/downloads/` or nowhere: whatever folder the agent
   * names, the browser gets umpire's (a differing request is logged as rewritten).
   */
  private downloads(method: string, params: Record<string, unknown> | undefined): Record<string, unknown> {
    const asked = params?.behavior;
    if (asked === "deny" || this.downloadsDir === null) return { ...params, behavior: "deny" };
    if (params?.downloadPath !== undefined && params.downloadPath !== this.downloadsDir) {
      this.guard({
        method,
        reason: `downloads go to the trial's workspace/downloads/, not ${String(params.downloadPath).slice(0, 200)}`,
        action: "rewritten",
      });
    }
    const behavior = method === "Page.setDownloadBehavior" || asked === "default" ? "allow" : asked;
    return { ...params, behavior, downloadPath: this.downloadsDir };
  }

  fromBrowser(message: CdpMessage): void {
    if (typeof message.id === "number") {
      const to = this.replies.get(message.id);
      this.replies.delete(message.id);
      if (!to) return;
      if (typeof to === "function") {
        to(message);
        return;
      }
      const sessionId = message.result?.sessionId;
      if (typeof sessionId === "string") to.client.sessions.add(sessionId);
      const { sessionId: via, ...rest } = message;
      this.reply(to.client, {
        ...rest,
        id: to.id,
        ...(via && via !== to.client.browserSession ? { sessionId: via } : {}),
      });
      return;
    }
    if (!message.sessionId) return; // the pipe's own root session: the relay's, not a client's
    for (const client of this.clients) {
      const own = message.sessionId === client.browserSession;
      if (!own && !client.sessions.has(message.sessionId)) continue;
      if (message.method === "Target.attachedToTarget") {
        const child = (message.params as { sessionId?: string } | undefined)?.sessionId;
        if (child) client.sessions.add(child);
      }
      if (message.method === "Target.detachedFromTarget") {
        const child = (message.params as { sessionId?: string } | undefined)?.sessionId;
        if (child) client.sessions.delete(child);
      }
      const { sessionId, ...rest } = message;
      this.reply(client, own ? rest : { ...rest, sessionId });
      return;
    }
  }
}
