// A small web app for the target tests (not umpire code): shared server-side state reset over
// HTTP, an effects endpoint, marks by test id / role / selector, and browser storage writes.
// Every request it serves is logged with its trial (from the reset) so tests can see the order.
import { createServer } from "node:http";

const port = Number(process.env.PORT);
let items = [];
let effects = [];
const resets = [];

const page = (body) => `<!doctype html><html><head><meta charset="utf-8"><title>Stock</title>
<style>body{font-family:sans-serif;margin:40px} input,button{font-size:20px;padding:8px} nav{margin-top:600px}</style></head>
<body><h1>Stock</h1>${body}</body></html>`;

const home = page(`
<form id="add">
  <input data-testid="item-name" placeholder="Item name" autocomplete="off">
  <button type="submit">Save</button>
  <button type="button" id="decoy">Save draft</button>
</form>
<p id="status"></p>
<nav><a class="about-link" href="/about">About this app</a></nav>
<script>
  document.getElementById("add").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = document.querySelector("[data-testid=item-name]").value;
    const res = await fetch("/api/items", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
    localStorage.setItem("last-saved", JSON.stringify({ name, count: (await res.json()).length }));
    sessionStorage.setItem("draft", "");
    document.cookie = "saved=" + encodeURIComponent(name) + "; path=/";
    document.getElementById("status").textContent = "Saved " + name;
  });
</script>`);

// A newsletter modal over the Save form, as many real sites show one: a backdrop that takes every
// click, holding the dialog. Save sits under the backdrop, outside the dialog, so it cannot be reached.
const promo = page(`
<form id="add">
  <input data-testid="item-name" placeholder="Item name" autocomplete="off">
  <button type="submit">Save</button>
</form>
<div class="backdrop" style="position:fixed;inset:0;background:rgba(0,0,0,.45)">
  <div class="newsletter" role="dialog" aria-modal="true" aria-labelledby="nl-title"
       style="position:absolute;left:50%;top:55%;transform:translate(-50%,-50%);width:420px;padding:24px;background:#fff">
    <h2 id="nl-title">Get our newsletter</h2>
    <p>News about stock, once a month.</p>
  </div>
</div>`);

const server = createServer(async (req, res) => {
  const url = new URL(req.url, "http://x");
  const json = (status, value) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (url.pathname === "/reset" && req.method === "POST") {
    let body = "";
    for await (const chunk of req) body += chunk;
    resets.push({ trial: req.headers["x-umpire-trial"], body: JSON.parse(body || "{}") });
    items = [];
    effects = [];
    return res.writeHead(204).end();
  }
  if (url.pathname === "/reset-broken") return json(500, { error: "database is locked" });
  if (url.pathname === "/resets") return json(200, resets);
  if (url.pathname === "/effects") return json(200, effects);
  if (url.pathname === "/api/items" && req.method === "POST") {
    if (req.headers.origin === undefined && req.headers["sec-fetch-site"] === undefined)
      return json(403, { error: "browser only" });
    let body = "";
    for await (const chunk of req) body += chunk;
    items.push({ name: JSON.parse(body).name });
    effects.push({ type: "item_saved", at: new Date().toISOString(), detail: { name: JSON.parse(body).name } });
    return json(200, items);
  }
  if (url.pathname === "/api/items") {
    if (req.headers.authorization !== `Bearer ${process.env.STOCK_TOKEN ?? "letmein"}`)
      return json(401, { error: "token required" });
    return json(200, items);
  }
  if (url.pathname === "/about")
    return res
      .writeHead(200, { "content-type": "text/html" })
      .end(page(`<p id="about">Stock keeps a list of items.</p>`));
  if (url.pathname === "/promo") return res.writeHead(200, { "content-type": "text/html" }).end(promo);
  if (url.pathname === "/") return res.writeHead(200, { "content-type": "text/html" }).end(home);
  res.writeHead(404).end("not found");
});
server.listen(port, "127.0.0.1", () => console.log(`stock app on ${port}`));
