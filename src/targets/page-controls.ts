/**
 * The controls of a page as a task author needs them (`umpire marks`): every button, link, field,
 * select and element with a widget role, in every frame, each with the mark declaration that finds
 * it the way `marks.ts` resolves marks: the app's test id first (a mark already, nothing to
 * declare), else ARIA role + accessible name, else a CSS selector. How many elements each
 * declaration matches is counted with the same Playwright locators the runner uses, so an
 * ambiguous one (umpire would take the first) is flagged, with a selector that finds only this one.
 *
 * Marks resolve in the main frame only (marks.ts reads `document` and `page.getByRole`): a control
 * inside an iframe is listed with its frame, and said to be out of reach of a mark.
 */
import type { Frame, Page } from "playwright";
import { MARK_NAME } from "../task/target-decl.js";

export type ControlDeclaration =
  | { testid: string }
  | { role: string; name: string; exact: true }
  | { selector: string };

export interface PageControl {
  /** 1-based, as numbered in the picture. */
  n: number;
  /** The iframe's URL when the control is inside one; null in the main frame. */
  frame: string | null;
  tag: string;
  /** As Playwright computes it (the runner's getByRole); null when it has none. */
  role: string | null;
  name: string | null;
  /** CSS pixels relative to the viewport (frames included); null when it has no box. */
  box: { x: number; y: number; width: number; height: number } | null;
  /** Part of it is inside the viewport (the screenshot shows it). */
  inViewport: boolean;
  /** The mark name suggested (a test id's own value). */
  mark: string;
  declaration: ControlDeclaration;
  /** Ready to paste under `targets.<name>.marks` (a comment for a test id: it is a mark already). */
  yaml: string;
  /** Elements the declaration matches in the control's frame (1 unless ambiguous). */
  matches: number;
  ambiguous: boolean;
  /** When ambiguous: a CSS selector that matches this control alone. */
  unique?: { selector: string; yaml: string };
  /** False inside an iframe: umpire resolves marks in the main frame only. */
  resolvable: boolean;
}

/** Roles a person acts on; landmarks and structure (main, region, list) are not controls. */
const WIDGET_ROLES = [
  "button",
  "link",
  "checkbox",
  "radio",
  "switch",
  "tab",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "option",
  "textbox",
  "searchbox",
  "combobox",
  "slider",
  "spinbutton",
  "listbox",
  "treeitem",
  "gridcell",
];
const CANDIDATES = [
  "a[href]",
  "button",
  "input:not([type=hidden])",
  "select",
  "textarea",
  "summary",
  "[contenteditable=''], [contenteditable=true]",
  ...WIDGET_ROLES.map((r) => `[role=${r}]`),
  // Drawn controls: SVG shapes an app names (an editor's nodes are SVG groups), and canvases so named.
  "svg g[id], svg [role], svg [aria-label], svg a",
  "canvas[id], canvas[role], canvas[aria-label]",
].join(", ");

/** Private-use code points (an icon font's glyphs: Font Awesome's U+F000-F8FF): never a name a person can read. */
const PRIVATE_USE = /[\uE000-\uF8FF]|[\u{F0000}-\u{FFFFD}]|[\u{100000}-\u{10FFFD}]/gu;

/** Whether the text carries an icon-font glyph. */
export function hasPrivateUse(text: string | null | undefined): boolean {
  return text ? text.replace(PRIVATE_USE, "") !== text : false;
}

/** The name with icon-font glyphs removed and spaces tidied; null when nothing readable is left. */
export function readableName(name: string | null | undefined): string | null {
  const text = (name ?? "").replace(PRIVATE_USE, "").replace(/\s+/g, " ").trim();
  return text || null;
}
const TAG = "data-umpire-control";

interface Candidate {
  index: number;
  tag: string;
  testid: string | null;
  testidCount: number;
  selector: string;
  /** What names it when its accessible name is only icon glyphs: aria-label, title, then id. */
  label: string | null;
  /** A unique `#id` selector, when it has an id that finds it alone. */
  idSelector: string | null;
}

