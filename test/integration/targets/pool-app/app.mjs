// An app that keeps its state in one server process (a list of items in memory), as notebook and
// wiki servers do: two trials on one copy see each other's items. Each request is logged with the
// port that served it and the trial that sent it (the x-trial header of the target's context), so a
// test reads from the app itself which copy served which trial, and when.
// POST /reset empties the list. With CRASH_FLAG set, the first Add that finds that file deletes it
// and kills this process (SIGKILL): an instance dying in the middle of a trial. With RESET_FLAG set,
// the first reset that finds that file deletes it and answers 500 (a wedged copy).
import { createServer } from "node:http";
import { existsSync, unlinkSync } from "node:fs";

const port = Number(process.env.PORT);
let items = [];
const log = (what, trial) =>
  console.log(JSON.stringify({ port, instance: process.env.INSTANCE, trial, what, at: Date.now() }));

const PAGE = `<!doctype html><html><head><title>Items</title></head><body style="font:20px sans-serif;margin:40px">
<h1>Items</h1><button data-testid="add" style="font-size:24px;padding:12px 32px">Add item</button><p id="n"></p>
<script>document.querySelector("[data-testid=add]").onclick = async () => {
  const r = await fetch("/api/items", { method: "POST" }); document.getElementById("n").textContent = (await r.json()).length + " items";
};</script></body></html>`;

createServer((req, res) => {
  const trial = req.headers["x-trial"] ?? req.headers["x-umpire-trial"] ?? null;
  log(`${req.method} ${req.url}`, trial);
  if (req.url === "/reset" && req.method === "POST") {
    if (process.env.RESET_FLAG && existsSync(process.env.RESET_FLAG)) {
      unlinkSync(process.env.RESET_FLAG);
      return res.writeHead(500).end("wedged");
    }
    items = [];
    return res.writeHead(204).end();
  }
  if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  if (req.url === "/api/items" && req.method === "POST") {
    const flag = process.env.CRASH_FLAG;
    if (flag && existsSync(flag)) {
      try {
        unlinkSync(flag);
        log("crash", trial);
        process.kill(process.pid, "SIGKILL");
      } catch {
        // another instance took the flag first
      }
    }
    items.push({ at: items.length + 1, trial });
  }
  if (req.url === "/api/items")
    return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(items));
  res.writeHead(404).end();
}).listen(port, "127.0.0.1", () => log("listening", null));
