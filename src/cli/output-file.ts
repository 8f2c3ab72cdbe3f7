/**
 * A file a command writes on request (`--junit FILE`, `--reporter NAME:FILE`): its folder is made
 * when missing (CI steps name `results/junit.xml` before anything made `results/`), and a path that
 * cannot be written is the user's input to fix, said with the flag that named it, not an internal error.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { messageOf, UmpireError } from "../errors.js";

/** `named`: the words that named the file, as typed (`--junit results/junit.xml`). */
export function writeOutputFile(file: string, text: string, named: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } catch (error) {
    throw new UmpireError("input", `${named}: cannot write the file (${messageOf(error)})`, "choose a writable path");
  }
}
