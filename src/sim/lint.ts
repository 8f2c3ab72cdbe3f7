/**
 * Conformance lint: checks one chat-completions request body against the Holo agent-loop
 * conventions (shared/reference/000 "Agent loop", 001 "Structured outputs", holo-api-facts).
 * Pure: usable on a recorded request (`umpire lint request.json`) as well as by the reference
 * model, which runs it on every request it receives.
 */
import { COMPUTER_USE, computerUseTool, type QwenVersion } from "../agent/protocols/qwen-tool.js";
import { QWEN25_FACTOR, QWEN25_MAX_PIXELS, QWEN25_MIN_PIXELS, smartResize } from "../agent/protocols/smart-resize.js";
import { uiTarsPrompt } from "../agent/protocols/ui-tars-prompt.js";
import { decodeDataUri, sniffImageFormat } from "./image.js";
import { lastScreenshotFrame } from "./policy.js";
import { imagesOf, isObservation, isRecord, messagesOf, requestMode, textOf, type WireMessage } from "./request.js";

export interface Violation {
  /** Stable rule id, one of LINT_RULES' keys. */
  rule: LintRule;
  message: string;
  /** Where in the body, e.g. `messages[3].content[1]`; `$` for the body itself. */
  path: string;
}

/** Every rule, with the convention it enforces (shown by `umpire lint --rules`). */
export const LINT_RULES = {
  "body-shape":
    "The body is a JSON object; a chat-completions body has a `model` string and a non-empty `messages` array.",
  "no-extra-body":
    "No literal `extra_body` key: H-specific fields go at the top level of the body (the API ignores `extra_body`).",
  "enable-thinking": "Thinking stays on: `chat_template_kwargs.enable_thinking` is true.",
  "reasoning-effort": "`reasoning_effort`, when sent, is low, medium or high.",
  "output-format":
    "The request declares its output format: `structured_outputs.json` (structured mode) or `tools` (function calling).",
  "schema-in-both-places":
    "Structured mode: the same JSON Schema is in `structured_outputs.json` and in the system prompt's <output_format> block.",
  "no-structured-with-tools": "`structured_outputs` is never combined with `tools`.",
  "tool-choice-required": 'Function-calling mode sends `tool_choice: "required"`.',
  "no-tool-format-examples": "Function-calling mode: the system prompt holds no tool-format examples.",
  "tool-result-layout":
    'Structured mode: results are `user` messages `<tool_output tool="...">`, no `tool` role; function-calling mode: results are `tool` messages.',
  "tool-call-ids":
    "Function-calling mode: each `tool` message answers an earlier call by `tool_call_id`, and every call is answered.",
  "image-budget": "At most 3 images in the request (older screenshots evicted to a text placeholder).",
  "observation-wrapper":
    "Screenshots and their evicted placeholders stay inside `<observation>` ... `</observation>`; old observations are stripped, never dropped.",
  "no-reasoning-in-history":
    "Assistant messages in history carry no `reasoning`/`reasoning_content` and no `<think>` text.",
  "qwen-computer-use":
    "Qwen protocols: `tools` holds the `computer_use` function exactly as the version's cookbook defines it (description and parameters), no `tool_choice`, no Holo fields.",
  "qwen-screen":
    "Qwen protocols: the declared resolution is the coordinate space: Qwen2.5-VL's is smart_resize (factor 28) of the last screenshot, Qwen3-VL's 1000x1000.",
  "ui-tars-prompt":
    "UI-TARS: the first user message is the repository's computer-use prompt with the instruction filled in; no `tools`, no response format, no Holo fields.",
  "image-decodes": "Every image is a base64 PNG, JPEG or WebP data URI whose bytes match its type.",
  "auth-header": "An Authorization header, when sent, has the form `Bearer <key>`.",
  // OpenAI computer use (Responses API; vendor-lint.ts)
  "openai-computer-tool":
    'OpenAI: `tools` holds one computer tool, `{type: "computer"}`, or `computer_use_preview` with integer display_width/display_height and an environment.',
  "openai-preview-truncation": 'OpenAI: a `computer_use_preview` request sends `truncation: "auto"`.',
  "openai-call-outputs":
    "OpenAI: every computer_call in `input` is answered by one computer_call_output with its call_id and a computer_screenshot image, and no output answers an unknown call.",
  "openai-safety-acknowledged":
    "OpenAI: every pending safety check of a computer_call is acknowledged in its computer_call_output.",
  // Anthropic computer use (Messages API; vendor-lint.ts)
  "anthropic-computer-tool":
    "Anthropic (without the toolset): one computer tool (`computer_YYYYMMDD`, name `computer`, integer display_width_px/height_px) and its beta in `anthropic-beta` (checked when the headers were recorded).",
  "anthropic-computer-tool-version":
    "Anthropic (without the toolset): the computer tool's version is the one Anthropic's \"Computer use tool\" page documents for the request's `model` (docs/model-side.md lists them); a model id the page does not list (a proxy's alias, a newer model) is not checked. That its beta matches the tool is `anthropic-computer-tool`'s.",
  "anthropic-screenshot-scaling":
    "Anthropic: every screenshot is within 1568 px on its long edge and 1.15 megapixels, and the newest one has the declared display size (the toolset declares none).",
  "anthropic-tool-results":
    "Anthropic: every tool_use is answered by a tool_result with its id at the start of the next user message.",
  "anthropic-computer-toolset":
    "Anthropic computer toolset: one `computer_toolset_20260801` entry of only `type`, `configs` and `cache_control` (no `name`, no display size), `configs` keyed only by its 17 members, each an object; no single computer tool beside it and no beta needed.",
  "anthropic-toolset-results":
    'Anthropic computer toolset: a member\'s tool_use (`toolset_name: "computer"`) is answered by a tool_result carrying `toolset_name: "computer"`, and a plain tool_use\'s by one carrying none.',
  "anthropic-alternation": "Anthropic: messages start with `user` and alternate user / assistant.",
  "anthropic-cache-breakpoints": "Anthropic: at most 4 blocks carry `cache_control`.",
  // Gemini computer use (generateContent; gemini-lint.ts)
  "gemini-computer-tool":
    'Gemini: `tools` holds one `computerUse` tool with `environment: "ENVIRONMENT_BROWSER"`, excluding only predefined function names; declared functions do not reuse them.',
  "gemini-contents":
    "Gemini: `contents` starts with a `user` turn, every role is `user` or `model`, and two `model` turns never follow each other.",
  "gemini-function-responses":
    "Gemini: every functionCall of a model turn is answered, in order and by name (and id when it has one), by a functionResponse at the start of the next user turn.",
  "gemini-screenshot":
    "Gemini: a turn of computer-use calls is answered with the new screenshot as inlineData (a base64 PNG or JPEG) in a functionResponse's `parts`.",
  "gemini-safety-acknowledged":
    'Gemini: a functionCall carrying `safety_decision` is answered with `safety_acknowledgement: "true"` in its response.',
} as const;
export type LintRule = keyof typeof LINT_RULES;

