/**
 * Qwen's `computer_use` function, verbatim from each version's cookbook
 * (`cookbooks/utils/agent_function_call.py`, class `ComputerUse`, in QwenLM/Qwen2.5-VL and
 * QwenLM/Qwen3-VL): the description with the screen's resolution filled in, and the JSON Schema
 * of its parameters. Qwen-Agent sends it as an OpenAI function (`NousFnCallPrompt` renders
 * `{"type": "function", "function": {name, description, parameters}}` into the system prompt,
 * which is what vLLM's chat template does with `tools`), so umpire sends it as `tools[0]`.
 *
 * The resolution is the coordinate space: Qwen2.5-VL's cookbook declares the smart-resized size of
 * the screenshot (its answers are pixels of that image), Qwen3-VL's declares 1000x1000 (its
 * answers are thousandths of the image, whatever its size).
 */

/** Which Qwen-VL generation a protocol follows. */
export type QwenVersion = "2.5" | "3";

/** The placeholder the cookbook's f-string fills (`self.display_width_px`...). */
const RESOLUTION = "{self.display_width_px}x{self.display_height_px}";

const QWEN25_DESCRIPTION =
  "Use a mouse and keyboard to interact with a computer, and take screenshots.\n* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. You must click on desktop icons to start applications.\n* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions. E.g. if you click on Firefox and a window doesn't open, try wait and taking another screenshot.\n* The screen's resolution is {self.display_width_px}x{self.display_height_px}.\n* Whenever you intend to move the cursor to click on an element like an icon, you should consult a screenshot to determine the coordinates of the element before moving the cursor.\n* If you tried clicking on a program or link but it failed to load, even after waiting, try adjusting your cursor position so that the tip of the cursor visually falls on the element that you want to click.\n* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges unless asked.";
const QWEN25_PARAMETERS: Record<string, unknown> = {
  properties: {
    action: {
      description:
        "The action to perform. The available actions are:\n* `key`: Performs key down presses on the arguments passed in order, then performs key releases in reverse order.\n* `type`: Type a string of text on the keyboard.\n* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.\n* `left_click`: Click the left mouse button.\n* `left_click_drag`: Click and drag the cursor to a specified (x, y) pixel coordinate on the screen.\n* `right_click`: Click the right mouse button.\n* `middle_click`: Click the middle mouse button.\n* `double_click`: Double-click the left mouse button.\n* `scroll`: Performs a scroll of the mouse scroll wheel.\n* `wait`: Wait specified seconds for the change to happen.\n* `terminate`: Terminate the current task and report its completion status.",
      enum: [
        "key",
        "type",
        "mouse_move",
        "left_click",
        "left_click_drag",
        "right_click",
        "middle_click",
        "double_click",
        "scroll",
        "wait",
        "terminate",
      ],
      type: "string",
    },
    keys: { description: "Required only by `action=key`.", type: "array" },
    text: { description: "Required only by `action=type`.", type: "string" },
    coordinate: {
      description:
        "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to. Required only by `action=mouse_move` and `action=left_click_drag`.",
      type: "array",
    },
    pixels: {
      description:
        "The amount of scrolling to perform. Positive values scroll up, negative values scroll down. Required only by `action=scroll`.",
      type: "number",
    },
    time: { description: "The seconds to wait. Required only by `action=wait`.", type: "number" },
    status: {
      description: "The status of the task. Required only by `action=terminate`.",
      type: "string",
      enum: ["success", "failure"],
    },
  },
  required: ["action"],
  type: "object",
};
const QWEN3_DESCRIPTION =
  "Use a mouse and keyboard to interact with a computer, and take screenshots.\n* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. You must click on desktop icons to start applications.\n* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions. E.g. if you click on Firefox and a window doesn't open, try wait and taking another screenshot.\n* The screen's resolution is {self.display_width_px}x{self.display_height_px}.\n* Whenever you intend to move the cursor to click on an element like an icon, you should consult a screenshot to determine the coordinates of the element before moving the cursor.\n* If you tried clicking on a program or link but it failed to load, even after waiting, try adjusting your cursor position so that the tip of the cursor visually falls on the element that you want to click.\n* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges.";
const QWEN3_PARAMETERS: Record<string, unknown> = {
  properties: {
    action: {
      description:
        "The action to perform. The available actions are:\n* `key`: Performs key down presses on the arguments passed in order, then performs key releases in reverse order.\n* `type`: Type a string of text on the keyboard.\n* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.\n* `left_click`: Click the left mouse button at a specified (x, y) pixel coordinate on the screen.\n* `left_click_drag`: Click and drag the cursor to a specified (x, y) pixel coordinate on the screen.\n* `right_click`: Click the right mouse button at a specified (x, y) pixel coordinate on the screen.\n* `middle_click`: Click the middle mouse button at a specified (x, y) pixel coordinate on the screen.\n* `double_click`: Double-click the left mouse button at a specified (x, y) pixel coordinate on the screen.\n* `triple_click`: Triple-click the left mouse button at a specified (x, y) pixel coordinate on the screen (simulated as double-click since it's the closest action).\n* `scroll`: Performs a scroll of the mouse scroll wheel.\n* `hscroll`: Performs a horizontal scroll (mapped to regular scroll).\n* `wait`: Wait specified seconds for the change to happen.\n* `terminate`: Terminate the current task and report its completion status.\n* `answer`: Answer a question.",
      enum: [
        "key",
        "type",
        "mouse_move",
        "left_click",
        "left_click_drag",
        "right_click",
        "middle_click",
        "double_click",
        "triple_click",
        "scroll",
        "hscroll",
        "wait",
        "terminate",
        "answer",
      ],
      type: "string",
    },
    keys: { description: "Required only by `action=key`.", type: "array" },
    text: { description: "Required only by `action=type` and `action=answer`.", type: "string" },
    coordinate: {
      description:
        "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to.",
      type: "array",
    },
    pixels: {
      description:
        "The amount of scrolling to perform. Positive values scroll up, negative values scroll down. Required only by `action=scroll` and `action=hscroll`.",
      type: "number",
    },
    time: { description: "The seconds to wait. Required only by `action=wait`.", type: "number" },
    status: {
      description: "The status of the task. Required only by `action=terminate`.",
      type: "string",
      enum: ["success", "failure"],
    },
  },
  required: ["action"],
  type: "object",
};

/** Every action each version documents, in the cookbook's order. */
export const QWEN_ACTIONS: Record<QwenVersion, readonly string[]> = {
  "2.5": (QWEN25_PARAMETERS.properties as { action: { enum: string[] } }).action.enum,
  "3": (QWEN3_PARAMETERS.properties as { action: { enum: string[] } }).action.enum,
};

/** The function's name, the same in both versions. */
export const COMPUTER_USE = "computer_use";

/** The `tools` entry for one version, declaring `display` as the screen's resolution. */
export function computerUseTool(
  version: QwenVersion,
  display: { width: number; height: number },
): { type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } } {
  const description = version === "2.5" ? QWEN25_DESCRIPTION : QWEN3_DESCRIPTION;
  return {
    type: "function",
    function: {
      name: COMPUTER_USE,
      description: description.replace(RESOLUTION, `${display.width}x${display.height}`),
      parameters: structuredClone(version === "2.5" ? QWEN25_PARAMETERS : QWEN3_PARAMETERS),
    },
  };
}
