/**
 * A Playwright locator as its reporter prints it (`getByRole('button', { name: 'Save' })`,
 * `locator('#list li').first()`) read back into what umpire can aim at: a mark (by test id, role +
 * accessible name, or CSS selector) and, for checks, a Playwright selector of the public engines
 * (`css`, `role=`, `text=`) that a page check's `page.locator()` accepts as is.
 *
 * umpire's marks have no label, placeholder or text kind: a placeholder is the CSS attribute selector
 * Playwright itself matches (`[placeholder*="x" i]`), a label becomes role + accessible name with the
 * role the action implies (a label names its control), and a text locator in an action is left for the
 * user to declare (`unresolved`), never guessed.
 */

/** One call of a locator chain: `getByRole('button', { name: 'Save' })` -> {name: getByRole, args: [...]}. */
export interface LocatorCall {
  name: string;
  args: unknown[];
}

export interface RegexLiteral {
  regex: string;
  flags: string;
}

/** Parses a printed locator chain; null when it is not one (a locator built from a handle, a frame). */
export function parseLocator(text: string): LocatorCall[] | null {
  const reader = new Reader(text.trim());
  try {
    const calls: LocatorCall[] = [];
    for (;;) {
      const name = reader.identifier();
      reader.expect("(");
      const args: unknown[] = [];
      reader.skipSpace();
      while (!reader.peek(")")) {
        args.push(reader.value());
        reader.skipSpace();
        if (reader.peek(",")) reader.expect(",");
        reader.skipSpace();
      }
      reader.expect(")");
      calls.push({ name, args });
      if (reader.done()) return calls;
      reader.expect(".");
    }
  } catch {
    return null;
  }
}

/**
 * The first argument of the call a source line holds at a step's location (`toHaveURL(/#\/active$/);`):
 * Playwright reports a RegExp argument as `{}` once it crosses from its worker, the source keeps it.
 */
