/**
 * Every field of a zod schema, as a dotted path, for the schema field coverage test. Arrays are
 * `[]`, record values `*`, members of a union told apart by their `kind` `[kind=file]`. Walks the
 * JSON Schema zod exports (input side, so defaulted fields are listed too). A field whose value may
 * be text or an object (a text matcher: "x" or {regex}) is one field: its forms are ways to write it.
 */
import { z } from "zod";

type Node = Record<string, unknown>;

const isObjectNode = (node: Node) => node.type === "object" || node.properties !== undefined;
const kindOf = (node: Node): string | undefined =>
  (node.properties as Record<string, Node> | undefined)?.kind?.const as string | undefined;

function walk(node: Node, path: string, out: Map<string, Node>): void {
  const alternatives = (node.anyOf ?? node.oneOf) as Node[] | undefined;
  if (alternatives) {
    // Text or an object (a text matcher) is one field; objects and lists (a negative: steps, or {steps, failsOn}) are walked each.
    if (!alternatives.every((n) => isObjectNode(n) || n.type === "array")) return void out.set(path, node);
    for (const member of alternatives) {
      const kind = kindOf(member);
      // A list of kinds (checks[]) names the member in the brackets: checks[kind=file].
      const at =
        kind === undefined
          ? path
          : path.endsWith("[]")
            ? `${path.slice(0, -2)}[kind=${kind}]`
            : `${path}[kind=${kind}]`;
      walk(member, at, out);
    }
    return;
  }
  if (node.type === "array" && node.items) {
    walk(node.items as Node, `${path}[]`, out);
    return;
  }
  const properties = node.properties as Record<string, Node> | undefined;
  const record = node.additionalProperties;
  if (record && typeof record === "object") walk(record as Node, `${path}.*`, out);
  if (!properties) {
    if (!(record && typeof record === "object")) out.set(path, node);
    return;
  }
  const kind = kindOf(node);
  const own = Object.entries(properties).filter(([key]) => !(key === "kind" && kind !== undefined));
  // A union member that is nothing but its kind (reset: {kind: none}) is a field of its own.
  if (own.length === 0) return void out.set(path, node);
  for (const [key, child] of own) walk(child, path ? `${path}.${key}` : key, out);
}

/** The dotted path of every field of `schema`, in schema order. */
export function schemaFields(schema: z.ZodType): string[] {
  return [...leaves(schema).keys()];
}

function leaves(schema: z.ZodType): Map<string, Node> {
  const json = z.toJSONSchema(schema, { io: "input", target: "draft-2020-12", unrepresentable: "any" }) as Node;
  const out = new Map<string, Node>();
  walk(json, "", out);
  return out;
}

/** A field that may hold text: a string, text or an object (a matcher), or any JSON value (a request body). */
function holdsText(node: Node): boolean {
  const alternatives = (node.anyOf ?? node.oneOf) as Node[] | undefined;
  if (alternatives) return alternatives.some(holdsText);
  if (node.const !== undefined || node.enum !== undefined) return false;
  return node.type === "string" || node.type === undefined;
}

/** The dotted path of every field of `schema` that may hold text (the request-variables test walks them). */
export function textFields(schema: z.ZodType): string[] {
  return [...leaves(schema)].filter(([, node]) => holdsText(node)).map(([path]) => path);
}
