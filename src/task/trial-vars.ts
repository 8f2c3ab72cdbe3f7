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

/** The `${NAME}` references in `text` that are not trial variables (for validation: a typo is an error). */
export function unknownTrialVariables(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((m) => m[1]!).filter((name) => !isTrialVariable(name));
}

/** The fix a validation error gives for an unknown variable. */
export function trialVariablesHint(): string {
  return `use one of ${Object.keys(TRIAL_VARIABLES)
    .map((n) => `\${${n}}`)
    .join(", ")} (or \${env:NAME} where secrets are allowed)`;
}
