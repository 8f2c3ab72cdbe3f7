/**
 * A target as declared in the project's config file (`targets:`): the web app under test.
 *
 * The declaration lives in the task layer because tasks name targets and their validation depends
 * on what a target offers (an effects source, its marks, whether it is the fixture). Starting,
 * resetting and reading a target at run time is `src/targets/`'s job.
 *
 * Task and config files are code: a target's start and reset commands run on this machine.
 */
import { z } from "zod";
import {
  INSTANCE_SCOPE,
  PORT_SCOPE,
  SECRET_SCOPE,
  stringsIn,
  TRIAL_SCOPE,
  type VariableScope,
  variableProblems,
} from "./trial-vars.js";

/** Most copies of one app a target may start. */
export const MAX_INSTANCES = 64;

/** The name of the built-in target: the fixture site. */
export const FIXTURE_TARGET = "fixture";

export const MARK_NAME = /^[A-Za-z0-9_.:-]+$/;

/** A mark declared by CSS selector or by ARIA role and accessible name. */
/** Who answers a native dialog (alert, confirm, prompt, beforeunload): the agent, or umpire at once. */
export const DIALOG_POLICIES = ["agent", "accept", "dismiss"] as const;
export type DialogPolicy = (typeof DIALOG_POLICIES)[number];
export const DialogPolicySchema = z
  .enum(DIALOG_POLICIES)
  .describe(
    "Native dialogs (alert, confirm, prompt, beforeunload): agent = drawn in the screenshot for the agent to answer; accept / dismiss = umpire answers at once",
  );

export const MarkDecl = z.union([
  z.object({ selector: z.string().min(1).describe("CSS selector; the first match is the mark") }).strict(),
  z
    .object({
      role: z.string().min(1).describe("ARIA role, e.g. button, link, textbox, checkbox"),
      name: z.string().min(1).optional().describe("Accessible name, e.g. Save"),
      exact: z
        .boolean()
        .default(false)
        .describe("Match the accessible name exactly (default: case-insensitive substring)"),
    })
    .strict(),
]);
export type MarkDecl = z.infer<typeof MarkDecl>;

export const MarkDecls = z.record(
  z.string().regex(MARK_NAME, "a mark name: letters, digits, '.', ':', '-' and '_'"),
  MarkDecl,
);

/**
 * A text whose `${...}` references are filled in within `scope` (src/task/trial-vars.ts): one that would be
 * sent as written (a typo, a variable that does not apply there) is caught when the file is read.
 */
const withVars = <T extends z.ZodType<string>>(text: T, scope: VariableScope) =>
  text.superRefine((value, ctx) => {
    for (const message of variableProblems(value, scope)) ctx.addIssue({ code: "custom", message });
  });

/** A JSON request body: every string in it is filled in like a URL. */
const bodyWithVars = (body: z.ZodType) =>
  body.superRefine((value, ctx) => {
    for (const text of stringsIn(value))
      for (const message of variableProblems(text, TRIAL_SCOPE)) ctx.addIssue({ code: "custom", message });
  });

const command = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .describe("A shell command line, or [program, ...args] run without a shell");

const HttpReset = z
  .object({
    kind: z.literal("http"),
    method: z.enum(["GET", "POST", "PUT", "DELETE", "PATCH"]).default("POST"),
    url: withVars(z.string().min(1), TRIAL_SCOPE).describe(
      "Path on the target (or absolute URL on an allowed origin); the trial variables (${TRIAL_ID}, ...) are replaced",
    ),
    headers: z
      .record(z.string(), withVars(z.string(), SECRET_SCOPE))
      .default({})
      .describe("Values take the trial variables and environment variables as ${env:NAME}"),
    body: bodyWithVars(z.unknown())
      .optional()
      .describe("JSON body; the trial variables (${TRIAL_ID}, ${WORKSPACE}, ...) are replaced in its strings"),
    timeoutSeconds: z.number().positive().max(300).default(15),
  })
  .strict();

const CommandReset = z
  .object({
    kind: z.literal("command"),
    command,
    cwd: z.string().optional().describe("Working directory, relative to the config file"),
    env: z.record(z.string(), z.string()).default({}),
    timeoutSeconds: z.number().positive().max(600).default(60),
  })
  .strict();

