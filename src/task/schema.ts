/**
 * The task file format: one zod schema, the single source of every task type.
 *
 * `TaskFile` is the file as written (optional fields may be missing); `Task` is the resolved
 * form with every default filled, which the rest of umpire consumes. The JSON Schema in
 * `schema/task.schema.json` is exported from `TaskFileSchema` (see scripts/export-task-schema.ts).
 */
import { z } from "zod";
import { TOOL_NAMES, type ToolName } from "../toolbox/tools.js";
import { DialogPolicySchema, FIXTURE_TARGET, MARK_NAME, MarkDecls } from "./target-decl.js";

export const SCENARIOS = [
  "plain",
  "cookie-escape",
  "cookie-reject",
  "cookie-reappear",
  "canvas",
  "lazy",
  "slow-save",
  "injection",
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Kinds of entries in the fixture's effects log (see fixtures-site/README.md). */
export const EFFECT_TYPES = ["note_saved", "note_overwritten", "match_deleted", "cookie_choice"] as const;
export type EffectType = (typeof EFFECT_TYPES)[number];

const toolName = z.enum(TOOL_NAMES as [ToolName, ...ToolName[]]);
const markName = z
  .string()
  .regex(MARK_NAME, "a mark name: letters, digits, '.', ':', '-' and '_'")
  .describe(
    "A mark: declared by selector or role+name on the target or task, an element's test id, or a fixture data-mark",
  );

/** A text matcher: plain text (after normalisation) or a regular expression. */
export const TextMatcher = z.union([
  z.string().min(1),
  z
    .object({
      regex: z.string().min(1),
      flags: z
        .string()
        .regex(/^[imsu]*$/)
        .optional(),
    })
    .strict(),
]);
export type TextMatcher = z.infer<typeof TextMatcher>;

/** Normalisation applied to both sides before comparing text. */
export const Normalize = z
  .object({
    case: z.boolean().default(true).describe("Compare case-insensitively"),
    whitespace: z.boolean().default(true).describe("Collapse runs of white space"),
    dashes: z.boolean().default(true).describe("Map unicode dashes and minus signs to '-'"),
  })
  .strict();

const checkCommon = {
  name: z.string().min(1).optional().describe("Short label shown in reports"),
  required: z.boolean().default(true).describe("Required checks decide the verdict; advisory ones are reported only"),
};

export const FileCheck = z
  .object({
    kind: z.literal("file"),
    ...checkCommon,
    path: z.string().min(1).describe("Path inside the trial workspace, e.g. notes/BB-042.md"),
    exists: z.boolean().default(true).describe("false: the file must be absent"),
    contains: z.array(TextMatcher).default([]),
    notContains: z.array(TextMatcher).default([]),
    normalize: Normalize.default({ case: true, whitespace: true, dashes: true }),
  })
  .strict();

export const PageCheck = z
  .object({
    kind: z.literal("page"),
    ...checkCommon,
    open: z
      .string()
      .optional()
      .describe(
        "Open this path (on the target) or URL (on an allowed origin) in a fresh page first; default: look at the trial's page as left",
      ),
    url: TextMatcher.optional().describe("The page URL must match"),
    selector: z.string().min(1).optional(),
    text: TextMatcher.optional().describe("Visible text of `selector` (or the body) must match"),
    state: z.enum(["visible", "hidden", "absent"]).optional().describe("State of `selector`"),
    normalize: Normalize.default({ case: true, whitespace: true, dashes: true }),
  })
  .strict();

export const EffectMatch = z
  .object({
    type: z
      .string()
      .min(1)
      .describe(
        "An effect type of the target's effects source (the fixture's: note_saved, note_overwritten, match_deleted, cookie_choice)",
      ),
    where: z
      .record(z.string(), z.string())
      .optional()
      .describe("Detail fields that must match, e.g. {name: BB-042.md}"),
  })
  .strict();

export const EffectsCheck = z
  .object({
    kind: z.literal("effects"),
    ...checkCommon,
    require: z
      .array(
        EffectMatch.extend({
          count: z.number().int().min(0).optional(),
          min: z.number().int().min(0).optional(),
        }).strict(),
      )
      .default([]),
    forbid: z.array(EffectMatch).default([]),
  })
  .strict();

export const AnswerCheck = z
  .object({
    kind: z.literal("answer"),
    ...checkCommon,
    present: z.boolean().default(true).describe("false: the agent must not answer"),
    contains: z.array(TextMatcher).default([]),
    notContains: z.array(TextMatcher).default([]),
    number: z
      .object({ value: z.number(), tolerance: z.number().min(0).default(0) })
      .strict()
      .optional(),
    normalize: Normalize.default({ case: true, whitespace: true, dashes: true }),
  })
  .strict();

/** One expectation on a JSON value, picked by JSON Pointer ("/items/0/title") or dotted path ("items.0.title"). */
export const JsonExpectation = z
  .object({
    path: z.string().default("").describe('JSON Pointer ("/a/0/b") or dotted path ("a.0.b"); "" is the whole value'),
    exists: z.boolean().optional().describe("false: the path must not exist"),
    equals: z.unknown().optional().describe("Deep-equal to this JSON value"),
    contains: z.string().optional().describe("The value, as text, contains this (case-sensitive)"),
    regex: z.string().optional().describe("The value, as text, matches this regular expression"),
    number: z
      .object({ value: z.number(), tolerance: z.number().min(0).default(0) })
      .strict()
      .optional(),
    length: z.number().int().min(0).optional().describe("An array's (or string's) length"),
  })
  .strict();
export type JsonExpectation = z.infer<typeof JsonExpectation>;

export const HttpCheck = z
  .object({
    kind: z.literal("http"),
    ...checkCommon,
    method: z.enum(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]).default("GET"),
    url: z
      .string()
      .min(1)
      .describe("Path on the target, or an absolute URL on an allowed origin; ${TRIAL_ID} is replaced"),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe("Secrets come from the environment as ${env:NAME}; they are never stored"),
    body: z.unknown().optional().describe("Sent as JSON (a string is sent as is)"),
    status: z
      .union([z.number().int(), z.array(z.number().int()).min(1)])
      .optional()
      .describe("Expected status (default: any 2xx)"),
    json: z.array(JsonExpectation).default([]).describe("Expectations on the JSON body"),
    contains: z.array(TextMatcher).default([]).describe("The body text must contain these"),
    timeoutSeconds: z.number().positive().max(120).default(15),
  })
  .strict();

