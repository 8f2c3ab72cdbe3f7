/**
 * One turn of a trial as the report shows it: the screenshot the model received with every
 * proposed point drawn where it landed, what the model said (thought, note; reasoning and raw
 * output collapsed), the calls umpire refused by kind, each action's status and message, and the
 * turn's times, tokens and cost.
 * The same fragment is used by the trial page and by the side-by-side view.
 */
import type { ActionRecord } from "../../store/records.js";
import { formatMs, formatTokens, formatUsd } from "../format.js";
import { storedInvalidCallsText } from "../invalid-calls.js";
import { statusBadge } from "./badges.js";
import { html, type Raw } from "./escape.js";
import type { Root } from "./layout.js";
import {
  clickMarks,
  markLabel,
  type ClickMark,
  type ImageRef,
  type TurnHighlight,
  type TurnView,
} from "./view-model.js";

/** The marks over a screenshot, in the screenshot's own pixel coordinates (the SVG's viewBox). */
function marksSvgContent(marks: readonly ClickMark[], width: number, height: number): Raw[] {
  const size = Math.max(width, height, 1);
  const ring = size / 80;
  const font = Math.max(12, size / 64);
  return marks.map((m) => {
    const right = m.px > width * 0.6;
    const below = m.py < height * 0.08;
    const tx = right ? m.px - ring * 1.5 : m.px + ring * 1.5;
    const ty = below ? m.py + ring + font : m.py - ring * 1.1;
    const label = `${m.n} · ${markLabel(m)}`;
    // A backing box keeps the label readable over any page; monospace glyphs are ~0.6 em wide.
    const boxWidth = label.length * font * 0.6 + font * 0.6;
    const boxX = right ? tx - boxWidth + font * 0.3 : tx - font * 0.3;
    return html`<g class="mark mark-${m.status.replace(/[^a-z_]/g, "")}" data-n="${m.n}" data-x="${m.x}" data-y="${m.y}" data-px="${m.px}" data-py="${m.py}">
<line class="mark-cross" x1="${m.px - ring * 1.8}" y1="${m.py}" x2="${m.px + ring * 1.8}" y2="${m.py}"></line>
<line class="mark-cross" x1="${m.px}" y1="${m.py - ring * 1.8}" x2="${m.px}" y2="${m.py + ring * 1.8}"></line>
<circle class="mark-ring" cx="${m.px}" cy="${m.py}" r="${ring}"></circle>
<circle class="mark-dot" cx="${m.px}" cy="${m.py}" r="${ring / 5}"></circle>
<rect class="mark-label-bg" x="${boxX}" y="${ty - font * 0.95}" width="${boxWidth}" height="${font * 1.25}" rx="${font * 0.2}"></rect>
<text class="mark-label" x="${tx}" y="${ty}" font-size="${font}" text-anchor="${right ? "end" : "start"}">${label}</text>
</g>`;
  });
}

/**
 * A screenshot at its pixel size (scaled down by CSS to fit), lazily loaded, with the marks in
 * an SVG laid exactly over it: a point (x, y) in [0, 1000] sits at x/10 % of the rendered width.
 */
export function screenshotFigure(image: ImageRef, marks: readonly ClickMark[], root: Root, alt: string): Raw {
  const { width, height } = image;
  const svgMarks = marksSvgContent(marks, width, height);
  if (!image.href) {
    return html`<figure class="shot shot-missing">
<svg class="shot-placeholder" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${alt} (file not found)">
<rect class="placeholder-bg" x="0" y="0" width="${width}" height="${height}"></rect>
<text class="placeholder-text" x="${width / 2}" y="${height / 2}" font-size="${Math.max(14, width / 50)}" text-anchor="middle">screenshot not found: ${image.source}</text>
${svgMarks}
</svg>
<figcaption>${width} × ${height} px</figcaption>
</figure>`;
  }
  const href = root + image.href;
  return html`<figure class="shot">
<div class="shot-frame">
<img class="shot-img" src="${href}" width="${width}" height="${height}" loading="lazy" decoding="async" alt="${alt}">
<svg class="marks" viewBox="0 0 ${width} ${height}" aria-hidden="true">${svgMarks}</svg>
</div>
<figcaption>${width} × ${height} px · <a href="${href}">full size</a></figcaption>
</figure>`;
}

function highlightBanner(highlight: TurnHighlight | null): Raw | string {
  if (!highlight) return "";
  if (highlight.kind === "pause") {
    return html`<p class="highlight highlight-pause"><strong>Repetition pause:</strong> ${highlight.condition}. The actions were not run; a reflection message was sent to the model.</p>`;
  }
  if (highlight.kind === "stuck") {
    return html`<p class="highlight highlight-stuck"><strong>Stuck:</strong> ${highlight.condition}. The trial stopped here.</p>`;
  }
  return html`<p class="highlight highlight-reflection"><strong>Reflection turn:</strong> the model's answer to the reflection message.</p>`;
}