const RestoreReset = z
  .object({
    kind: z.literal("restore"),
    from: withVars(z.string().min(1), INSTANCE_SCOPE).describe(
      "The seed copy (a folder or a file, e.g. a SQLite database), relative to the config file",
    ),
    to: withVars(z.string().min(1), INSTANCE_SCOPE).describe(
      "What the app reads and writes, replaced whole by the seed before each trial, relative to the config file; on a pool, ${INSTANCE_DIR}/data gives each instance its own",
    ),
    restart: z
      .boolean()
      .optional()
      .describe("Restart the app around the restore so it reads the seed (default: true when umpire starts the app)"),
  })
  .strict();

const RestartReset = z
  .object({ kind: z.literal("restart") })
  .strict()
  .describe("Restart the app's start command before each trial (state kept in its memory)");

export const ResetDecl = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("none") }).strict(),
  HttpReset,
  CommandReset,
  RestoreReset,
  RestartReset,
]);
export type ResetDecl = z.infer<typeof ResetDecl>;

/**
 * The trial's identity in its browser: what a namespaced (multi-tenant) app needs to keep each trial's
 * state apart, so trials run in parallel. Every value takes the trial variables; headers and cookie
 * values also take ${env:NAME} secrets.
 */
export const BrowserContextDecl = z
  .object({
    cookies: z
      .array(
        z
          .object({
            name: withVars(z.string().min(1), TRIAL_SCOPE),
            value: withVars(z.string(), SECRET_SCOPE),
            path: withVars(z.string().startsWith("/"), TRIAL_SCOPE).default("/"),
          })
          .strict(),
      )
      .default([])
      .describe("Cookies for the target's origin, set before the first page, e.g. {name: tenant, value: ${TRIAL_ID}}"),
    headers: z
      .record(
        z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "an HTTP header name"),
        withVars(z.string(), SECRET_SCOPE),
      )
      .default({})
      .describe("Extra HTTP headers on every request of the trial's browser, e.g. x-tenant: ${TRIAL_ID}"),
    localStorage: z
      .record(z.string().min(1), withVars(z.string(), TRIAL_SCOPE))
      .default({})
      .describe("localStorage items on the target's origin before the first page's scripts run"),
    sessionStorage: z
      .record(z.string().min(1), withVars(z.string(), TRIAL_SCOPE))
      .default({})
      .describe("sessionStorage items on the target's origin, set when absent as each document starts"),
    storageState: z
      .string()
      .min(1)
      .optional()
      .describe("A Playwright storage-state JSON file (cookies and localStorage), relative to the config file"),
  })
  .strict();
export type BrowserContextDecl = z.output<typeof BrowserContextDecl>;

