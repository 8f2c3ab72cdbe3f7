/**
 * The reference model: an OpenAI-compatible chat-completions server that plays each task's
 * reference trajectory (or a fault profile) one action per turn, grounded on the live layout
 * of the trial's fixture session. umpire starts it itself, so the whole harness runs offline.
 *
 * Routes: `POST /v1/chat/completions` (structured and tools modes, streamed or not),
 * `GET /v1/models`, `GET /v1/models/:id`. Every request is linted against the Holo conventions;
 * violations go to the `x-umpire-lint` header and the log, and in strict mode make a 400.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { setMaxListeners } from "node:events";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { performance } from "node:perf_hooks";
import { AttemptCounter } from "./attempts.js";
import { asPageLayout, type LayoutSource, type PageLayout } from "./grounding.js";
import { lintHeaderValue, lintRequest, type Violation } from "./lint.js";
import { RequestLog, type RequestRecord } from "./log.js";
import { modelEntry, modelList } from "./models.js";
import { completionUsage, renderOutput, type AssistantOutput } from "./output.js";
import { lastScreenshotFrame, planTurn, type MarkWait, type ReferenceTask } from "./policy.js";
import {
  DEFAULT_TURN_JITTER_MS,
  DEFAULT_TURN_LATENCY_MS,
  flakyFault,
  parseReferenceModel,
  referenceModelIds,
  turnLatencyMs,
  type HttpFault,
  type ProfileName,
} from "./profiles.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { readProgress } from "./progress.js";
import { isRecord, messagesOf, requestMode } from "./request.js";
import { promptTokens } from "./usage.js";
import { completionBody, completionChunks, completionMeta, errorBody, makeUsage, sseEvent, SSE_DONE } from "./wire.js";
import { messageOf } from "../errors.js";
import { lintVendorRequest } from "./vendor-lint.js";
import {
  chatFromMessages,
  chatFromResponses,
  declaresComputerToolset,
  messagesBody,
  responsesBody,
  type ChatView,
  type Vendor,
} from "./vendor-wire.js";
import { chatFromGenerateContent, geminiCall, generateContentBody, lastPoint } from "./gemini-wire.js";

export interface ReferenceModelOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Where layouts are read (the fixture site's control client); without it, targets cannot be grounded. */
  fixtures?: LayoutSource;
  /** Tasks to recognise; only instruction, reference and negatives are read. */
  tasks: readonly ReferenceTask[];
  /** The patience for a step's mark not on the page yet (policy.ts MARK_WAIT by default; UMPIRE_MARK_WAIT). */
  markWait?: MarkWait;
  /** Answer 400 to requests that break a Holo convention (umpire's own tests run strict). */
  strict?: boolean;
  /** Profile for the model id `reference`; default `gold`. */
  profile?: ProfileName;
  /** Seed of every deterministic choice (misclick offsets, malformed kinds, flaky faults); a request's `seed` overrides it. */
  seed?: number;
  /** Latency the `slow` profile adds before the first byte; default 1500 ms. */
  latencyMs?: number;
  /** The `latency` profile's wait per turn (default 2000 ms) and its jitter (+/-, default 400 ms). */
  turnLatencyMs?: number;
  jitterMs?: number;
  /** A request/token limit per window over every completion request; over it, 429 with retry-after. */
  rateLimit?: RateLimitOptions;
  /** Receives one line per request (serve-model prints them). */
  onLogLine?: (line: string) => void;
  /** Request bodies kept in the log (most recent); default 200. */
  keepBodies?: number;
  /**
   * When set, every /v1 request must carry `Authorization: Bearer <apiKey>` (401 otherwise), like
   * a real provider; so umpire's preflight and auth errors can be tested against it. Unset: open.
   */
  apiKey?: string;
}

export interface ReferenceModel {
  /** Ends with `/v1`, ready for the openai SDK's `baseURL`. */
  baseUrl: string;
  log: RequestLog;
  /** 429s answered by the rate limit (0 without one). */
  rateLimited(): number;
  close(): Promise<void>;
}

