/**
 * The `$schema` a file that `init` writes carries: a path relative to that file, through the
 * project's own node_modules/umpire when umpire is installed there (so it survives a reinstall
 * and reads the same on every machine), else to the schema of the umpire that is running.
 */
import { existsSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { PACKAGE_ROOT } from "../runtime/version.js";

export function schemaReference(file: string, schemaName: string, projectDir: string): string | undefined {
  const installed = join(projectDir, "node_modules", "umpire", "schema", schemaName);
  const running = join(PACKAGE_ROOT, "schema", schemaName);
  const schema = existsSync(installed) ? installed : existsSync(running) ? running : undefined;
  if (!schema) return undefined;
  const path = relative(dirname(file), schema).split(sep).join("/");
  return path.startsWith(".") ? path : `./${path}`;
}
