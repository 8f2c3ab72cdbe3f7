// A server that records every request it receives (method, URL, headers, body), for the test that
// proves each request field of a target and a task is sent with the trial variables filled in.
// GET /__recorded lists them (and is not recorded); /effects... answers an empty effects log.
import { createServer } from "node:http";

const recorded = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    if (req.url === "/__recorded") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(recorded));
    }
    recorded.push({ method: req.method, url: req.url, headers: req.headers, body });
    if (req.url?.startsWith("/effects")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("[]");
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>recorded</title><p>recorded</p>");
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1");