export type RequestHeaders = Record<string, string | string[] | undefined>;

const MAX_IMAGES = 3;
const TOOL_FORMAT_EXAMPLE =
  /<output_format>|<tool_call>|<function=|"tool_name"\s*:|"tool_calls"\s*:|"arguments"\s*:|"function"\s*:\s*\{/;
const TOOL_OUTPUT_OPEN = /<tool_output\s+tool="[^"]+"\s*>/;
const THINK_TAG = /<\/?think>/i;

/** Lints one request body (and optionally its headers); returns every violation found, [] when conformant. */
export function lintRequest(body: unknown, headers?: RequestHeaders): Violation[] {
  const violations: Violation[] = [];
  const report = (rule: LintRule, path: string, message: string) => violations.push({ rule, path, message });
  if (headers) lintHeaders(headers, report);
  if (!isRecord(body)) {
    report("body-shape", "$", "the request body is not a JSON object");
    return violations;
  }
  if (typeof body.model !== "string" || body.model.length === 0) report("body-shape", "model", "`model` is missing");
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    report("body-shape", "messages", "`messages` is missing or empty");
    return violations;
  }
  const messages = messagesOf(body);
  if (messages.length !== body.messages.length)
    report("body-shape", "messages", "every message must be an object with a string `role`");

  lintExtraBody(body, report);
  const mode = requestMode(body);
  const qwen = mode === "qwen2.5-vl" ? "2.5" : mode === "qwen3-vl" ? "3" : null;
  // Thinking on and reasoning_effort are H's request fields; Qwen's protocol sends neither.
  if (!qwen && mode !== "ui-tars") lintThinking(body, report);
  if (mode === "ui-tars") lintUiTars(body, messages, report);
  if (isRecord(body.structured_outputs) && Array.isArray(body.tools) && body.tools.length > 0) {
    report(
      "no-structured-with-tools",
      "structured_outputs",
      "`structured_outputs` and `tools` are sent together; pick one output format",
    );
  }
  if (mode === "plain") lintNoOutputFormat(messages, report);
  if (mode === "structured") lintStructured(body, messages, report);
  if (mode === "tools") lintTools(body, messages, report);
  if (qwen) {
    lintQwen(body, messages, qwen, report);
    lintToolCallIds(messages, report);
  }
  lintImages(messages, report);
  lintObservations(messages, report);
  lintHistoryReasoning(messages, report);
  return violations;
}

