/**
 * A small strict XML well-formedness checker for tests (no dependency): one root element, tags
 * balanced and properly nested, attributes quoted and unique, only the five predefined entities or
 * character references, no raw '<' or '&' in text, no characters XML forbids.
 * Returns the element names in document order; throws with the offset of the first error.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;
const ENTITY = /^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/;
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function decode(text: string, at: number): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "<") throw new Error(`raw '<' in text at ${at + i}`);
    if (ch === "&") {
      const m = ENTITY.exec(text.slice(i));
      if (!m) throw new Error(`bad entity at ${at + i}`);
      const e = m[1];
      out +=
        e === "amp"
          ? "&"
          : e === "lt"
            ? "<"
            : e === "gt"
              ? ">"
              : e === "quot"
                ? '"'
                : e === "apos"
                  ? "'"
                  : String.fromCodePoint(e.startsWith("#x") ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
      i += m[0].length - 1;
    } else out += ch;
  }
  return out;
}

export function parseXml(xml: string): XmlElement {
  if (FORBIDDEN.test(xml)) throw new Error(`forbidden character at ${xml.search(FORBIDDEN)}`);
  let i = 0;
  const decl = /^<\?xml[^?]*\?>\s*/.exec(xml);
  if (decl) i = decl[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < xml.length) {
    if (xml.startsWith("</", i)) {
      const m = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(xml.slice(i));
      if (!m) throw new Error(`bad closing tag at ${i}`);
      const open = stack.pop();
      if (!open || open.name !== m[1]) throw new Error(`</${m[1]}> at ${i} closes <${open?.name}>`);
      i += m[0].length;
    } else if (xml[i] === "<") {
      const name = NAME.exec(xml.slice(i + 1));
      if (!name) throw new Error(`bad tag name at ${i}`);
      const el: XmlElement = { name: name[0], attributes: {}, children: [], text: "" };
      i += 1 + name[0].length;
      for (;;) {
        const ws = /^\s*/.exec(xml.slice(i))![0];
        i += ws.length;
        if (xml.startsWith("/>", i) || xml[i] === ">") break;
        if (!ws) throw new Error(`missing space before attribute at ${i}`);
        const attr = /^([A-Za-z_][\w.:-]*)="([^"]*)"/.exec(xml.slice(i));
        if (!attr) throw new Error(`bad attribute at ${i}`);
        if (attr[1] in el.attributes) throw new Error(`duplicate attribute ${attr[1]} at ${i}`);
        el.attributes[attr[1]] = decode(attr[2], i);
        i += attr[0].length;
      }
      if (stack.length === 0) {
        if (root) throw new Error(`second root element at ${i}`);
        root = el;
      } else stack[stack.length - 1].children.push(el);
      if (xml.startsWith("/>", i)) i += 2;
      else {
        i += 1;
        stack.push(el);
      }
    } else {
      const next = xml.indexOf("<", i);
      const end = next === -1 ? xml.length : next;
      const text = decode(xml.slice(i, end), i);
      if (stack.length === 0 && text.trim()) throw new Error(`text outside the root at ${i}`);
      if (stack.length > 0) stack[stack.length - 1].text += text;
      i = end;
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1].name}> never closed`);
  if (!root) throw new Error("no root element");
  return root;
}
