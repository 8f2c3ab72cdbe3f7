// An app that keeps its state in one server process, as notebook and wiki servers do: the items live
// in memory, read at start from DATA_DIR/items.json (when DATA_DIR is set) and written back on change.
import { createServer } from "node:http";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const file = process.env.DATA_DIR ? join(process.env.DATA_DIR, "items.json") : undefined;
const items = file && existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : [];

const PAGE = `<!doctype html><html><head><title>Items</title></head><body style="font:20px sans-serif;margin:40px">
<h1>Items</h1><button data-testid="add" style="font-size:24px;padding:12px 32px">Add item</button><p id="n"></p>
<script>document.querySelector("[data-testid=add]").onclick = async () => {
  const r = await fetch("/api/items", { method: "POST" }); document.getElementById("n").textContent = (await r.json()).length + " items";
};</script></body></html>`;

createServer((req, res) => {
  if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  if (req.url === "/api/items" && req.method === "POST") {
    items.push({ at: items.length + 1 });
    if (file) writeFileSync(file, JSON.stringify(items));
  }
  if (req.url === "/api/items")
    return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(items));
  res.writeHead(404).end();
}).listen(Number(process.env.PORT), "127.0.0.1");