type Report = (rule: LintRule, path: string, message: string) => void;

function lintHeaders(headers: RequestHeaders, report: Report): void {
  const raw = headers.authorization ?? headers.Authorization;
  const value = Array.isArray(raw) ? raw[0] : raw;
  // The value is a secret: the message never quotes it.
  if (value !== undefined && !/^Bearer \S+$/.test(value))
    report("auth-header", "headers.authorization", "the Authorization header is not of the form `Bearer <key>`");
}

function lintExtraBody(body: Record<string, unknown>, report: Report): void {
  const visit = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, `${path}[${i}]`));
      return;
    }
    if (!isRecord(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key === "extra_body") {
        report(
          "no-extra-body",
          childPath,
          "a literal `extra_body` key is sent; the API ignores it, so its fields (structured_outputs, chat_template_kwargs) must go at the top level",
        );
      }
      visit(child, childPath);
    }
  };
  visit(body, "");
}

function lintThinking(body: Record<string, unknown>, report: Report): void {
  const kwargs = body.chat_template_kwargs;
  if (!isRecord(kwargs) || kwargs.enable_thinking !== true) {
    report(
      "enable-thinking",
      "chat_template_kwargs.enable_thinking",
      "thinking is not enabled; send `chat_template_kwargs: {enable_thinking: true}` at the top level",
    );
  }
  const effort = body.reasoning_effort;
  if (effort !== undefined && effort !== "low" && effort !== "medium" && effort !== "high") {
    report(
      "reasoning-effort",
      "reasoning_effort",
      `reasoning_effort ${JSON.stringify(effort)} is not one of low, medium, high`,
    );
  }
}

/** Neither format is declared: free-form text comes back. A prompt schema alone means structured_outputs was forgotten. */
function lintNoOutputFormat(messages: WireMessage[], report: Report): void {
  const systemIndex = messages.findIndex((m) => m.role === "system");
  if (systemIndex >= 0 && textOf(messages[systemIndex].content).includes("<output_format>")) {
    report(
      "schema-in-both-places",
      "structured_outputs",
      "the system prompt has an <output_format> schema but `structured_outputs.json` is missing; send the same schema there",
    );
  } else {
    report(
      "output-format",
      "$",
      "neither `structured_outputs` nor `tools` is sent, so the model answers free-form text",
    );
  }
}

