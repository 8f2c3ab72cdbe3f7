/**
 * The task schema and every named rule: each invalid case names its rule, its dotted path and a
 * plain-words message. Each case writes a small task file to a temp folder and loads it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { CUSTOM_CHECK_RULES } from "../../../src/checks/custom-rules.js";
import { loadTasks, loadTasksAsync } from "../../../src/task/loader.js";
import type { Problem } from "../../../src/task/problem.js";
import { FIXTURE_CHECKS, tempTasks, validTask } from "./helpers.js";
import { TargetsSection } from "../../../src/task/target-decl.js";

const temp = tempTasks();
afterAll(() => temp.cleanup());

let counter = 0;
/**
 * Loads one task (the valid base changed by `edit`) from a file named after its id, as the CLI
 * does: with the module rules, so each custom check's module judges its own options.
 */
async function problemsOf(edit: (task: Record<string, any>) => void): Promise<Problem[]> {
  const id = `case-${++counter}`;
  const task = validTask(id);
  edit(task);
  temp.write(`${id}.yaml`, task);
  return (await loadTasksAsync([`${id}.yaml`], { cwd: temp.dir }, CUSTOM_CHECK_RULES)).problems;
}

/** The fixture suite's note check (a custom check) with these options. */
const note = (options: Record<string, unknown>) => ({
  kind: "custom",
  module: FIXTURE_CHECKS,
  export: "note",
  options,
});

interface Case {
  name: string;
  edit: (task: Record<string, any>) => void;
  rule: string;
  path: string;
  message: RegExp;
  fix?: RegExp;
  severity?: "error" | "warning";
}

