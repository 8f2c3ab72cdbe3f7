/**
 * The config file: one loader for YAML and JSON with the task files' error quality (file, line,
 * dotted path, did-you-mean), a schema composed of sections, and a checked-in JSON Schema that
 * stays equal to a fresh export.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIG_SCHEMA_FILE, exportConfigSchema, renderConfigSchema } from "../../../scripts/export-config-schema.js";
import { CONFIG_SECTIONS } from "../../../src/config/schema.js";
import { configKey } from "../../../src/config/option.js";
import { configurableOptions } from "../../../src/config/options.js";
import { loadConfig, validateConfigText } from "../../../src/config/loader.js";
import { OUTPUT_MODES } from "../../../src/vocabulary.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function problemsOf(text: string, json = false) {
  const result = validateConfigText(text, json ? "umpire.config.json" : "umpire.config.yaml", json);
  if (!("problems" in result)) throw new Error(`expected problems, got ${JSON.stringify(result.data)}`);
  return result.problems;
}

describe("config file", () => {
  it("reads today's prices-only umpire.config.json unchanged", () => {
    writeFileSync(join(dir, "umpire.config.json"), JSON.stringify({ prices: { "my-model": { input: 1, output: 4 } } }));
    const config = loadConfig({ cwd: dir });
    expect(config.file).toBe("umpire.config.json");
    expect(config.data.prices).toEqual({ "my-model": { input: 1, output: 4 } });
  });

  it("reads YAML defaults as typed values; a single word for a repeatable option is allowed", () => {
    writeFileSync(
      join(dir, "umpire.config.yaml"),
      "defaults:\n  model: reference\n  temperature: 0.3\n  maxTokens: 900\n  stream: true\n  tag: [nightly, main]\n",
    );
    expect(loadConfig({ cwd: dir }).data.defaults).toEqual({
      model: "reference",
      temperature: 0.3,
      maxTokens: 900,
      stream: true,
      tag: ["nightly", "main"],
    });
  });

  it("without a file the config is empty; an empty file is an empty config", () => {
    expect(loadConfig({ cwd: dir })).toEqual({ file: null, data: {}, policies: {} });
    writeFileSync(join(dir, "umpire.config.yaml"), "# nothing yet\n");
    expect(loadConfig({ cwd: dir }).data).toEqual({});
  });

  it("an unknown key anywhere is an error with its line, dotted path and did-you-mean", () => {
    const problems = problemsOf(
      "defaults:\n  repeat: 2\n  temprature: 0.3\nprices:\n  m:\n    input: 1\n    output: 2\n    discount: 3\nprice: {}\n",
    );
    expect(problems.map((p) => [p.line, p.path, p.message, p.fix])).toEqual([
      [3, "defaults.temprature", 'unknown key "temprature"', "did you mean 'temperature'?"],
      [
        8,
        "prices.m.discount",
        'unknown key "discount"',
        "remove it; allowed keys here: input, output, cachedInput, reasoning, reasoningInOutput",
      ],
      [9, "price", 'unknown key "price"', "did you mean 'prices'?"],
    ]);
  });

  it("JSON files get lines too, and JSON's own syntax message", () => {
    const problems = problemsOf('{\n  "defaults": {\n    "repet": 2\n  }\n}\n', true);
    expect(problems).toMatchObject([
      { file: "umpire.config.json", line: 3, path: "defaults.repet", fix: "did you mean 'repeat'?" },
    ]);
    expect(problemsOf("{ not json", true)[0]!.message).toMatch(/^not valid JSON/);
  });

  it("values are checked with the same kinds and ranges as the flags", () => {
    const problems = problemsOf("defaults:\n  repeat: 0\n  mode: bot\n  temperature: hot\n  concurrency: 2.5\n");
    expect(problems.map((p) => `${p.line} ${p.path}: ${p.message}${p.fix ? ` (${p.fix})` : ""}`)).toEqual([
      "2 defaults.repeat: must be at least 1, got the number 0",
      // Every protocol's name, then both: the choices come from the registry's names (OUTPUT_MODES).
      `3 defaults.mode: expected one of ${[...OUTPUT_MODES, "both"].join(", ")}, got text "bot" (did you mean 'both'?)`,
      '4 defaults.temperature: expected a number, got text "hot"',
      "5 defaults.concurrency: expected a whole number, got the number 2.5",
    ]);
  });

  it("loadConfig throws an input error naming the file; --config must exist; two files in one folder are ambiguous", () => {
    writeFileSync(join(dir, "umpire.config.yaml"), "defaults:\n  temprature: 1\n");
    expect(() => loadConfig({ cwd: dir })).toThrow(/umpire\.config\.yaml:2: defaults\.temprature: unknown key/);
    expect(() => loadConfig({ cwd: dir, file: "nope.yaml" })).toThrow(/--config nope\.yaml: no such file/);
    writeFileSync(join(dir, "umpire.config.json"), "{}");
    expect(() => loadConfig({ cwd: dir })).toThrow(/two config files .*umpire\.config\.yaml and umpire\.config\.json/);
    // An explicit --config settles it.
    expect(loadConfig({ cwd: dir, file: "umpire.config.json" }).data).toEqual({});
  });

  it("is a composition of sections; every config-settable option is a defaults key", () => {
    expect(Object.keys(CONFIG_SECTIONS)).toEqual([
      "$schema",
      "prices",
      "defaults",
      "agents",
      "defaultAgents",
      "targets",
      "import",
      "packs",
    ]);
    const schema = exportConfigSchema() as any;
    const keys = Object.keys(schema.properties.defaults.properties).sort();
    expect(keys).toEqual(
      configurableOptions()
        .map(([name]) => configKey(name))
        .sort(),
    );
    expect(keys).toContain("maxTokens");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.defaults.additionalProperties).toBe(false);
    expect(schema.properties.defaults.properties.repeat).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 });
  });
});

describe("documented examples", () => {
  it("the YAML examples in docs/config.md and README.md are valid config files", () => {
    for (const doc of ["docs/config.md", "README.md"]) {
      const text = readFileSync(join(__dirname, "../../..", doc), "utf8");
      const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
        .map((m) => m[1]!)
        .filter((b) => /^(defaults|prices|\$schema|#)/m.test(b));
      expect(blocks.length).toBeGreaterThan(0);
      for (const block of blocks) expect(validateConfigText(block, doc, false)).toHaveProperty("data");
    }
  });
});

describe("schema/config.schema.json", () => {
  it("is current: equal to a fresh export (run `npm run schema` when this fails)", () => {
    expect(readFileSync(CONFIG_SCHEMA_FILE, "utf8")).toBe(renderConfigSchema());
  });
});

describe("the complete example (examples/config)", () => {
  it("loads with its policy file, and docs/config.md shows it verbatim", () => {
    const root = join(__dirname, "../../..");
    const loaded = loadConfig({ cwd: join(root, "examples/config") });
    expect(Object.keys(loaded.data.agents ?? {})).toEqual(["baseline", "careful", "local-vllm"]);
    expect(loaded.data.defaultAgents).toEqual(["baseline", "careful"]);
    expect(loaded.policies.careful).toMatch(/^- Read the whole page/);
    const example = readFileSync(join(root, "examples/config/umpire.config.yaml"), "utf8");
    expect(readFileSync(join(root, "docs/config.md"), "utf8")).toContain(`\`\`\`yaml\n${example}\`\`\``);
  });

  it("names every registered protocol where it lists them (the example's comment, docs/config.md's `protocol` row)", () => {
    const root = join(__dirname, "../../..");
    const example = readFileSync(join(root, "examples/config/umpire.config.yaml"), "utf8");
    const comment = /protocol: \w+ +# (.*)/.exec(example)?.[1] ?? "";
    expect(comment.split(" | ")).toEqual([...OUTPUT_MODES]);
    const row =
      readFileSync(join(root, "docs/config.md"), "utf8")
        .split("\n")
        .find((l) => l.startsWith("| `protocol` |")) ?? "";
    for (const name of OUTPUT_MODES)
      expect(row, `docs/config.md's protocol row names ${name}`).toContain(`\`${name}\``);
  });
});
