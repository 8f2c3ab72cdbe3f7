// Serves the AngularJS TodoMVC app from the `todomvc` npm package (written by the TodoMVC
// project, not by umpire) on 127.0.0.1:$PORT, plus one endpoint umpire's per-trial reset calls.
//
// The app keeps its todos in the browser's localStorage, and every trial gets a fresh browser
// context, so the app itself starts empty each trial. The reset endpoint records which trial
// starts (GET /__umpire/trials lists them): it shows where an app with server-side state would
// restore its seed data for the trial.
import { createServer } from "node:http";
import { createReadStream, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, normalize } from "node:path";

const require = createRequire(import.meta.url);
const packageRoot = dirname(require.resolve("todomvc/package.json"));
const app = join(packageRoot, "examples", "angularjs");
const port = Number(process.env.PORT ?? 8080);
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".png": "image/png",
};
const trials = [];

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === "/__umpire/reset" && req.method === "POST") {
    const trial = url.searchParams.get("trial") ?? req.headers["x-umpire-trial"];
    if (!trial) {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "no trial id" }));
      return;
    }
    trials.push({ trial, at: new Date().toISOString() });
    res.writeHead(204).end();
    return;
  }
  if (url.pathname === "/__umpire/trials") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(trials));
    return;
  }
  // learn.json (the TodoMVC site's sidebar) is not served: the app alone is the target.
  const file = join(app, normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, ""));
  const target = existsSync(file) && statSync(file).isDirectory() ? join(file, "index.html") : file;
  if (!target.startsWith(app)) return res.writeHead(403).end();
  if (!existsSync(target)) return res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  res.writeHead(200, { "content-type": types[extname(target)] ?? "application/octet-stream" });
  createReadStream(target).pipe(res);
});
server.listen(port, "127.0.0.1", () => console.log(`todomvc (angularjs) on http://127.0.0.1:${port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