const CASES: Case[] = [
  // schema: wrong types, missing and unknown fields, bad enum values
  {
    name: "missing required field",
    edit: (t) => delete t.title,
    rule: "schema",
    path: "title",
    message: /^required: expected text/,
  },
  {
    name: "wrong type",
    edit: (t) => (t.limits = { turns: "ten" }),
    rule: "schema",
    path: "limits.turns",
    message: /^expected a number, got text "ten"$/,
  },
  {
    name: "fraction where a whole number is needed",
    edit: (t) => (t.limits = { turns: 2.5 }),
    rule: "schema",
    path: "limits.turns",
    message: /expected a whole number, got the number 2.5/,
  },
  {
    name: "list expected",
    edit: (t) => (t.tools = "click"),
    rule: "schema",
    path: "tools",
    message: /^expected a list, got text "click"$/,
  },
  {
    name: "empty list",
    edit: (t) => (t.checks = []),
    rule: "schema",
    path: "checks",
    message: /must have at least 1 item$/,
  },
  {
    name: "short instruction",
    edit: (t) => (t.instruction = "do it"),
    rule: "schema",
    path: "instruction",
    message: /at least 10 characters/,
  },
  {
    name: "bad id",
    edit: (t) => (t.id = "Not An Id"),
    rule: "schema",
    path: "id",
    message: /must be lower-case letters, digits and '-' \(got "Not An Id"\)/,
  },
  {
    name: "unknown top-level key",
    edit: (t) => (t.intsruction = "x"),
    rule: "schema",
    path: "intsruction",
    message: /unknown key "intsruction"/,
    fix: /did you mean 'instruction'\?/,
  },
  {
    name: "unknown nested key",
    edit: (t) => (t.checks[0].pth = "x"),
    rule: "schema",
    path: "checks[0].pth",
    message: /unknown key "pth"/,
    fix: /did you mean 'path'\?/,
  },
  {
    name: "unknown key with no close match lists the allowed ones",
    edit: (t) => (t.limits = { zzzzzz: 1 }),
    rule: "schema",
    path: "limits.zzzzzz",
    message: /unknown key/,
    fix: /allowed keys here: turns, actions, tokens, seconds/,
  },
  {
    name: "unknown check kind",
    edit: (t) => (t.checks[0].kind = "files"),
    rule: "schema",
    path: "checks[0].kind",
    message: /unknown kind "files": expected one of file, page, effects, answer/,
    fix: /did you mean 'file'\?/,
  },
  {
    name: "unknown scenario",
    edit: (t) => (t.start = { scenario: "cookie-escpe" }),
    rule: "schema",
    path: "start.scenario",
    message: /expected one of plain, .*got text "cookie-escpe"/,
    fix: /did you mean 'cookie-escape'\?/,
  },
  {
    name: "start path must be absolute",
    edit: (t) => (t.start = { path: "notes" }),
    rule: "target-vocabulary",
    path: "start.path",
    message: /not a path on the fixture site/,
  },
  {
    name: "text matcher of the wrong shape",
    edit: (t) => (t.checks[0].contains = [{ regex: 5 }]),
    rule: "schema",
    path: "checks[0].contains[0].regex",
    message: /expected text, got the number 5/,
  },
  {
    name: "bad negative name",
    edit: (t) => (t.negatives = { "Bad Name": [{ tool: "answer", args: { content: "x" } }] }),
    rule: "schema",
    path: 'negatives["Bad Name"]',
    message: /"Bad Name" is not an allowed name here/,
  },
  // failsOn: a negative written as {steps, failsOn}; its names must be required checks of the task
  {
    name: "failsOn naming no check",
    edit: (t) =>
      (t.negatives = {
        sneaky: { failsOn: ["file notes/BB-042.mdd"], steps: [{ tool: "answer", args: { content: "x" } }] },
      }),
    rule: "fails-on-checks",
    path: "negatives.sneaky.failsOn[0]",
    message: /no check of the task is called "file notes\/BB-042.mdd"/,
    fix: /did you mean 'file notes\/BB-042.md'\?/,
  },
  {
    name: "failsOn naming an advisory check",
    edit: (t) => {
      t.checks[0].required = false;
      t.negatives = {
        sneaky: { failsOn: ["file notes/BB-042.md"], steps: [{ tool: "answer", args: { content: "x" } }] },
      };
    },
    rule: "fails-on-checks",
    path: "negatives.sneaky.failsOn[0]",
    message: /is advisory \(required: false\)/,
  },
  {
    name: "negative with failsOn: its steps are judged at their own path",
    edit: (t) =>
      (t.negatives = {
        sneaky: { failsOn: ["file notes/BB-042.md"], steps: [{ tool: "navigate", args: { url: "/" } }] },
      }),
    rule: "steps-use-allowed-tools",
    path: "negatives.sneaky.steps[0].tool",
    message: /uses navigate/,
  },
  {
    name: "failsOn that is empty",
    edit: (t) => (t.negatives = { sneaky: { failsOn: [], steps: [{ tool: "answer", args: { content: "x" } }] } }),
    rule: "schema",
    path: "negatives.sneaky.failsOn",
    message: /must have at least 1 item/,
  },
  // named rules
  {
    name: "unknown tool",
    edit: (t) => t.tools.push("clik"),
    rule: "known-tools",
    path: "tools[6]",
    message: /unknown tool "clik"/,
    fix: /did you mean 'click'\?/,
  },
  {
    name: "unknown tool in a reference step",
    edit: (t) => (t.reference[1].tool = "wrte"),
    rule: "known-tools",
    path: "reference[1].tool",
    message: /unknown tool "wrte"/,
    fix: /did you mean 'write'\?/,
  },
  {
    name: "step uses a tool the task does not allow",
    edit: (t) => t.reference.splice(2, 0, { tool: "go_back" }),
    rule: "steps-use-allowed-tools",
    path: "reference[2].tool",
    message: /uses go_back, which the task does not allow/,
  },
  {
    name: "negative step uses a tool the task does not allow",
    edit: (t) => (t.negatives = { sneaky: [{ tool: "navigate", args: { url: "/" } }] }),
    rule: "steps-use-allowed-tools",
    path: "negatives.sneaky[0].tool",
    message: /uses navigate/,
  },
  {
    name: "click without target",
    edit: (t) => delete t.reference[0].target,
    rule: "step-targets",
    path: "reference[0].target",
    message: /a click step needs a target/,
  },
  {
    name: "click with pixels",
    edit: (t) => (t.reference[0].args = { x: 500, y: 300 }),
    rule: "step-targets",
    path: "reference[0].args",
    message: /not pixels: remove args.x and args.y/,
  },
  {
    name: "target on a tool that takes none",
    edit: (t) => (t.reference[1].target = "search-box"),
    rule: "step-targets",
    path: "reference[1].target",
    message: /target does not apply to write/,
  },
  {
    name: "step args of the wrong type",
    edit: (t) => (t.reference[1].args = { content: 42 }),
    rule: "step-args",
    path: "reference[1].args.content",
    message: /expected text, got the number 42/,
  },
  {
    name: "step args out of range",
    edit: (t) => t.reference.splice(2, 0, { tool: "wait", args: { seconds: 90 } }),
    rule: "step-args",
    path: "reference[2].args.seconds",
    message: /must be at most 30, got the number 90/,
  },
  {
    name: "step args with an unknown key",
    edit: (t) => (t.reference[1].args = { contnet: "x" }),
    rule: "step-args",
    path: "reference[1].args.contnet",
    message: /unknown key "contnet"/,
    fix: /did you mean 'content'\?/,
  },
  {
    name: "limit out of range",
    edit: (t) => (t.limits = { turns: 500 }),
    rule: "limits-in-range",
    path: "limits.turns",
    message: /500 is outside the allowed range 1..200/,
  },
  {
    name: "reference longer than the action limit",
    edit: (t) => (t.limits = { actions: 2 }),
    rule: "reference-within-limits",
    path: "reference",
    message: /takes 3 actions but limits.actions is 2/,
  },
  {
    name: "reference that never answers",
    edit: (t) => t.reference.pop(),
    rule: "reference-ends-with-answer",
    path: "reference[1]",
    message: /does not end with answer/,
    severity: "warning",
  },
  {
    name: "absolute check path",
    edit: (t) => (t.checks[0].path = "/etc/passwd"),
    rule: "paths-in-workspace",
    path: "checks[0].path",
    message: /"\/etc\/passwd" leaves the trial workspace/,
  },
  {
    name: "check path escaping with ..",
    edit: (t) => (t.checks[0].path = "notes/../../secret.md"),
    rule: "paths-in-workspace",
    path: "checks[0].path",
    message: /leaves the trial workspace/,
  },
  {
    name: "windows drive path",
    edit: (t) => (t.checks[0].path = "C:\\notes\\x.md"),
    rule: "paths-in-workspace",
    path: "checks[0].path",
    message: /leaves the trial workspace/,
  },
  {
    name: "check path that names the workspace",
    edit: (t) => (t.checks[0].path = "./notes/.."),
    rule: "paths-in-workspace",
    path: "checks[0].path",
    message: /names the workspace itself/,
  },
  {
    name: "write scope escaping",
    edit: (t) => (t.permissions = { writeScope: "../outside" }),
    rule: "paths-in-workspace",
    path: "permissions.writeScope",
    message: /leaves the trial workspace/,
  },
  {
    name: "regex that does not compile",
    edit: (t) => (t.checks[0].contains = [{ regex: "(unclosed" }]),
    rule: "regexes-compile",
    path: "checks[0].contains[0].regex",
    message: /does not compile/,
  },
  {
    name: "onlyRecord pattern that does not compile (custom note check)",
    edit: (t) => t.checks.push(note({ path: "notes/BB-042.md", onlyRecord: { pattern: "BB-[", expect: "BB-042" } })),
    rule: "custom-check-options",
    path: "checks[3].options.onlyRecord.pattern",
    message: /does not compile/,
    fix: /fix the pattern/,
  },
  {
    name: "onlyRecord pattern RE2 cannot run (custom note check)",
    edit: (t) => t.checks.push(note({ path: "notes/BB-042.md", onlyRecord: { pattern: "(BB)-\\1", expect: "BB-BB" } })),
    rule: "custom-check-options",
    path: "checks[3].options.onlyRecord.pattern",
    message: /backreferences are not supported/,
  },
  {
    name: "note check path leaving the workspace",
    edit: (t) => t.checks.push(note({ path: "../secret.md", fields: { match: "BB-042" } })),
    rule: "custom-check-options",
    path: "checks[3].options.path",
    message: /uses "\.\."/,
  },
  {
    name: "note check option misspelt",
    edit: (t) => t.checks.push(note({ path: "notes/BB-042.md", feilds: { match: "BB-042" } })),
    rule: "custom-check-options",
    path: "checks[3].options.feilds",
    message: /unknown option "feilds"/,
  },
  {
    name: "note check that tests nothing",
    edit: (t) => t.checks.push(note({ path: "notes/BB-042.md" })),
    rule: "custom-check-options",
    path: "checks[3].options",
    message: /tests only that the file exists/,
  },
  {
    name: "cricket score not written as runs/wickets",
    edit: (t) => (t.checks[2].options.scores = ["168-6"]),
    rule: "custom-check-options",
    path: "checks[2].options.scores[0]",
    message: /not a score written as runs\/wickets/,
  },
  {
    name: "cricket result that cannot be read",
    edit: (t) => (t.checks[2].options.result = "a famous victory"),
    rule: "custom-check-options",
    path: "checks[2].options.result",
    message: /cannot read the expected result/,
  },
  {
    name: "custom check export that the module lacks",
    edit: (t) => (t.checks[2].export = "anwser"),
    rule: "custom-check-options",
    path: "checks[2].export",
    message: /has no export "anwser"/,
  },
  {
    name: "page check that tests nothing",
    edit: (t) => t.checks.push({ kind: "page", open: "/" }),
    rule: "checks-test-something",
    path: "checks[3]",
    message: /tests no url, text, selector or state/,
  },
  {
    name: "page state without selector",
    edit: (t) => t.checks.push({ kind: "page", state: "hidden" }),
    rule: "checks-test-something",
    path: "checks[3].state",
    message: /needs a selector/,
  },
  {
    name: "empty effects check",
    edit: (t) => t.checks.push({ kind: "effects" }),
    rule: "checks-test-something",
    path: "checks[3]",
    message: /requires and forbids nothing/,
  },
  {
    name: "onlyRecord expect its pattern cannot match (custom note check)",
    edit: (t) =>
      t.checks.push(note({ path: "notes/BB-042.md", onlyRecord: { pattern: "BB-\\d{3}", expect: "BB-42" } })),
    rule: "custom-check-options",
    path: "checks[3].options.onlyRecord.expect",
    message: /could never pass/,
  },
  {
    name: "absent file with content conditions",
    edit: (t) => {
      t.checks[0].exists = false;
    },
    rule: "checks-consistent",
    path: "checks[0].exists",
    message: /absent file has no content/,
  },
  {
    name: "page check opening a full URL",
    edit: (t) => t.checks.push({ kind: "page", open: "//evil.example/x", url: "x" }),
    rule: "checks-consistent",
    path: "checks[3].open",
    message: /neither a path on the target nor an http\(s\) URL/,
  },
  {
    name: "effect with both count and min",
    edit: (t) => (t.checks[1].require[0].min = 1),
    rule: "checks-consistent",
    path: "checks[1].require[0]",
    message: /both given/,
  },
  {
    name: "answer that must be absent yet has conditions",
    edit: (t) => t.checks.push({ kind: "answer", required: false, present: false, contains: ["x"] }),
    rule: "checks-consistent",
    path: "checks[3].present",
    message: /can never apply/,
  },
  {
    name: "required effect that permissions forbid",
    edit: (t) => (t.permissions = { forbiddenEffects: ["note_saved"] }),
    rule: "effects-consistent",
    path: "checks[1].require[0].type",
    message: /note_saved is required here but permissions.forbiddenEffects forbids it/,
  },
  {
    name: "write_note without a write scope",
    edit: (t) => {
      t.tools.push("write_note");
      t.permissions = { writeScope: "" };
    },
    rule: "narrow-tools-configured",
    path: "permissions.writeScope",
    message: /write_note is allowed but writeScope names no folder/,
  },
  {
    name: "http_get without an allow list",
    edit: (t) => t.tools.push("http_get"),
    rule: "narrow-tools-configured",
    path: "permissions.httpAllow",
    message: /http_get is allowed but httpAllow lists no path prefix/,
  },
  {
    name: "required answer check without the answer tool",
    edit: (t) => {
      t.tools = ["click", "write"];
      t.reference.pop();
      t.checks.push({ kind: "answer", contains: ["x"] });
    },
    rule: "answer-tool-for-answer-check",
    path: "checks[3]",
    message: /expects an answer but the task does not allow the answer tool/,
  },
  {
    name: "required cricket answer check without the answer tool",
    edit: (t) => {
      t.tools = ["click", "write"];
      t.reference.pop();
      t.checks[2].required = true;
    },
    rule: "custom-check-options",
    path: "checks[2].options",
    message: /expects an answer but the task does not allow the answer tool/,
  },
  {
    name: "advisory cricket answer check without the answer tool",
    edit: (t) => {
      t.tools = ["click", "write"];
      t.reference.pop();
    },
    rule: "custom-check-options",
    path: "checks[2].options",
    message: /expects an answer/,
    severity: "warning",
  },
  {
    name: "expected field value in the instruction",
    edit: (t) => (t.instruction += " Jaipur Kites won by 6 wickets."),
    rule: "no-expected-values-in-instruction",
    path: "checks[0].contains[1]",
    message: /"Jaipur Kites won by 6 wickets" appears in the instruction/,
  },
  {
    name: "expected note field value in the instruction (custom note check)",
    edit: (t) => {
      t.checks.push(note({ path: "notes/BB-042.md", fields: { result: "Jaipur Kites won by 6 wickets" } }));
      t.checks[0].contains = ["BB-042"];
      t.instruction += " Jaipur Kites won by 6 wickets.";
    },
    rule: "no-expected-values-in-instruction",
    path: "checks[3].options.fields.result",
    message: /"Jaipur Kites won by 6 wickets" appears in the instruction/,
    fix: /reword the instruction, or list the value in givens/,
  },
  {
    name: "expected record in the instruction (custom note check)",
    edit: (t) => {
      t.checks.push(note({ path: "notes/x.md", onlyRecord: { pattern: "BB-\\d{3}", expect: "BB-042" } }));
      t.givens = [];
    },
    rule: "no-expected-values-in-instruction",
    path: "checks[3].options.onlyRecord.expect",
    message: /"BB-042" appears in the instruction/,
  },
  {
    name: "expected value in the instruction, across case and white space",
    edit: (t) => (t.instruction += " JAIPUR KITES  won by\n6 wickets."),
    rule: "no-expected-values-in-instruction",
    path: "checks[0].contains[1]",
    message: /appears in the instruction/,
  },
  {
    name: "expected value in the instruction, across unicode dashes",
    edit: (t) => {
      t.checks[0].contains.push("2024-05-02");
      t.instruction += " Played 2024\u201305\u201302.";
    },
    rule: "no-expected-values-in-instruction",
    path: "checks[0].contains[2]",
    message: /"2024-05-02" appears in the instruction/,
  },
  {
    name: "expected score in the instruction",
    edit: (t) => (t.instruction += " Hint: 168/6."),
    rule: "no-expected-values-in-instruction",
    path: "checks[2].options.scores[0]",
    message: /"168\/6" appears in the instruction/,
  },
  {
    name: "expected number in the instruction",
    edit: (t) => {
      t.checks.push({ kind: "answer", required: false, number: { value: 187 } });
      t.instruction += " It was 187.";
    },
    rule: "no-expected-values-in-instruction",
    path: "checks[3].number.value",
    message: /"187" appears/,
  },
  {
    name: "given that the instruction does not state",
    edit: (t) => t.givens.push("BB-024"),
    rule: "no-expected-values-in-instruction",
    path: "givens[1]",
    message: /"BB-024" does not occur in the instruction/,
    severity: "warning",
  },
];