function lintStructured(body: Record<string, unknown>, messages: WireMessage[], report: Report): void {
  const outputs = body.structured_outputs as Record<string, unknown>;
  if (!isRecord(outputs.json)) {
    report(
      "schema-in-both-places",
      "structured_outputs.json",
      "`structured_outputs.json` must hold the step's JSON Schema object",
    );
  } else {
    const systemIndex = messages.findIndex((m) => m.role === "system");
    const system = systemIndex >= 0 ? textOf(messages[systemIndex].content) : "";
    const path = systemIndex >= 0 ? `messages[${systemIndex}].content` : "messages";
    const block = /<output_format>([\s\S]*?)<\/output_format>/.exec(system);
    if (!block) {
      report("schema-in-both-places", path, "the system prompt has no <output_format> block with the schema");
    } else {
      const inPrompt = parseEmbeddedJson(block[1]);
      if (inPrompt === undefined)
        report("schema-in-both-places", path, "the <output_format> block does not hold parseable JSON");
      else if (canonicalJson(inPrompt) !== canonicalJson(outputs.json)) {
        report("schema-in-both-places", path, "the schema in <output_format> differs from `structured_outputs.json`");
      }
    }
  }
  messages.forEach((message, i) => {
    if (message.role === "tool")
      report(
        "tool-result-layout",
        `messages[${i}]`,
        'structured mode sends tool results as `user` messages `<tool_output tool="...">`, not `tool`-role messages',
      );
    if (
      message.role === "user" &&
      textOf(message.content).includes("<tool_output") &&
      !TOOL_OUTPUT_OPEN.test(textOf(message.content))
    ) {
      report("tool-result-layout", `messages[${i}].content`, 'a <tool_output> wrapper lacks its tool="..." attribute');
    }
    if (message.role !== "assistant" || i === messages.length - 1) return;
    // Every executed step is followed by its result before the next observation or step.
    let answered = false;
    for (let j = i + 1; j < messages.length && messages[j].role !== "assistant"; j++) {
      if (messages[j].role === "user" && TOOL_OUTPUT_OPEN.test(textOf(messages[j].content))) answered = true;
      if (isObservation(messages[j])) break;
    }
    if (!answered)
      report(
        "tool-result-layout",
        `messages[${i}]`,
        'this assistant step has no `<tool_output tool="...">` user message after it',
      );
  });
}

function lintTools(body: Record<string, unknown>, messages: WireMessage[], report: Report): void {
  if (body.tool_choice !== "required") {
    report(
      "tool-choice-required",
      "tool_choice",
      `tool_choice is ${JSON.stringify(body.tool_choice ?? null)}; function-calling mode needs "required"`,
    );
  }
  messages.forEach((message, i) => {
    if (message.role !== "system") return;
    const example = TOOL_FORMAT_EXAMPLE.exec(textOf(message.content));
    if (example)
      report(
        "no-tool-format-examples",
        `messages[${i}].content`,
        `the system prompt contains a tool-format example (${JSON.stringify(example[0])}); the model renders calls from \`tools\` alone`,
      );
  });
  lintToolCallIds(messages, report);
}

/** Every `tool` message answers an earlier call by id, once; every call is answered; no results as user text. */
function lintToolCallIds(messages: WireMessage[], report: Report): void {
  const issued = new Set<string>();
  const answered = new Set<string>();
  let pending: { id: string; path: string }[] = [];
  const flushPending = () => {
    for (const call of pending)
      if (!answered.has(call.id))
        report("tool-call-ids", call.path, `tool call ${call.id} is never answered by a \`tool\` message`);
    pending = [];
  };
  messages.forEach((message, i) => {
    if (message.role === "assistant") {
      flushPending();
      if (!Array.isArray(message.tool_calls)) return;
      message.tool_calls.forEach((call, k) => {
        const id = isRecord(call) && typeof call.id === "string" ? call.id : "";
        if (!id) return report("tool-call-ids", `messages[${i}].tool_calls[${k}]`, "a tool call has no `id`");
        issued.add(id);
        pending.push({ id, path: `messages[${i}].tool_calls[${k}]` });
      });
    } else if (message.role === "tool") {
      const id = typeof message.tool_call_id === "string" ? message.tool_call_id : "";
      if (!issued.has(id))
        report(
          "tool-call-ids",
          `messages[${i}].tool_call_id`,
          `tool message answers ${JSON.stringify(id)}, which no earlier assistant message called`,
        );
      else if (answered.has(id))
        report("tool-call-ids", `messages[${i}].tool_call_id`, `tool call ${id} is answered twice`);
      answered.add(id);
    } else if (message.role === "user" && textOf(message.content).includes("<tool_output")) {
      report(
        "tool-result-layout",
        `messages[${i}]`,
        "function-calling mode sends tool results as `tool` messages with the matching tool_call_id, not as user text",
      );
    }
  });
  flushPending();
}

