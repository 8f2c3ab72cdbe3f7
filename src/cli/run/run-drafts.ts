/**
 * Whether `umpire run` accepts tasks still marked `draft: true` (imported, not yet reviewed): as
 * `umpire validate`, only with --allow-drafts (the flag, or the config file's defaults.allowDrafts);
 * without it the task loader refuses each draft, naming the file, the field and the fix. A resumed
 * run keeps the choice it was started with (stored with its options), unless today's flag says otherwise,
 * so the unfinished trials of a run of drafts are not refused halfway.
 */
import type { ValueSource } from "../args.js";

interface StoredRunOptions {
  config?: { options?: Record<string, { value?: unknown } | undefined> };
}

export function runAllowsDrafts(
  values: { "allow-drafts"?: boolean },
  sources: { "allow-drafts"?: ValueSource },
  resumed?: unknown,
): boolean {
  const asked = values["allow-drafts"] === true;
  if (sources["allow-drafts"] === "flag" || resumed === undefined) return asked;
  return asked || (resumed as StoredRunOptions).config?.options?.["allow-drafts"]?.value === true;
}
