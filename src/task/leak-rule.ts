/**
 * The no-expected-values-in-instruction rule. A check's expected values (the scores, the result,
 * the record id) must not appear in the instruction, or the task measures copying rather than
 * finding. Values the instruction names on purpose are listed in `givens` and exempt.
 */
import { collapseWhitespace } from "../safety/whitespace.js";
import type { Task } from "./schema.js";
import type { DataPath, RuleFinding } from "./problem.js";

/**
 * A value a check expects to find, at its path in the task file. Built-in kinds list theirs here;
 * a custom check declares its own (`expected(options)` in src/checks/custom-api.ts), and the same
 * comparison judges them (`leakFindings`).
 */
export interface Expected {
  path: DataPath;
  value: string;
  /** Numbers match only as whole numbers, so 16 is not found inside 168. */
  numeric?: boolean;
}

/** The same folding the checks use by default: case, runs of white space, unicode dashes. */
export function foldText(text: string): string {
  return collapseWhitespace(text.toLowerCase().replace(/[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g, "-")).trim();
}

/** The plain-text expected values of a task's checks (regex matchers are patterns, not values). */
function expectedValues(task: Task): Expected[] {
  const out: Expected[] = [];
  const text = (path: DataPath, value: unknown) => {
    if (typeof value === "string" && value.trim() !== "") out.push({ path, value, numeric: false });
  };
  task.checks.forEach((check, i) => {
    const at = (...rest: (string | number)[]): DataPath => ["checks", i, ...rest];
    switch (check.kind) {
      case "file":
        check.contains.forEach((m, j) => text(at("contains", j), m));
        break;
      case "answer":
        check.contains.forEach((m, j) => text(at("contains", j), m));
        if (check.number) out.push({ path: at("number", "value"), value: String(check.number.value), numeric: true });
        break;
      case "page":
        text(at("text"), check.text);
        break;
      case "effects":
        break;
    }
  });
  return out;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function occursIn(instruction: string, expected: Expected): boolean {
  const value = foldText(expected.value);
  if (!expected.numeric) return instruction.includes(value);
  return new RegExp(`(?<![\\d.])${escapeRegex(value)}(?![\\d]|\\.\\d)`).test(instruction);
}

/** The expected values among `expected` that the instruction states (and `givens` do not exempt). */
export function leakFindings(task: Pick<Task, "instruction" | "givens">, expected: readonly Expected[]): RuleFinding[] {
  return leaksIn(foldText(task.instruction), task.givens, expected);
}

/** leakFindings on an instruction already folded (an instruction may be megabytes: fold it once). */
function leaksIn(instruction: string, givenValues: readonly string[], expected: readonly Expected[]): RuleFinding[] {
  const givens = new Set(givenValues.map(foldText));
  const findings: RuleFinding[] = [];
  for (const value of expected) {
    if (typeof value.value !== "string" || value.value.trim() === "") continue;
    if (givens.has(foldText(value.value)) || !occursIn(instruction, value)) continue;
    findings.push({
      path: value.path,
      severity: "error",
      message: `the expected value ${JSON.stringify(value.value)} appears in the instruction, so the agent can copy it instead of finding it`,
      fix: "reword the instruction, or list the value in givens if the instruction must state it",
    });
  }
  return findings;
}

export function expectedValuesLeak(task: Task): RuleFinding[] {
  const instruction = foldText(task.instruction);
  const findings = leaksIn(instruction, task.givens, expectedValues(task));
  task.givens.forEach((given, i) => {
    if (!instruction.includes(foldText(given))) {
      findings.push({
        path: ["givens", i],
        severity: "warning",
        message: `the given ${JSON.stringify(given)} does not occur in the instruction`,
        fix: "remove it from givens",
      });
    }
  });
  return findings;
}
