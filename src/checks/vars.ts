/**
 * Trial variables in check declarations: ${TRIAL_ID}, ${WORKSPACE}, ${TARGET_URL} and the target
 * instance's ${PORT}, ${INSTANCE}, ${INSTANCE_DIR}; and secrets
 * as ${env:NAME}, read from the environment at check time and never written to evidence.
 */
import { substituteTrialVars, type TrialVars } from "../task/trial-vars.js";
import { CheckUnjudgeableError, type CheckContext } from "./types.js";

export function trialVars(ctx: CheckContext): TrialVars {
  const own = ctx.target?.vars ?? {};
  return { ...own, TRIAL_ID: ctx.trialId ?? "", WORKSPACE: ctx.workspaceDir, TARGET_URL: ctx.target?.baseUrl ?? "" };
}

/** Replaces the trial variables (src/task/trial-vars.ts) a check knows; other text stays as written. */
export function withVars(text: string, ctx: CheckContext): string {
  return substituteTrialVars(text, trialVars(ctx));
}

/** Replaces ${env:NAME} from ctx.env; a missing variable cannot be judged (not the agent's fault). */
export function withSecrets(text: string, ctx: CheckContext): { value: string; secret: boolean } {
  let secret = false;
  const value = withVars(text, ctx).replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = ctx.env?.[name];
    if (v === undefined)
      throw new CheckUnjudgeableError(
        `the environment variable ${name} is not set (named as \${env:${name}} in the check)`,
      );
    secret = true;
    return v;
  });
  return { value, secret };
}

/** An http(s) URL for `urlOrPath` on the trial's target; refuses any origin the target does not allow. */
export function targetUrl(urlOrPath: string, ctx: CheckContext): string {
  if (!ctx.target) throw new CheckUnjudgeableError("the trial has no target to send the request to");
  const url = new URL(withVars(urlOrPath, ctx), `${ctx.target.baseUrl}/`).toString();
  if (!ctx.target.isAllowedUrl(url))
    throw new CheckUnjudgeableError(
      `${url} is not on an allowed origin of target ${ctx.target.name}; add its origin to the target's allowedOrigins`,
    );
  return url;
}

/** Text matchers with trial variables filled in (a plain string or a regex source). */
export function matchersWithVars<M extends string | { regex: string; flags?: string }>(
  matchers: readonly M[],
  ctx: CheckContext,
): M[] {
  return matchers.map(
    (m) => (typeof m === "string" ? withVars(m, ctx) : Object.assign({}, m, { regex: withVars(m.regex, ctx) })) as M,
  );
}
