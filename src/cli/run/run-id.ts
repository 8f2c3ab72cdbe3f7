/**
 * `--run-id`: a run's id names its folder under `--out` (and begins every trial id), so it must be
 * one plain folder name: `..` or a separator would put the run's trial folders outside `--out`.
 */
import { UmpireError } from "../../errors.js";

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** `id` when it is a safe run id; otherwise a usage error that says what a run id may hold. */
export function checkedRunId(id: string): string {
  if (RUN_ID.test(id) && !id.includes("..")) return id;
  throw new UmpireError(
    "usage",
    `--run-id: '${id.slice(0, 100).replace(/[^\x20-\x7e]/g, "?")}' is not a run id: it names the run's folder under --out, so it must be one folder name`,
    "use letters, digits, '.', '_' and '-' (up to 100, starting with a letter or digit, no '..'), e.g. --run-id nightly-2026-12-01",
  );
}