/** In the frame: numbers each visible candidate with a temporary attribute, and finds a unique selector for it. */
function survey({ candidates, attr, tag }: { candidates: string; attr: string; tag: string }): Candidate[] {
  const unique = (sel: string) => {
    try {
      return document.querySelectorAll(sel).length === 1;
    } catch {
      return false;
    }
  };
  const q = (value: string) => JSON.stringify(value);
  const positional = (el: Element, stop: Element | null): string[] => {
    const parts: string[] = [];
    for (
      let cur: Element | null = el;
      cur && cur !== stop && cur !== document.documentElement;
      cur = cur.parentElement
    ) {
      const same = cur.parentElement
        ? Array.from(cur.parentElement.children).filter((c) => c.localName === cur!.localName)
        : [cur];
      parts.unshift(same.length > 1 ? `${cur.localName}:nth-of-type(${same.indexOf(cur) + 1})` : cur.localName);
      if (!stop && unique(parts.join(" > "))) break;
    }
    return parts;
  };
  const selectorOf = (el: Element): string => {
    const name = el.localName;
    const tries = [
      el.id ? `#${CSS.escape(el.id)}` : "",
      ...["name", "aria-label", "placeholder", "title", "href", "type"].map((a) =>
        el.getAttribute(a) ? `${name}[${a}=${q(el.getAttribute(a)!)}]` : "",
      ),
    ];
    for (const t of tries) if (t && unique(t)) return t;
    // Anchored on the nearest ancestor with an id of its own: it outlives a reordered page, `div:nth-of-type(3)` does not.
    for (let up = el.parentElement; up && up !== document.documentElement; up = up.parentElement) {
      if (!up.id || !unique(`#${CSS.escape(up.id)}`)) continue;
      const anchor = `#${CSS.escape(up.id)}`;
      if (unique(`${anchor} ${name}`)) return `${anchor} ${name}`;
      const path = `${anchor} > ${positional(el, up).join(" > ")}`;
      if (unique(path)) return path;
      break;
    }
    return positional(el, null).join(" > ");
  };
  document.querySelectorAll(`[${tag}]`).forEach((el) => el.removeAttribute(tag));
  const found: Candidate[] = [];
  // An element with a test id is a mark without any declaration, whatever it is (a clickable <li> too).
  for (const el of Array.from(document.querySelectorAll(`${candidates}, [${attr}]`))) {
    const rect = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (rect.width <= 0 || rect.height <= 0 || style.visibility === "hidden" || style.display === "none") continue;
    const index = found.length;
    el.setAttribute(tag, String(index));
    const testid = el.getAttribute(attr);
    const testidCount = testid ? document.querySelectorAll(`[${attr}=${q(testid)}]`).length : 0;
    const idSelector = el.id && unique(`#${CSS.escape(el.id)}`) ? `#${CSS.escape(el.id)}` : null;
    const label = ["aria-label", "title"].map((a) => el.getAttribute(a)?.trim()).find(Boolean) ?? (el.id || null);
    found.push({ index, tag: el.localName, testid, testidCount, selector: selectorOf(el), label, idSelector });
  }
  return found;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
}

const yamlString = (s: string) => JSON.stringify(s);

function yamlOf(mark: string, d: ControlDeclaration): string {
  if ("testid" in d)
    return `# ${mark}: a mark already (test id ${yamlString(d.testid)}); aim steps at it with target: ${mark}`;
  if ("selector" in d) return `${mark}: { selector: ${yamlString(d.selector)} }`;
  return `${mark}: { role: ${d.role}, name: ${yamlString(d.name)}, exact: true }`;
}

/** Role and accessible name as Playwright computes them for the element (depth 0 of its aria snapshot). */
async function roleAndName(frame: Frame, index: number): Promise<{ role: string | null; name: string | null }> {
  const nodes = (await frame
    .locator(`[${TAG}="${index}"]`)
    .ariaSnapshotJSON({ depth: 0, timeout: 5_000 })
    .catch(() => null)) as { role?: string; name?: string }[] | { role?: string; name?: string } | null;
  const node = Array.isArray(nodes) ? nodes[0] : nodes;
  const role = node?.role && node.role !== "text" && node.role !== "generic" ? node.role : null;
  return { role, name: node?.name ? String(node.name) : null };
}

