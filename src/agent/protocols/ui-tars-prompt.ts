/**
 * UI-TARS-1.5's computer-use prompt, verbatim: `COMPUTER_USE_DOUBAO` of bytedance/UI-TARS
 * (`codes/ui_tars/prompt.py`), with `{language}` and `{instruction}` filled as the repository's
 * README does. The model answers `Thought: ...` then `Action: click(point='<point>x y</point>')`
 * in text; its points are pixels of the screenshot after `smart_resize` (factor 28, min 100x28x28,
 * max 16384x28x28 pixels: `codes/ui_tars/action_parser.py`, model type `qwen25vl`).
 */

/** The template as the repository has it (Python escapes already read). */
export const UI_TARS_COMPUTER_USE =
  "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task.\n\n## Output Format\n```\nThought: ...\nAction: ...\n```\n\n## Action Space\n\nclick(point='<point>x1 y1</point>')\nleft_double(point='<point>x1 y1</point>')\nright_single(point='<point>x1 y1</point>')\ndrag(start_point='<point>x1 y1</point>', end_point='<point>x2 y2</point>')\nhotkey(key='ctrl c') # Split keys with a space and use lowercase. Also, do not use more than 3 keys in one hotkey action.\ntype(content='xxx') # Use escape characters \\', \\\", and \\n in content part to ensure we can parse the content in normal python string format. If you want to submit your input, use \\n at the end of content. \nscroll(point='<point>x1 y1</point>', direction='down or up or right or left') # Show more information on the `direction` side.\nwait() #Sleep for 5s and take a screenshot to check for any changes.\nfinished(content='xxx') # Use escape characters \\', \\\", and \\n in content part to ensure we can parse the content in normal python string format.\n\n\n## Note\n- Use {language} in `Thought` part.\n- Write a small plan and finally summarize your next action (with its target element) in one sentence in `Thought` part.\n\n## User Instruction\n{instruction}\n";

/** UI-TARS-1.5's sizing (action_parser.py: IMAGE_FACTOR, MIN_PIXELS, MAX_PIXELS). */
export const UI_TARS_FACTOR = 28;
export const UI_TARS_MIN_PIXELS = 100 * 28 * 28;
export const UI_TARS_MAX_PIXELS = 16384 * 28 * 28;

/** The prompt for one task: the README fills `{language}` with the user's language. */
export function uiTarsPrompt(instruction: string, language = "English"): string {
  return UI_TARS_COMPUTER_USE.replace("{language}", language).replace("{instruction}", instruction);
}
