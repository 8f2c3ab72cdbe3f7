/**
 * Which tasks a protocol can play (#41): every protocol declares the tools it can offer, and a task
 * whose gold uses a tool the protocol cannot offer is not playable in it, naming the tools. Read
 * against the bundled tasks: the API-only task is not playable in UI-TARS, every other task is
 * playable everywhere (their declared go_back is not needed: no gold uses it).
 */
import { describe, expect, it } from "vitest";
import { CUSTOM_CHECK_RULES } from "../../../src/checks/custom-rules.js";
import { missingTools, notPlayableText, playability, toolsNeeded } from "../../../src/agent/protocols/playable.js";
import { protocolList } from "../../../src/agent/protocols/registry.js";
import { loadTasksAsync } from "../../../src/task/loader.js";
import { TOOL_NAMES } from "../../../src/toolbox/tools.js";
import { probesFor } from "../../../src/authoring/probes.js";
import { OUTPUT_MODES } from "../../../src/vocabulary.js";
import { ROOT } from "../../support/cli-in-process.js";

const tasks = (await loadTasksAsync(["tasks"], { cwd: ROOT }, CUSTOM_CHECK_RULES)).tasks;
const apiNote = tasks.find((t) => t.id === "api-note-bb042")!;

describe("playability", () => {
  it("every protocol decides every tool of the toolbox", () => {
    for (const p of protocolList()) expect(Object.keys(p.tools).sort(), p.name).toEqual([...TOOL_NAMES].sort());
  });

  it("a task needs the tools its gold uses, in the toolbox's order", () => {
    expect(toolsNeeded(apiNote)).toEqual(["answer", "http_get", "write_note"]);
  });

  it("the API-only task is not playable in ui-tars, naming the tools; playable in every other protocol", () => {
    expect(playability(apiNote, "ui-tars")).toEqual({ playable: false, missing: ["http_get", "write_note"] });
    for (const name of OUTPUT_MODES.filter((m) => m !== "ui-tars"))
      expect(playability(apiNote, name), name).toEqual({ playable: true, missing: [] });
    expect(notPlayableText("ui-tars", ["http_get", "write_note"])).toBe(
      "not playable in ui-tars: needs http_get, write_note, which ui-tars's action space has no way to express",
    );
  });

  it("every other bundled task is playable in every protocol", () => {
    expect(tasks.length).toBe(14);
    const unplayable = tasks.flatMap((t) =>
      OUTPUT_MODES.filter((m) => !playability(t, m).playable).map((m) => `${t.id} in ${m}`),
    );
    expect(unplayable).toEqual(["api-note-bb042 in ui-tars"]);
    expect(missingTools(["go_back", "navigate", "click"], "ui-tars")).toEqual(["go_back", "navigate"]);
  });

  it("the self-test plays no probe in a protocol the task is not playable in; none selected can: gold in structured", () => {
    const names = probesFor(apiNote, ["structured", "openai-computer", "ui-tars"]).map((p) => p.name);
    expect(names).toContain("gold/openai-computer");
    expect(names.filter((n) => n.includes("ui-tars"))).toEqual([]);
    const alone = probesFor(apiNote, ["ui-tars"]).map((p) => `${p.name} in ${p.mode}`);
    expect(alone).toEqual([
      "gold/structured in structured",
      "answer-now in structured",
      "negative:wrong-record in structured",
    ]);
    // The first vendor protocol that can play the task plays the negatives.
    expect(probesFor(apiNote, ["ui-tars", "qwen3-vl"]).map((p) => p.name)).toContain("negative:wrong-record/qwen3-vl");
  });
});
