/**
 * The fixture site: a small, deterministic, deliberately hostile cricket-league website for
 * computer-use agents, plus its control API (own port, token) and a client for it.
 * See fixtures-site/README.md and docs/ARCHITECTURE.md ("Fixture site contract").
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FixtureControlClient } from "./client.js";
import { createControlApp } from "./control/server.js";
import { SessionStore } from "./sessions.js";
import { createSiteApp, DEFAULT_TIMINGS, type SiteTimings } from "./site/server.js";

export interface FixtureSiteOptions {
  /** Site port; 0 (the default) picks a free one. */
  port?: number;
  /** Control API port; 0 (the default) picks a free one. Must differ from the site's. */
  controlPort?: number;
  /** Interface the site listens on; default 127.0.0.1. */
  host?: string;
  /**
   * Interface the control API listens on; default 127.0.0.1 even when `host` is a wildcard:
   * the control API resets sessions and reads workspaces, so exposing it is an explicit choice.
   */
  controlHost?: string;
  /** Override scenario timings (tests shorten the 8 s slow save). */
  timings?: Partial<SiteTimings>;
}

export interface FixtureSite {
  /** e.g. http://127.0.0.1:41233 (no trailing slash). */
  siteUrl: string;
  /** e.g. http://127.0.0.1:41234: another origin than the site. */
  controlUrl: string;
  /** Random per start; send as the x-umpire-control header. */
  controlToken: string;
  client: FixtureControlClient;
  /** Stops both servers (open connections are cut). */
  close(): Promise<void>;
}

function checkPort(value: number | undefined, field: string): number {
  const port = value ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(
      `startFixtureSite: ${field} must be an integer from 0 to 65535 (0 picks a free port), got ${String(value)}`,
    );
  }
  return port;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The host to put in URLs: a wildcard address is reachable as loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/** Starts the site and its control API on two ports. */
export async function startFixtureSite(options: FixtureSiteOptions = {}): Promise<FixtureSite> {
  const host = options.host ?? "127.0.0.1";
  const controlHost = options.controlHost ?? "127.0.0.1";
  const port = checkPort(options.port, "port");
  const controlPort = checkPort(options.controlPort, "controlPort");
  if (port !== 0 && port === controlPort) {
    throw new Error("startFixtureSite: port and controlPort must differ (the control API needs its own origin)");
  }
  const sessions = new SessionStore();
  const controlToken = randomBytes(24).toString("base64url");
  const site = createServer(createSiteApp(sessions, { ...DEFAULT_TIMINGS, ...options.timings }));
  const control = createServer(createControlApp(sessions, controlToken));
  try {
    const sitePort = await listen(site, port, host);
    const boundControlPort = await listen(control, controlPort, controlHost);
    const siteUrl = `http://${urlHost(host)}:${sitePort}`;
    const controlUrl = `http://${urlHost(controlHost)}:${boundControlPort}`;
    return {
      siteUrl,
      controlUrl,
      controlToken,
      client: new FixtureControlClient(controlUrl, controlToken),
      close: async () => {
        await Promise.all([closeServer(site), closeServer(control)]);
      },
    };
  } catch (error) {
    await Promise.all([closeServer(site), closeServer(control)]);
    throw error;
  }
}

/**
 * Benchmark (not a test): starts a fixture site, creates `n` sessions one after another through
 * the control client, and returns the median milliseconds per creation (HTTP round trip included).
 */
export async function measureSessionCreation(n: number): Promise<number> {
  if (!Number.isInteger(n) || n < 1) throw new Error(`measureSessionCreation: n must be a positive integer, got ${n}`);
  const fixture = await startFixtureSite();
  const workspace = await mkdtemp(join(tmpdir(), "umpire-bench-"));
  try {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await fixture.client.createSession({ scenario: "plain", workspace });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const mid = Math.floor(n / 2);
    return n % 2 === 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  } finally {
    await fixture.close();
    await rm(workspace, { recursive: true, force: true });
  }
}