function turnMetrics(view: TurnView): Raw {
  const { turn } = view;
  const executorMs = view.actions.reduce((sum, a) => sum + (a.executorMs ?? 0), 0);
  const usage = turn.usage;
  const parts: (Raw | string)[] = [
    html`model <span class="num">${formatMs(turn.modelMs)}</span>`,
    turn.ttftMs !== null ? html`first token ${formatMs(turn.ttftMs)}` : "",
    turn.retries > 0 ? html`${turn.retries} ${turn.retries === 1 ? "retry" : "retries"}` : "",
    html`executor <span class="num">${formatMs(executorMs)}</span>`,
    usage
      ? html`tokens ${formatTokens(usage.inputTokens)} in / ${formatTokens(usage.outputTokens)} out (reasoning ${formatTokens(usage.reasoningTokens)}, cached ${formatTokens(usage.cachedTokens)})`
      : html`tokens unknown`,
    html`cost ${formatUsd(view.costUsd)}`,
    turn.finishReason ? html`finish ${turn.finishReason}` : "",
  ].filter((p) => p !== "");
  return html`<p class="turn-metrics">${parts.map((p, i) => (i === 0 ? p : html` · ${p}`))}</p>`;
}

function actionItem(action: ActionRecord, n: number, mark: ClickMark | undefined): Raw {
  return html`<li class="action action-${action.status.replace(/[^a-z_]/g, "")}">
<div class="action-head"><span class="action-n">${n}</span> <code class="tool">${action.tool}</code> ${statusBadge(action.status)} <span class="ms">${formatMs(action.executorMs)}</span>${mark ? html` <span class="point">${markLabel(mark)}</span>` : ""}</div>
<code class="args">${JSON.stringify(action.args)}</code>
${action.message ? html`<p class="message">${action.message}</p>` : ""}
</li>`;
}

function textBlock(label: string, text: string | null): Raw | string {
  if (!text) return "";
  return html`<div class="said said-${label}"><span class="said-label">${label}</span><p class="said-text">${text}</p></div>`;
}

/**
 * The calls of this turn umpire refused, by kind (its stored `flags.invalid`): they were never run, so
 * they have no action below; their messages are in the raw output and the trial's events.jsonl.
 */
function refusedLine(view: TurnView): Raw | string {
  const text = storedInvalidCallsText(view.turn.flags ?? {});
  return text
    ? html`<p class="turn-invalid"><strong>Refused by umpire:</strong> ${text}; not run (events.jsonl has each message).</p>`
    : "";
}

/** One turn as a `<section>`; `answer` is shown in the turn that gave it (the last one). */
export function turnHtml(view: TurnView, root: Root, answer: string | null = null): Raw {
  const { turn, highlight } = view;
  const image = view.image;
  const marks = image ? clickMarks(view.actions, image.width, image.height) : [];
  const markByN = new Map(marks.map((m) => [m.n, m]));
  const reasoning = turn.reasoning
    ? html`<details class="reasoning"><summary>reasoning (${turn.reasoning.length.toLocaleString("en-US")} characters)</summary><pre>${turn.reasoning}</pre></details>`
    : "";
  const rawOutput = turn.content
    ? html`<details class="raw-output"><summary>raw output</summary><pre>${turn.content}</pre></details>`
    : "";
  return html`<section class="turn${highlight ? ` hl-${highlight.kind}` : ""}" id="turn-${turn.idx}" data-turn="${turn.idx}">
<header class="turn-head">
<h3>Turn ${turn.idx} <span class="badge outcome-${turn.outcome}">${turn.outcome}</span>${highlight ? html` <span class="badge hl-badge-${highlight.kind}">${highlight.kind}</span>` : ""}</h3>
${turnMetrics(view)}
</header>
${highlightBanner(highlight)}
<div class="turn-body">
<div class="turn-shot">${image ? screenshotFigure(image, marks, root, `screenshot the model received in turn ${turn.idx}`) : html`<p class="muted">no screenshot recorded</p>`}</div>
<div class="turn-text">
${textBlock("thought", turn.thought)}
${textBlock("note", turn.note)}
${reasoning}
${refusedLine(view)}
${view.actions.length > 0 ? html`<ol class="actions">${view.actions.map((a, i) => actionItem(a, i + 1, markByN.get(i + 1)))}</ol>` : ""}
${answer !== null ? html`<div class="said said-answer"><span class="said-label">answer</span><p class="said-text">${answer}</p></div>` : ""}
${rawOutput}
</div>
</div>
</section>`;
}