async function frameControls(
  page: Page,
  frame: Frame,
  attr: string,
): Promise<Omit<PageControl, "n" | "mark" | "yaml">[]> {
  const main = frame === page.mainFrame();
  const found = await frame.evaluate(survey, { candidates: CANDIDATES, attr, tag: TAG }).catch(() => [] as Candidate[]);
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const controls: Omit<PageControl, "n" | "mark" | "yaml">[] = [];
  for (const c of found) {
    const locator = frame.locator(`[${TAG}="${c.index}"]`);
    const box = await locator.boundingBox({ timeout: 5_000 }).catch(() => null);
    const read = await roleAndName(frame, c.index);
    const role = read.role;
    // An icon-font control's accessible name is its glyph: named by aria-label, title, then id instead,
    // and found by its id (a role + glyph declaration reads as `link ""` and breaks with the font).
    const readable = readableName(read.name);
    const glyphOnly = hasPrivateUse(read.name);
    const name = readable ?? readableName(c.label);
    let declaration: ControlDeclaration;
    let matches: number;
    if (c.testid && MARK_NAME.test(c.testid)) {
      declaration = { testid: c.testid };
      matches = c.testidCount;
    } else if (c.idSelector && (glyphOnly || !role || !name)) {
      declaration = { selector: c.idSelector };
      matches = 1;
    } else if (role && name && !glyphOnly) {
      declaration = { role, name, exact: true };
      matches = await frame.getByRole(role as Parameters<Page["getByRole"]>[0], { name, exact: true }).count();
    } else {
      declaration = { selector: c.selector };
      matches = await frame
        .locator(c.selector)
        .count()
        .catch(() => 0);
    }
    const inViewport =
      box !== null &&
      box.x < viewport.width &&
      box.y < viewport.height &&
      box.x + box.width > 0 &&
      box.y + box.height > 0;
    const ambiguous = matches !== 1;
    controls.push({
      frame: main ? null : frame.url(),
      tag: c.tag,
      role,
      name,
      box: box && {
        x: Math.round(box.x),
        y: Math.round(box.y),
        width: Math.round(box.width),
        height: Math.round(box.height),
      },
      inViewport,
      declaration,
      matches,
      ambiguous,
      ...(ambiguous && !("selector" in declaration) ? { unique: { selector: c.selector, yaml: "" } } : {}),
      resolvable: main,
    });
  }
  return controls;
}

/** Every control of the page, frames included, numbered in document order (main frame first), with a mark name each. */
export async function pageControls(page: Page, options: { testIdAttribute: string }): Promise<PageControl[]> {
  const all = [];
  for (const frame of page.frames()) all.push(...(await frameControls(page, frame, options.testIdAttribute)));
  // The numbering attribute goes again: a page surveyed mid-trial (`umpire try`) is left as the app made it.
  for (const frame of page.frames())
    await frame
      .evaluate((tag) => document.querySelectorAll(`[${tag}]`).forEach((el) => el.removeAttribute(tag)), TAG)
      .catch(() => undefined);
  const taken = new Set<string>();
  return all.map((c, i) => {
    const base = "testid" in c.declaration ? c.declaration.testid : slug(c.name ?? "") || `${c.role ?? c.tag}-${i + 1}`;
    let mark = base;
    // A test id is its own name, duplicates included (that is the ambiguity to flag); a suggestion is made unique.
    if (!("testid" in c.declaration)) for (let k = 2; taken.has(mark); k++) mark = `${base}-${k}`;
    taken.add(mark);
    const unique = c.unique
      ? { selector: c.unique.selector, yaml: yamlOf(mark, { selector: c.unique.selector }) }
      : undefined;
    return { n: i + 1, ...c, mark, yaml: yamlOf(mark, c.declaration), ...(unique ? { unique } : {}) };
  });
}

/**
 * Draws each control's box and number over the page (a fixed overlay in the main frame, which
 * covers the iframes' controls too: their boxes are in the page's coordinates), for the screenshot.
 * Returns a function that removes it.
 */
export async function drawNumberedBoxes(page: Page, controls: readonly PageControl[]): Promise<() => Promise<void>> {
  const boxes = controls
    .filter((c) => c.box && c.inViewport)
    .map((c) => ({ n: c.n, box: c.box!, flagged: c.ambiguous || !c.resolvable }));
  await page.evaluate((items) => {
    const layer = document.createElement("div");
    layer.id = "__umpire_marks_overlay";
    layer.setAttribute("style", "position:fixed;inset:0;pointer-events:none;z-index:2147483647");
    for (const { n, box, flagged } of items) {
      const colour = flagged ? "#d62728" : "#1f77b4";
      const frame = document.createElement("div");
      frame.setAttribute(
        "style",
        `position:absolute;left:${box.x}px;top:${box.y}px;width:${box.width}px;height:${box.height}px;outline:2px solid ${colour};box-sizing:border-box`,
      );
      const label = document.createElement("div");
      label.textContent = String(n);
      label.setAttribute(
        "style",
        `position:absolute;left:${box.x}px;top:${Math.max(0, box.y - 14)}px;background:${colour};color:#fff;font:bold 11px/14px sans-serif;padding:0 3px`,
      );
      layer.append(frame, label);
    }
    document.documentElement.append(layer);
  }, boxes);
  return async () => {
    await page.evaluate(() => document.getElementById("__umpire_marks_overlay")?.remove()).catch(() => undefined);
  };
}
