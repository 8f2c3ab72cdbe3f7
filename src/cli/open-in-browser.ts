/**
 * `umpire report --open`: hands the report to the user's browser where one exists. `$BROWSER`
 * (the convention of Python's webbrowser and many CLIs) wins; else the platform's opener (`open`
 * on macOS, `start` on Windows, `xdg-open` on Linux when installed). On a machine with none (CI, a
 * server over SSH) nothing is started and the caller says how to serve the report instead.
 *
 * Why not the `open` package: it ignores `$BROWSER`, and on Linux it runs a copy of xdg-open it
 * ships, so it reports success on a machine with no desktop, where umpire must instead say how to
 * serve the report. Its other strengths (WSL through PowerShell, cmd's quoting) are covered here
 * by `wslview` (wslu, what WSL's own xdg-open calls) and by `rundll32 url.dll,FileProtocolHandler`,
 * which takes the URL as one argument with no shell in between (Go's pkg/browser does the same).
 * umpire only ever opens a file:// URL of a report, so the rest of `open` (apps, arguments, waiting)
 * would be six packages for nothing.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? "").split(delimiter).some((dir) => dir && existsSync(join(dir, command)));
}

/** The command line that would open `target`, or null when this machine has no way to. */
export function opener(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string[] | null {
  const browser = env.BROWSER?.split(delimiter)[0]?.trim();
  if (browser) return [browser];
  if (platform === "darwin") return ["open"];
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler"];
  for (const command of ["xdg-open", "wslview"]) if (onPath(command, env)) return [command];
  return null;
}

/** Starts the browser on `target` without waiting for it; false when there is none. */
export function openInBrowser(target: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const command = opener(env);
  if (!command) return Promise.resolve(false);
  return new Promise((done) => {
    const child = spawn(command[0]!, [...command.slice(1), target], { detached: true, stdio: "ignore", env });
    child.once("error", () => done(false));
    child.once("spawn", () => {
      child.unref();
      done(true);
    });
  });
}