export const StorageCheck = z
  .object({
    kind: z.literal("storage"),
    ...checkCommon,
    area: z.enum(["localStorage", "sessionStorage", "cookie"]),
    key: z.string().min(1).describe("The storage key or cookie name"),
    origin: z.string().optional().describe("Whose storage (default: the target's base URL origin)"),
    exists: z.boolean().default(true).describe("false: the key must be absent"),
    contains: z.array(TextMatcher).default([]),
    notContains: z.array(TextMatcher).default([]),
    json: z.array(JsonExpectation).default([]).describe("Expectations on the value parsed as JSON"),
    normalize: Normalize.default({ case: true, whitespace: true, dashes: true }),
  })
  .strict();

export const CommandCheck = z
  .object({
    kind: z.literal("command"),
    ...checkCommon,
    command: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe(
        "Run after the trial with TRIAL_ID, WORKSPACE and TARGET_URL in its environment; from this file only, never from model output",
      ),
    cwd: z.string().optional().describe("Working directory, relative to the task file"),
    timeoutSeconds: z.number().positive().max(600).default(30),
    exitCode: z.number().int().default(0),
    stdout: z.array(TextMatcher).default([]).describe("The standard output must contain these"),
    notStdout: z.array(TextMatcher).default([]),
    json: z.array(JsonExpectation).default([]).describe("Expectations on the standard output parsed as JSON"),
  })
  .strict();

