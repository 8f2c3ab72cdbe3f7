/**
 * Benchmarks other parts of umpire may provide: loaded by path at run time, so this script
 * neither fails to compile nor crashes when one is missing or mid-edit. A missing module or
 * export is reported as "not available", with the reason.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

export type Optional<T> = { available: true; value: T } | { available: false; reason: string };

/** Imports `relativePath` (from the repository root) and returns its export `name`, if it is a function. */
export async function loadOptionalFunction<F extends (...args: never[]) => unknown>(root: string, relativePath: string, name: string): Promise<Optional<F>> {
  const file = resolve(root, relativePath);
  if (!existsSync(file)) return { available: false, reason: `${relativePath} does not exist` };
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    return { available: false, reason: `${relativePath} could not be loaded: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` };
  }
  const fn = module[name];
  return typeof fn === "function" ? { available: true, value: fn as F } : { available: false, reason: `${relativePath} exports no function ${name}` };
}
