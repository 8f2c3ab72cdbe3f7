/** `--baseline RUN|TAG`, shared by compare, plan and run --until-decided. */
import { UmpireError } from "../errors.js";
import type { RunRecord } from "../store/records.js";
import type { Store } from "../store/store.js";

/** A baseline reference: a run (id, prefix, latest), else the newest run carrying that tag. */
export function resolveBaseline(store: Store, ref: string, candidateIds: readonly string[]): RunRecord {
  try {
    return store.getRun(ref);
  } catch (_error) {
    const tagged = store.latestRunWithTag(ref, candidateIds.length === 1 ? candidateIds[0] : undefined);
    if (tagged) return tagged;
    throw new UmpireError(
      "not_found",
      `--baseline ${ref}: no run with that id and no run tagged '${ref}'`,
      "tag runs with `umpire run --tag NAME`; `umpire runs` lists ids and tags",
    );
  }
}
