/**
 * Loading a custom check's module. umpire itself runs as compiled JavaScript; a check written in
 * TypeScript (.ts/.mts/.cts) is loaded through tsx, registered the first time such a module is
 * imported, so a run whose checks are all JavaScript never loads a transpiler.
 */
import { pathToFileURL } from "node:url";

const TYPESCRIPT = /\.(?:c|m)?ts$/;
let typescriptHook: Promise<void> | undefined;

/** Whether a check module needs the TypeScript hook to load. */
export function isTypeScriptModule(file: string): boolean {
  return TYPESCRIPT.test(file);
}

/** Registers tsx's loader once per process (it compiles .ts modules and resolves their `./x.js` imports). */
function registerTypeScript(): Promise<void> {
  typescriptHook ??= import("tsx/esm/api").then(({ register }) => {
    register();
  });
  return typescriptHook;
}

/** Imports a check module by absolute path, TypeScript or JavaScript. */
export async function importCheckModule(file: string): Promise<Record<string, unknown>> {
  if (isTypeScriptModule(file)) await registerTypeScript();
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}