const DEFAULT_SLOW_MS = 1_500;

/** Starts the reference model on `host:port`; resolves once it listens. */
export async function startReferenceModel(options: ReferenceModelOptions): Promise<ReferenceModel> {
  const log = new RequestLog(options.keepBodies ?? 200, options.onLogLine);
  const attempts = new AttemptCounter();
  const closing = new AbortController();
  // Every request waiting out its latency listens here (each removes its listener when done):
  // 16 trials in flight is 16 listeners, not a leak (Node warns past 10).
  setMaxListeners(0, closing.signal);
  const defaultProfile = options.profile ?? "gold";
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : null;
  const app = express();
  app.disable("x-powered-by");
  // Stamped before the body is read and parsed, so the server's time includes JSON parsing.
  app.use((_req, res, next) => {
    res.locals.arrivedAt = performance.now();
    next();
  });
  app.use(express.json({ limit: "64mb" }));
  if (options.apiKey !== undefined) {
    const expected = `Bearer ${options.apiKey}`;
    app.use("/v1", (req, res, next) => {
      if (req.headers.authorization === expected) return next();
      const message = req.headers.authorization
        ? "Incorrect API key provided"
        : "No API key provided: send Authorization: Bearer <key>";
      res.status(401).json(errorBody(message, "invalid_request_error", "invalid_api_key"));
    });
  }

  app.get("/v1/models", (_req, res) => {
    res.json(modelList());
  });
  app.get("/v1/models/:id", (req, res) => {
    const id = String(req.params.id);
    if (referenceModelIds().includes(id)) res.json(modelEntry(id));
    else
      res.status(404).json(errorBody(`The model '${id}' does not exist`, "invalid_request_error", "model_not_found"));
  });

  app.post("/v1/chat/completions", completionHandler({ options, log, attempts, closing, defaultProfile, limiter }));
  // The vendors' computer-use protocols (vendor-wire.ts). Anthropic's SDK appends /v1/messages to
  // its base URL, so umpire's base URL (ending in /v1) reaches it as /v1/v1/messages.
  const vendorContext = { options, log, closing, defaultProfile, attempts, limiter };
  const geminiHandler = vendorHandler("gemini", vendorContext);
  app.post("/v1/responses", vendorHandler("openai", vendorContext));
  app.post(["/v1/messages", "/v1/v1/messages"], vendorHandler("anthropic", vendorContext));
  // Gemini's SDK appends /v1beta/models/{model}:generateContent to its base URL (the model is in the path).
  app.post(["/v1beta/models/:call", "/v1/v1beta/models/:call"], (req, res, next) => {
    const { model, method } = geminiCall(String(req.params.call));
    if (method !== "generateContent") return next();
    res.locals.model = model;
    return geminiHandler(req, res);
  });

  app.use((req, res) => {
    res
      .status(404)
      .json(
        errorBody(
          `No route ${req.method} ${req.path}; the reference model serves /v1/chat/completions and /v1/models`,
          "invalid_request_error",
          "not_found",
        ),
      );
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status =
      typeof (error as { status?: unknown }).status === "number" ? (error as { status: number }).status : 500;
    const message =
      status === 400 ? `The body is not valid JSON: ${messageOf(error)}` : `Internal error: ${messageOf(error)}`;
    if (!res.headersSent)
      res
        .status(status)
        .json(
          errorBody(
            message,
            status === 400 ? "invalid_request_error" : "server_error",
            status === 400 ? "invalid_json" : "server_error",
          ),
        );
  });

  const server = await listen(app, options.port ?? 0, options.host ?? "127.0.0.1");
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    baseUrl: `http://${host}:${address.port}/v1`,
    log,
    rateLimited: () => limiter?.rejected ?? 0,
    close: async () => {
      closing.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** What the chat completions handler shares with the server around it. */
interface CompletionContext {
  options: ReferenceModelOptions;
  log: RequestLog;
  attempts: AttemptCounter;
  /** Aborted when the server closes: requests waiting out their latency stop waiting. */
  closing: AbortController;
  defaultProfile: ProfileName;
  limiter: RateLimiter | null;
}

type PendingRecord = Omit<RequestRecord, "seq" | "at" | "status" | "outcome" | "serverMs">;

/** What the request log keeps of a request before it is answered. */
function newRecord(req: Request, body: unknown): PendingRecord {
  return {
    method: req.method,
    path: req.path,
    model: isRecord(body) && typeof body.model === "string" ? body.model : null,
    profile: null,
    user: isRecord(body) && typeof body.user === "string" ? body.user : null,
    mode: null,
    stream: isRecord(body) && body.stream === true,
    taskId: null,
    turn: null,
    step: null,
    trajectory: null,
    tool: null,
    lint: [],
    body,
  };
}

/**
 * The policy's plan for this turn (every route asks it the same way: the trial's layout and scenario
 * read from the fixture session `user` names), written into the request's log record.
 */
async function planRecorded(
  record: PendingRecord,
  messages: Parameters<typeof planTurn>[0],
  user: string | null,
  turn: {
    options: ReferenceModelOptions;
    profile: ProfileName;
    negative: Parameters<typeof planTurn>[1]["negative"];
    seed: number;
  },
): ReturnType<typeof planTurn> {
  const { options } = turn;
  const plan = await planTurn(messages, {
    tasks: options.tasks,
    profile: turn.profile,
    negative: turn.negative,
    seed: turn.seed,
    layout: () => readLayout(options.fixtures, user),
    scenario: () => readScenario(options.fixtures, user),
    ...(options.markWait ? { markWait: options.markWait } : {}),
  });
  Object.assign(record, {
    taskId: plan.taskId,
    step: plan.step,
    trajectory: plan.trajectory,
    ...(plan.missing ? { missing: plan.missing } : {}),
  });
  return plan;
}

/**
 * Charged like hosted limits: the prompt plus the response allowance the request reserves. A request
 * over the limit is answered 429 with retry-after (seconds) and retry-after-ms; true when it was.
 */
function refusedByRateLimit(limiter: RateLimiter, res: Response, tokens: number): boolean {
  const admitted = limiter.admit(tokens);
  if (admitted.ok) return false;
  res.status(429).setHeader("retry-after", String(Math.max(1, Math.ceil(admitted.retryAfterMs / 1000))));
  res.setHeader("retry-after-ms", String(admitted.retryAfterMs));
  res.json(
    errorBody(
      `Rate limit reached for ${admitted.limit}; retry after ${admitted.retryAfterMs} ms`,
      "rate_limit_error",
      "rate_limit_exceeded",
    ),
  );
  return true;
}

/** The flaky-http profile's answers that are not a completion: a 500, or a 429 asking for a retry after 1 s. */
function sendFault(fault: "server-error" | "rate-limited", res: Response): void {
  if (fault === "server-error") {
    res
      .status(500)
      .json(errorBody("The reference model failed on purpose (profile flaky-http)", "server_error", "server_error"));
    return;
  }
  res.status(429).setHeader("retry-after", "1");
  res.json(
    errorBody(
      "Rate limit reached (profile flaky-http); retry after 1 second",
      "rate_limit_error",
      "rate_limit_exceeded",
    ),
  );
}

/** The slow profile's fixed wait and the latency profile's seeded per-turn wait, before the answer. */
async function profileLatency(
  profile: ProfileName,
  options: ReferenceModelOptions,
  seed: number,
  user: string | null,
  turn: number,
  signal: AbortSignal,
): Promise<void> {
  if (profile === "slow") await delay(options.latencyMs ?? DEFAULT_SLOW_MS, signal);
  if (profile === "latency") {
    const base = options.turnLatencyMs ?? DEFAULT_TURN_LATENCY_MS;
    await delay(turnLatencyMs(seed, user, turn, base, options.jitterMs ?? DEFAULT_TURN_JITTER_MS), signal);
  }
}

/** POST /v1/chat/completions: checks, lints and logs the request, then answers with the planned turn (faults and latency per profile). */
function completionHandler(ctx: CompletionContext) {
  const { options, log, attempts, closing, defaultProfile, limiter } = ctx;
  return async (req: Request, res: Response) => {
    const started = typeof res.locals.arrivedAt === "number" ? res.locals.arrivedAt : performance.now();
    const body: unknown = req.body;
    const record = newRecord(req, body);
    const finish = (status: number, outcome: string) =>
      log.add({ ...record, status, outcome, serverMs: performance.now() - started });
    const violations: Violation[] = lintRequest(body, req.headers);
    record.lint = violations;
    res.setHeader("x-umpire-lint", lintHeaderValue(violations));
    if (!isRecord(body)) {
      res
        .status(400)
        .json(errorBody("The request body must be a JSON object", "invalid_request_error", "invalid_request"));
      return void finish(400, "invalid_request");
    }
    const parsedModel = parseReferenceModel(body.model, defaultProfile);
    const profile = parsedModel?.profile;
    if (!parsedModel || !profile) {
      res
        .status(404)
        .json(
          errorBody(
            `The model '${String(body.model)}' does not exist; use one of: ${referenceModelIds().join(", ")}`,
            "invalid_request_error",
            "model_not_found",
          ),
        );
      return void finish(404, "model_not_found");
    }
    record.profile = profile;
    if (options.strict && violations.length > 0) {
      const summary = violations.map((v) => `${v.rule} at ${v.path}: ${v.message}`).join("; ");
      res.status(400).json(
        errorBody(`The request breaks Holo conventions: ${summary}`, "invalid_request_error", "umpire_lint", {
          violations,
        }),
      );
      return void finish(400, "lint");
    }
    const messages = messagesOf(body);
    if (messages.length === 0) {
      res
        .status(400)
        .json(
          errorBody("`messages` must be a non-empty array of messages", "invalid_request_error", "invalid_request"),
        );
      return void finish(400, "invalid_request");
    }
    const seed = Number.isInteger(body.seed) ? (body.seed as number) : (options.seed ?? 0);
    const progress = readProgress(messages);
    record.turn = progress.turn;
    const maxTokens = [body.max_completion_tokens, body.max_tokens].find(
      (v): v is number => typeof v === "number" && v > 0,
    );
    if (limiter && refusedByRateLimit(limiter, res, promptTokens(body, messages) + (maxTokens ?? 0)))
      return void finish(429, "rate-limited");
    const fault: HttpFault = profile === "flaky-http" ? flakyFault(seed, progress.turn, attempts.next(body)) : "none";
    if (fault === "server-error" || fault === "rate-limited") {
      sendFault(fault, res);
      return void finish(fault === "server-error" ? 500 : 429, fault);
    }

    const mode = requestMode(body);
    record.mode = mode;
    const plan = await planRecorded(record, messages, record.user, {
      options,
      profile,
      negative: parsedModel.negative,
      seed,
    });
    const output = renderOutput(plan, { mode, profile, seed, maxTokens, frame: lastScreenshotFrame(messages) });
    record.tool =
      output.toolCalls[0]?.name ??
      ((mode === "structured" || mode === "plain" || mode === "ui-tars") && output.kind === "action"
        ? plan.action.tool
        : null);
    const { completionTokens, reasoningTokens } = completionUsage(output);
    const usage = makeUsage(promptTokens(body, messages), completionTokens, reasoningTokens);
    const meta = completionMeta(String(body.model));
    const serverMs = performance.now() - started;
    res.setHeader("x-umpire-server-ms", serverMs.toFixed(2));

    await profileLatency(profile, options, seed, record.user, progress.turn, closing.signal);
    const outcome = fault === "dropped-connection" ? fault : output.kind;
    log.add({ ...record, status: 200, outcome, serverMs });
    if (!record.stream) {
      const text = JSON.stringify(completionBody(output, meta, usage));
      if (fault === "dropped-connection") return dropMidway(res, "application/json", [text]);
      res.status(200).type("application/json").send(text);
      return;
    }
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    const events = [...completionChunks(output, meta, usage, includeUsage).map(sseEvent), SSE_DONE];
    if (fault === "dropped-connection") return dropMidway(res, "text/event-stream", events);
    res.status(200).setHeader("content-type", "text/event-stream; charset=utf-8");
    res.setHeader("cache-control", "no-cache");
    res.end(events.join(""));
  };
}

interface VendorContext {
  options: ReferenceModelOptions;
  log: RequestLog;
  closing: AbortController;
  defaultProfile: ProfileName;
  attempts: AttemptCounter;
  limiter: RateLimiter | null;
}

/**
 * A vendor protocol's request: read as the Holo tools-mode conversation it is equivalent to, decided
 * by the same policy and profile, answered in the vendor's own shape. The lint checks it against
 * the vendor's documented rules (vendor-lint.ts).
 */
function vendorHandler(vendor: Vendor, ctx: VendorContext) {
  const { options, log, closing, defaultProfile, attempts, limiter } = ctx;
  return async (req: Request, res: Response) => {
    const started = performance.now();
    const body: unknown = req.body;
    const record = newRecord(req, body);
    const violations = lintVendorRequest(vendor, body, req.headers);
    record.lint = violations;
    res.setHeader("x-umpire-lint", lintHeaderValue(violations));
    const finish = (status: number, outcome: string) =>
      log.add({ ...record, status, outcome, serverMs: performance.now() - started });
    // Gemini names the model in the path, not the body.
    const modelId: unknown = vendor === "gemini" ? res.locals.model : isRecord(body) ? body.model : undefined;
    record.model = typeof modelId === "string" ? modelId : record.model;
    const parsedModel = isRecord(body) ? parseReferenceModel(modelId, defaultProfile) : null;
    if (!isRecord(body) || !parsedModel?.profile) {
      res
        .status(404)
        .json(
          errorBody(`The model '${String(modelId ?? "")}' does not exist`, "invalid_request_error", "model_not_found"),
        );
      return void finish(404, "model_not_found");
    }
    if (options.strict && violations.length > 0) {
      const summary = violations.map((v) => `${v.rule} at ${v.path}: ${v.message}`).join("; ");
      res
        .status(400)
        .json(
          errorBody(
            `The request breaks ${vendor}'s documented rules: ${summary}`,
            "invalid_request_error",
            "umpire_lint",
            { violations },
          ),
        );
      return void finish(400, "lint");
    }
    const view =
      vendor === "gemini"
        ? chatFromGenerateContent(body, req.headers)
        : vendor === "openai"
          ? chatFromResponses(body)
          : chatFromMessages(body);
    record.user = view.user;
    const profile = parsedModel.profile;
    record.profile = profile;
    record.mode = vendor;
    const seed = options.seed ?? 0;
    const progress = readProgress(view.messages);
    record.turn = progress.turn;
    const generation = isRecord(body.generationConfig) ? body.generationConfig : {};
    const maxTokens = [body.max_output_tokens, body.max_tokens, generation.maxOutputTokens].find(
      (v): v is number => typeof v === "number" && v > 0,
    );
    // The rate limit and flaky-http's faults are HTTP's, so every route answers them as chat completions does.
    const prompt = promptTokens({ messages: view.messages }, view.messages);
    if (limiter && refusedByRateLimit(limiter, res, prompt + (maxTokens ?? 0))) return void finish(429, "rate-limited");
    const fault: HttpFault = profile === "flaky-http" ? flakyFault(seed, progress.turn, attempts.next(body)) : "none";
    if (fault === "server-error" || fault === "rate-limited") {
      sendFault(fault, res);
      return void finish(fault === "server-error" ? 500 : 429, fault);
    }
    const plan = await planRecorded(record, view.messages, view.user, {
      options,
      profile,
      negative: parsedModel.negative,
      seed,
    });
    const output = renderOutput(plan, { mode: "tools", profile, seed, maxTokens });
    record.tool = output.toolCalls[0]?.name ?? null;
    const { completionTokens } = completionUsage(output);
    await profileLatency(profile, options, seed, view.user, progress.turn, closing.signal);
    const model = String(modelId);
    const reply =
      vendor === "gemini"
        ? generateContentBody(
            output,
            await cssViewport(output, view, options.fixtures),
            model,
            geminiUsage(prompt, completionTokens),
            lastPoint(body),
          )
        : vendor === "openai"
          ? responsesBody(
              output,
              { ...view.frame, viewport: await cssViewport(output, view, options.fixtures) },
              model,
              {
                input_tokens: prompt,
                input_tokens_details: { cached_tokens: 0 },
                output_tokens: completionTokens,
                output_tokens_details: { reasoning_tokens: 0 },
                total_tokens: prompt + completionTokens,
              },
            )
          : messagesBody(
              output,
              view.frame,
              model,
              {
                input_tokens: prompt,
                cache_read_input_tokens: 0,
                cache_creation_input_tokens: 0,
                output_tokens: completionTokens,
              },
              declaresComputerToolset(body),
            );
    if (fault === "dropped-connection") {
      finish(200, fault);
      return dropMidway(res, "application/json", [JSON.stringify(reply)]);
    }
    res.status(200).json(reply);
    finish(200, output.kind);
  };
}

/** Gemini's usageMetadata for a turn (no cache and no thoughts in the reference model). */
function geminiUsage(prompt: number, completion: number): Record<string, number> {
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: completion,
    cachedContentTokenCount: 0,
    thoughtsTokenCount: 0,
    totalTokenCount: prompt + completion,
  };
}

/** The trial's fixture scenario, or null when it cannot be read. */
async function readScenario(fixtures: LayoutSource | undefined, user: string | null): Promise<string | null> {
  if (!fixtures?.getSession || !user) return null;
  return fixtures.getSession(user).then(
    (s) => s.scenario ?? null,
    () => null,
  );
}

/** Reads the trial's layout; a missing client, session or report is reported, never thrown. */
/**
 * The page's viewport in CSS pixels, which Gemini's scroll magnitude is a fraction of (and OpenAI's scroll
 * pixels a multiple of): the layout's, read
 * only for a turn that scrolls; without one, the screenshot (as at DPR 1).
 */
async function cssViewport(
  output: AssistantOutput,
  view: ChatView,
  fixtures: LayoutSource | undefined,
): Promise<ChatView["frame"]> {
  if (!output.toolCalls.some((c) => c.name === "scroll")) return view.frame;
  const { layout } = await readLayout(fixtures, view.user);
  return layout?.viewport ?? view.frame;
}

async function readLayout(
  fixtures: LayoutSource | undefined,
  user: string | null,
): Promise<{ layout: PageLayout | null; problem?: string }> {
  if (!fixtures) return { layout: null, problem: "the reference model was started without a fixture site" };
  if (!user) return { layout: null, problem: "the request has no `user` field naming the fixture session" };
  try {
    const layout = asPageLayout(await fixtures.layout(user));
    return layout ? { layout } : { layout: null, problem: `session ${user} has reported no layout` };
  } catch (error) {
    return { layout: null, problem: `reading the layout of session ${user} failed: ${messageOf(error)}` };
  }
}

/** Sends about half of the response, then destroys the socket: a connection dropped mid-stream. */
function dropMidway(res: Response, contentType: string, parts: string[]): void {
  const whole = parts.join("");
  res.status(200).setHeader("content-type", contentType);
  if (contentType === "application/json") res.setHeader("content-length", String(Buffer.byteLength(whole)));
  res.flushHeaders();
  const cut =
    parts.length > 1
      ? parts.slice(0, Math.ceil(parts.length / 2)).join("")
      : whole.slice(0, Math.floor(whole.length / 2));
  res.write(cut, () => setTimeout(() => res.socket?.destroy(), 10));
}

function listen(app: express.Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
  });
}

/**
 * Waits `ms`, or less when `signal` (the server closing) aborts. The abort listener is removed when
 * the timer fires: the signal lives as long as the server, so a listener per request would pile up
 * (MaxListenersExceededWarning after 10 slow requests).
 */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
