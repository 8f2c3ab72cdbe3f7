/**
 * Opening the store: folders, WAL, foreign keys, and the schema version check and migrations,
 * all before the first query. Bad input (a newer database, someone else's database, a file that
 * is not a database) is refused with a `store` error and the file left exactly as it was.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { UmpireError, isStorageFault, isUmpireError, storageError, messageOf } from "../errors.js";
import { MIGRATIONS, assertCompatible, migrate, type Migration } from "./migrations.js";
import { Store } from "./store.js";

export interface OpenStoreOptions {
  /** Open for reading only (reports). The file must exist; an older schema is migrated first. */
  readonly?: boolean;
  /**
   * With `readonly`: write nothing to the file, not even a migration. An older schema is migrated
   * in a private in-memory copy instead (`umpire run --list`: a listing writes nothing).
   */
  untouched?: boolean;
  /** For tests of the migration machinery only. */
  migrations?: readonly Migration[];
}

/** Wraps SQLite's own errors (not a database, disk I/O, locked) into a `store` error naming the file. */
function storeError(file: string, error: unknown): UmpireError {
  if (isUmpireError(error)) return error;
  // A full or read-only disk is not a bad file: say so, with the fix, and exit 4 (not "bad input").
  if (isStorageFault(error)) return storageError(error, file, "--db") as UmpireError;
  const message = messageOf(error);
  return new UmpireError(
    "store",
    `${file}: cannot use this file as umpire's database (${message})`,
    "pass --db with the path of an umpire database, or a new file name",
  );
}

/**
 * A private in-memory database from a file's bytes, migrated to the current schema; the file is
 * not touched. The header's WAL marker is reset first: an in-memory database cannot open in WAL
 * mode (SQLite answers SQLITE_CANTOPEN).
 */
function migratedCopy(image: Buffer, file: string, migrations: readonly Migration[]): Database.Database {
  if (image.length >= 20 && image[18] === 2) image[18] = image[19] = 1;
  const copy = new Database(image);
  try {
    migrate(copy, file, migrations);
    copy.pragma("foreign_keys = ON");
    return copy;
  } catch (error) {
    copy.close();
    throw error;
  }
}

function connect(file: string, opts: OpenStoreOptions): Database.Database {
  const migrations = opts.migrations ?? MIGRATIONS;
  if (opts.readonly) {
    if (!existsSync(file)) {
      throw new UmpireError(
        "not_found",
        `no umpire database at ${file}`,
        "run `umpire run` first, or pass --db with the right file",
      );
    }
    // With no WAL content to read, the file's bytes are the whole database: reading them opens
    // nothing, so not even SQLite's -shm/-wal companions appear next to it.
    if (opts.untouched && !statSync(`${file}-wal`, { throwIfNoEntry: false })?.size)
      return migratedCopy(readFileSync(file), file, migrations);
    const probe = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const version = assertCompatible(probe, file, migrations);
      if (version === migrations[migrations.length - 1].version) {
        probe.pragma("busy_timeout = 5000");
        return probe;
      }
    } catch (error) {
      probe.close();
      throw error;
    }
    if (opts.untouched) {
      // The copy holds the WAL's committed pages too (serialize reads through SQLite's pager).
      const image = probe.serialize();
      probe.close();
      return migratedCopy(image, file, migrations);
    }
    // An older schema: migrate once with a writing connection (migrations keep every row), then read.
    probe.close();
    connect(file, { migrations }).close();
    return connect(file, opts);
  }
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    // First: another umpire may be creating or migrating this file right now.
    db.pragma("busy_timeout = 5000");
    // Refuse a newer or foreign database before touching it: WAL mode is a write.
    assertCompatible(db, file, migrations);
    db.pragma("journal_mode = WAL");
    // FULL: a committed turn survives a power cut too; at a few writes per second it costs nothing visible.
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    migrate(db, file, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens (creating folders and file when needed) the store at `file` and migrates it to the current
 * schema. Throws `UmpireError('store')` for a database written by a newer umpire, a foreign SQLite
 * database or a file that is not a database, in each case without changing the file.
 */
export function openStore(file: string, opts: OpenStoreOptions = {}): Store {
  const path = resolve(file);
  let db: Database.Database;
  try {
    db = connect(path, opts);
  } catch (error) {
    throw storeError(file, error);
  }
  return new Store(db, file);
}

/**
 * An empty store in memory with the current schema: it stands in for a database that does not
 * exist yet where nothing may create one (`umpire run --list` with no history to read).
 */
export function emptyStore(file: string, opts: Pick<OpenStoreOptions, "migrations"> = {}): Store {
  const db = new Database(":memory:");
  migrate(db, file, opts.migrations ?? MIGRATIONS);
  return new Store(db, file);
}
