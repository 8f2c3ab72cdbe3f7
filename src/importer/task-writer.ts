/**
 * A draft task as a YAML file a person finishes: a header comment naming the test it came from and
 * everything left to do (`# TODO`), `draft: true`, the instruction marked `# TODO: write as a user
 * would ask`, and the gold steps one per line as in umpire's own tasks.
 */
import { stringify } from "yaml";
import type { MarkDeclaration } from "./locator.js";
import type { DraftTask, GoldStep } from "./translate.js";

const flow = (value: unknown) => stringify(value, { collectionStyle: "flow", lineWidth: 0 }).trimEnd();
const block = (value: unknown) => stringify(value, { lineWidth: 0 }).trimEnd();

function stepLine(step: GoldStep): string {
  const ordered = {
    tool: step.tool,
    ...(step.target ? { target: step.target } : {}),
    ...(step.args && Object.keys(step.args).length ? { args: step.args } : {}),
  };
  return `  - ${flow(ordered)}`;
}

export function renderTask(
  task: DraftTask,
  target: string,
  marks: Record<string, MarkDeclaration>,
  schemaRef: string | null,
): string {
  const lines: string[] = [];
  if (schemaRef) lines.push(`$schema: ${schemaRef}`);
  lines.push(`# Imported from ${task.source} by \`umpire import playwright\`: a draft until a person has read it.`);
  for (const todo of task.todo) lines.push(`# TODO: ${todo.replace(/\n/g, " ")}`);
  for (const call of task.unmapped) {
    lines.push(`# TODO: the test awaited ${call.what}: to check that the app received it, add one of these lines`);
    lines.push("#   under import.requests in umpire.config.yaml, then import again:");
    lines.push(...call.lines.map((l) => `#     ${l}`));
  }
  lines.push(block({ id: task.id, title: task.title }), "draft: true", `target: ${target}`);
  lines.push("# TODO: write as a user would ask", block({ instruction: task.instruction }));
  if (task.givens.length) lines.push(`givens: ${flow(task.givens)}`);
  lines.push(`start: ${flow({ path: task.startPath })}`, `tools: ${flow(task.tools)}`);
  if (Object.keys(marks).length) {
    lines.push(
      "marks:",
      ...Object.entries(marks).map(([name, decl]) => `  ${flow({ [name]: decl }).replace(/^\{ | \}$/g, "")}`),
    );
  }
  lines.push(block({ checks: task.checks }));
  lines.push("reference:", ...task.reference.map(stepLine));
  lines.push("tags: [imported]", "");
  return lines.join("\n");
}