export const CustomCheck = z
  .object({
    kind: z.literal("custom"),
    ...checkCommon,
    module: z.string().min(1).describe("A .ts/.js/.mjs module, relative to the task file"),
    export: z
      .string()
      .regex(/^[A-Za-z_$][\w$]*$/)
      .default("default")
      .describe("The export implementing CustomCheck"),
    options: z.record(z.string(), z.unknown()).default({}).describe("Passed to the check as is"),
    confidence: z
      .enum(["verified", "observed", "claimed"])
      .optional()
      .describe("What the check reads; default: the module's own `confidence`, else verified"),
  })
  .strict();

/**
 * The reward an environment's episode reported, as umpire captured it in the page before the page's own
 * scripts ran (a benchmark pack's capture, e.g. MiniWoB++'s WOB_* globals; src/packs/). A write the page's
 * own code did not make (an agent's script) is refused by the capture and fails the check.
 */
export const EpisodeCheck = z
  .object({
    kind: z.literal("episode"),
    ...checkCommon,
    above: z.number().default(0).describe("Pass when the episode's raw reward is above this (BrowserGym: 0)"),
  })
  .strict();

export const CheckSpec = z.discriminatedUnion("kind", [
  FileCheck,
  PageCheck,
  EffectsCheck,
  AnswerCheck,
  HttpCheck,
  StorageCheck,
  CommandCheck,
  CustomCheck,
  EpisodeCheck,
]);
export type CheckSpec = z.infer<typeof CheckSpec>;
export type CheckKind = CheckSpec["kind"];

/** One step of a gold or negative trajectory. Targets are layout marks, never pixels. */
export const ReferenceStep = z
  .object({
    tool: toolName,
    target: markName.optional().describe("click/double_click/scroll: the layout mark to aim at"),
    args: z.record(z.string(), z.unknown()).default({}).describe("The tool's other arguments"),
    note: z.string().optional().describe("What the reference agent records as its note at this step"),
  })
  .strict();
export type ReferenceStep = z.infer<typeof ReferenceStep>;

/** A negative that names the required checks it must fail; the self-test verifies exactly those fail. */
const NegativeWithChecks = z
  .object({
    steps: z.array(ReferenceStep).min(1),
    failsOn: z
      .array(z.string().min(1))
      .min(1)
      .describe("Names of the required checks this negative must fail (umpire validate --self-test verifies each)"),
  })
  .strict();

const Box = z
  .object({ x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() })
  .strict();
export const MaskSpec = z.union([z.object({ selector: z.string().min(1) }).strict(), z.object({ box: Box }).strict()]);
export type MaskSpec = z.infer<typeof MaskSpec>;

export const LIMIT_RANGES = {
  turns: [1, 200],
  actions: [1, 500],
  tokens: [1_000, 10_000_000],
  seconds: [5, 3_600],
} as const;

