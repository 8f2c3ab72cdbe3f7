/**
 * Notes on disk: `<workspace>/notes/<name>`. Names are reduced to a plain base name so that no
 * input, however crafted, writes outside the notes folder.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, realpath, rm } from "node:fs/promises";
import { join } from "node:path";

export const NOTES_DIR = "notes";
const MAX_NAME = 120;
export const MAX_NOTE_BYTES = 100_000;

export class NoteNameError extends Error {}

/**
 * `../x` -> `x`, `my note.md` -> `my_note.md`, `.env` -> `env`; throws NoteNameError when
 * nothing usable is left (`..`, `/`, empty).
 */
export function sanitiseNoteName(raw: string): string {
  const base = raw.trim().split(/[\\/]/).pop() ?? "";
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "")
    .slice(0, MAX_NAME);
  if (!cleaned) {
    throw new NoteNameError(
      `note name '${raw}' has no usable file name; use letters, digits, '.', '_' or '-', e.g. BB-042.md`,
    );
  }
  return cleaned;
}

export interface SavedNote {
  name: string;
  /** Relative to the workspace: "notes/<name>". */
  path: string;
  overwritten: boolean;
}

async function exists(path: string): Promise<boolean> {
  try {
    const stat = await lstat(path);
    if (stat.isSymbolicLink()) throw new Error(`refusing to write through the symbolic link ${path}`);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Writes a note (creating the notes folder) and says whether it replaced an existing file. */
export async function writeNote(workspace: string, rawName: string, body: string): Promise<SavedNote> {
  const name = sanitiseNoteName(rawName);
  const dir = join(workspace, NOTES_DIR);
  await mkdir(dir, { recursive: true });
  // A notes folder that is a link elsewhere would put the page's Save outside the workspace.
  if ((await realpath(dir)) !== join(await realpath(workspace), NOTES_DIR))
    throw new Error(`refusing to write through the symbolic link ${dir}`);
  const file = join(dir, name);
  const overwritten = await exists(file);
  // O_NOFOLLOW: a link swapped in after the check above is refused by the kernel.
  const handle = await open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    await handle.writeFile(body, "utf8");
  } finally {
    await handle.close();
  }
  return { name, path: `${NOTES_DIR}/${name}`, overwritten };
}

export interface NoteFile {
  name: string;
  path: string;
  bytes: number;
  content: string;
}

/** The notes in a workspace, by name; none when the folder does not exist yet. */
export async function listNotes(workspace: string): Promise<NoteFile[]> {
  const dir = join(workspace, NOTES_DIR);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    files.map(async (name) => {
      const content = await readFile(join(dir, name), "utf8");
      return { name, path: `${NOTES_DIR}/${name}`, bytes: Buffer.byteLength(content), content };
    }),
  );
}

/** Removes the files in the notes folder (used by a session reset); leaves anything else alone. */
export async function clearNotes(workspace: string): Promise<void> {
  const dir = join(workspace, NOTES_DIR);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  await Promise.all(entries.filter((e) => e.isFile()).map((e) => rm(join(dir, e.name))));
}
