/** The report's escaping functions (pure; no browser needed). */
import { describe, expect, it } from "vitest";
import { escapeHtml, html, raw } from "../../../src/report/html/escape.js";

describe("escapeHtml", () => {
  it("turns markup characters into entities, so text can never become markup", () => {
    expect(escapeHtml(`<img src=x onerror="window.__pwned=1">`)).toBe(
      "&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;",
    );
    expect(escapeHtml(`<script>alert('x')</script> & more`)).toBe(
      "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more",
    );
    expect(escapeHtml("a\u0000b")).toBe("a\uFFFDb");
    expect(escapeHtml("plain text, 168/6")).toBe("plain text, 168/6");
  });

  it("does not decode entities that are already there (they are shown as typed)", () => {
    expect(escapeHtml("&lt;b&gt;")).toBe("&amp;lt;b&amp;gt;");
  });

  it("prints numbers and booleans and drops null and undefined", () => {
    expect(escapeHtml(42)).toBe("42");
    expect(escapeHtml(false)).toBe("false");
    expect(escapeHtml(null)).toBe("");
    expect(escapeHtml(undefined)).toBe("");
  });
});

describe("html template", () => {
  it("escapes every interpolated string, in text and in attributes", () => {
    const evil = `"><script>x()</script>`;
    expect(html`<a title="${evil}">${evil}</a>`.markup).toBe(
      `<a title="&quot;&gt;&lt;script&gt;x()&lt;/script&gt;">&quot;&gt;&lt;script&gt;x()&lt;/script&gt;</a>`,
    );
  });

  it("nests fragments without escaping them twice, joins arrays and drops false", () => {
    const items = ["<1>", "2"].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}${false}</ul>`.markup).toBe("<ul><li>&lt;1&gt;</li><li>2</li></ul>");
    expect(html`${raw("<br>")}`.markup).toBe("<br>");
  });
});