/** Qwen: the cookbook's computer_use function, declaring the version's screen; no Holo fields, no tool_choice. */
function lintQwen(body: Record<string, unknown>, messages: WireMessage[], version: QwenVersion, report: Report): void {
  const tools = body.tools as unknown[];
  const index = tools.findIndex((t) => isRecord(t) && isRecord(t.function) && t.function.name === COMPUTER_USE);
  const fn = (tools[index] as { function: Record<string, unknown> }).function;
  const path = `tools[${index}].function`;
  const frame = lastScreenshotFrame(messages);
  const screen =
    version === "3" || !frame
      ? { width: 1000, height: 1000 }
      : smartResize(frame, QWEN25_FACTOR, QWEN25_MIN_PIXELS, QWEN25_MAX_PIXELS);
  const expected = computerUseTool(version, screen).function;
  if (canonicalJson(fn.parameters) !== canonicalJson(expected.parameters)) {
    report(
      "qwen-computer-use",
      `${path}.parameters`,
      `the parameters differ from Qwen${version}-VL's documented computer_use`,
    );
  }
  const declared =
    typeof fn.description === "string" ? /The screen's resolution is (\d+)x(\d+)\./.exec(fn.description) : null;
  if (!declared) {
    report("qwen-screen", `${path}.description`, "the description declares no screen resolution");
  } else if (Number(declared[1]) !== screen.width || Number(declared[2]) !== screen.height) {
    const why =
      version === "3"
        ? "Qwen3-VL answers in thousandths"
        : `smart_resize of the last ${frame?.width}x${frame?.height} screenshot`;
    report(
      "qwen-screen",
      `${path}.description`,
      `the declared screen is ${declared[1]}x${declared[2]}; ${why} gives ${screen.width}x${screen.height}`,
    );
  } else if (fn.description !== expected.description) {
    report(
      "qwen-computer-use",
      `${path}.description`,
      `the description differs from Qwen${version}-VL's documented computer_use`,
    );
  }
  if (body.tool_choice !== undefined) report("qwen-computer-use", "tool_choice", "the cookbook sends no tool_choice");
  for (const field of ["chat_template_kwargs", "reasoning_effort", "structured_outputs"] as const) {
    if (body[field] !== undefined)
      report("qwen-computer-use", field, `\`${field}\` is a Holo field, not part of Qwen's protocol`);
  }
}

/** UI-TARS: the prompt verbatim (only the instruction differs), and nothing of the other protocols' fields. */
function lintUiTars(body: Record<string, unknown>, messages: WireMessage[], report: Report): void {
  const index = messages.findIndex((m) => m.role === "user");
  const text = textOf(messages[index]!.content);
  const marker = "## User Instruction\n";
  // The template ends "{instruction}\n" (a Python triple-quoted string closed on its own line).
  const instruction = text.slice(text.indexOf(marker) + marker.length).replace(/\n$/, "");
  if (!text.includes(marker) || text !== uiTarsPrompt(instruction)) {
    report(
      "ui-tars-prompt",
      `messages[${index}].content`,
      "the first user message is not UI-TARS' computer-use prompt as published",
    );
  }
  for (const field of ["tool_choice", "chat_template_kwargs", "reasoning_effort", "response_format"] as const) {
    if (body[field] !== undefined) report("ui-tars-prompt", field, `\`${field}\` is not part of UI-TARS' protocol`);
  }
}

