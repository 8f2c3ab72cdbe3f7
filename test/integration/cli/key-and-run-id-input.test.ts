/**
 * Issue 24, through the real CLI: a key put where a variable NAME belongs (a named agent's
 * `apiKeyEnv`, directly or through a YAML anchor, or `--api-key-env`) is called a key and never
 * printed; `--run-id` must be one folder name (`..` or a separator would put trial folders above --out).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli-child.js";

// Built at run time so no key-shaped literal sits in the tree (secret scanners flag those).
const KEY = ["sk", "pasted0key0where0a0name0goes9f2"].join("-");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-key-input-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a key where a variable name belongs", () => {
  it("in the config file, directly and through a YAML anchor: named a key, its value never shown", {
    timeout: 120_000,
  }, async () => {
    const config = join(dir, "umpire.config.yaml");
    writeFileSync(
      config,
      `agents:\n  direct:\n    model: reference\n    apiKeyEnv: &pasted ${KEY}\n  anchored:\n    model: reference\n    apiKeyEnv: *pasted\n`,
    );
    const r = await runCli([
      "run",
      "answer-only-bb042",
      "--config",
      config,
      "--agent",
      "direct",
      "--list",
      "--db",
      join(dir, "a.db"),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /umpire\.config\.yaml:4: agents\.direct\.apiKeyEnv: looks like a key, not a variable name/,
    );
    expect(r.stderr).toMatch(
      /umpire\.config\.yaml:7: agents\.anchored\.apiKeyEnv: looks like a key, not a variable name/,
    );
    expect(r.stderr + r.stdout).not.toContain(KEY);
    expect(r.stderr + r.stdout).not.toContain("pasted0key");
  });

  it("in --api-key-env", { timeout: 120_000 }, async () => {
    const r = await runCli([
      "run",
      "answer-only-bb042",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--model",
      "m",
      "--api-key-env",
      KEY,
      "--list",
      "--db",
      join(dir, "b.db"),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--api-key-env: looks like a key, not a variable name");
    expect(r.stderr + r.stdout).not.toContain("pasted0key");
  });

  it("a NAME whose first word is also a key prefix is a name: --api-key-env HAI_API_KEY, apiKeyEnv: HF_TOKEN (issue #38)", {
    timeout: 120_000,
  }, async () => {
    const config = join(dir, "names.config.yaml");
    writeFileSync(config, "agents:\n  hf:\n    model: reference\n    apiKeyEnv: HF_TOKEN\n");
    const listed = await runCli([
      "run",
      "answer-only-bb042",
      "--config",
      config,
      "--agent",
      "hf",
      "--list",
      "--db",
      join(dir, "c.db"),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const flag = await runCli(
      [
        "run",
        "answer-only-bb042",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--api-key-env",
        "HAI_API_KEY",
        "--list",
        "--db",
        join(dir, "d.db"),
      ],
      { env: { HAI_API_KEY: "a-value-for-the-listing" } },
    );
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.stderr).not.toContain("looks like a key");
  });
});

describe("--run-id", () => {
  it("refuses .., separators and odd names with what a run id may hold; nothing is written", {
    timeout: 420_000,
  }, async () => {
    const out = join(dir, "runs", "inner");
    const ids = ["..", "../escaped", "a\\b"];
    const results = await Promise.all(
      ids.map((id) => runCli(["run", "answer-only-bb042", "--run-id", id, "--db", join(dir, "c.db"), "--out", out])),
    );
    for (const [i, r] of results.entries()) {
      expect(r.code, `${ids[i]}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/--run-id: .* is not a run id: it names the run's folder under --out/);
      expect(r.stderr).toMatch(/fix: use letters, digits/);
    }
    expect(existsSync(join(dir, "runs"))).toBe(false);
    expect(existsSync(join(dir, "escaped"))).toBe(false);
    const ok = await runCli([
      "run",
      "answer-only-bb042",
      "--run-id",
      "nightly-2026.12.01_a",
      "--list",
      "--db",
      join(dir, "c.db"),
      "--out",
      out,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
  });
});
