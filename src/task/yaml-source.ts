/**
 * YAML parsing that keeps positions: the loader needs the data and, for any problem, the line
 * of the dotted path it concerns.
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from "yaml";
import type { DataPath } from "./problem.js";
import { messageOf } from "../errors.js";

export interface YamlSyntaxProblem {
  line?: number;
  message: string;
  fix?: string;
}

export interface YamlSource {
  /** The plain data, or undefined when the text is not valid YAML. */
  data: unknown;
  /** Syntax errors; when non-empty, `data` is undefined. */
  problems: YamlSyntaxProblem[];
  /**
   * The 1-based line of the value at `path`, or of its nearest existing ancestor when the path
   * does not exist (a missing key is reported at the mapping that lacks it). With `key: true`
   * the line of the key itself, which is where an unknown key is written.
   */
  lineOf(path: DataPath, options?: { key?: boolean }): number | undefined;
}

/** Rewrites the parser's terse codes into a sentence and a fix. */
function describeYamlError(code: string, message: string): { message: string; fix?: string } {
  const firstLine = message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  switch (code) {
    case "DUPLICATE_KEY":
      return { message: `the same key appears twice in one mapping (${firstLine})`, fix: "keep one of the two keys" };
    case "TAB_AS_INDENT":
      return { message: "a tab is used for indentation", fix: "indent with spaces only" };
    case "BAD_INDENT":
    case "MISSING_CHAR":
    case "UNEXPECTED_TOKEN":
      return {
        message: `malformed YAML: ${firstLine}`,
        fix: "check the indentation and the ':' after each key on this line",
      };
    default:
      return { message: `malformed YAML: ${firstLine}` };
  }
}

export function parseYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  const lineAt = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line);

  const problems: YamlSyntaxProblem[] = doc.errors.map((error) => ({
    line: lineAt(error.pos[0]),
    ...describeYamlError(error.code, error.message),
  }));
  let data: unknown;
  if (problems.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problems.push({ message: `cannot read the YAML: ${messageOf(error)}` });
    }
  }
  return {
    data: problems.length === 0 ? data : undefined,
    problems,
    lineOf: (path, options) => lineAt(findOffset(doc, path, options?.key ?? false)),
  };
}

/** Walks the node tree along `path`; returns the start offset of the deepest node found. */
function findOffset(doc: Document, path: DataPath, wantKey: boolean): number | undefined {
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    if (isAlias(node)) node = node.resolve(doc);
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment));
      if (!pair) return offset;
      if (last && wantKey) return rangeStart(pair.key) ?? offset;
      // An empty value (`path:`) has no useful range of its own: point at its key.
      node = pair.value;
      offset = rangeStart(pair.value) ?? rangeStart(pair.key) ?? offset;
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment];
      if (item === undefined) return offset;
      node = item;
      offset = rangeStart(item) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
