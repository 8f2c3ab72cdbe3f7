/**
 * Help texts that name values are held to where those values are declared (issue 40): a help that
 * lists an enum's words ("a | b | c") lists exactly the option's values, in every command; the
 * reporter names are the registry's; the default capacity of a browser endpoint and the model ids
 * are the constants the code uses; every listening command's port is the one shared `port` option.
 */
import { describe, expect, it } from "vitest";
import { HCOMPANY_MODEL_IDS, REFERENCE_MODEL_ID } from "../../../src/agent/models.js";
import type { DefinedCommand } from "../../../src/cli/command.js";
import { COMMANDS } from "../../../src/cli/main.js";
import { REPORTER_NAMES } from "../../../src/cli/reporters.js";
import { OPTIONS } from "../../../src/config/options.js";
import { DEFAULT_ENDPOINT_CAPACITY } from "../../../src/runner/schedule/browser-endpoint.js";

/** The words of the first "a | b | c" list in a help text, or null when it has none. */
function listedWords(help: string): string[] | null {
  const list = /[\w-]+(?: \| [\w-]+)+/.exec(help);
  return list ? list[0].split(" | ") : null;
}

async function commandTables() {
  return Promise.all(
    Object.entries(COMMANDS).map(async ([name, entry]) => ({
      name,
      options: ((await entry.load()) as DefinedCommand).definition.options,
    })),
  );
}

describe("help texts name the values their sources declare", () => {
  it("an enum option whose help lists its words lists exactly its values, in every command", async () => {
    const drift: string[] = [];
    let lists = 0;
    for (const { name, options } of await commandTables()) {
      for (const [option, spec] of Object.entries(options)) {
        const words = spec.values ? listedWords(spec.help) : null;
        if (!words) continue;
        lists++;
        if ([...words].sort().join() !== [...spec.values!].sort().join()) {
          drift.push(`${name} --${option}: help lists ${words.join(", ")}; the values are ${spec.values!.join(", ")}`);
        }
      }
    }
    expect(drift).toEqual([]);
    // --reasoning-effort and --trace at least (run's table), so the check is not vacuous; --mode's help
    // is written from the protocol registry itself (src/agent/protocols/registry.ts), one line per protocol.
    expect(lists).toBeGreaterThanOrEqual(2);
  });

  it("--reporter's help lists the built-in reporters of the registry", () => {
    expect(listedWords(OPTIONS.reporter.help)?.sort()).toEqual([...REPORTER_NAMES].sort());
  });

  it("--browser-endpoint's help gives the default capacity the endpoint parser uses", () => {
    expect(OPTIONS["browser-endpoint"].help).toContain(`?capacity=N (default ${DEFAULT_ENDPOINT_CAPACITY})`);
  });

  it("--model's help names the reference model and every model of H's catalog, and no other", () => {
    const named = OPTIONS.model.help.match(/\bholo[\w-]+/g) ?? [];
    expect([...named].sort()).toEqual([...HCOMPANY_MODEL_IDS].sort());
    expect(OPTIONS.model.help).toMatch(new RegExp(`^${REFERENCE_MODEL_ID}, ${REFERENCE_MODEL_ID}:<profile>`));
  });

  it("every command that listens takes its port options from the one shared `port` option", async () => {
    const { help: _help, default: _default, defaultText: _text, ...shape } = OPTIONS.port;
    const ports: string[] = [];
    for (const { name, options } of await commandTables()) {
      for (const [option, spec] of Object.entries(options)) {
        if (option !== "port" && !option.endsWith("-port")) continue;
        ports.push(`${name} --${option}`);
        expect(spec, `${name} --${option}`).toMatchObject(shape);
      }
    }
    expect(ports.sort()).toEqual([
      "report --port",
      "serve-fixtures --control-port",
      "serve-fixtures --port",
      "serve-model --port",
      "show-report --port",
    ]);
  });
});
