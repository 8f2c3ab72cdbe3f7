/**
 * The conformance lint for Gemini computer-use requests (`generateContent` as the Gemini API receives
 * it): each rule is one Google's "Computer Use" guide and the generateContent reference document,
 * listed in LINT_RULES (lint.ts). Pure.
 */
import { GEMINI_PREDEFINED, isPredefined } from "../agent/protocols/gemini-actions.js";
import { imageSize } from "../agent/protocols/image-size.js";
import type { Violation } from "./lint.js";
import { isRecord } from "./request.js";

type Item = Record<string, unknown>;

export function lintGenerateContent(body: Item): Violation[] {
  return [...lintTools(body), ...lintContents(body)];
}

function lintTools(body: Item): Violation[] {
  const out: Violation[] = [];
  const tools = Array.isArray(body.tools) ? (body.tools as Item[]) : [];
  const computer = tools.filter((t) => isRecord(t.computerUse)).map((t) => t.computerUse as Item);
  const excluded = computer[0]?.excludedPredefinedFunctions;
  const unknown = Array.isArray(excluded) ? excluded.filter((f) => !isPredefined(String(f))) : [];
  if (computer.length !== 1 || computer[0]!.environment !== "ENVIRONMENT_BROWSER" || unknown.length > 0) {
    out.push({
      rule: "gemini-computer-tool",
      message: `${computer.length} computerUse tools${unknown.length > 0 ? `; unknown exclusions ${unknown.join(", ")}` : ""}`,
      path: "tools",
    });
  }
  const declared = tools.flatMap((t) =>
    Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Item[]) : [],
  );
  const clash = declared.filter((d) => (GEMINI_PREDEFINED as readonly string[]).includes(String(d.name)));
  if (clash.length > 0)
    out.push({
      rule: "gemini-computer-tool",
      message: `declares ${clash.map((d) => String(d.name)).join(", ")}`,
      path: "tools",
    });
  return out;
}

function lintContents(body: Item): Violation[] {
  const out: Violation[] = [];
  const contents = Array.isArray(body.contents) ? (body.contents as Item[]) : [];
  // Older screenshots are dropped by the image budget: only the newest answer must carry one.
  const newest = contents
    .map((c) => c.role === "model" && parts(c).some((p) => isRecord(p.functionCall)))
    .lastIndexOf(true);
  if (contents[0]?.role !== "user")
    out.push({ rule: "gemini-contents", message: "the first turn is not `user`", path: "contents[0]" });
  contents.forEach((content, i) => {
    const path = `contents[${i}]`;
    if (content.role !== "user" && content.role !== "model")
      out.push({ rule: "gemini-contents", message: `role ${String(content.role)}`, path });
    if (content.role === "model" && contents[i - 1]?.role === "model")
      out.push({ rule: "gemini-contents", message: "two model turns in a row", path });
    for (const part of parts(content)) if (isRecord(part.inlineData)) out.push(...lintImage(part.inlineData, path));
    if (content.role === "model") out.push(...lintAnswers(content, contents[i + 1], i + 1, i === newest));
  });
  return out;
}

/** The user turn after a model turn answers its calls first, in order, with a screenshot for computer use. */
function lintAnswers(model: Item, next: Item | undefined, index: number, newest: boolean): Violation[] {
  const calls = parts(model)
    .map((p) => p.functionCall)
    .filter(isRecord) as Item[];
  if (calls.length === 0 || next === undefined) return [];
  const path = `contents[${index}]`;
  const out: Violation[] = [];
  const responses = parts(next)
    .slice(0, calls.length)
    .map((p) => (isRecord(p.functionResponse) ? (p.functionResponse as Item) : null));
  calls.forEach((call, k) => {
    const response = responses[k];
    if (!response || response.name !== call.name || (call.id !== undefined && response.id !== call.id)) {
      out.push({
        rule: "gemini-function-responses",
        message: `call ${k} (${String(call.name)}) is not answered in order`,
        path,
      });
      return;
    }
    const decision = isRecord(call.args) ? call.args.safety_decision : undefined;
    const result = isRecord(response.response) ? response.response : {};
    if (decision !== undefined && result.safety_acknowledgement !== "true")
      out.push({ rule: "gemini-safety-acknowledged", message: `call ${k} (${String(call.name)})`, path });
  });
  const images = responses.flatMap((r) => (Array.isArray(r?.parts) ? (r.parts as Item[]) : []));
  for (const image of images) if (isRecord(image.inlineData)) out.push(...lintImage(image.inlineData, path));
  if (newest && calls.some((c) => isPredefined(String(c.name))) && !images.some((p) => isRecord(p.inlineData)))
    out.push({ rule: "gemini-screenshot", message: "computer-use calls answered without a screenshot", path });
  return out;
}

function lintImage(blob: Item, path: string): Violation[] {
  const type = String(blob.mimeType);
  const size = typeof blob.data === "string" ? imageSize(blob.data) : null;
  return (type === "image/png" || type === "image/jpeg") && size
    ? []
    : [{ rule: "gemini-screenshot", message: `inlineData ${type} is not a base64 PNG or JPEG`, path }];
}

function parts(content: Item | undefined): Item[] {
  return Array.isArray(content?.parts) ? (content.parts as unknown[]).filter(isRecord) : [];
}
