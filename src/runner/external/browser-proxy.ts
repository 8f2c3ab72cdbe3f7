/**
 * The network under a command agent's trial browser: Chromium sends every connection through this
 * proxy (`--proxy-server`, with loopback no longer bypassed), and only the task's origins pass.
 *
 * Why a proxy when the context already has a route guard: the route guard (and Playwright's
 * `routeWebSocket`) work inside the browser's own machinery. A page's WebSocket never reaches
 * `route`, and `routeWebSocket` patches the page's main world only: a script the agent runs in an
 * isolated world, or a worker, opens a native socket to any local port (the sibling trial's relay,
 * its model proxy, any service on the machine). Chromium tunnels WebSockets through the proxy with
 * CONNECT, so here every one is judged by its destination, whatever opened it, and each refusal is
 * reported for the trial log.
 */
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest, Agent } from "node:http";
import { connect, type Socket } from "node:net";

export interface ProxyRefusal {
  /** What was asked: an absolute URL, or `host:port` for a tunnel (a WebSocket, an https connection). */
  url: string;
  method: string;
}

export interface BrowserProxy {
  /** The proxy's address for Chromium's `--proxy-server`. */
  readonly url: string;
  /** The origins whose host and port may be reached (http: and https:, and ws:/wss: to the same host:port). */
  allow(origins: Iterable<string>): void;
  onRefused(listener: (refusal: ProxyRefusal) => void): void;
  close(): Promise<void>;
}

/** `host:port` of an origin, lower case, with the scheme's default port. */
export function hostPortOf(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    return `${url.hostname.toLowerCase()}:${port}`;
  } catch {
    return null;
  }
}

export async function startBrowserProxy(): Promise<BrowserProxy> {
  const allowed = new Set<string>();
  const allowedOrigins = new Set<string>();
  let refused: (refusal: ProxyRefusal) => void = () => undefined;
  const sockets = new Set<Socket>();
  const keepAlive = new Agent({ keepAlive: true });

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (url.protocol !== "http:" || !allowedOrigins.has(url.origin)) {
      refused({ url: url.href.slice(0, 2000), method: req.method ?? "GET" });
      res.writeHead(403, { "content-type": "text/plain" }).end("umpire: not an origin of the task\n");
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = httpRequest(
      {
        host: url.hostname,
        port: url.port || 80,
        method: req.method,
        path: url.pathname + url.search,
        headers,
        agent: keepAlive,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };

  const server = createServer(forward);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (req: IncomingMessage, inside: Socket, head: Buffer) => {
    const destination = (req.url ?? "").toLowerCase();
    inside.on("error", () => undefined);
    if (!allowed.has(destination)) {
      refused({ url: destination.slice(0, 300), method: "CONNECT" });
      inside.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    const at = destination.lastIndexOf(":");
    const outside = connect(Number(destination.slice(at + 1)), destination.slice(0, at).replace(/^\[|\]$/g, ""));
    outside.once("connect", () => {
      inside.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) outside.write(head);
      inside.pipe(outside).pipe(inside);
    });
    outside.on("error", () => inside.destroy());
    inside.on("close", () => outside.destroy());
  });
  // A proxy never upgrades a connection itself: Chromium tunnels WebSockets with CONNECT.
  server.on("upgrade", (req: IncomingMessage, socket: Socket) => {
    refused({ url: String(req.url ?? "").slice(0, 2000), method: "UPGRADE" });
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    allow(origins) {
      for (const origin of origins) {
        const hostPort = hostPortOf(origin);
        if (!hostPort) continue;
        allowed.add(hostPort);
        allowedOrigins.add(new URL(origin).origin);
      }
    },
    onRefused(listener) {
      refused = listener;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      keepAlive.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
