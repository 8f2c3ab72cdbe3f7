/**
 * Reading a chat-completions request body as sent on the wire. Bodies are untrusted JSON, so
 * every accessor tolerates any shape and never throws; the lint reports what is malformed.
 */

/** One message as it arrives: only `role` is relied on, everything else is inspected. */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  [key: string]: unknown;
}

export type RequestMode = "structured" | "tools" | "qwen2.5-vl" | "qwen3-vl" | "ui-tars" | "plain";

export interface ImageRef {
  messageIndex: number;
  chunkIndex: number;
  url: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The request's messages that are objects with a string role (others are skipped). */
export function messagesOf(body: unknown): WireMessage[] {
  if (!isRecord(body) || !Array.isArray(body.messages)) return [];
  return body.messages.filter((m): m is WireMessage => isRecord(m) && typeof m.role === "string");
}

/** The text of a message's content: a string, or its text chunks joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((chunk) => (isRecord(chunk) && chunk.type === "text" && typeof chunk.text === "string" ? chunk.text : ""))
    .join("");
}

/** Every `image_url` chunk in the request, in message order. */
export function imagesOf(messages: readonly WireMessage[]): ImageRef[] {
  const images: ImageRef[] = [];
  messages.forEach((message, messageIndex) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((chunk, chunkIndex) => {
      if (!isRecord(chunk) || chunk.type !== "image_url") return;
      const image = chunk.image_url;
      const url = typeof image === "string" ? image : isRecord(image) && typeof image.url === "string" ? image.url : "";
      images.push({ messageIndex, chunkIndex, url });
    });
  });
  return images;
}

/**
 * Structured mode carries `structured_outputs`, tools mode carries `tools`; tools wins when both are
 * sent. A `tools` list holding Qwen's `computer_use` function is Qwen's protocol (its version told by
 * the action list: only Qwen3-VL's has `answer`).
 */
export function requestMode(body: unknown): RequestMode {
  if (!isRecord(body)) return "plain";
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const qwen = body.tools.find((t) => isRecord(t) && isRecord(t.function) && t.function.name === "computer_use");
    if (!qwen) return "tools";
    const actions = (qwen.function as { parameters?: { properties?: { action?: { enum?: unknown } } } }).parameters
      ?.properties?.action?.enum;
    return Array.isArray(actions) && actions.includes("answer") ? "qwen3-vl" : "qwen2.5-vl";
  }
  if (isRecord(body.structured_outputs)) return "structured";
  // UI-TARS sends neither: its computer-use prompt opens the first user message.
  const first = messagesOf(body).find((m) => m.role === "user");
  const text = first ? textOf(first.content) : "";
  if (text.startsWith("You are a GUI agent.") && text.includes("## Action Space")) return "ui-tars";
  return "plain";
}

/** Names of the tools a tools-mode request offers (`tools[].function.name`). */
export function offeredToolNames(body: unknown): string[] {
  if (!isRecord(body) || !Array.isArray(body.tools)) return [];
  return body.tools.flatMap((tool) =>
    isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === "string" ? [tool.function.name] : [],
  );
}

export function isObservation(message: WireMessage): boolean {
  return message.role === "user" && textOf(message.content).includes("<observation>");
}

export function isReflection(message: WireMessage): boolean {
  return message.role === "user" && textOf(message.content).includes("<reflection>");
}

/** The system prompt(s) and the first user message: where an agent states its task. */
export function taskContextText(messages: readonly WireMessage[]): string {
  const system = messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => textOf(m.content));
  const firstUser = messages.find((m) => m.role === "user");
  return [...system, firstUser ? textOf(firstUser.content) : ""].join("\n");
}

/** Collapses white space so an instruction matches however the prompt wrapped it. */
export function squashSpace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
