/**
 * Anthropic's computer toolset (`computer_toolset_20260801`), as `@anthropic-ai/sdk` 1.16.0 types it
 * (`ComputerToolset20260801`, `ComputerToolsetConfigs`, the `Computer*Input` and `Computer*ToolUseBlock`
 * types in `resources/messages`, the generally available Messages API: no beta header). The SDK is the
 * only documentation of it umpire has; no public Anthropic page says which models take it, so umpire
 * never picks it from a model id: an agent asks for it (`computerTool`).
 *
 * - The tools[] entry carries only `type`, `configs` and `cache_control`: no `name`, no display size
 *   (the SDK's helper: "Coordinates arrive in screenshot pixels"), so the picture sent is the frame.
 * - Each of its 17 members is a tool of its own: the model calls `{name: <member>, input,
 *   toolset_name: "computer"}`, answered by a `tool_result` carrying `toolset_name: "computer"`.
 * - Every member is on by default; the ones umpire cannot run are switched off with
 *   `configs: {<member>: {enabled: false}}` (the SDK: "withheld from the served schema").
 */
export const COMPUTER_TOOLSET_TYPE = "computer_toolset_20260801";
/** The family name a member's tool_use and its tool_result carry. */
export const COMPUTER_TOOLSET_NAME = "computer";

/** The toolset's members, in the SDK's order (`COMPUTER_MEMBER_NAME_VALUES`); `configs` accepts no other key. */
export const COMPUTER_TOOLSET_MEMBERS = [
  "key",
  "hold_key",
  "type",
  "cursor_position",
  "mouse_move",
  "left_mouse_down",
  "left_mouse_up",
  "left_click",
  "left_click_drag",
  "right_click",
  "middle_click",
  "double_click",
  "triple_click",
  "scroll",
  "wait",
  "screenshot",
  "zoom",
] as const;
export type ComputerMember = (typeof COMPUTER_TOOLSET_MEMBERS)[number];

/**
 * The members umpire runs (`mapClaudeAction` maps them onto its tools); the others (drags, right,
 * middle and triple clicks, pointer moves, mouse down/up, hold_key, cursor_position, zoom) are no
 * umpire action, so they are switched off rather than offered and refused.
 */
export const RUN_MEMBERS: ReadonlySet<ComputerMember> = new Set([
  "left_click",
  "double_click",
  "type",
  "key",
  "scroll",
  "wait",
  "screenshot",
]);

/** The values of an agent's `computerTool` knob (`auto`: the single tool, its version by model id). */
export const COMPUTER_TOOL_CHOICES = ["auto", COMPUTER_TOOLSET_TYPE, "computer_20251124", "computer_20250124"] as const;
export type ComputerToolChoice = (typeof COMPUTER_TOOL_CHOICES)[number];

/** The toolset's tools[] entry: every member umpire does not run switched off, in the SDK's order. */
export function computerToolsetEntry(): Record<string, unknown> {
  const configs = Object.fromEntries(
    COMPUTER_TOOLSET_MEMBERS.filter((m) => !RUN_MEMBERS.has(m)).map((m) => [m, { enabled: false }]),
  );
  return { type: COMPUTER_TOOLSET_TYPE, configs };
}

/**
 * A member's call as the single tool's action: the member inputs are the single tool's action fields
 * under the member's name (key's `text`, scroll's `scroll_direction`/`scroll_amount`/`coordinate`,
 * wait's `duration`, a click's `coordinate` and `text` modifier), so `mapClaudeAction` maps both alike.
 * A member key's `repeat` has no single-tool field: more than one press is refused by the caller.
 */
export function memberAction(name: string, input: Record<string, unknown>): Record<string, unknown> {
  return { ...input, action: name };
}
