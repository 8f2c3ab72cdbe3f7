/**
 * The read-only commands' store prologue, once: open the `--db` file (relative to the working
 * folder) for reading, run the command's reads, close it however they end. A missing file is
 * refused with `not_found` (exit 2: "no umpire database at <path>") and never created.
 */
import { resolve } from "node:path";
import { openStore } from "../store/open.js";
import type { Store } from "../store/store.js";

/**
 * Calls `read` with the store at `db` open read-only and closes it afterwards. `read` is
 * synchronous on purpose: the store is closed when it returns, so nothing may read it later.
 */
export function withReadStore<T>(db: string, io: { cwd: string }, read: (store: Store) => T): T {
  const store = openStore(resolve(io.cwd, db), { readonly: true });
  try {
    return read(store);
  } finally {
    store.close();
  }
}
