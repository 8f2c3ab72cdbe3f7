/**
 * The task file format: one zod schema, the single source of every task type.
 *
 * `TaskFile` is the file as written (optional fields may be missing); `Task` is the resolved
 * form with every default filled, which the rest of umpire consumes. The JSON Schema in
 * `schema/task.schema.json` is exported from `TaskFileSchema` (see scripts/export-task-schema.ts).
 */
import { z } from "zod";
import { TOOL_NAMES, type ToolName } from "../toolbox/tools.js";

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
export const EFFECT_TYPES = [
  "note_saved",
  "note_overwritten",
  "match_deleted",
  "cookie_choice",
] as const;
export type EffectType = (typeof EFFECT_TYPES)[number];

const toolName = z.enum(TOOL_NAMES as [ToolName, ...ToolName[]]);
const markName = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, "a layout mark name: letters, digits, '-' and '_'")
  .describe("Name of an element the fixture page marks with data-mark");

/** A text matcher: plain text (after normalisation) or a regular expression. */
export const TextMatcher = z.union([
  z.string().min(1),
  z.object({ regex: z.string().min(1), flags: z.string().regex(/^[imsu]*$/).optional() }).strict(),
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
    fields: z
      .record(z.string(), z.string())
      .default({})
      .describe("`key: value` lines the note must carry, e.g. {match: BB-042}"),
    onlyRecord: z
      .object({
        pattern: z.string().min(1).describe("Regex matching any record id, e.g. BB-\\d{3}"),
        expect: z.string().min(1).describe("The one record the file may name"),
      })
      .strict()
      .optional()
      .describe("The file names this record and no other (the BB-024 trap)"),
    normalize: Normalize.default({ case: true, whitespace: true, dashes: true }),
  })
  .strict();

export const PageCheck = z
  .object({
    kind: z.literal("page"),
    ...checkCommon,
    open: z.string().optional().describe("Open this path in a fresh page first; default: look at the trial's page as left"),
    url: TextMatcher.optional().describe("The page URL must match"),
    selector: z.string().min(1).optional(),
    text: TextMatcher.optional().describe("Visible text of `selector` (or the body) must match"),
    state: z.enum(["visible", "hidden", "absent"]).optional().describe("State of `selector`"),
    normalize: Normalize.default({ case: true, whitespace: true, dashes: true }),
  })
  .strict();

const EffectMatch = z
  .object({
    type: z.enum(EFFECT_TYPES),
    where: z.record(z.string(), z.string()).optional().describe("Detail fields that must match, e.g. {name: BB-042.md}"),
  })
  .strict();

export const EffectsCheck = z
  .object({
    kind: z.literal("effects"),
    ...checkCommon,
    require: z
      .array(EffectMatch.extend({ count: z.number().int().min(0).optional(), min: z.number().int().min(0).optional() }).strict())
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
    number: z.object({ value: z.number(), tolerance: z.number().min(0).default(0) }).strict().optional(),
    cricket: z
      .object({
        scores: z.array(z.string().regex(/^\d{1,3}\/\d{1,2}$/)).default([]).describe("Scores the answer must state, as runs/wickets"),
        result: z.string().optional().describe('e.g. "Jaipur Kites won by 6 wickets"'),
      })
      .strict()
      .optional(),
    normalize: Normalize.default({ case: true, whitespace: true, dashes: true }),
  })
  .strict();

export const CheckSpec = z.discriminatedUnion("kind", [FileCheck, PageCheck, EffectsCheck, AnswerCheck]);
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

const Box = z.object({ x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() }).strict();
export const MaskSpec = z.union([
  z.object({ selector: z.string().min(1) }).strict(),
  z.object({ box: Box }).strict(),
]);
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
    givens: z
      .array(z.string())
      .default([])
      .describe("Values the instruction states on purpose (e.g. the match id); exempt from the leak rule"),
    start: z
      .object({
        path: z.string().startsWith("/").default("/"),
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
          .default(["fixture"])
          .describe('Origins the browser may load; "fixture" is the fixture site'),
        forbiddenEffects: z.array(z.enum(EFFECT_TYPES)).default([]),
        writeScope: z.string().default("notes/").describe("Workspace folder write_note may write in"),
        httpAllow: z.array(z.string().startsWith("/")).default([]).describe("Path prefixes http_get may read"),
      })
      .strict()
      .default({ allowedOrigins: ["fixture"], forbiddenEffects: [], writeScope: "notes/", httpAllow: [] }),
    limits: z
      .object({
        turns: z.number().int().default(30),
        actions: z.number().int().default(60),
        tokens: z.number().int().default(400_000),
        seconds: z.number().default(180),
      })
      .strict()
      .default({ turns: 30, actions: 60, tokens: 400_000, seconds: 180 }),
    observation: z.enum(["screenshot", "screenshot+url", "screenshot+text"]).default("screenshot"),
    repetition: z
      .object({
        masks: z.array(MaskSpec).default([]),
        waitCap: z.number().int().min(1).default(5).describe("Consecutive waits on an unchanged screen that are normal"),
      })
      .strict()
      .default({ masks: [], waitCap: 5 }),
    checks: z.array(CheckSpec).min(1),
    reference: z.array(ReferenceStep).min(1),
    negatives: z.record(z.string().regex(/^[a-z0-9-]+$/), z.array(ReferenceStep).min(1)).default({}),
    tags: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type TaskFile = z.input<typeof TaskFileSchema>;
/** A task with every default filled, plus where it came from. */
export type Task = z.output<typeof TaskFileSchema> & { file: string };
