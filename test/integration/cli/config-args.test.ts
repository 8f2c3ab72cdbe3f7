/**
 * The config file and the one argument layer through the real CLI (`node bin/umpire.js` as a
 * child process): precedence flag > config > built-in default, proven on a real run whose stored
 * options say which source each value came from; unknown config keys and repeated single-valued
 * options are usage errors; `--version` and `-v`; help shows the real defaults.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TEMPERATURE } from "../../../src/agent/config.js";
import { openStore } from "../../../src/store/open.js";
import { execChild } from "../../support/cli-child.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const BIN = join(ROOT, "bin/umpire.js");
const TASK = join(ROOT, "tasks/answer-only-bb042.yaml");
const SECRET = "sk-configtest-0123456789abcdef";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-config-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI in `cwd`; resolves with the exit code and both streams (never rejects). */
async function umpire(args: string[], cwd = dir): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await execChild(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, HAI_API_KEY: SECRET, NO_COLOR: "1" },
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

function writeConfig(name: string, text: string, folder = dir): void {
  writeFileSync(join(folder, name), text);
}

describe("config file precedence through a real run", () => {
  it("a flag beats the config file, the config file beats the built-in default, and the run stores which came from where", async () => {
    writeConfig(
      "umpire.config.yaml",
      [
        "# umpire's config file, as a user writes it",
        "prices:",
        "  reference: {input: 1, output: 2}",
        "defaults:",
        "  temperature: 0.3",
        "  repeat: 2",
        "  mode: structured",
        "  stream: true",
        "  db: from-config.db",
        "  out: runs",
        "  concurrency: 2",
        "  tag: nightly",
        "",
      ].join("\n"),
    );
    const result = await umpire(["run", TASK, "--temperature", "0.5", "--no-stream", "--json"]);
    expect(result.err).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    const runId = JSON.parse(result.out).runId as string;

    // The run went to the config's database (no --db on the command line).
    const store = openStore(join(dir, "from-config.db"), { readonly: true });
    try {
      const run = store.getRun(runId);
      expect(run.tags).toEqual(["nightly"]);
      const options = run.options as any;
      expect(options.config.file).toBe("umpire.config.yaml");
      expect(options.config.options).toMatchObject({
        temperature: { value: 0.5, source: "flag" },
        stream: { value: false, source: "flag" },
        repeat: { value: 2, source: "config" },
        mode: { value: "structured", source: "config" },
        db: { value: "from-config.db", source: "config" },
        "reasoning-effort": { value: "medium", source: "default" },
        "repetition-window": { value: 3, source: "default" },
      });
      expect(options.config.prices).toEqual({ reference: { input: 1, output: 2 } });
      // The agent config the trials ran with is the resolved one.
      expect(options.agents).toHaveLength(1);
      expect(options.agents[0]).toMatchObject({
        mode: "structured",
        temperature: 0.5,
        stream: false,
        reasoningEffort: "medium",
      });
      expect(store.trials(runId)).toHaveLength(2);
    } finally {
      store.close();
    }
    // Secrets never reach the store: the key in the environment is nowhere in the file.
    expect(readFileSync(join(dir, "from-config.db")).includes(SECRET)).toBe(false);

    // Other commands read the same defaults: `runs` finds the run in the config's database...
    const runs = await umpire(["runs", "--json"]);
    expect(runs.code).toBe(0);
    expect(JSON.parse(runs.out).runs.map((r: { id: string }) => r.id)).toEqual([runId]);
    // ...and a --db flag still wins over it.
    const other = await umpire(["runs", "--db", "elsewhere.db", "--json"]);
    expect(other.code).not.toBe(0);
    expect(other.err).toContain("elsewhere.db");
  });
});

describe("config file and argument errors through the real CLI", () => {
  it("an unknown key in the config file is a usage error naming the file, line, key and the likely fix", async () => {
    const folder = mkdtempSync(join(dir, "typo-"));
    writeConfig("umpire.config.json", '{\n  "prices": {},\n  "defaults": {\n    "temprature": 0.2\n  }\n}\n', folder);
    const result = await umpire(["runs"], folder);
    expect(result.code).toBe(2);
    expect(result.err).toContain('umpire.config.json:4: defaults.temprature: unknown key "temprature"');
    expect(result.err).toContain("did you mean 'temperature'?");
  });

  it("--config picks the file; a bad value there names its path and range", async () => {
    writeConfig("strict.yaml", "defaults:\n  repeat: 0\n");
    const result = await umpire(["run", TASK, "--config", "strict.yaml"]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("strict.yaml:2: defaults.repeat: must be at least 1, got the number 0");
  });

  it("a single-valued option given twice is a usage error naming the option; a repeatable one may repeat", async () => {
    const twice = await umpire(["run", TASK, "--temperature", "0.2", "--temperature", "0.9"]);
    expect(twice.code).toBe(2);
    expect(twice.err).toContain('--temperature is given 2 times ("0.2", then "0.9")');
    const db = await umpire(["show", "--db", "a.db", "--db", "b.db"]);
    expect(db.code).toBe(2);
    expect(db.err).toContain("--db is given 2 times");
    // --tag is repeatable: no complaint about it (the run fails later for its own reason: no such task).
    const tags = await umpire(["run", "no-such-task", "--tag", "a", "--tag", "b"]);
    expect(tags.err).not.toContain("given 2 times");
  });

  it("a value out of range or an unknown option is a usage error with the fix", async () => {
    const zero = await umpire(["run", TASK, "--repeat", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.err).toContain("--repeat 0: expected a whole number from 1 to 1000");
    const typo = await umpire(["compare", "--seeed", "3"]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain("unknown option '--seeed'");
    expect(typo.err).toContain("did you mean '--seed'?");
  });

  it("--version and -v print the version from package.json", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-v"]) {
      const result = await umpire([flag]);
      expect(result.code).toBe(0);
      expect(result.out).toBe(`umpire ${version}\n`);
    }
  });

  it("help shows the real defaults, generated from the option table, even next to a broken config file", async () => {
    const folder = mkdtempSync(join(dir, "help-"));
    writeConfig("umpire.config.yaml", "defaults:\n  nope: 1\n", folder);
    const help = await umpire(["run", "--help"], folder);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(new RegExp(`--temperature T +sampling temperature \\(default ${DEFAULT_TEMPERATURE}\\)`));
    // --mode's values, one line each, written from the protocol registry.
    expect(help.out).toMatch(/--mode M +structured +Holo structured outputs/);
    expect(help.out).toMatch(/\n +both +every Holo protocol/);
    expect(help.out).toContain("(default both)");
    expect(help.out).toMatch(/--repeat N +repeats per task and agent config \(default 1\)/);
    expect(help.out).toMatch(/--db FILE +the results database \(default results\/umpire\.db\)/);
  });
});
