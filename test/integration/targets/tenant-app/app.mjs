// A multi-tenant app as many test backends are: each request's tenant is its `x-tenant` header, and
// every tenant has its own counter. It also records what identity each tenant's requests carried (the
// header, a `tenant` cookie, the page's ?t= query, and the page's localStorage / sessionStorage seeds),
// so a test can tell which part of umpire's per-trial browser context reached it.
import { createServer } from "node:http";

const tenants = new Map();
const tenantOf = (id) => {
  if (!tenants.has(id))
    tenants.set(id, { count: 0, cookie: null, file: null, query: null, local: null, session: null });
  return tenants.get(id);
};
const cookieOf = (req, name) => new RegExp(`(?:^|;\\s*)${name}=([^;]*)`).exec(req.headers.cookie ?? "")?.[1] ?? null;

const PAGE = `<!doctype html><html><head><title>Tenant counter</title></head>
<body style="font:20px sans-serif;margin:40px">
<h1>Counter</h1><p id="count">0</p>
<button data-testid="add" style="font-size:24px;padding:12px 32px">Add one</button>
<button data-testid="add-two" style="font-size:24px;padding:12px 32px">Add two</button>
<script>
  const report = () => fetch("/api/report" + location.search, { method: "POST", body: JSON.stringify({
    local: localStorage.getItem("tenant"), session: sessionStorage.getItem("tab") }) });
  report();
  document.querySelector("[data-testid=add]").addEventListener("click", async () => {
    const res = await fetch("/api/add", { method: "POST" });
    document.getElementById("count").textContent = String((await res.json()).count);
  });
  // A native confirm, answered by the target's dialogs policy (or the agent).
  document.querySelector("[data-testid=add-two]").addEventListener("click", async () => {
    if (!confirm("Add two?")) return;
    await fetch("/api/add", { method: "POST" });
    await fetch("/api/add", { method: "POST" });
  });
</script></body></html>`;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  const id = req.headers["x-tenant"] ?? "(no tenant header)";
  const tenant = tenantOf(id);
  const json = (value) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  if (url.pathname === "/") {
    tenant.cookie = cookieOf(req, "tenant");
    tenant.file = cookieOf(req, "from_file");
    tenant.query = url.searchParams.get("t");
    res.writeHead(200, { "content-type": "text/html" });
    return res.end(PAGE);
  }
  if (url.pathname === "/api/report" && req.method === "POST") {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      Object.assign(tenant, JSON.parse(body));
      json({ ok: true });
    });
    return;
  }
  if (url.pathname === "/api/add" && req.method === "POST") return json({ count: ++tenant.count });
  // Read by the task's http check, which names the tenant in the query (the check sends no header).
  if (url.pathname === "/api/seen") {
    const asked = url.searchParams.get("tenant");
    const t = tenantOf(asked);
    return json({
      count: t.count,
      cookie: t.cookie === asked,
      file: t.file === "yes",
      query: t.query === asked,
      local: t.local === asked,
      session: t.session === `tab-${asked}`,
    });
  }
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT), "127.0.0.1");
