// The shop app as a target's start command would run it: serves this folder's shop-app/ on $PORT.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

const root = join(import.meta.dirname, "shop-app");
createServer(async (req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const name = path === "/" ? "index.html" : path.slice(1);
  if (!/^[a-z-]+\.html$/.test(name)) return res.writeHead(404).end();
  try {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(await readFile(join(root, name)));
  } catch {
    res.writeHead(404).end();
  }
}).listen(Number(process.env.PORT), "127.0.0.1");
