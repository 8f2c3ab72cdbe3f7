/**
 * A `${...}` in a text umpire sends that would reach the app as written is a validation error naming
 * the file and the field (issue 37, item 5): an unknown name anywhere, a trial's variable where no
 * trial exists yet (a target's ready or version URL), a secret outside header and cookie values.
 * test/integration/targets/request-variables.test.ts proves the accepted ones are filled in.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { validateConfigText } from "../../../src/config/loader.js";
import { loadTasks } from "../../../src/task/loader.js";
import { INSTANCE_SCOPE, SECRET_SCOPE, TRIAL_SCOPE, variableProblems } from "../../../src/task/trial-vars.js";
import { tempTasks, type TempTasks, validTask } from "./helpers.js";

function configProblems(target: string): string[] {
  const text = `targets:\n  app:\n    baseUrl: http://127.0.0.1:3000\n${target}`;
  const result = validateConfigText(text, "umpire.config.yaml", false);
  if (!("problems" in result)) return [];
  return result.problems.map((p) => `${p.file}:${p.line}: ${p.path}: ${p.message}`);
}

describe("variableProblems", () => {
  it("accepts every trial variable in a trial's request and a secret only where secrets are read", () => {
    expect(variableProblems("/x/${TRIAL_ID}/${WORKSPACE}/${INSTANCE}", TRIAL_SCOPE)).toEqual([]);
    expect(variableProblems("Bearer ${env:TOKEN} ${TRIAL_ID}", SECRET_SCOPE)).toEqual([]);
    expect(variableProblems("/x?k=${env:TOKEN}", TRIAL_SCOPE)).toEqual([
      "${env:TOKEN}: secrets (${env:NAME}) are read only in header and cookie values, not here",
    ]);
  });

  it("names a typo and a trial's variable where no trial exists", () => {
    expect(variableProblems("/x/${TRIALID}", TRIAL_SCOPE)[0]).toMatch(/^\$\{TRIALID\} is not a trial variable: use/);
    expect(variableProblems("/version/${TRIAL_ID}", INSTANCE_SCOPE)[0]).toMatch(
      /^\$\{TRIAL_ID\} does not apply here \(it is read when the app's instance starts, before any trial\): use \$\{PORT\}/,
    );
    expect(variableProblems("${ TRIAL_ID }", TRIAL_SCOPE)).toHaveLength(1);
  });
});

describe("a target's request fields", () => {
  it.each([
    ["effects: { url: /events, headers: { x-namespace: '${TRIALID}' } }", "targets.app.effects.headers.x-namespace"],
    ["effects: { url: '/events/${TRIAL}' }", "targets.app.effects.url"],
    ["reset: { kind: http, url: /reset, headers: { x-a: '${NOPE}' } }", "targets.app.reset.headers.x-a"],
    ["reset: { kind: http, url: /reset, body: { a: ['${NOPE}'] } }", "targets.app.reset.body"],
    ["version: { url: '/v/${TRIAL_ID}' }", "targets.app.version.url"],
    ["start: { command: x, readyUrl: '/r/${WORKSPACE}' }", "targets.app.start.readyUrl"],
    ["context: { cookies: [{ name: 'c-${NOPE}', value: v }] }", "targets.app.context.cookies[0].name"],
    ["allowedOrigins: ['http://x:${INSTANCE}']", "targets.app.allowedOrigins[0]"],
  ])("%s is an error at %s, with its line", (line, field) => {
    const problems = configProblems(`    ${line}\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^umpire\\.config\\.yaml:4: ${field.replace(/[.[\]]/g, "\\$&")}: \\$\\{`));
  });

  it("accepts the variables each field fills in", () => {
    expect(
      configProblems(
        [
          "    effects: { url: '/events/${TRIAL_ID}', headers: { x-namespace: '${TRIAL_ID}', x-key: '${env:K}' } }",
          "    reset: { kind: http, url: '/reset/${TRIAL_ID}', body: { w: '${WORKSPACE}' } }",
          "    version: { url: '/v/${INSTANCE}' }",
          "",
        ].join("\n"),
      ),
    ).toEqual([]);
  });
});

describe("a task's request fields", () => {
  let t: TempTasks;
  beforeEach(() => {
    t = tempTasks();
  });
  afterEach(() => t.cleanup());

  it("an http check's url, header and body and a page check's open name the file and the field", () => {
    const task = validTask("bad-vars");
    task.checks = [
      ...(task.checks as unknown[]),
      { kind: "http", url: "/api/${TRIALID}", headers: { "x-a": "${NOPE}" }, body: { q: "${env:X}" } },
      { kind: "page", open: "/list/${TRIAL}", text: "x" },
    ];
    t.write("bad-vars.yaml", task);
    const { problems } = loadTasks(["bad-vars.yaml"], { cwd: t.dir });
    const found = problems
      .filter((p) => p.rule === "request-variables")
      .map((p) => `${p.file}: ${p.path}: ${p.message}`);
    expect(found).toEqual([
      expect.stringMatching(/^bad-vars\.yaml: checks\[3\]\.url: \$\{TRIALID\} is not a trial variable/),
      expect.stringMatching(/^bad-vars\.yaml: checks\[3\]\.headers\.x-a: \$\{NOPE\} is not a trial variable/),
      expect.stringMatching(/^bad-vars\.yaml: checks\[3\]\.body: \$\{env:X\}: secrets/),
      expect.stringMatching(/^bad-vars\.yaml: checks\[4\]\.open: \$\{TRIAL\} is not a trial variable/),
    ]);
  });
});
