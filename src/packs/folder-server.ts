/**
 * Serves a benchmark's folder (a MiniWoB++ checkout's `miniwob/html`) on 127.0.0.1, read-only, so
 * umpire runs the benchmark from the user's own copy: nothing is downloaded, nothing of it is shipped.
 *
 * Every HTML page is sent with a Content-Security-Policy whose script-src is the folder's own
 * scripts plus the hashes of the inline scripts that page ships: a script an agent adds to the page
 * (an inline <script>, an on* attribute, a javascript: URL) does not run, so it cannot pass for the
 * page's code in the episode capture's stack test (episode-capture.ts). `'unsafe-eval'` stays: the
 * benchmark's libraries (d3, jQuery) compile code, and an eval'd frame is refused by the capture anyway.
 */
import { createHash } from "node:crypto";
import { createReadStream, realpathSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, sep } from "node:path";
import { readFile } from "node:fs/promises";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
};

export interface FolderServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** The sha256 sources of a page's inline scripts (no src attribute), as CSP names them. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(match[1] ?? "")) continue;
    hashes.add(
      `'sha256-${createHash("sha256")
        .update(match[2] ?? "", "utf8")
        .digest("base64")}'`,
    );
  }
  return [...hashes];
}

/** The CSP of one page: the folder's scripts, the page's own inline ones, eval (see the module comment). */
export function pagePolicy(html: string): string {
  return ["script-src 'self' 'unsafe-eval'", ...inlineScriptHashes(html)].join(" ");
}

/** The file a URL path names inside `root` (its real path), or null when it is outside it or absent. */
function fileFor(root: string, urlPath: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  try {
    const real = realpathSync(join(root, path));
    if (real !== root && !real.startsWith(root + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** Told of every HTML page about to be served (its URL path and the request's Cookie header); false refuses it (403). */
export type DocumentGate = (path: string, cookie: string | undefined) => boolean;

export async function serveFolder(folder: string, gate?: DocumentGate): Promise<FolderServer> {
  const root = realpathSync(folder);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const file = req.method === "GET" || req.method === "HEAD" ? fileFor(root, path) : null;
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const type = TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
    if (type.startsWith("text/html")) {
      if (gate && !gate(path, req.headers.cookie)) {
        res.writeHead(403, { "content-type": "text/plain" }).end("not a page of a running trial");
        return;
      }
      readFile(file, "utf8").then(
        (html) =>
          res
            .writeHead(200, {
              "content-type": type,
              "cache-control": "no-store",
              "content-security-policy": pagePolicy(html),
            })
            .end(req.method === "HEAD" ? undefined : html),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
    if (req.method === "HEAD") res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