export const TargetDecl = z
  .object({
    baseUrl: withVars(
      z.string().regex(/^https?:\/\/[^/]+/, "an http(s) URL, e.g. http://127.0.0.1:3000"),
      PORT_SCOPE,
    ).describe(
      "Where the app answers; ${PORT} is replaced by a free port umpire picks (passed to the start command as PORT)",
    ),
    start: z
      .object({
        command,
        cwd: z.string().optional().describe("Working directory, relative to the config file"),
        env: z.record(z.string(), z.string()).default({}),
        readyUrl: withVars(z.string(), INSTANCE_SCOPE)
          .optional()
          .describe("Polled until it answers below 500 (default: baseUrl)"),
        readyTimeoutSeconds: z.number().positive().max(600).default(60),
      })
      .strict()
      .optional()
      .describe("Starts the app for the run and stops it at the end; its output goes to the run folder"),
    allowedOrigins: z
      .array(withVars(z.string().regex(/^https?:\/\/[^/]+/), PORT_SCOPE))
      .default([])
      .describe("Origins besides baseUrl's the agent's browser may reach"),
    reset: ResetDecl.default({ kind: "none" }).describe(
      "Run before each trial; every trial also gets fresh browser storage",
    ),
    marks: MarkDecls.default({}),
    testIdAttribute: z
      .string()
      .regex(/^[a-zA-Z][a-zA-Z0-9_-]*$/)
      .default("data-testid")
      .describe("Elements carrying it are marks named by its value"),
    effects: z
      .object({
        url: withVars(z.string().min(1), TRIAL_SCOPE).describe(
          "Path or URL returning [{type, at, detail}] for a trial; the trial variables (${TRIAL_ID}, ...) are replaced",
        ),
        headers: z
          .record(z.string(), withVars(z.string(), SECRET_SCOPE))
          .default({})
          .describe("Values take the trial variables (e.g. x-namespace: ${TRIAL_ID}) and ${env:NAME} secrets"),
      })
      .strict()
      .optional()
      .describe("Where the app reports what happened in a trial; without it tasks cannot declare effects checks"),
    context: BrowserContextDecl.optional().describe(
      "The trial's identity in its browser: cookies, headers, storage seeds",
    ),
    capacity: z.number().int().min(1).optional().describe("Most trials at once on this target"),
    instances: z
      .union([z.number().int().min(1).max(MAX_INSTANCES), z.literal("auto")])
      .default(1)
      .describe(
        "Copies of the start command, each with its own PORT, INSTANCE and INSTANCE_DIR; a trial leases one (auto: sized from the run's concurrency and free memory)",
      ),
    dialogs: DialogPolicySchema.default("agent"),
    version: z
      .union([
        z
          .object({
            url: withVars(z.string().min(1), INSTANCE_SCOPE).describe(
              "Path on the target (or absolute URL) whose body is the app's version, e.g. /version",
            ),
          })
          .strict(),
        z
          .object({
            command,
            cwd: z.string().optional().describe("Working directory, relative to the config file"),
          })
          .strict(),
      ])
      .optional()
      .describe(
        "How to read the app's version once per run (stored with the run's environment; compare marks a change)",
      ),
    isolated: z
      .boolean()
      .default(false)
      .describe(
        "true: trials cannot see each other's state (e.g. the reset takes the trial id); false: trials run one at a time",
      ),
  })
  .strict()
  .superRefine((decl, ctx) => {
    const kind = decl.reset.kind;
    if (kind === "restart" && !decl.start) {
      ctx.addIssue({
        code: "custom",
        path: ["reset", "kind"],
        message:
          "a restart reset restarts the start command, and this target has none: declare start: {command: ...}, or reset by http or command",
      });
    }
    if ((kind === "restart" || kind === "restore") && decl.isolated) {
      ctx.addIssue({
        code: "custom",
        path: ["isolated"],
        message: `a ${kind} reset changes the app under every trial running on it: set isolated: false (one trial at a time per instance; add instances: N to run N at once)`,
      });
    }
    if (decl.instances !== 1) poolRules(decl, ctx);
  });
/** A pool of instances needs copies umpire can start, each on its own port, each with its own data. */
function poolRules(decl: { baseUrl: string; start?: unknown; reset: ResetDecl }, ctx: z.RefinementCtx): void {
  if (!decl.start) {
    ctx.addIssue({
      code: "custom",
      path: ["instances"],
      message: "instances start copies of the start command, and this target has none: declare start: {command: ...}",
    });
  }
  if (!decl.baseUrl.includes("${PORT}")) {
    ctx.addIssue({
      code: "custom",
      path: ["baseUrl"],
      message:
        "each instance listens on its own port: write the base URL with ${PORT}, e.g. http://127.0.0.1:${PORT}, and have the app listen on $PORT",
    });
  }
  if (decl.reset.kind === "restore" && !/\$\{INSTANCE(_DIR)?\}/.test(decl.reset.to)) {
    ctx.addIssue({
      code: "custom",
      path: ["reset", "to"],
      message:
        "every instance would restore the same folder: write it under ${INSTANCE_DIR} (e.g. ${INSTANCE_DIR}/data) and point the app there (start.env: {DATA_DIR: ${INSTANCE_DIR}/data})",
    });
  }
}

export type TargetDeclInput = z.input<typeof TargetDecl>;
export type TargetDecl = z.output<typeof TargetDecl>;

export const TargetsSection = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and '-'"),
  TargetDecl,
);

/** What task validation needs to know about each target. */
export interface TargetCatalogEntry {
  name: string;
  fixture: boolean;
  hasEffects: boolean;
  /** The marks the target declares (a step may also aim at a test id, which only the page shows). */
  marks?: readonly string[];
}

export type TargetCatalog = ReadonlyMap<string, TargetCatalogEntry>;

export function targetCatalog(targets: Readonly<Record<string, TargetDecl>> = {}): TargetCatalog {
  const map = new Map<string, TargetCatalogEntry>([
    [FIXTURE_TARGET, { name: FIXTURE_TARGET, fixture: true, hasEffects: true }],
  ]);
  for (const [name, decl] of Object.entries(targets))
    map.set(name, { name, fixture: false, hasEffects: decl.effects !== undefined, marks: Object.keys(decl.marks) });
  return map;
}
