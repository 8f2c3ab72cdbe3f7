/**
 * Each key of the config file's `defaults` section sets its option: a value given there (and no
 * flag) is the value the command runs with, with source "config". The options' own effects are
 * shown by their flags' tests; this shows no defaults key is read and then dropped.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCommand } from "../../../src/cli/args.js";
import { configKey, type OptionSpec, type OptionValue } from "../../../src/config/option.js";
import { OPTIONS, configurableOptions } from "../../../src/config/options.js";

const dir = mkdtempSync(join(tmpdir(), "umpire-defaults-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid value for the option that differs from its built-in default. */
function valueFor(spec: OptionSpec): OptionValue {
  if (spec.kind === "boolean") return spec.default !== true;
  if (spec.kind === "enum") return spec.values!.find((v) => v !== spec.default)!;
  if (spec.kind === "int" || spec.kind === "number") {
    const candidate = spec.min ?? 1;
    return candidate === spec.default ? candidate + 1 : candidate;
  }
  return spec.multiple ? ["from-config"] : "from-config";
}

describe("config defaults", () => {
  it("every defaults key sets its option (source config), for each config-settable option", () => {
    const options = configurableOptions();
    const wanted = Object.fromEntries(options.map(([name, spec]) => [name, valueFor(spec)]));
    const defaults = Object.fromEntries(options.map(([name]) => [configKey(name), wanted[name]]));
    writeFileSync(join(dir, "umpire.config.json"), JSON.stringify({ defaults }));
    const table = { config: OPTIONS.config, ...Object.fromEntries(options) } as Record<string, OptionSpec>;
    const parsed = parseCommand("run", [], table, { cwd: dir });
    for (const [name] of options) {
      expect(parsed.sources[name as keyof typeof parsed.sources], name).toBe("config");
      expect(parsed.values[name as keyof typeof parsed.values], name).toEqual(wanted[name]);
    }
    expect(options.length).toBeGreaterThan(20);
  });
});
