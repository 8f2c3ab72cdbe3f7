/**
 * Text from outside umpire (model errors and output, page text, task titles, error bodies) on a
 * terminal. Raw, it could clear the screen, move the cursor, set the window title, or print a
 * newline and a fake "[1/1] PASS" line. Two defences:
 * - `oneLine` for every untrusted field umpire prints: control characters (newlines included)
 *   and bidirectional overrides become visible escapes, so a field is one line that says what it holds;
 * - `terminalSafe` for everything a command writes: escape sequences other than colours (SGR) and
 *   umpire's own erase-line and live-view redraw are removed, with the other control characters
 *   except \n, \t and \r.
 */

/** C0 controls, DEL, C1 controls, and the bidi embedding/override/isolate characters. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e" };

/** `text` on one line with every control character shown as an escape (`\n`, `\e`, `\x07`, `\u202e`). */
export function oneLine(text: string): string {
  return text.replace(
    CONTROL,
    (c) =>
      NAMED[c] ??
      (c.charCodeAt(0) < 0x100
        ? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`
        : `\\u${c.charCodeAt(0).toString(16)}`),
  );
}

/** Escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), and other two-byte ESC forms. */
const ESCAPES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[P^_][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]?/g;
/**
 * What may stay of them, all written by umpire itself: colours (SGR, `ESC[...m`), erase-in-line
 * (`ESC[K`), and the live view's redraw (`ESC[<n>F` up to the block's first line, `ESC[J` clear
 * below; src/cli/progress.ts). Untrusted fields never carry one: `oneLine` escapes them first.
 */
const KEPT = /^\u001b\[(?:[0-9;]*[mK]|[0-9]*F|J)$/;
/** Control characters other than \t, \n and \r (ESC is handled with its sequence). */
const LONE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every escape sequence except colours, erase-line and the redraw removed, and stray controls dropped. */
export function terminalSafe(text: string): string {
  return text.replace(ESCAPES, (seq) => (KEPT.test(seq) ? seq : "")).replace(LONE_CONTROL, "");
}
