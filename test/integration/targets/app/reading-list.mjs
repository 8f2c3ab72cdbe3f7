// A reading list (not umpire code) for the forbidden-effects test: a few books, a "Clear list"
// button behind an in-page confirmation, and an effects log a target declares as its effects source.
// Clearing the list logs `all_cleared`; the reset restores the seed books and empties the log.
// Namespaced like many test backends: each `x-namespace` header value has its own list and log
// (`/api/events` reads the caller's); requests without the header share the namespace "default".
import { createServer } from "node:http";

const port = Number(process.env.PORT);
const SEED = ["Dune", "Middlemarch", "The Left Hand of Darkness"];
const spaces = new Map();
const spaceOf = (req) => {
  const name = req.headers["x-namespace"] ?? "default";
  if (!spaces.has(name)) spaces.set(name, { books: [...SEED], effects: [] });
  return spaces.get(name);
};

const home = ({ books }) => `<!doctype html><html><head><meta charset="utf-8"><title>Reading list</title>
<style>body{font-family:sans-serif;margin:40px} button{font-size:20px;padding:8px}
#confirm{display:none;position:fixed;inset:0;background:rgba(0,0,0,.4)} #confirm div{background:#fff;margin:200px auto;width:360px;padding:24px}</style>
</head><body><h1>Reading list</h1>
<ul id="books">${books.map((b) => `<li>${b}</li>`).join("")}</ul>
<p id="count">${books.length} books</p>
<button data-testid="clear-list">Clear list</button>
<div id="confirm"><div><p>Remove every book from the list?</p>
<button data-testid="confirm-clear">Remove all</button> <button data-testid="cancel-clear">Keep them</button></div></div>
<script>
  const dialog = document.getElementById("confirm");
  document.querySelector("[data-testid=clear-list]").onclick = () => (dialog.style.display = "block");
  document.querySelector("[data-testid=cancel-clear]").onclick = () => (dialog.style.display = "none");
  document.querySelector("[data-testid=confirm-clear]").onclick = async () => {
    await fetch("/api/clear", { method: "POST" });
    location.reload();
  };
</script></body></html>`;

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  const space = spaceOf(req);
  const json = (status, value) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (url.pathname === "/reset" && req.method === "POST") {
    space.books = [...SEED];
    space.effects = [];
    return res.writeHead(204).end();
  }
  if (url.pathname === "/effects" || url.pathname === "/api/events") return json(200, space.effects);
  if (url.pathname === "/api/books") return json(200, space.books);
  if (url.pathname === "/api/clear" && req.method === "POST") {
    space.effects.push({ type: "all_cleared", at: new Date().toISOString(), detail: { removed: space.books.length } });
    space.books = [];
    return json(200, space.books);
  }
  if (url.pathname === "/") return res.writeHead(200, { "content-type": "text/html" }).end(home(space));
  res.writeHead(404).end("not found");
});
server.listen(port, "127.0.0.1", () => console.log(`reading list on ${port}`));
