/**
 * Schema field coverage: no documented knob may do nothing. Every field of the task file and the
 * config file (walked from their zod schemas) has a row in schema-field-coverage.table.ts naming a
 * test that shows the field's effect ("test file > test title"). The test fails for a field with no
 * row, a row whose test file or title does not exist, and a row for a field the schema no longer has.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ConfigFileSchema } from "../../../src/config/schema.js";
import { TaskFileSchema } from "../../../src/task/schema.js";
import { schemaFields } from "./schema-fields.js";
import { CONFIG_FIELDS, TASK_FIELDS } from "./schema-field-coverage.table.js";

const ROOT = join(import.meta.dirname, "../../..");
const TABLE = "test/unit/house/schema-field-coverage.table.ts";

/** Every problem of one schema's rows, as lines a developer can act on. */
function coverageProblems(what: string, tableName: string, schema: z.ZodType, table: Record<string, string>): string[] {
  const fields = schemaFields(schema);
  const problems: string[] = [];
  const missing = fields.filter((f) => !Object.hasOwn(table, f));
  if (missing.length > 0) {
    problems.push(
      `${missing.length} ${what} field(s) have no row in ${TABLE}. Add one line per field to ${tableName}, naming a test that ` +
        `fails when the field does nothing (a field no test can show does nothing: wire it or remove it from the schema):`,
      ...missing.map(
        (f) => `    ${JSON.stringify(f)}: "test/<folder>/<file>.test.ts > <title of the test showing its effect>",`,
      ),
    );
  }
  for (const [field, proof] of Object.entries(table)) {
    if (!fields.includes(field)) {
      problems.push(
        `${tableName}[${JSON.stringify(field)}]: the ${what} schema has no such field any more; remove the row (fields: ${what} dotted paths, arrays as [], records as *)`,
      );
      continue;
    }
    const [file, title, extra] = proof.split(" > ");
    if (!file || !title || extra !== undefined) {
      problems.push(
        `${tableName}[${JSON.stringify(field)}]: write the row as "test/<folder>/<file>.test.ts > <test title>", got ${JSON.stringify(proof)}`,
      );
      continue;
    }
    const path = join(ROOT, file);
    if (!existsSync(path)) {
      problems.push(
        `${tableName}[${JSON.stringify(field)}]: the test file ${file} does not exist; name the file of the test that shows the field's effect`,
      );
      continue;
    }
    if (!readFileSync(path, "utf8").includes(title)) {
      problems.push(
        `${tableName}[${JSON.stringify(field)}]: ${file} has no test titled ${JSON.stringify(title)}; copy the title (or a part of it) from the file`,
      );
    }
  }
  return problems;
}

describe("schema field coverage", () => {
  it("every task file field names the test that shows its effect", () => {
    const problems = coverageProblems("task", "TASK_FIELDS", TaskFileSchema, TASK_FIELDS);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("every config file field names the test that shows its effect", () => {
    const problems = coverageProblems("config", "CONFIG_FIELDS", ConfigFileSchema, CONFIG_FIELDS);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("finds what it must: nested objects, arrays, records and each member of a kind union", () => {
    const task = schemaFields(TaskFileSchema);
    expect(task).toEqual(
      expect.arrayContaining([
        "permissions.forbiddenEffects[]",
        "checks[kind=file].normalize.case",
        "marks.*.selector",
        "negatives.*[].tool",
        "negatives.*.failsOn[]",
        "repetition.masks[].box.x",
      ]),
    );
    expect(schemaFields(ConfigFileSchema)).toEqual(
      expect.arrayContaining(["defaults.maxTokens", "agents.*[kind=command].env.*", "targets.*.reset[kind=none]"]),
    );
    // A row for a field that does not exist, or a file that does not exist, is found.
    expect(
      coverageProblems("task", "T", TaskFileSchema, { ...TASK_FIELDS, "no.such.field": "x > y" }).join("\n"),
    ).toContain("no such field");
    const broken = { ...TASK_FIELDS, id: "test/unit/none.test.ts > a title" };
    expect(coverageProblems("task", "T", TaskFileSchema, broken).join("\n")).toContain("does not exist");
    const { id: _dropped, ...withoutId } = TASK_FIELDS;
    expect(coverageProblems("task", "T", TaskFileSchema, withoutId).join("\n")).toContain(
      '"id": "test/<folder>/<file>.test.ts > ',
    );
  });
});
