/**
 * A hung child fails one test, never the suite (issue 37): every child process that a test file
 * starting the CLI (`bin/umpire.js`, or an installed `.bin/umpire`) starts through node:child_process
 * must carry a kill timer (`timeout`, which kills it), and the shared helpers' default
 * (CHILD_KILL_AFTER_MS) and every explicit `killAfterMs` / `timeout` must be below vitest's
 * testTimeout. Read with the TypeScript parser, so comments and strings never confuse it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { CHILD_KILL_AFTER_MS } from "../../support/cli-child.js";

const root = resolve(__dirname, "../../..");
/** The functions of node:child_process that start a child. */
const STARTERS = new Set(["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]);
/** Mentions of the CLI's executable (not in comments: the scan reads string literals only). */
const CLI = /bin\/umpire/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|mts|mjs)$/.test(path) ? [path] : [];
  });
}

const testTimeout = Number(
  /testTimeout:\s*([\d_]+)/.exec(readFileSync(join(root, "vitest.config.ts"), "utf8"))![1]!.replace(/_/g, ""),
);

interface Finding {
  file: string;
  line: number;
  problem: string;
}

/** A number literal (with separators) or the shared constant; undefined for anything else. */
function msOf(expr: ts.Expression): number | undefined {
  if (ts.isNumericLiteral(expr)) return Number(expr.text.replace(/_/g, ""));
  if (ts.isIdentifier(expr) && expr.text === "CHILD_KILL_AFTER_MS") return CHILD_KILL_AFTER_MS;
  if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)
    return msOf(expr.right);
  return undefined;
}

function scan(path: string, text = readFileSync(path, "utf8")): Finding[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const file = relative(root, path);
  const findings: Finding[] = [];
  let startsCli = false;
  const starters = new Set<string>();
  const calls: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && CLI.test(node.text)) startsCli = true;
    if (ts.isImportDeclaration(node) && (node.moduleSpecifier as ts.StringLiteral).text === "node:child_process") {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements)
          if (STARTERS.has((el.propertyName ?? el.name).text)) starters.add(el.name.text);
    }
    // `const run = promisify(execFile)`: `run` starts a child too.
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isCallExpression(node.initializer)) {
      const init = node.initializer;
      const arg = init.arguments[0];
      if (ts.isIdentifier(init.expression) && init.expression.text === "promisify" && arg && ts.isIdentifier(arg))
        if (starters.has(arg.text) && ts.isIdentifier(node.name)) starters.add(node.name.text);
    }
    if (ts.isCallExpression(node)) calls.push(node);
    // An explicit hang guard above the test timeout guards nothing.
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && /^(killAfterMs|timeout)$/.test(node.name.text)) {
      const value = msOf(node.initializer);
      if (value !== undefined && value >= testTimeout && node.name.text === "killAfterMs")
        findings.push({ file, line: line(source, node), problem: `killAfterMs ${value} is not below testTimeout` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!startsCli) return [];
  for (const call of calls) {
    const callee = call.expression;
    const name = ts.isIdentifier(callee)
      ? callee.text
      : ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === "promisify"
        ? (callee.arguments[0] as ts.Identifier | undefined)?.text
        : undefined;
    if (!name || !starters.has(name)) continue;
    const guard = call.arguments
      .filter(ts.isObjectLiteralExpression)
      .flatMap((o) => o.properties)
      .find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === "timeout") as ts.PropertyAssignment | undefined;
    if (!guard) {
      findings.push({ file, line: line(source, call), problem: `${name}(...) starts a child with no timeout` });
      continue;
    }
    const value = guard.initializer ? msOf(guard.initializer) : undefined;
    if (value !== undefined && value >= testTimeout)
      findings.push({
        file,
        line: line(source, call),
        problem: `${name}(...)'s timeout ${value} is not below testTimeout`,
      });
  }
  return findings;
}

function line(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
}

describe("every CLI child a test starts has a kill timer below the test timeout", () => {
  it("the shared default is below vitest's testTimeout", () => {
    expect(testTimeout).toBeGreaterThan(0);
    expect(CHILD_KILL_AFTER_MS).toBeLessThan(testTimeout);
  });

  it("no test file starts a child without one", () => {
    const findings = files(join(root, "test")).flatMap((f) => scan(f));
    expect(findings.map((f) => `${f.file}:${f.line}: ${f.problem}`)).toEqual([]);
  });

  it("the scan catches a child started without one, or with one above the test timeout", () => {
    const path = join(root, "test/integration/example.test.ts");
    const head = `import { execFile, spawn as start } from "node:child_process";\nimport { promisify } from "node:util";\nconst BIN = "bin/umpire.js";\nconst run = promisify(execFile);\n`;
    expect(scan(path, `${head}run("node", [BIN], { cwd: "." });`).map((f) => f.problem)).toEqual([
      "run(...) starts a child with no timeout",
    ]);
    expect(scan(path, `${head}start("node", [BIN], { timeout: 900_000 });`).map((f) => f.problem)).toEqual([
      "start(...)'s timeout 900000 is not below testTimeout",
    ]);
    expect(scan(path, `${head}promisify(execFile)("node", [BIN], { timeout: 5_000 });`)).toEqual([]);
    expect(scan(path, `${head}runCli([], { killAfterMs: 700_000 });`).map((f) => f.problem)).toEqual([
      "killAfterMs 700000 is not below testTimeout",
    ]);
    // A file that never names the CLI may start what it likes (a browser, a hog).
    expect(scan(path, `import { spawn } from "node:child_process";\nspawn("sleep", ["9"]);`)).toEqual([]);
  });
});
