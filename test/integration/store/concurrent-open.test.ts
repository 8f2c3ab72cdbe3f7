/**
 * Several umpire processes opening one new database file at once (parallel CI jobs sharing --db,
 * a script starting runs side by side): each must find it created and migrated, none may fail
 * because another created the tables first. Real processes, real SQLite, the built store.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { ROOT } from "../../support/cli-child.js";
import { MIGRATIONS } from "../../../src/store/migrations.js";

const dir = mkdtempSync(join(tmpdir(), "umpire-concurrent-open-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STORE = pathToFileURL(join(ROOT, "dist/src/store/open.js")).href;

/** One process that opens the store (creating and migrating it) and closes it. */
function opener(file: string): Promise<{ code: number | null; stderr: string }> {
  const script = `import { openStore } from ${JSON.stringify(STORE)}; openStore(process.argv[1]).close();`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, file], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, stderr })));
}

it("six processes creating one new file at once all succeed, and it holds the current schema once", {
  timeout: 120_000,
}, async () => {
  for (let round = 0; round < 3; round++) {
    const file = join(dir, `shared-${round}.db`);
    const results = await Promise.all(Array.from({ length: 6 }, () => opener(file)));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const db = new Database(file, { readonly: true });
    const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get();
    db.close();
    expect(version).toBe(String(MIGRATIONS[MIGRATIONS.length - 1].version));
  }
});
