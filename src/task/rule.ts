import type { Task } from "./schema.js";
import { targetCatalog, type TargetCatalog } from "./target-decl.js";
import type { DataPath, RuleFinding } from "./problem.js";

/** What rules may know besides the task: the targets declared in the project's config file. */
export interface RuleContext {
  targets: TargetCatalog;
  /** `--allow-drafts`: a task still marked `draft: true` (imported, not yet reviewed) is accepted. */
  allowDrafts?: boolean;
}

export const DEFAULT_RULE_CONTEXT: RuleContext = { targets: targetCatalog() };

export interface TaskRule {
  name: string;
  check(task: Task, ctx: RuleContext): RuleFinding[];
}

export const error = (path: DataPath, message: string, fix?: string): RuleFinding => ({
  path,
  message,
  fix,
  severity: "error",
});

export const warning = (path: DataPath, message: string, fix?: string): RuleFinding => ({
  path,
  message,
  fix,
  severity: "warning",
});

/** "/path" (not "//host") or an absolute http(s) URL. */
export function isPathOrHttpUrl(value: string): boolean {
  if (value.startsWith("/")) return !value.startsWith("//");
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
