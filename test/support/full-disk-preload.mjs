// Fallback for machines where the test cannot mount a small tmpfs: loaded with
// `node --import`, it makes every file write under UMPIRE_TEST_FULL_DIR fail with ENOSPC once
// UMPIRE_TEST_FULL_BYTES bytes have been written there, exactly as a full filesystem answers.
// SQLite files under that folder get a page cap (max_page_count), so SQLite itself says SQLITE_FULL.
import fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";

const dir = process.env.UMPIRE_TEST_FULL_DIR;
let budget = Number(process.env.UMPIRE_TEST_FULL_BYTES ?? 0);
const under = (p) => typeof p === "string" && dir && p.startsWith(dir);
const enospc = (p) =>
  Object.assign(new Error(`ENOSPC: no space left on device, write '${p}'`), {
    code: "ENOSPC",
    errno: -28,
    syscall: "write",
    path: p,
  });
const spend = (p, data) => {
  if (!under(p)) return;
  const size = typeof data === "string" ? Buffer.byteLength(data) : (data?.byteLength ?? 0);
  if (size > budget) throw enospc(p);
  budget -= size;
};
for (const name of ["writeFileSync", "appendFileSync"]) {
  const original = fs[name];
  fs[name] = function (p, data, ...rest) {
    spend(p, data);
    return original.call(this, p, data, ...rest);
  };
}
const writeFile = fs.promises.writeFile;
fs.promises.writeFile = async function (p, data, ...rest) {
  spend(p, data);
  return writeFile.call(this, p, data, ...rest);
};
syncBuiltinESMExports();

const Database = createRequire(import.meta.url)("better-sqlite3");
const pragma = Database.prototype.pragma;
Database.prototype.pragma = function (source, ...rest) {
  const out = pragma.call(this, source, ...rest);
  if (under(this.name) && /^journal_mode/.test(source))
    pragma.call(this, `max_page_count = ${Math.max(1, Math.floor(budget / 4096))}`);
  return out;
};
