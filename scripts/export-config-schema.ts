/**
 * Writes `schema/config.schema.json`, the JSON Schema of umpire's config file
 * (`umpire.config.yaml` / `.json`) as written, so editors complete and check it. Run with
 * `npm run schema`; a test fails when the checked-in file is stale.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { ConfigFileSchema } from "../src/config/schema.js";

export const CONFIG_SCHEMA_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "schema",
  "config.schema.json",
);

type JsonObject = Record<string, unknown>;

/** The JSON Schema object, deterministic for a given ConfigFileSchema. */
export function exportConfigSchema(): JsonObject {
  const generated = z.toJSONSchema(ConfigFileSchema, { io: "input", target: "draft-2020-12" }) as JsonObject;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: "urn:umpire:schema:config",
    title: "umpire config file",
    description:
      "umpire.config.yaml or umpire.config.json: prices and defaults for command-line options. Generated from src/config/schema.ts by scripts/export-config-schema.ts; do not edit.",
    ...rest,
  };
}

/** The file's exact text. */
export function renderConfigSchema(): string {
  return `${JSON.stringify(exportConfigSchema(), null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  fs.mkdirSync(path.dirname(CONFIG_SCHEMA_FILE), { recursive: true });
  fs.writeFileSync(CONFIG_SCHEMA_FILE, renderConfigSchema());
  process.stdout.write(`wrote ${path.relative(process.cwd(), CONFIG_SCHEMA_FILE)}\n`);
}
