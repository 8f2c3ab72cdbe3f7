/**
 * Every bundled task self-tests in every protocol (#41): `umpire validate --self-test --mode all`
 * through the real CLI on two bundled tasks plays gold in each registered protocol (the list comes
 * from the registry, so a protocol added there is proven here without an edit) and answer-now in
 * each, every row naming its protocol; `umpire try --mode` plays gold in a vendor protocol.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { protocolList } from "../../../src/agent/protocols/registry.js";
import { HOLO_MODES } from "../../../src/vocabulary.js";
import { runCli } from "../../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "umpire-selftest-protocols-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const STORE = ["--db", join(dir, "umpire.db"), "--out", join(dir, "runs")];
const TASKS = ["tasks/answer-only-bb042.yaml", "tasks/infeasible-bb999.yaml"];
const PROTOCOLS = protocolList().map((p) => p.name);

interface Row {
  task: string;
  protocol: string;
  probe: { name: string; mode: string; expect: string };
  verdict: string;
  ok: boolean;
  reasons: string[];
}

describe("validate --self-test --mode all", () => {
  it("plays gold and answer-now in every registered protocol, each row naming its protocol", async () => {
    const result = await runCli(["validate", "--self-test", "--mode", "all", "--json", ...STORE, ...TASKS]);
    const body = JSON.parse(result.stdout) as {
      selfTest: { sound: boolean; protocols: string[]; results: Row[]; unsoundPairs: unknown[] };
    };
    const { results } = body.selfTest;
    expect(body.selfTest.protocols).toEqual(PROTOCOLS);
    for (const task of ["answer-only-bb042", "infeasible-bb999"]) {
      for (const protocol of PROTOCOLS) {
        const mine = results.filter((r) => r.task === task && r.protocol === protocol);
        const gold = mine.find((r) => r.probe.name === `gold/${protocol}`);
        expect(gold, `${task} gold/${protocol}`).toMatchObject({ verdict: "passed", ok: true });
        const holo = (HOLO_MODES as readonly string[]).includes(protocol);
        // Holo's answer-now is played once, in structured; every vendor protocol plays its own.
        if (protocol === "tools") continue;
        const answerNow = mine.find((r) => r.probe.name === (holo ? "answer-now" : `answer-now/${protocol}`));
        expect(answerNow, `${task} answer-now in ${protocol}`).toMatchObject({ verdict: "failed", ok: true });
      }
    }
    expect(results.every((r) => r.protocol === r.probe.mode)).toBe(true);
    // The negatives are played in structured and in the first vendor protocol.
    const firstVendor = PROTOCOLS.find((p) => !(HOLO_MODES as readonly string[]).includes(p))!;
    expect(results.filter((r) => r.probe.name.startsWith("negative:")).map((r) => r.protocol)).toEqual(
      expect.arrayContaining(["structured", firstVendor]),
    );
    expect(body.selfTest.unsoundPairs).toEqual([]);
    expect(body.selfTest.sound).toBe(true);
    expect(result.code).toBe(0);
  }, 1_500_000);

  it("refuses an unknown protocol, naming the choices", async () => {
    const result = await runCli(["validate", "--self-test", "--mode", "holo9", ...STORE, TASKS[0]!]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--mode holo9: unknown value");
    for (const name of [...PROTOCOLS, "both", "all"]) expect(result.stderr).toContain(name);
  });
});

describe("try --mode", () => {
  it("plays the gold reference in a vendor protocol", async () => {
    const vendor = PROTOCOLS.at(-1)!;
    const result = await runCli(["try", "answer-only-bb042", "--mode", vendor, ...STORE]);
    expect(result.stderr).toContain(`gold/${vendor}`);
    expect(result.stdout).toContain(`answer-only-bb042 gold/${vendor}: passed (answered)`);
    expect(result.stdout).toMatch(/✓ step 3 of 4 \(click result-BB-042\) on mark result-BB-042/);
    expect(result.stdout).not.toContain("note: not exercised");
    expect(result.code).toBe(0);
  }, 600_000);
});
