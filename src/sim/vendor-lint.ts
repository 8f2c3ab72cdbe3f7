/**
 * The conformance lint for the vendors' computer-use requests: each rule is one the vendor documents
 * (OpenAI's "Computer use" guide and Responses API reference; Anthropic's "Computer use tool" page;
 * for Anthropic's computer toolset, `@anthropic-ai/sdk`'s types, its only documentation),
 * listed with the Holo rules in LINT_RULES so `umpire lint --rules` shows them all. Pure.
 */
import { documentedComputerTool } from "../agent/protocols/anthropic-computer.js";
import { COMPUTER_TOOLSET_MEMBERS, COMPUTER_TOOLSET_TYPE } from "../agent/protocols/anthropic-toolset.js";
import { imageSize } from "../agent/protocols/image-size.js";
import { lintGenerateContent } from "./gemini-lint.js";
import type { RequestHeaders, Violation } from "./lint.js";
import { isRecord } from "./request.js";
import type { Vendor } from "./vendor-wire.js";

type Item = Record<string, unknown>;

/**
 * Lints a vendor request. `headers` absent means they were not recorded (a bare body given to
 * `umpire lint`): the rules on a header (Anthropic's beta) are then not checked, never failed.
 */
export function lintVendorRequest(vendor: Vendor, body: unknown, headers?: RequestHeaders): Violation[] {
  if (!isRecord(body)) return [{ rule: "body-shape", message: "the body is not a JSON object", path: "$" }];
  if (vendor === "gemini") return lintGenerateContent(body);
  return vendor === "openai" ? lintResponses(body) : lintMessages(body, headers);
}

function lintResponses(body: Item): Violation[] {
  const out: Violation[] = [];
  const tools = Array.isArray(body.tools) ? (body.tools as Item[]) : [];
  const computers = tools.filter((t) => t.type === "computer" || t.type === "computer_use_preview");
  const preview = computers.find((t) => t.type === "computer_use_preview");
  if (computers.length !== 1)
    out.push({ rule: "openai-computer-tool", message: `${computers.length} computer tools`, path: "tools" });
  if (
    preview &&
    !(
      Number.isInteger(preview.display_width) &&
      Number.isInteger(preview.display_height) &&
      typeof preview.environment === "string"
    )
  ) {
    out.push({
      rule: "openai-computer-tool",
      message: "the preview tool needs display_width, display_height and environment",
      path: "tools",
    });
  }
  if (preview && body.truncation !== "auto")
    out.push({ rule: "openai-preview-truncation", message: "truncation is not auto", path: "truncation" });
  const input = Array.isArray(body.input) ? (body.input as Item[]) : [];
  const calls = new Map<string, Item>();
  const answered = new Set<string>();
  input.forEach((item, i) => {
    if (item.type === "computer_call") calls.set(String(item.call_id), item);
    if (item.type !== "computer_call_output") return;
    const call = calls.get(String(item.call_id));
    const output = item.output as Item | undefined;
    if (
      !call ||
      answered.has(String(item.call_id)) ||
      output?.type !== "computer_screenshot" ||
      typeof output.image_url !== "string"
    ) {
      out.push({
        rule: "openai-call-outputs",
        message: `output for call ${String(item.call_id)} is unmatched or has no screenshot`,
        path: `input[${i}]`,
      });
    }
    answered.add(String(item.call_id));
    const pending = (call?.pending_safety_checks as Item[] | undefined) ?? [];
    const acked = new Set(((item.acknowledged_safety_checks as Item[] | undefined) ?? []).map((c) => String(c.id)));
    const missing = pending.filter((c) => !acked.has(String(c.id)));
    if (missing.length > 0) {
      out.push({
        rule: "openai-safety-acknowledged",
        message: `unacknowledged: ${missing.map((c) => String(c.id)).join(", ")}`,
        path: `input[${i}]`,
      });
    }
  });
  for (const id of calls.keys()) {
    if (!answered.has(id))
      out.push({ rule: "openai-call-outputs", message: `computer_call ${id} has no output`, path: "input" });
  }
  return out;
}

/** The fields a computer toolset entry may carry (the SDK's `ComputerToolset20260801`). */
const TOOLSET_FIELDS: ReadonlySet<string> = new Set(["type", "configs", "cache_control"]);

/**
 * A request declaring the computer toolset: exactly one entry, with no name or display (coordinates
 * are the picture's), `configs` keyed only by its members, no single computer tool beside it. The
 * toolset is generally available: no beta is asked for.
 */
function lintToolsetEntry(toolsets: Item[], computer: Item[]): Violation[] {
  const problems: string[] = [];
  if (toolsets.length !== 1) problems.push(`${toolsets.length} ${COMPUTER_TOOLSET_TYPE} entries`);
  if (computer.length > 0) problems.push(`a single computer tool (${String(computer[0]!.type)}) beside the toolset`);
  for (const entry of toolsets) {
    const extra = Object.keys(entry).filter((k) => !TOOLSET_FIELDS.has(k));
    if (extra.length > 0) problems.push(`fields the toolset entry does not take: ${extra.join(", ")}`);
    const configs = entry.configs ?? {};
    if (!isRecord(configs)) problems.push("configs is not an object");
    else
      for (const [key, value] of Object.entries(configs)) {
        if (!(COMPUTER_TOOLSET_MEMBERS as readonly string[]).includes(key))
          problems.push(`configs.${key} is no member`);
        else if (value !== null && !isRecord(value)) problems.push(`configs.${key} is not an object`);
      }
  }
  return problems.map((message) => ({ rule: "anthropic-computer-toolset", message, path: "tools" }));
}

