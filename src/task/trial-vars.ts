/**
 * The trial variables: one table of `${NAME}` substitutions, the same wherever a task or a target
 * may use them (start paths, a target's browser context, resets, effects URLs, checks, commands).
 * docs/your-app.md prints this table; `${env:NAME}` secrets are separate (read from the environment
 * where a value is sent, never stored).
 */

/** Every trial variable and what it holds. */
export const TRIAL_VARIABLES = {
  TRIAL_ID: "the trial's id (unique per trial and attempt in a run; a safe namespace, tenant or session key)",
  WORKSPACE: "the trial's workspace folder (absolute path)",
  TARGET_URL: "the target's base URL, without a trailing slash",
  PORT: "the port umpire picked for the target's ${PORT} base URL (empty when the base URL has none); per instance in a pool",
  INSTANCE: "the number of the target instance the trial runs on, 0 to instances - 1 (0 without a pool)",
  INSTANCE_DIR: "a folder of that instance's own in the run folder (instances/<target>-<n>), for its data",
} as const;

export type TrialVariable = keyof typeof TRIAL_VARIABLES;
export type TrialVars = Partial<Record<TrialVariable, string>>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function isTrialVariable(name: string): name is TrialVariable {
  return Object.hasOwn(TRIAL_VARIABLES, name);
}

/** Replaces the trial variables given in `vars`; other text (an unknown name, `${env:X}`) stays as written. */
export function substituteTrialVars(text: string, vars: TrialVars): string {
  return text.replace(REFERENCE, (whole, name: string) => (isTrialVariable(name) ? (vars[name] ?? whole) : whole));
}

/** substituteTrialVars through every string of a JSON-like value (keys stay as written). */
export function substituteTrialVarsDeep(value: unknown, vars: TrialVars): unknown {
  if (typeof value === "string") return substituteTrialVars(value, vars);
  if (Array.isArray(value)) return value.map((v) => substituteTrialVarsDeep(v, vars));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteTrialVarsDeep(v, vars)]));
  }
  return value;
}

/**
 * Where a field's `${...}` references are filled in: which trial variables exist there, and whether
 * `${env:NAME}` secrets are read. A field of a target that is read before any trial (its base URL,
 * ready URL, version URL) has no trial id; every field sent in a trial's request has them all.
 */
export interface VariableScope {
  vars: readonly TrialVariable[];
  /** `${env:NAME}` is read from the environment here (header and cookie values). */
  secrets: boolean;
  /** Why the other variables do not apply (for the message), e.g. "it is read once per instance, before any trial". */
  why?: string;
}

const ALL_VARS = Object.keys(TRIAL_VARIABLES) as TrialVariable[];
/** Every trial variable: a field sent in one trial's request. */
export const TRIAL_SCOPE: VariableScope = { vars: ALL_VARS, secrets: false };
/** Every trial variable and `${env:NAME}`: a header or cookie value sent in one trial's request. */
export const SECRET_SCOPE: VariableScope = { vars: ALL_VARS, secrets: true };
/** An instance's own variables: a field read when the instance starts, before any trial. */
export const INSTANCE_SCOPE: VariableScope = {
  vars: ["PORT", "TARGET_URL", "INSTANCE", "INSTANCE_DIR"],
  secrets: false,
  why: "it is read when the app's instance starts, before any trial",
};

/** The port alone: the base URL and its origins, known before the app starts. */
export const PORT_SCOPE: VariableScope = {
  vars: ["PORT"],
  secrets: false,
  why: "the base URL and origins are known before the app starts, and umpire picks only the port",
};

const SECRET_REFERENCE = /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/;
const ANY_REFERENCE = /\$\{([^}]*)\}/g;

/** What is wrong with the `${...}` references of `text` in a field of `scope` (empty: all are filled in there). */
export function variableProblems(text: string, scope: VariableScope): string[] {
  const problems: string[] = [];
  const hint = `use ${scope.vars.map((n) => `\${${n}}`).join(", ")}${scope.secrets ? " or ${env:NAME}" : ""}`;
  for (const [whole, inner] of text.matchAll(ANY_REFERENCE)) {
    if (SECRET_REFERENCE.test(whole)) {
      if (!scope.secrets)
        problems.push(`${whole}: secrets (\${env:NAME}) are read only in header and cookie values, not here`);
      continue;
    }
    const name = inner ?? "";
    if (!isTrialVariable(name)) problems.push(`${whole} is not a trial variable: ${hint}`);
    else if (!scope.vars.includes(name))
      problems.push(`${whole} does not apply here${scope.why ? ` (${scope.why})` : ""}: ${hint}`);
  }
  return problems;
}

/** Every string in a JSON-like value (a request body), for validation. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}
