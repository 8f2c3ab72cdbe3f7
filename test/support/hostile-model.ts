/**
 * A hostile OpenAI-compatible model for attack tests through the real CLI: a real HTTP server on
 * 127.0.0.1 that answers each chat completion (function-calling layout) with the tool calls a test
 * script returns for that trial and turn. The script may also act on the machine before answering
 * (plant a symlink in the trial's workspace, say), which is how a test times an attack to the
 * moment the trial is running. `GET /models` lists the model, so a preflight finds it.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";

export interface HostileCall {
  name: string;
  args: Record<string, unknown>;
}

/** Returns the calls for turn `turn` (from 1) of trial `trialId` (the request's `user`). */
export type HostileScript = (trialId: string, turn: number) => HostileCall[] | Promise<HostileCall[]>;

export interface HostileModel {
  baseUrl: string;
  /** The server's origin, where `pages` are served. */
  origin: string;
  model: string;
  /** Trial ids in the order their first request arrived. */
  trials: string[];
  close(): Promise<void>;
}

/**
 * `pages` (path -> HTML) are served from the same server, so a test can put hostile page content
 * on an origin a task allows.
 */
export async function startHostileModel(
  script: HostileScript,
  model = "hostile",
  pages: Record<string, string> = {},
): Promise<HostileModel> {
  const turns = new Map<string, number>();
  const trials: string[] = [];
  const app = express();
  app.use(express.json({ limit: "100mb" }));
  for (const [path, html] of Object.entries(pages)) app.get(path, (_req, res) => void res.type("html").send(html));
  app.get(/\/models$/, (_req, res) => {
    res.json({ object: "list", data: [{ id: model, object: "model", created: 0, owned_by: "test" }] });
  });
  app.post(/\/chat\/completions$/, async (req, res) => {
    const trialId = String(req.body?.user ?? "unknown");
    const turn = (turns.get(trialId) ?? 0) + 1;
    turns.set(trialId, turn);
    if (turn === 1) trials.push(trialId);
    let calls: HostileCall[];
    try {
      calls = await script(trialId, turn);
    } catch (e) {
      res.status(500).json({ error: { message: `hostile script failed: ${(e as Error).message}` } });
      return;
    }
    res.json({
      id: `chatcmpl-${trialId}-${turn}`,
      object: "chat.completion",
      created: 1_700_000_000,
      model,
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: calls.map((c, i) => ({
              id: `call_${turn}_${i}`,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          },
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    });
  });
  app.use((_req, res) => void res.status(404).json({ error: { message: "not found" } }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    model,
    trials,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The CLI arguments that point `umpire run` at a hostile model, and the env it needs. */
export function hostileRunArgs(model: HostileModel): { args: string[]; env: Record<string, string> } {
  return {
    args: ["--base-url", model.baseUrl, "--model", model.model, "--mode", "tools"],
    env: { HAI_API_KEY: "test-key-not-secret" },
  };
}
