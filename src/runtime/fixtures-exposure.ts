/**
 * `--fixtures-host`: makes the fixture site reachable from browsers on other machines while its
 * control API stays on loopback. The site and its control API keep listening on 127.0.0.1; a plain
 * TCP forwarder listens on the given host and passes connections to the site's port only, so the
 * remote browser is sent to `http://HOST:PORT` and nothing on HOST leads to the control port.
 */
import { createConnection, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { UmpireError } from "../errors.js";

export interface ExposedSite {
  /** The site as remote browsers reach it, e.g. http://10.0.0.5:41233. */
  url: string;
  close(): Promise<void>;
}

/** `HOST`, `HOST:PORT` or `[IPv6]:PORT`; port 0 (the default) picks a free one. */
export function parseFixturesHost(text: string): { host: string; port: number } {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text);
  if (!match || !match[1]) {
    throw new UmpireError(
      "usage",
      `--fixtures-host ${text}: expected HOST or HOST:PORT`,
      "e.g. --fixtures-host 10.0.0.5 or --fixtures-host runner.internal:8080",
    );
  }
  const port = match[2] === undefined ? 0 : Number(match[2]);
  if (!Number.isInteger(port) || port > 65535)
    throw new UmpireError(
      "usage",
      `--fixtures-host ${text}: port ${match[2]} is out of range`,
      "use a port from 1 to 65535, or none to pick a free one",
    );
  const host = match[1];
  if (host === "0.0.0.0" || host === "::") {
    throw new UmpireError(
      "usage",
      `--fixtures-host ${text}: a browser cannot be sent to the wildcard address ${host}`,
      "give this machine's name or address as the browser sees it (e.g. the pod IP or service name)",
    );
  }
  return { host, port };
}

/** Starts the forwarder from `host:port` to the site at `siteUrl`. */
export async function exposeSite(siteUrl: string, hostSpec: string): Promise<ExposedSite> {
  const { host, port } = parseFixturesHost(hostSpec);
  const target = new URL(siteUrl);
  const sockets = new Set<Socket>();
  const server = createServer((incoming) => {
    const outgoing = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const s of [incoming, outgoing]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        incoming.destroy();
        outgoing.destroy();
      });
    }
    incoming.pipe(outgoing);
    outgoing.pipe(incoming);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new UmpireError(
          "usage",
          `--fixtures-host ${hostSpec}: cannot listen there (${error.code ?? error.message})`,
          "give an address of this machine (see `hostname -I`), a name that resolves to one, or a free port",
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
