/**
 * `umpire show-report` / `umpire report --serve`: serves a report folder over HTTP on 127.0.0.1
 * (never 0.0.0.0 unless asked) for a machine without a desktop, e.g. over an SSH tunnel. Read-only
 * static files from inside the folder: a path that would leave it (`..`, encoded or not, or a
 * symlink pointing out) is 404, and every response carries the report's CSP as a header too.
 *
 * Two guards against other pages in the user's browser: the `Host` header must name this server
 * (127.0.0.1 or localhost with its port), so a DNS-rebinding page whose own name now points at
 * 127.0.0.1 gets 421, not the report; and every path starts with a random token made when the
 * server starts and printed only in its URL, so a page that guesses the port still finds nothing.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, existsSync, realpathSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import { OPTIONS } from "../config/options.js";
import { UmpireError } from "../errors.js";
import { CONTENT_SECURITY_POLICY } from "../report/html/page.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".png": "image/png",
  ".jsonl": "application/x-ndjson; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/** The port `show-report` and `report --serve` listen on unless told otherwise (Playwright's report port). */
export const DEFAULT_REPORT_PORT = 9323;

/** `--port` of both commands that serve a report: the one shared port option, with the report's default. */
export const REPORT_PORT_OPTION = {
  ...OPTIONS.port,
  default: DEFAULT_REPORT_PORT,
  defaultText: `${DEFAULT_REPORT_PORT} (0: a free port)`,
} as const;

export interface ServedReport {
  url: string;
  close(): Promise<void>;
}

/** The file under `root` a request path names, or null when it names nothing there. */
export function fileFor(root: string, urlPath: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(urlPath.split("?")[0]!.split("#")[0]!);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  const candidate = resolve(root, `.${path.startsWith("/") ? path : `/${path}`}`);
  if (candidate !== root && !candidate.startsWith(root + sep)) return null;
  const file = existsSync(candidate) && statSync(candidate).isDirectory() ? join(candidate, "index.html") : candidate;
  if (!existsSync(file)) return null;
  const real = realpathSync(file);
  if (!real.startsWith(realpathSync(root) + sep)) return null;
  return statSync(real).isFile() ? real : null;
}

export async function serveReport(folder: string, options: { port: number; host?: string }): Promise<ServedReport> {
  const root = resolve(folder);
  const host = options.host ?? "127.0.0.1";
  const token = randomBytes(16).toString("hex");
  let hosts = new Set<string>();
  const server: Server = createServer((req, res) => {
    if (!hosts.has((req.headers.host ?? "").toLowerCase())) {
      res
        .writeHead(421, { "content-type": "text/plain; charset=utf-8" })
        .end("this server answers only to its own address\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    const url = req.url ?? "/";
    if (url === `/${token}`) {
      res.writeHead(308, { location: `/${token}/` }).end();
      return;
    }
    const file = url.startsWith(`/${token}/`) ? fileFor(root, url.slice(token.length + 1)) : null;
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    });
    if (req.method === "HEAD") res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port, host, () => ok());
  });
  const { port } = server.address() as { port: number };
  const shownHost = host.includes(":") ? `[${host}]` : host;
  hosts = new Set([`${shownHost}:${port}`, `127.0.0.1:${port}`, `localhost:${port}`].map((h) => h.toLowerCase()));
  return {
    url: `http://${shownHost}:${port}/${token}/`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

/** Serves until the command's signal aborts (Ctrl-C), printing the URL first. */
export async function serveUntilStopped(
  folder: string,
  port: number,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; signal: AbortSignal },
): Promise<void> {
  let served: ServedReport;
  try {
    served = await serveReport(folder, { port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw new UmpireError(
        "usage",
        `port ${port} on 127.0.0.1 is in use`,
        "pass --port N with a free port, or --port 0 for any free one",
      );
    throw error;
  }
  io.stdout.write(`${served.url}\n`);
  io.stderr.write(`serving ${folder} on ${served.url} (Ctrl-C stops)\n`);
  await new Promise<void>((ok) => {
    if (io.signal.aborted) ok();
    else io.signal.addEventListener("abort", () => ok(), { once: true });
  });
  await served.close();
}