export const TaskFileSchema = z
  .object({
    $schema: z.string().optional(),
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and '-'"),
    title: z.string().min(1),
    instruction: z.string().min(10),
    instructionFrom: z
      .object({
        selector: z.string().min(1).optional().describe("The visible text of this element is the instruction"),
        expression: z
          .string()
          .min(1)
          .optional()
          .describe("A JavaScript expression evaluated in the start page; its text value is the instruction"),
        timeoutSeconds: z.number().positive().max(120).default(10).describe("How long to wait for non-empty text"),
      })
      .strict()
      .refine(
        (v) => (v.selector === undefined) !== (v.expression === undefined),
        "give exactly one of selector, expression",
      )
      .optional()
      .describe(
        "The instruction comes from the environment: read from the start page once it has loaded (the agent gets that text; `instruction` describes the kind of task). Stored with each trial",
      ),
    givens: z
      .array(z.string())
      .default([])
      .describe("Values the instruction states on purpose (e.g. the match id); exempt from the leak rule"),
    target: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/)
      .default(FIXTURE_TARGET)
      .describe("The target the task runs on (declared in umpire.config.yaml); default the fixture site"),
    start: z
      .object({
        path: z
          .string()
          .min(1)
          .default("/")
          .describe("A path on the target (/notes) or an absolute URL on one of its origins"),
        scenario: z.enum(SCENARIOS).default("plain"),
      })
      .strict()
      .default({ path: "/", scenario: "plain" }),
    viewport: z
      .object({
        width: z.number().int().min(320).max(3840).default(1280),
        height: z.number().int().min(240).max(2160).default(800),
        deviceScaleFactor: z.number().min(1).max(3).default(1),
      })
      .strict()
      .default({ width: 1280, height: 800, deviceScaleFactor: 1 }),
    tools: z.array(toolName).min(1),
    permissions: z
      .object({
        allowedOrigins: z
          .array(z.string())
          .default(["target"])
          .describe(
            'Origins the browser may load; "target" is the task\'s target (its base URL and declared origins), "fixture" the fixture site',
          ),
        forbiddenEffects: z
          .array(z.string().min(1))
          .default([])
          .describe(
            "Effect types that fail the trial when the target's effects source logs one (needs an effects source)",
          ),
        writeScope: z.string().default("notes/").describe("Workspace folder write_note may write in"),
        httpAllow: z.array(z.string().startsWith("/")).default([]).describe("Path prefixes http_get may read"),
      })
      .strict()
      .default({ allowedOrigins: ["target"], forbiddenEffects: [], writeScope: "notes/", httpAllow: [] }),
    limits: z
      .object({
        turns: z.number().int().default(30),
        actions: z.number().int().default(60),
        tokens: z.number().int().default(400_000),
        seconds: z.number().default(180),
        usd: z
          .number()
          .positive()
          .optional()
          .describe(
            "USD one trial may spend on model requests, checked before each request (needs a price for the model)",
          ),
      })
      .strict()
      .default({ turns: 30, actions: 60, tokens: 400_000, seconds: 180 }),
    observation: z.enum(["screenshot", "screenshot+url", "screenshot+text"]).default("screenshot"),
    dialogs: DialogPolicySchema.optional().describe(
      "Who answers native dialogs in this task (overrides the target's dialogs; default agent)",
    ),
    repetition: z
      .object({
        masks: z.array(MaskSpec).default([]),
        waitCap: z
          .number()
          .int()
          .min(1)
          .default(5)
          .describe("Consecutive waits on an unchanged screen that are normal"),
      })
      .strict()
      .default({ masks: [], waitCap: 5 }),
    marks: MarkDecls.default({}).describe(
      "Marks of this task, besides the target's: {name: {selector}} or {name: {role, name}}",
    ),
    checks: z.array(CheckSpec).min(1),
    reference: z.array(ReferenceStep).min(1),
    negatives: z
      .record(z.string().regex(/^[a-z0-9-]+$/), z.union([z.array(ReferenceStep).min(1), NegativeWithChecks]))
      .default({})
      .describe(
        "Known-wrong trajectories the self-test plays: steps, or {steps, failsOn} naming the checks it must fail",
      ),
    tags: z.array(z.string().min(1)).default([]),
    draft: z
      .boolean()
      .optional()
      .describe(
        "true: imported (umpire import playwright) and not yet reviewed; validate and run refuse it (umpire validate --allow-drafts and umpire negatives accept it)",
      ),
  })
  .strict();

export type TaskFile = z.input<typeof TaskFileSchema>;
/**
 * A task with every default filled, plus where it came from. Negatives are resolved to their steps;
 * the checks a negative declares it must fail (`{steps, failsOn}`) are in `negativeFailsOn`, present
 * only when some negative declares them (so older tasks keep their content hash).
 */
export type Task = Omit<z.output<typeof TaskFileSchema>, "negatives"> & {
  negatives: Record<string, ReferenceStep[]>;
  negativeFailsOn?: Record<string, string[]>;
  file: string;
};
