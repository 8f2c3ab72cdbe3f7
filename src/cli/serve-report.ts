/**
 * `umpire show-report` / `umpire report --serve`: serves a report folder over HTTP on 127.0.0.1
 * (never 0.0.0.0 unless asked) for a machine without a desktop, e.g. over an SSH tunnel. Read-only
 * static files from inside the folder: a path that would leave it (`..`, encoded or not, or a
 * symlink pointing out) is 404, and every response carries the report's CSP as a header too.
 */
import { createReadStream, existsSync, realpathSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, resolve, sep } from "node:path";
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
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    const file = fileFor(root, req.url ?? "/");
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
  return {
    url: `http://${shownHost}:${port}/`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

/** Serves until the command's signal aborts (Ctrl-C), printing the URL first. */
export async function serveUntilStopped(folder: string, port: number, io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; signal: AbortSignal }): Promise<void> {
  let served: ServedReport;
  try {
    served = await serveReport(folder, { port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw new UmpireError("usage", `port ${port} on 127.0.0.1 is in use`, "pass --port N with a free port, or --port 0 for any free one");
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
