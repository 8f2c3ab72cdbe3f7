/**
 * Help cannot drift from what a command accepts (issue 28): every command in src/cli/commands/
 * is registered and made by defineCommand, and its `--help` usage line names every option its
 * parser takes and every positional; the options list shows each option; the exit codes in
 * `run --help` are EXIT's numbers.
 */
import { readdirSync } from "node:fs";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { DefinedCommand } from "../../../src/cli/command.js";
import { EXIT } from "../../../src/cli/exit-codes.js";
import type { CommandIO } from "../../../src/cli/io.js";
import { COMMANDS } from "../../../src/cli/main.js";

const commandsDir = new URL("../../../src/cli/commands/", import.meta.url);

async function helpOf(name: string): Promise<{ code: number; out: string; command: DefinedCommand }> {
  const command = (await COMMANDS[name]!.load()) as DefinedCommand;
  let out = "";
  const stdout = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
  const io: CommandIO = { stdout, stderr: stdout, env: {}, cwd: process.cwd(), signal: new AbortController().signal };
  const code = await command(["--help"], io);
  return { code, out, command };
}

describe("every command's help is generated from what it accepts", () => {
  const files = readdirSync(commandsDir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.replace(/\.ts$/, ""));

  it("every module in src/cli/commands/ is a registered command", () => {
    expect(files.length).toBeGreaterThan(15);
    expect(Object.keys(COMMANDS).sort()).toEqual([...files].sort());
  });

  for (const name of files) {
    it(`umpire ${name} --help: usage lists every option and positional, the list every option`, async () => {
      const { code, out, command } = await helpOf(name);
      expect(code).toBe(EXIT.ok);
      expect(typeof command.definition, `${name} is made by defineCommand`).toBe("object");
      const [usage, ...rest] = out.split("\n\n");
      expect(usage).toMatch(new RegExp(`^usage: umpire ${name}\\b`));
      const list = rest.join("\n\n");
      for (const [option, spec] of Object.entries(command.definition.options)) {
        const flag = spec.kind === "boolean" && spec.config ? `--[no-]${option}` : `--${option}`;
        const word = `${flag}${spec.arg ? ` ${spec.arg}` : ""}`;
        expect(usage, `${name}: usage names ${word}`).toContain(word);
        expect(list, `${name}: the options list shows ${flag}`).toMatch(
          new RegExp(`^  ${flag.replace(/[[\]]/g, "\\$&")}\\b`, "m"),
        );
      }
      for (const positional of command.definition.positionals) expect(usage).toContain(positional.name);
      for (const line of usage!.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
    });
  }

  it("validate's usage names the options the issue found missing, history's too", async () => {
    expect((await helpOf("validate")).out.split("\n\n")[0]).toMatch(
      /--self-test[\s\S]*--concurrency N[\s\S]*--config FILE/,
    );
    expect((await helpOf("history")).out.split("\n\n")[0]).toMatch(
      /--db FILE[\s\S]*--cost-threshold PCT[\s\S]*--config FILE/,
    );
  });

  it("run --help's exit codes are EXIT's numbers", async () => {
    const { out } = await helpOf("run");
    const codes = out
      .slice(out.indexOf("exit codes\n"))
      .split("\n")
      .slice(1)
      .map((line) => /^ {2}(\d+) /.exec(line)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(codes).toEqual([EXIT.ok, EXIT.failed, EXIT.usage, EXIT.infrastructure, EXIT.internal, EXIT.interrupted]);
  });

  it("a wrong count of positionals or a missing required option is a usage error naming the form and the fix", async () => {
    const io: CommandIO = {
      stdout: new Writable(),
      stderr: new Writable(),
      env: {},
      cwd: process.cwd(),
      signal: new AbortController().signal,
    };
    const history = await COMMANDS.history!.load();
    await expect(history(["foo"], io)).rejects.toMatchObject({
      code: "usage",
      message: "history takes no arguments, got foo",
    });
    const rejudge = await COMMANDS.rejudge!.load();
    await expect(rejudge([], io)).rejects.toMatchObject({ code: "usage", message: "rejudge takes <run>, got none" });
    const merge = await COMMANDS.merge!.load();
    await expect(merge(["a.db"], io)).rejects.toMatchObject({
      message: "merge needs --into FILE",
      hint: expect.stringContaining("--into"),
    });
  });
});
