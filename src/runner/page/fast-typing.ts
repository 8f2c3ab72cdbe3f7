/**
 * Typing text as Playwright's `keyboard.type` does, event for event, without its round trip
 * per key. Playwright sends each character's keyDown, waits for Chromium's answer, sends its
 * keyUp, waits again: 137 characters of a note took 775 ms here, most of a typing step. The
 * same `Input.dispatchKeyEvent` messages (same fields, same order) are sent here over the page's
 * own CDP session without waiting for each answer; Chromium still hands each key to the page in
 * order, one after the other, so the page sees the same events, values and focus changes (a test
 * compares the page's event log of both paths for every printable character, Enter, a tab and
 * characters outside the layout).
 *
 * Characters the US layout has are pressed (keyDown with text, keyUp); any other character is
 * inserted (`Input.insertText`), as Playwright does. Without a CDP session (a remote Playwright
 * server, or a page whose session was dropped) this is Playwright's `keyboard.type` itself.
 */
import type { CDPSession, Page } from "playwright";
import type { PageCdpSession } from "./page-cdp.js";

/**
 * Playwright 1.65's US keyboard layout, restricted to what `keyboard.type` looks up (a single
 * character): character -> [key, code, keyCode, text]. Generated from Playwright's own table
 * (`usKeyboardLayout.ts`: every unshifted and shifted key of location 0, and Enter for "\n" and
 * "\r"); a tab is not in it (Playwright inserts "\t" as text).
 */
