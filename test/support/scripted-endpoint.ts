/**
 * A model endpoint as real servers behave, written in the test: node:http on 127.0.0.1, every
 * request recorded (method, URL as sent, headers, body), each answer decided by the test's handler.
 * For what the reference model does not do: list nothing or only aliases, echo what it was sent.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  /** Path and query string exactly as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface Answer {
  status?: number;
  json: unknown;
  /** Close the connection without an answer (a dropped connection: "other side closed"). */
  drop?: boolean;
}

export interface ScriptedEndpoint {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startScriptedEndpoint(answer: (request: SeenRequest) => Answer): Promise<ScriptedEndpoint> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => {
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const seen = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body };
      requests.push(seen);
      const { status = 200, json, drop } = answer(seen);
      if (drop) {
        req.socket.destroy();
        return;
      }
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

/** A chat completion whose message content is `content`. */
export function completion(content: string): unknown {
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "scripted",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}

/** A structured-mode step that answers `content`. */
export function answerStep(content: string): unknown {
  return completion(JSON.stringify({ note: null, thought: "answering", tool_call: { tool_name: "answer", content } }));
}
