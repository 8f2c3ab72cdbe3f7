/**
 * `${env:NAME}` in a target's declaration (reset and effects headers, its browser context): read from
 * the environment where the value is sent, never written into the task, the store or a report.
 */
import { registerSecret } from "../safety/secrets.js";
import { TargetResetError } from "./contract.js";

/** Replaces ${env:NAME}; a variable that is not set fails the trial's preparation (not the agent's fault). */
export function withEnvSecrets(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = env[name];
    if (v === undefined) throw new TargetResetError(`${where}: the environment variable ${name} is not set`);
    // The app may echo it into a page the trial stores (page text, a report): scrub it there too.
    registerSecret(v);
    return v;
  });
}
