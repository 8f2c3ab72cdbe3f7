// A small app whose pages move after `load` and after a click, as real UIs do (issue 37), served on
// 127.0.0.1:$PORT with no dependencies. Each page is one way a picture taken too early misleads a click:
// - /inbox: the message list is fetched after `load` and arrives LIST_DELAY_MS later (default 600;
//   `?delay=MS` on the page overrides it); it pushes "Clear all" down by eight rows, so a click aimed
//   where "Clear all" first stood opens a message instead.
// - /node: "Edit" slides a tray in (a 350 ms CSS transition of 500 px) with a Name field and Save.
// - /records: "Delete" on record 7 fades a modal in (350 ms) while it drops 80 px into place.
// - /archive: "Archive all" asks with the browser's own confirm() from its click handler.
// Every page also has a spinner (an infinite animation), which no observation may wait for.
//
// State is per trial: a trial's browser sends `x-umpire-trial: <trial id>` on every request (the
// target's `context.headers` in umpire.config.yaml), umpire's per-trial reset POSTs
// /__umpire/reset?trial=<id> (a fresh copy of the seed for that trial), and the checks read
// GET /api/state?trial=<id>. A request that names no trial uses the trial "default" (a person's browser,
// or `umpire marks`).
import { createServer } from "node:http";

const port = Number(process.env.PORT ?? 8080);
const listDelayMs = Number(process.env.LIST_DELAY_MS ?? 600);

/** One trial's world, as the seed gives it. */
function seed() {
  return {
    messages: Array.from({ length: 8 }, (_, i) => `Message ${i + 1}`),
    opened: [],
    node: { name: "node-1" },
    records: [3, 5, 7, 9].map((id) => ({ id, title: `Record ${id}` })),
    archive: { asked: 0, archived: false },
  };
}
const worlds = new Map();
function world(trial) {
  if (!worlds.has(trial)) worlds.set(trial, seed());
  return worlds.get(trial);
}

const css = `
  body { font: 16px sans-serif; margin: 0; padding: 0 24px; }
  .spinner { position: fixed; left: 10px; bottom: 10px; width: 20px; height: 20px; border: 3px solid #999;
    border-top-color: transparent; border-radius: 50%; animation: spin 1s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  button { font-size: 16px; padding: 8px 16px; }
  #status { position: fixed; top: 10px; right: 10px; }
  ul { padding: 0; list-style: none; }
  li { height: 40px; line-height: 40px; cursor: pointer; border-bottom: 1px solid #ddd; }
  .tray { position: fixed; top: 0; right: 0; width: 600px; height: 100%; background: #eef; padding: 40px 20px;
    box-sizing: border-box; transform: translateX(500px); visibility: hidden;
    transition: transform 350ms ease-out, visibility 0s 350ms; }
  .tray.open { transform: translateX(0); visibility: visible; transition: transform 350ms ease-out, visibility 0s; }
  .tray input { width: 160px; font-size: 16px; }
  .backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.4); display: none; }
  .backdrop.open { display: block; }
  .modal { position: absolute; left: 440px; top: 200px; width: 400px; padding: 20px; background: white;
    animation: drop 350ms ease-out; }
  @keyframes drop { from { opacity: 0; transform: translateY(-80px); } to { opacity: 1; transform: none; } }
`;
const page = (title, body, script) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>${css}</style></head>` +
  `<body><div class="spinner"></div><p id="status" data-testid="status"></p>${body}` +
  `<script>const status = document.getElementById("status");
  const post = (path, body) => fetch(path, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify(body ?? {}) }).then((r) => r.json());
${script}</script></body></html>`;

const pages = {
  "/": () =>
    page(
      "Settling app",
      `<h1>Settling app</h1><ul><li><a href="/inbox">Inbox</a></li><li><a href="/node">Node</a></li>
<li><a href="/records">Records</a></li><li><a href="/archive">Archive</a></li></ul>`,
      "",
    ),
  "/inbox": () =>
    page(
      "Inbox",
      `<h1>Inbox</h1><ul id="items" data-testid="items"></ul><button data-testid="clear-all">Clear all</button>`,
      `const items = document.getElementById("items");
  const delay = new URLSearchParams(location.search).get("delay");
  window.addEventListener("load", async () => {
    const list = await (await fetch("/api/messages" + (delay ? "?delay=" + delay : ""))).json();
    list.forEach((name, i) => {
      const li = document.createElement("li");
      li.textContent = name;
      li.dataset.testid = "message-" + (i + 1);
      li.onclick = () => post("/api/open", { name }).then(() => (status.textContent = "Opened " + name));
      items.append(li);
    });
  });
  document.querySelector("[data-testid=clear-all]").onclick = () =>
    post("/api/clear").then(() => { items.replaceChildren(); status.textContent = "Inbox cleared"; });`,
    ),
  "/node": () =>
    page(
      "Node",
      `<h1>Node</h1><p>A flow node. Its name is shown in the tray.</p><button data-testid="edit">Edit</button>
