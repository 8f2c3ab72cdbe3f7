/**
 * `umpire init [--url URL] [--name NAME] [--force]`: writes a commented umpire.config.yaml that
 * declares the app as a target, and tasks/first-task.yaml on it. Both validate as written; the
 * task self-tests once its gold trajectory and checks are filled in (docs/your-app.md).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { UmpireError } from "../../errors.js";
import { EXIT } from "../exit-codes.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandIO } from "../io.js";
import { schemaReference } from "../schema-reference.js";

const OPTIONS = {
  url: { kind: "string", arg: "URL", default: "http://127.0.0.1:3000", help: "where your app answers" },
  name: { kind: "string", arg: "NAME", default: "app", help: "the target's name" },
  force: { kind: "boolean", help: "overwrite existing files" },
} as const;

export const run = defineCommand({
  name: "init",
  options: OPTIONS,
  positionals: [],
  description: "Writes umpire.config.yaml (your app as a target) and tasks/first-task.yaml in the working folder.",
  run: execute,
});

export function configText(url: string, name: string, schema?: string): string {
  return `# umpire project config. Config and task files are code: the commands below run on your machine
# with your permissions, so review them (and anyone's changes to them) like any script you run.
${schemaLine(schema)}targets:
  ${name}:
    # Where the app answers. \${PORT} instead of a port number makes umpire pick a free port and
    # pass it to the start command as PORT.
    baseUrl: ${url}
    # Uncomment to let umpire start the app for each run (stopped at the end; output in the run folder):
    # start:
    #   command: npm start
    #   cwd: .
    #   readyUrl: /
    # Before each trial (every trial also gets a fresh browser context). none | http | command |
    # restore | restart, each given TRIAL_ID, WORKSPACE and TARGET_URL:
    reset: { kind: none }
    # reset: { kind: http, method: POST, url: "/test/reset?trial=\${TRIAL_ID}" }
    # reset: { kind: command, command: ./scripts/reset-db.sh }
    # Copy a seed over the app's data (a folder or a SQLite file), restarting the app around it:
    # reset: { kind: restore, from: ./seed/data, to: ./data }
    # Restart the start command (the app starts empty each time; needs start:):
    # reset: { kind: restart }
    # Marks that gold steps and checks aim at. Elements with data-testid="x" are the mark x
    # without any declaration here.
    marks:
      first-link: { selector: "a" }
      # save: { role: button, name: Save }
    # Where the app reports what happened in a trial ([{type, at, detail}]); needed for effects checks.
    # effects: { url: "/test/effects?trial=\${TRIAL_ID}" }
    # true when trials cannot see each other's state; otherwise they run one at a time.
    isolated: false
`;
}

export function taskText(name: string, schema?: string): string {
  return `# Your first task. Fill in the instruction, the gold trajectory (reference) and the checks, then
# run: npx umpire validate --self-test
${schemaLine(schema)}id: first-task
title: Open the first link
target: ${name}
instruction: >-
  Open the first link on the start page of the app, then answer with the title of the page it
  leads to.
start: { path: / }
tools: [click, write, press, scroll, wait, go_back, answer]
checks:
  # Judged by umpire after the trial, never by the agent's words alone. Other kinds: http,
  # storage, command, page, custom (see docs/your-app.md).
  - kind: page
    name: the agent left the start page
    url: { regex: '/.+' }
reference:
  # The gold path, one step per turn; clicks aim at marks, never pixels.
  - { tool: click, target: first-link }
  - { tool: answer, args: { content: "TODO: the title of the linked page" } }
negatives:
  # A known-wrong path: the self-test proves the checks fail it.
  stays-home:
    - { tool: answer, args: { content: "I stayed on the start page" } }
`;
}

/** The `$schema` line editors complete from (umpire ignores the field), or nothing when the schema is unknown. */
function schemaLine(schema: string | undefined): string {
  return schema ? `$schema: ${schema}\n` : "";
}

async function execute({ values }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const url = values.url;
  if (!/^https?:\/\/[^/]+/.test(url))
    throw new UmpireError("usage", `--url ${url}: expected an http(s) URL`, "e.g. --url http://127.0.0.1:3000");
  const name = values.name;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name) || name === "fixture")
    throw new UmpireError(
      "usage",
      `--name ${name}: lower-case letters, digits and '-', not "fixture"`,
      "e.g. --name shop",
    );
  const configFile = join(io.cwd, "umpire.config.yaml");
  const taskFile = join(io.cwd, "tasks", "first-task.yaml");
  const files = [
    [configFile, configText(url.replace(/\/$/, ""), name, schemaReference(configFile, "config.schema.json", io.cwd))],
    [taskFile, taskText(name, schemaReference(taskFile, "task.schema.json", io.cwd))],
  ] as const;
  for (const [file] of files) {
    if (existsSync(file) && !values.force)
      throw new UmpireError("usage", `${file} already exists`, "pass --force to overwrite it");
  }
  mkdirSync(join(io.cwd, "tasks"), { recursive: true });
  for (const [file, text] of files) {
    writeFileSync(file, text);
    io.stdout.write(`wrote ${relative(io.cwd, file)}\n`);
  }
  io.stdout.write(
    `\nnext: npx umpire validate, then fill in tasks/first-task.yaml and npx umpire validate --self-test\n`,
  );
  return EXIT.ok;
}