export function firstArgumentAt(text: string): unknown {
  const reader = new Reader(text);
  try {
    reader.identifier();
    reader.expect("(");
    return reader.value();
  } catch {
    return undefined;
  }
}

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}
  done(): boolean {
    this.skipSpace();
    return this.i >= this.s.length;
  }
  skipSpace(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  peek(c: string): boolean {
    this.skipSpace();
    return this.s.startsWith(c, this.i);
  }
  expect(c: string): void {
    this.skipSpace();
    if (!this.s.startsWith(c, this.i)) throw new Error(`expected ${c} at ${this.i}`);
    this.i += c.length;
  }
  identifier(): string {
    this.skipSpace();
    const m = /^[A-Za-z_$][\w$]*/.exec(this.s.slice(this.i));
    if (!m) throw new Error(`expected a name at ${this.i}`);
    this.i += m[0].length;
    return m[0];
  }
  value(): unknown {
    this.skipSpace();
    const c = this.s[this.i];
    if (c === "'" || c === '"' || c === "`") return this.string(c);
    if (c === "/") return this.regex();
    if (c === "{") return this.object();
    const m = /^(-?\d+(?:\.\d+)?|true|false|null|undefined)/.exec(this.s.slice(this.i));
    if (m) {
      this.i += m[0].length;
      return m[0] === "undefined" ? undefined : JSON.parse(m[0]);
    }
    // A nested locator (`filter({ has: getByText('x') })`): kept as its text.
    const start = this.i;
    this.identifier();
    let depth = 0;
    while (this.i < this.s.length) {
      const ch = this.s[this.i]!;
      if (ch === "(") depth++;
      if (ch === ")") {
        if (depth === 0) break;
        depth--;
      }
      if ((ch === "," || ch === "}") && depth === 0) break;
      this.i++;
    }
    return { locator: this.s.slice(start, this.i) };
  }
  string(quote: string): string {
    this.i++;
    let out = "";
    while (this.i < this.s.length && this.s[this.i] !== quote) {
      if (this.s[this.i] === "\\") {
        this.i++;
        const e = this.s[this.i]!;
        out += e === "n" ? "\n" : e === "t" ? "\t" : e;
      } else out += this.s[this.i];
      this.i++;
    }
    this.expect(quote);
    return out;
  }
  regex(): RegexLiteral {
    this.i++;
    let body = "";
    let inClass = false;
    while (this.i < this.s.length && (this.s[this.i] !== "/" || inClass)) {
      const ch = this.s[this.i]!;
      if (ch === "\\") {
        body += ch + this.s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (ch === "[") inClass = true;
      if (ch === "]") inClass = false;
      body += ch;
      this.i++;
    }
    this.expect("/");
    const flags = /^[a-z]*/.exec(this.s.slice(this.i))![0];
    this.i += flags.length;
    return { regex: body, flags };
  }
  object(): Record<string, unknown> {
    this.expect("{");
    const out: Record<string, unknown> = {};
    while (!this.peek("}")) {
      this.skipSpace();
      const key = this.s[this.i] === "'" || this.s[this.i] === '"' ? this.string(this.s[this.i]!) : this.identifier();
      this.expect(":");
      out[key] = this.value();
      this.skipSpace();
      if (this.peek(",")) this.expect(",");
    }
    this.expect("}");
    return out;
  }
}

/** A mark as umpire declares it (src/task/target-decl.ts MarkDecl), or none for a test id the target already marks. */
export type MarkDeclaration = { selector: string } | { role: string; name?: string; exact?: boolean };

export type AimResult =
  | { kind: "mark"; name: string; decl: MarkDeclaration | null; note?: string }
  | { kind: "unresolved"; why: string };

export interface AimContext {
  /** The test-id attribute Playwright's getByTestId used (the config's `use.testIdAttribute`). */
  playwrightTestId: string;
  /** The target's test-id attribute: equal to Playwright's, a test id is a mark with no declaration. */
  targetTestId: string;
  /** What the action is, so a label names the right role: fill -> textbox, check -> checkbox. */
  action: string;
}

const ROLE_OF_ACTION: Record<string, string> = {
  fill: "textbox",
  type: "textbox",
  pressSequentially: "textbox",
  check: "checkbox",
  uncheck: "checkbox",
  setChecked: "checkbox",
  selectOption: "combobox",
};

/** A readable mark name from any text: "Clear completed" -> clear-completed. */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/:nth-(?:child|of-type)\((\d+)\)/g, "-$1")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return (s || "mark").slice(0, 48).replace(/-+$/, "");
}

const cssString = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

function textArg(call: LocatorCall): string | null {
  return typeof call.args[0] === "string" ? call.args[0] : null;
}

function optionsOf(call: LocatorCall): Record<string, unknown> {
  const last = call.args[call.args.length - 1];
  return last && typeof last === "object" && !("regex" in last) && !("locator" in last)
    ? (last as Record<string, unknown>)
    : {};
}

/** The calls that only narrow to the first match, which a mark's querySelector does anyway. */
const FIRST_MATCH = (c: LocatorCall) => c.name === "first" || (c.name === "nth" && c.args[0] === 0);

