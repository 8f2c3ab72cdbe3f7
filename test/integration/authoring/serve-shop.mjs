// The shop app as a target's start command would run it: serves this folder's shop-app/ on $PORT.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

const root = join(import.meta.dirname, "shop-app");
createServer(async (req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const name = path === "/" ? "index.html" : path.slice(1);
  if (!/^[a-z-]+\.html$/.test(name)) return res.writeHead(404).end();
  // Read first: a missing page is a 404, not a second writeHead after the 200.
  const page = await readFile(join(root, name)).catch(() => null);
  if (!page) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
}).listen(Number(process.env.PORT), "127.0.0.1");
