/** The store's public surface: open a database, and the records it reads and writes. */
export { emptyStore, openStore, type OpenStoreOptions } from "./open.js";
export { Store, type AttemptSelector } from "./store.js";
export { SCHEMA_VERSION, MIGRATIONS, type Migration } from "./migrations.js";
export { redactSecrets, REDACTED } from "./redact.js";
export * from "./records.js";
export { DEFAULT_HISTORY_RUNS, type HistoryFilter, type HistoryTrialRow } from "./history-query.js";
export type { JudgementInput, JudgementRecord, LiveCheckRecord } from "./judgements.js";
export {
  StoredRunOptionsSchema,
  runOptionsOf,
  type StoredAgentOptions,
  type StoredCommandAgent,
  type StoredRunOptions,
  type StoredRunOptionsInput,
  type StoredShard,
} from "./run-options.js";