/** What an action on this locator aims at, as an umpire mark. */
export function aimOf(locator: string, ctx: AimContext): AimResult {
  const calls = parseLocator(locator);
  if (!calls) return { kind: "unresolved", why: `${locator} is not a locator umpire can read` };
  const core = calls.filter((c) => !FIRST_MATCH(c));
  if (core.length > 1 && core.every((c) => c.name === "locator" && typeof c.args[0] === "string")) {
    const selector = core.map((c) => c.args[0] as string).join(" ");
    return { kind: "mark", name: slug(selector), decl: { selector } };
  }
  if (core.length !== 1)
    return { kind: "unresolved", why: `${locator} chains locators; declare one mark for the element it finds` };
  const call = core[0]!;
  const text = textArg(call);
  const exact = optionsOf(call).exact === true;
  switch (call.name) {
    case "locator":
      if (text === null) break;
      return { kind: "mark", name: /^#[\w-]+$/.test(text) ? text.slice(1) : slug(text), decl: { selector: text } };
    case "getByTestId":
      if (text === null) break;
      if (ctx.playwrightTestId === ctx.targetTestId && /^[A-Za-z0-9_.:-]+$/.test(text))
        return { kind: "mark", name: text, decl: null };
      return { kind: "mark", name: slug(text), decl: { selector: `[${ctx.playwrightTestId}=${cssString(text)}]` } };
    case "getByRole": {
      const role = text;
      const name = optionsOf(call).name;
      if (role === null || (name !== undefined && typeof name !== "string")) break;
      const decl: MarkDeclaration = name === undefined ? { role } : { role, name, ...(exact ? { exact: true } : {}) };
      return { kind: "mark", name: slug(name === undefined ? role : `${name} ${role}`), decl };
    }
    case "getByPlaceholder":
      if (text === null) break;
      return {
        kind: "mark",
        name: `${slug(text)}-input`,
        decl: { selector: exact ? `[placeholder=${cssString(text)}]` : `[placeholder*=${cssString(text)} i]` },
        note: `getByPlaceholder(${JSON.stringify(text)}) is declared as the CSS selector Playwright matches (umpire marks have no placeholder kind)`,
      };
    case "getByLabel": {
      const role = ROLE_OF_ACTION[ctx.action];
      if (text === null) break;
      if (!role)
        return {
          kind: "unresolved",
          why: `getByLabel(${JSON.stringify(text)}) for ${ctx.action}: umpire marks have no label kind and the action does not say the control's role; declare the mark by role + name`,
        };
      return {
        kind: "mark",
        name: `${slug(text)}-${role}`,
        decl: { role, name: text, ...(exact ? { exact: true } : {}) },
        note: `getByLabel(${JSON.stringify(text)}) is declared as role ${role} + name (a label names its control; umpire marks have no label kind): check the role`,
      };
    }
    case "getByText":
    case "getByAltText":
    case "getByTitle":
      return {
        kind: "unresolved",
        why: `${locator}: umpire marks have no text kind; declare a mark (CSS selector or role + name) for this element`,
      };
  }
  return { kind: "unresolved", why: `${locator} is not a locator umpire can turn into a mark` };
}

/** The same locator as a Playwright selector for a page check (public engines only), or null. */
export function checkSelectorOf(locator: string, playwrightTestId: string): string | null {
  const calls = parseLocator(locator);
  if (!calls) return null;
  const parts: string[] = [];
  for (const call of calls) {
    const text = textArg(call);
    const exact = optionsOf(call).exact === true;
    const quoted = (s: string) => `${cssString(s)}${exact ? "s" : "i"}`;
    if (call.name === "first") parts.push("nth=0");
    else if (call.name === "last") parts.push("nth=-1");
    else if (call.name === "nth" && typeof call.args[0] === "number") parts.push(`nth=${call.args[0]}`);
    else if (text === null) return null;
    else if (call.name === "locator") parts.push(text);
    else if (call.name === "getByTestId") parts.push(`[${playwrightTestId}=${cssString(text)}]`);
    else if (call.name === "getByText") parts.push(`text=${exact ? cssString(text) : text}`);
    else if (call.name === "getByPlaceholder")
      parts.push(exact ? `[placeholder=${cssString(text)}]` : `[placeholder*=${cssString(text)} i]`);
    else if (call.name === "getByRole") {
      const name = optionsOf(call).name;
      if (name !== undefined && typeof name !== "string") return null;
      parts.push(name === undefined ? `role=${text}` : `role=${text}[name=${quoted(name)}]`);
    } else return null;
  }
  return parts.join(" >> ");
}