describe("task schema and rules: each invalid case", () => {
  it.each(CASES)("$name", async ({ edit, rule, path, message, fix, severity }) => {
    const problems = await problemsOf(edit);
    const found = problems.find((p) => p.rule === rule && p.path === path);
    expect(
      found,
      `no ${rule} problem at ${path}; got:\n${problems.map((p) => `${p.rule} ${p.path}: ${p.message}`).join("\n")}`,
    ).toBeDefined();
    expect(found!.message).toMatch(message);
    if (fix) expect(found!.fix).toMatch(fix);
    expect(found!.severity).toBe(severity ?? "error");
    expect(found!.line, "every located problem names its line").toBeGreaterThan(0);
  });

  it("a page check with a selector and neither state nor text is valid: it asks for the element to be visible (docs/checks.md)", async () => {
    expect(
      await problemsOf((t) => t.checks.push({ kind: "page", open: "/", selector: "[data-mark=search-box]" })),
    ).toEqual([]);
  });

  it("failsOn names the permissions.forbiddenEffects result by the name it is shown under, or the field alone (#39)", async () => {
    const named = (failsOn: string[]) =>
      problemsOf((t) => {
        t.permissions = { forbiddenEffects: ["match_deleted"] };
        t.negatives = { sneaky: { failsOn, steps: [{ tool: "answer", args: { content: "x" } }] } };
      });
    const rule = (problems: Problem[]) => problems.filter((p) => p.rule === "fails-on-checks");
    expect(rule(await named(["permissions.forbiddenEffects: no match_deleted"]))).toEqual([]);
    expect(rule(await named(["permissions.forbiddenEffects"]))).toEqual([]);
    const typo = rule(await named(["permissions.forbiddenEffects: no match_delete"]));
    expect(typo.map((p) => p.fix)).toEqual([expect.stringContaining("permissions.forbiddenEffects: no match_deleted")]);
  });

  it("warns on a step target one typo from a declared mark; any other undeclared name is a test id (#39)", async () => {
    const targets = TargetsSection.parse({
      app: { baseUrl: "http://127.0.0.1:3000", marks: { "save-button": { selector: "#save" } } },
    });
    const steps = (target: string) => [
      { tool: "click", target },
      { tool: "answer", args: { content: "done" } },
    ];
    const load = async (target: string) => {
      const id = `case-${++counter}`;
      const task: Record<string, unknown> = {
        ...validTask(id),
        target: "app",
        checks: [{ kind: "answer", contains: ["done"] }],
        givens: [],
      };
      task.reference = steps(target);
      task.negatives = {};
      temp.write(`${id}.yaml`, task);
      const loaded = await loadTasksAsync([`${id}.yaml`], { cwd: temp.dir, targets }, CUSTOM_CHECK_RULES);
      return loaded.problems.filter((p) => p.rule === "step-targets-declared");
    };
    expect(await load("save-buton")).toEqual([
      expect.objectContaining({
        severity: "warning",
        path: "reference[0].target",
        message:
          "save-buton is no declared mark of target app, so it must be a test id on the page (umpire marks lists them)",
        fix: "did you mean 'save-button'?",
      }),
    ]);
    expect(await load("save-button")).toEqual([]);
    expect(await load("greeting")).toEqual([]);
  });

  it("the valid base task has no problems at all", async () => {
    expect(await problemsOf(() => {})).toEqual([]);
  });

  it("a given exempts its value from the leak rule", async () => {
    // BB-042 is both the instruction's match id and an expected value.
    const problems = await problemsOf(() => {});
    expect(problems.filter((p) => p.rule === "no-expected-values-in-instruction")).toEqual([]);
    const withoutGiven = await problemsOf((t) => (t.givens = []));
    expect(withoutGiven.map((p) => p.path)).toContain("checks[0].contains[0]");
  });

  it("numbers leak only as whole numbers: 16 is not found inside 168", async () => {
    const problems = await problemsOf((t) => {
      t.checks.push({ kind: "answer", required: false, number: { value: 16 } });
      t.instruction += " Scores look like 168/6.";
      t.checks[2].options.scores = ["169/4"];
    });
    expect(problems.filter((p) => p.rule === "no-expected-values-in-instruction")).toEqual([]);
  });

  it("a file whose name differs from its id gets a warning, not an error", () => {
    const id = "named-differently";
    temp.write("other-name.yaml", validTask(id));
    const { problems, tasks } = loadTasks(["other-name.yaml"], { cwd: temp.dir });
    expect(problems).toEqual([
      expect.objectContaining({
        rule: "file-name-matches-id",
        severity: "warning",
        path: "id",
        fix: `rename the file to ${id}.yaml`,
      }),
    ]);
    expect(tasks.map((t) => t.id)).toEqual([id]);
  });

  it("reports every problem of a file at once", async () => {
    const problems = await problemsOf((t) => {
      t.titel = "typo";
      t.tools.push("clik");
      t.limits = { turns: "x" };
      t.checks[0].kind = "fiel";
    });
    expect(problems.map((p) => p.path).sort()).toEqual(["checks[0].kind", "limits.turns", "titel", "tools[6]"]);
  });

  it("reports a file's schema and semantic problems in one pass (#39)", async () => {
    const problems = await problemsOf((t) => {
      t.titel = "typo";
      t.limits = { turns: "x" };
      t.negatives = {
        sneaky: { failsOn: ["no such check"], steps: [{ tool: "navigate", args: { url: "/" } }] },
      };
    });
    const by = (rule: string) => problems.filter((p) => p.rule === rule).map((p) => p.path);
    expect(by("schema").sort()).toEqual(["limits.turns", "titel"]);
    expect(by("fails-on-checks")).toEqual(["negatives.sneaky.failsOn[0]"]);
    expect(by("steps-use-allowed-tools")).toEqual(["negatives.sneaky.steps[0].tool"]);
  });
});
