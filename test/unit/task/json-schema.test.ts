/** The checked-in JSON Schema must equal a fresh export of the zod schema. */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { TASK_SCHEMA_FILE, exportTaskSchema, renderTaskSchema } from "../../../scripts/export-task-schema.js";
import { LIMIT_RANGES } from "../../../src/task/schema.js";
import { TOOL_NAMES } from "../../../src/toolbox/tools.js";

describe("schema/task.schema.json", () => {
  it("is current: equal to a fresh export (run `npm run schema` when this fails)", () => {
    expect(fs.readFileSync(TASK_SCHEMA_FILE, "utf8")).toBe(renderTaskSchema());
  });

  it("describes the file as written: an id and title, defaults optional, every tool, the limit ranges", () => {
    const schema = exportTaskSchema() as any;
    expect(schema.$id).toBe("urn:umpire:schema:task");
    expect(schema.title).toBe("umpire task file");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required.sort()).toEqual(["checks", "id", "instruction", "reference", "title", "tools"]);
    expect(schema.properties.tools.items.enum).toEqual(TOOL_NAMES);
    expect(schema.properties.limits.properties.turns).toMatchObject({
      minimum: LIMIT_RANGES.turns[0],
      maximum: LIMIT_RANGES.turns[1],
    });
    // zod's private "starts_with" format is dropped; the pattern carries the rule.
    expect(JSON.stringify(schema)).not.toContain("starts_with");
    // A task names its target (default the fixture) and a start path or absolute URL on it.
    expect(schema.properties.target.default).toBe("fixture");
    expect(schema.properties.start.properties.path.minLength).toBe(1);
  });
});
