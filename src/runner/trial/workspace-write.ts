/**
 * Writing a file inside a trial's workspace without ever writing through a link.
 *
 * Checking a name as text is not enough: whatever is on disk decides where bytes land. A
 * `notes/BB-042.md` symlink to a file outside would make a note overwrite that file; a `notes`
 * symlink to a folder outside would make notes land there; a hard link shares its bytes with a
 * file elsewhere. So: create the folder, compare its real path with where it must be, open the
 * file with O_NOFOLLOW (the kernel refuses a final symlink), and refuse anything but a regular
 * file with one link before the first byte is written.
 */
import { constants } from "node:fs";
import { mkdir, open, realpath } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";

export class WorkspaceWriteRefused extends Error {}

export interface WorkspaceWrite {
  /** The file existed (and was a plain file) before this write. */
  existed: boolean;
  bytes: number;
}

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + sep);
}

/**
 * Writes `content` to `<workspaceDir>/<folder>/<name>`. `name` must already be a plain base name.
 * Throws WorkspaceWriteRefused (with a reason a person can act on) when a link is in the way.
 */
export async function writeInWorkspace(
  workspaceDir: string,
  folder: string,
  name: string,
  content: string,
): Promise<WorkspaceWrite> {
  const root = await realpath(workspaceDir);
  const expectedDir = resolve(root, folder);
  if (!inside(root, expectedDir)) throw new WorkspaceWriteRefused(`${folder} is outside the workspace`);
  await mkdir(expectedDir, { recursive: true });
  // After creating it: a folder (or any folder above it) that is a link elsewhere shows here.
  const realDir = await realpath(expectedDir);
  if (realDir !== expectedDir) {
    const where = inside(root, realDir) ? relative(root, realDir) : realDir;
    throw new WorkspaceWriteRefused(`${folder} is a symbolic link (to ${where}); umpire does not write through links`);
  }
  const file = resolve(realDir, name);
  const refuse = (e: unknown): never => {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK")
      throw new WorkspaceWriteRefused(
        `${relative(root, file)} is a symbolic link; umpire does not write through links`,
      );
    throw e;
  };
  const NO_FOLLOW = constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let handle;
  let existed = false;
  try {
    // O_EXCL tells a new file from an existing one in the same system call that creates it.
    handle = await open(file, NO_FOLLOW | constants.O_CREAT | constants.O_EXCL, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") refuse(e);
    existed = true;
    // No O_TRUNC: the file is judged (regular, one link) before anything in it changes.
    handle = await open(file, NO_FOLLOW).catch(refuse);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new WorkspaceWriteRefused(`${relative(root, file)} is not a regular file`);
    if (stat.nlink > 1)
      throw new WorkspaceWriteRefused(
        `${relative(root, file)} is a hard link shared with another file; umpire does not write through links`,
      );
    await handle.truncate(0);
    const data = Buffer.from(content, "utf8");
    await handle.write(data, 0, data.length, 0);
    return { existed, bytes: data.length };
  } finally {
    await handle.close();
  }
}