const US_CHARACTERS: ReadonlyMap<string, readonly [key: string, code: string, keyCode: number, text: string]> = new Map(
  [
    ["`", ["`", "Backquote", 192, "`"]],
    ["~", ["~", "Backquote", 192, "~"]],
    ["1", ["1", "Digit1", 49, "1"]],
    ["!", ["!", "Digit1", 49, "!"]],
    ["2", ["2", "Digit2", 50, "2"]],
    ["@", ["@", "Digit2", 50, "@"]],
    ["3", ["3", "Digit3", 51, "3"]],
    ["#", ["#", "Digit3", 51, "#"]],
    ["4", ["4", "Digit4", 52, "4"]],
    ["$", ["$", "Digit4", 52, "$"]],
    ["5", ["5", "Digit5", 53, "5"]],
    ["%", ["%", "Digit5", 53, "%"]],
    ["6", ["6", "Digit6", 54, "6"]],
    ["^", ["^", "Digit6", 54, "^"]],
    ["7", ["7", "Digit7", 55, "7"]],
    ["&", ["&", "Digit7", 55, "&"]],
    ["8", ["8", "Digit8", 56, "8"]],
    ["*", ["*", "Digit8", 56, "*"]],
    ["9", ["9", "Digit9", 57, "9"]],
    ["(", ["(", "Digit9", 57, "("]],
    ["0", ["0", "Digit0", 48, "0"]],
    [")", [")", "Digit0", 48, ")"]],
    ["-", ["-", "Minus", 189, "-"]],
    ["_", ["_", "Minus", 189, "_"]],
    ["=", ["=", "Equal", 187, "="]],
    ["+", ["+", "Equal", 187, "+"]],
    ["\\", ["\\", "Backslash", 220, "\\"]],
    ["|", ["|", "Backslash", 220, "|"]],
    ["q", ["q", "KeyQ", 81, "q"]],
    ["Q", ["Q", "KeyQ", 81, "Q"]],
    ["w", ["w", "KeyW", 87, "w"]],
    ["W", ["W", "KeyW", 87, "W"]],
    ["e", ["e", "KeyE", 69, "e"]],
    ["E", ["E", "KeyE", 69, "E"]],
    ["r", ["r", "KeyR", 82, "r"]],
    ["R", ["R", "KeyR", 82, "R"]],
    ["t", ["t", "KeyT", 84, "t"]],
    ["T", ["T", "KeyT", 84, "T"]],
    ["y", ["y", "KeyY", 89, "y"]],
    ["Y", ["Y", "KeyY", 89, "Y"]],
    ["u", ["u", "KeyU", 85, "u"]],
    ["U", ["U", "KeyU", 85, "U"]],
    ["i", ["i", "KeyI", 73, "i"]],
    ["I", ["I", "KeyI", 73, "I"]],
    ["o", ["o", "KeyO", 79, "o"]],
    ["O", ["O", "KeyO", 79, "O"]],
    ["p", ["p", "KeyP", 80, "p"]],
    ["P", ["P", "KeyP", 80, "P"]],
    ["[", ["[", "BracketLeft", 219, "["]],
    ["{", ["{", "BracketLeft", 219, "{"]],
    ["]", ["]", "BracketRight", 221, "]"]],
    ["}", ["}", "BracketRight", 221, "}"]],
    ["a", ["a", "KeyA", 65, "a"]],
    ["A", ["A", "KeyA", 65, "A"]],
    ["s", ["s", "KeyS", 83, "s"]],
    ["S", ["S", "KeyS", 83, "S"]],
    ["d", ["d", "KeyD", 68, "d"]],
    ["D", ["D", "KeyD", 68, "D"]],
    ["f", ["f", "KeyF", 70, "f"]],
    ["F", ["F", "KeyF", 70, "F"]],
    ["g", ["g", "KeyG", 71, "g"]],
    ["G", ["G", "KeyG", 71, "G"]],
    ["h", ["h", "KeyH", 72, "h"]],
    ["H", ["H", "KeyH", 72, "H"]],
    ["j", ["j", "KeyJ", 74, "j"]],
    ["J", ["J", "KeyJ", 74, "J"]],
    ["k", ["k", "KeyK", 75, "k"]],
    ["K", ["K", "KeyK", 75, "K"]],
    ["l", ["l", "KeyL", 76, "l"]],
    ["L", ["L", "KeyL", 76, "L"]],
    [";", [";", "Semicolon", 186, ";"]],
    [":", [":", "Semicolon", 186, ":"]],
    ["'", ["'", "Quote", 222, "'"]],
    ['"', ['"', "Quote", 222, '"']],
    ["\n", ["Enter", "Enter", 13, "\r"]],
    ["\r", ["Enter", "Enter", 13, "\r"]],
    ["z", ["z", "KeyZ", 90, "z"]],
    ["Z", ["Z", "KeyZ", 90, "Z"]],
    ["x", ["x", "KeyX", 88, "x"]],
    ["X", ["X", "KeyX", 88, "X"]],
    ["c", ["c", "KeyC", 67, "c"]],
    ["C", ["C", "KeyC", 67, "C"]],
    ["v", ["v", "KeyV", 86, "v"]],
    ["V", ["V", "KeyV", 86, "V"]],
    ["b", ["b", "KeyB", 66, "b"]],
    ["B", ["B", "KeyB", 66, "B"]],
    ["n", ["n", "KeyN", 78, "n"]],
    ["N", ["N", "KeyN", 78, "N"]],
    ["m", ["m", "KeyM", 77, "m"]],
    ["M", ["M", "KeyM", 77, "M"]],
    [",", [",", "Comma", 188, ","]],
    ["<", ["<", "Comma", 188, "<"]],
    [".", [".", "Period", 190, "."]],
    [">", [">", "Period", 190, ">"]],
    ["/", ["/", "Slash", 191, "/"]],
    ["?", ["?", "Slash", 191, "?"]],
    [" ", [" ", "Space", 32, " "]],
  ],
);

/** Types `text` into whatever has focus on `page`, as `page.keyboard.type(text)` would. */
export async function typeText(page: Page, cdp: PageCdpSession, text: string): Promise<void> {
  const session = await cdp.get();
  if (!session) return page.keyboard.type(text);
  const sent: Promise<unknown>[] = [];
  for (const character of text) sent.push(...sendCharacter(session, character));
  // Every message is on its way; a failure of one must not leave the others' rejections unhandled.
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
}

function sendCharacter(session: CDPSession, character: string): Promise<unknown>[] {
  const key = US_CHARACTERS.get(character);
  if (!key) return [session.send("Input.insertText", { text: character })];
  const [name, code, keyCode, text] = key;
  // Playwright's fields (crInput.ts RawKeyboardImpl): no modifier is held while typing, location 0.
  return [
    session.send("Input.dispatchKeyEvent", {
      type: "keyDown",
      modifiers: 0,
      windowsVirtualKeyCode: keyCode,
      code,
      commands: [],
      key: name,
      text,
      unmodifiedText: text,
      autoRepeat: false,
      location: 0,
      isKeypad: false,
    }),
    session.send("Input.dispatchKeyEvent", {
      type: "keyUp",
      modifiers: 0,
      key: name,
      windowsVirtualKeyCode: keyCode,
      code,
      location: 0,
      isKeypad: false,
    }),
  ];
}