function lintImages(messages: WireMessage[], report: Report): void {
  const images = imagesOf(messages);
  if (images.length > MAX_IMAGES) {
    report(
      "image-budget",
      "messages",
      `${images.length} images are sent; keep the last ${MAX_IMAGES} and evict older ones to a text placeholder`,
    );
  }
  for (const image of images) {
    const path = `messages[${image.messageIndex}].content[${image.chunkIndex}].image_url.url`;
    if (/^https?:\/\//.test(image.url)) continue; // a URL the API fetches itself; nothing to decode here
    const data = decodeDataUri(image.url);
    const format = data ? sniffImageFormat(data.bytes) : null;
    if (!data) report("image-decodes", path, "the image is neither an http(s) URL nor a base64 data URI");
    else if (!format) report("image-decodes", path, "the image bytes are not PNG, JPEG or WebP");
    else if (data.mime && data.mime !== `image/${format}` && !(format === "jpeg" && data.mime === "image/jpg")) {
      report("image-decodes", path, `the data URI says ${data.mime} but the bytes are ${format.toUpperCase()}`);
    }
  }
}

function lintObservations(messages: WireMessage[], report: Report): void {
  let observedSinceStep = false;
  messages.forEach((message, i) => {
    if (message.role === "assistant") {
      if (!observedSinceStep)
        report(
          "observation-wrapper",
          `messages[${i}]`,
          "no <observation> precedes this assistant step; older observations must be stripped to text, not dropped",
        );
      observedSinceStep = false;
      return;
    }
    if (message.role !== "user") return;
    const text = textOf(message.content);
    if (isObservation(message)) observedSinceStep = true;
    const carriesScreen = imagesOf([message]).length > 0 || /\[screenshot evicted\]/i.test(text);
    if (!carriesScreen) return;
    if (!text.includes("<observation>") || !text.includes("</observation>")) {
      report(
        "observation-wrapper",
        `messages[${i}].content`,
        "a screenshot or its evicted placeholder sits outside an <observation> ... </observation> wrapper",
      );
    }
  });
}

function lintHistoryReasoning(messages: WireMessage[], report: Report): void {
  messages.forEach((message, i) => {
    if (message.role !== "assistant") return;
    for (const field of ["reasoning", "reasoning_content"] as const) {
      const value = message[field];
      if (value !== undefined && value !== null && value !== "") {
        report(
          "no-reasoning-in-history",
          `messages[${i}].${field}`,
          `an assistant message carries \`${field}\`; push only the parsed output`,
        );
      }
    }
    if (THINK_TAG.test(textOf(message.content))) {
      report(
        "no-reasoning-in-history",
        `messages[${i}].content`,
        "an assistant message's content holds <think> text; reasoning belongs in `reasoning`, never in history",
      );
    }
  });
}

/** The JSON inside an <output_format> block, fenced or not; undefined when none parses. */
function parseEmbeddedJson(block: string): unknown {
  const start = block.indexOf("{");
  const end = block.lastIndexOf("}");
  if (start < 0 || end < start) return undefined;
  try {
    return JSON.parse(block.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/** JSON with object keys sorted, so key order never makes two equal schemas differ. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : isRecord(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort(v[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

/** One line per violation, for logs and the CLI. */
export function formatViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.rule} at ${v.path}: ${v.message}`).join("\n");
}

/** Compact header value: `ok`, or `rule@path` entries (ASCII only, fits one header line). */
export function lintHeaderValue(violations: readonly Violation[]): string {
  if (violations.length === 0) return "ok";
  return violations
    .map((v) => `${v.rule}@${v.path}`)
    .join(", ")
    .replace(/[^\x20-\x7e]/g, "?")
    .slice(0, 4000);
}