<div class="tray" id="tray"><label>Name <input data-testid="name-field" autocomplete="off"></label>
  <p><button data-testid="save">Save</button></p></div>`,
      `const field = document.querySelector("[data-testid=name-field]");
  document.querySelector("[data-testid=edit]").onclick = async () => {
    field.value = (await (await fetch("/api/state")).json()).node.name;
    document.getElementById("tray").classList.add("open");
  };
  document.querySelector("[data-testid=save]").onclick = () =>
    post("/api/node", { name: field.value }).then((node) => {
      document.getElementById("tray").classList.remove("open");
      status.textContent = "Saved name: " + node.name;
    });`,
    ),
  "/records": () =>
    page(
      "Records",
      `<h1>Records</h1><ul id="records"></ul>
<div class="backdrop" id="backdrop"><div class="modal"><p id="question">Delete this record? This cannot be
  undone, and it takes a few lines of text to say so.</p><button data-testid="confirm-delete">Delete it</button>
  <button data-testid="cancel-delete">Keep it</button></div></div>`,
      `let pending = null;
  const list = document.getElementById("records");
  const draw = (records) => list.replaceChildren(...records.map((r) => {
    const li = document.createElement("li");
    li.innerHTML = r.title + ' <button data-testid="delete-' + r.id + '">Delete</button>';
    li.querySelector("button").onclick = () => {
      pending = r.id;
      document.getElementById("question").textContent = "Delete " + r.title + "? This cannot be undone.";
      document.getElementById("backdrop").classList.add("open");
    };
    return li;
  }));
  fetch("/api/state").then((r) => r.json()).then((s) => draw(s.records));
  const close = () => document.getElementById("backdrop").classList.remove("open");
  document.querySelector("[data-testid=cancel-delete]").onclick = close;
  document.querySelector("[data-testid=confirm-delete]").onclick = () =>
    post("/api/delete", { id: pending }).then((s) => { close(); draw(s.records); status.textContent = "Deleted"; });`,
    ),
  "/archive": () =>
    page(
      "Archive",
      `<h1>Archive</h1><p>Archiving moves every message out of the inbox.</p>
<button data-testid="archive-all">Archive all</button>`,
      `document.querySelector("[data-testid=archive-all]").onclick = () => {
    // Recorded before the dialog opens: the checks can tell "asked and declined" from "never asked".
    navigator.sendBeacon("/api/asked?trial=" + encodeURIComponent(document.body.dataset.trial));
    if (confirm("Archive all messages?")) post("/api/archive").then(() => (status.textContent = "Archived"));
    else status.textContent = "Kept";
  };`,
    ),
};

function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(value));
}

async function readJson(req) {
  let text = "";
  for await (const chunk of req) text += chunk;
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

/** The API the pages call and the checks read; `trial` is the request's trial (header, else ?trial=). */
async function api(req, res, url, trial) {
  const w = world(trial);
  const route = `${req.method} ${url.pathname}`;
  if (route === "POST /__umpire/reset") {
    worlds.set(trial, seed());
    return res.writeHead(204).end();
  }
  if (route === "GET /api/state") return json(res, 200, w);
  if (route === "GET /api/messages") {
    const delay = Number(url.searchParams.get("delay") ?? listDelayMs);
    return setTimeout(() => json(res, 200, w.messages), Number.isFinite(delay) ? delay : listDelayMs);
  }
  const body = req.method === "POST" ? await readJson(req) : {};
  if (route === "POST /api/open") {
    w.opened.push(String(body.name));
    return json(res, 200, { opened: w.opened });
  }
  if (route === "POST /api/clear") {
    w.messages = [];
    return json(res, 200, { messages: [] });
  }
  if (route === "POST /api/node") {
    w.node.name = String(body.name ?? "").trim();
    return json(res, 200, w.node);
  }
  if (route === "POST /api/delete") {
    w.records = w.records.filter((r) => r.id !== body.id);
    return json(res, 200, w);
  }
  if (route === "POST /api/asked") {
    w.archive.asked += 1;
    return res.writeHead(204).end();
  }
  if (route === "POST /api/archive") {
    w.archive.archived = true;
    w.messages = [];
    return json(res, 200, w.archive);
  }
  return json(res, 404, { error: `no route ${route}` });
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  const trial = String(req.headers["x-umpire-trial"] ?? url.searchParams.get("trial") ?? "default");
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/__umpire/"))
    return void api(req, res, url, trial).catch((e) => json(res, 500, { error: String(e) }));
  const body = pages[url.pathname];
  if (!body) return res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  // The page knows its trial, for the one request a page makes without its headers (sendBeacon).
  res
    .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
    .end(body().replace("<body>", `<body data-trial="${trial.replace(/[^A-Za-z0-9._-]/g, "")}">`));
});
server.listen(port, "127.0.0.1", () => console.log(`settling app on http://127.0.0.1:${port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