/**
 * The single tool's version against the one Anthropic documents for the request's model: a forced
 * version (`computerTool`) may be refused by the real endpoint, or cost the model documented actions.
 * An id the page does not list is not checked; the beta's match with the tool is `anthropic-computer-tool`'s.
 */
function lintToolVersion(model: unknown, tools: Item[], tool: Item | undefined): Violation[] {
  const documented = tool && typeof model === "string" ? documentedComputerTool(model) : null;
  if (!tool || !documented || tool.type === documented.type) return [];
  return [
    {
      rule: "anthropic-computer-tool-version",
      message: `${String(tool.type)} is sent for ${String(model)}, which Anthropic documents with ${documented.type} (beta ${documented.beta})`,
      path: `tools[${tools.indexOf(tool)}].type`,
    },
  ];
}

function lintMessages(body: Item, headers: RequestHeaders | undefined): Violation[] {
  const out: Violation[] = [];
  const tools = Array.isArray(body.tools) ? (body.tools as Item[]) : [];
  const computer = tools.filter((t) => /^computer_\d{8}$/.test(String(t.type)));
  const toolsets = tools.filter((t) => t.type === COMPUTER_TOOLSET_TYPE);
  const tool = toolsets.length > 0 ? undefined : computer[0];
  const beta = headers ? String(headers["anthropic-beta"] ?? "") : null;
  const date = tool ? String(tool.type).slice(-8) : "";
  const wantBeta = `computer-use-${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}`;
  if (toolsets.length > 0) out.push(...lintToolsetEntry(toolsets, computer));
  else if (
    computer.length !== 1 ||
    tool?.name !== "computer" ||
    !Number.isInteger(tool.display_width_px) ||
    !Number.isInteger(tool.display_height_px) ||
    (beta !== null && !beta.includes(wantBeta))
  ) {
    out.push({
      rule: "anthropic-computer-tool",
      message: `computer tool or beta ${wantBeta} missing or malformed`,
      path: "tools",
    });
  }
  out.push(...lintToolVersion(body.model, tools, tool));
  const messages = Array.isArray(body.messages) ? (body.messages as Item[]) : [];
  let cacheBlocks = Array.isArray(body.system) ? (body.system as Item[]).filter((b) => b.cache_control).length : 0;
  cacheBlocks += tools.filter((t) => t.cache_control).length;
  let last: { width: number; height: number } | null = null;
  /** Each tool_use id's toolset_name (null for a plain tool), which its tool_result must repeat. */
  const family = new Map<string, unknown>();
  messages.forEach((m, i) => {
    const expected = i % 2 === 0 ? "user" : "assistant";
    if (m.role !== expected)
      out.push({ rule: "anthropic-alternation", message: `expected ${expected}`, path: `messages[${i}]` });
    const content = Array.isArray(m.content) ? (m.content as Item[]) : [];
    const flat = content.flatMap((b) =>
      b.type === "tool_result" && Array.isArray(b.content) ? [b, ...(b.content as Item[])] : [b],
    );
    cacheBlocks += flat.filter((b) => b.cache_control).length;
    for (const b of flat) {
      if (b.type !== "image" || !isRecord(b.source)) continue;
      const size = imageSize(String(b.source.data ?? ""));
      if (size && (Math.max(size.width, size.height) > 1568 || size.width * size.height > 1_150_000)) {
        out.push({
          rule: "anthropic-screenshot-scaling",
          message: `a ${size.width}x${size.height} screenshot`,
          path: `messages[${i}]`,
        });
      }
      last = size ?? last;
    }
    for (const b of content) {
      if (b.type === "tool_use") family.set(String(b.id), b.toolset_name ?? null);
      if (b.type !== "tool_result" || !family.has(String(b.tool_use_id))) continue;
      const want = family.get(String(b.tool_use_id));
      if ((b.toolset_name ?? null) !== want)
        out.push({
          rule: "anthropic-toolset-results",
          message: `tool_result for ${String(b.tool_use_id)} carries toolset_name ${JSON.stringify(b.toolset_name ?? null)}, its tool_use ${JSON.stringify(want)}`,
          path: `messages[${i}]`,
        });
    }
    if (m.role !== "assistant") return;
    const uses = content.filter((b) => b.type === "tool_use").map((b) => String(b.id));
    if (uses.length === 0) return;
    const next = messages[i + 1];
    const results = Array.isArray(next?.content) ? (next.content as Item[]) : [];
    const lead = results.slice(0, uses.length).map((b) => (b.type === "tool_result" ? String(b.tool_use_id) : ""));
    if (next && lead.join() !== uses.join()) {
      out.push({
        rule: "anthropic-tool-results",
        message: `tool_use ${uses.join(", ")} not answered first`,
        path: `messages[${i + 1}]`,
      });
    }
  });
  const declared = tool ? { width: tool.display_width_px, height: tool.display_height_px } : null;
  const newest = last as { width: number; height: number } | null;
  if (newest && declared && (newest.width !== declared.width || newest.height !== declared.height)) {
    out.push({
      rule: "anthropic-screenshot-scaling",
      message: `newest screenshot ${newest.width}x${newest.height}, display ${String(declared.width)}x${String(declared.height)}`,
      path: "tools",
    });
  }
  if (cacheBlocks > 4)
    out.push({ rule: "anthropic-cache-breakpoints", message: `${cacheBlocks} cache_control blocks`, path: "$" });
  return out;
}
