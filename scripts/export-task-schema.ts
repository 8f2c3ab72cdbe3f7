/**
 * Writes `schema/task.schema.json`, the JSON Schema of a task file as written (zod's input
 * side: fields with defaults are optional), so editors complete and check task files.
 * Run with `npm run schema`; a test fails when the checked-in file is stale.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { LIMIT_RANGES, TaskFileSchema } from "../src/task/schema.js";

export const TASK_SCHEMA_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "schema",
  "task.schema.json",
);

type JsonObject = Record<string, unknown>;

/** zod writes `format: "starts_with"` beside the pattern; it is no JSON Schema format, and strict validators reject it. */
function dropNonStandardFormats(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(dropNonStandardFormats);
    return;
  }
  if (!node || typeof node !== "object") return;
  const object = node as JsonObject;
  if (object.format === "starts_with" && typeof object.pattern === "string") delete object.format;
  Object.values(object).forEach(dropNonStandardFormats);
}

/** The limits' ranges are a rule (LIMIT_RANGES), not part of the zod type; editors benefit from them too. */
function addLimitRanges(schema: JsonObject): void {
  const limits = ((schema.properties as JsonObject).limits as JsonObject).properties as Record<string, JsonObject>;
  for (const [key, [min, max]] of Object.entries(LIMIT_RANGES)) {
    if (limits[key]) Object.assign(limits[key], { minimum: min, maximum: max });
  }
}

/** The JSON Schema object, deterministic for a given TaskFileSchema. */
export function exportTaskSchema(): JsonObject {
  const generated = z.toJSONSchema(TaskFileSchema, { io: "input", target: "draft-2020-12" }) as JsonObject;
  dropNonStandardFormats(generated);
  addLimitRanges(generated);
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: "urn:umpire:schema:task",
    title: "umpire task file",
    description:
      "One task for umpire, the computer-use agent evaluation harness. Generated from src/task/schema.ts by scripts/export-task-schema.ts; do not edit.",
    ...rest,
  };
}

/** The file's exact text. */
export function renderTaskSchema(): string {
  return `${JSON.stringify(exportTaskSchema(), null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  fs.mkdirSync(path.dirname(TASK_SCHEMA_FILE), { recursive: true });
  fs.writeFileSync(TASK_SCHEMA_FILE, renderTaskSchema());
  process.stdout.write(`wrote ${path.relative(process.cwd(), TASK_SCHEMA_FILE)}\n`);
}
