// @ts-check
/**
 * The side-by-side view: reads ?a=<seq>&b=<seq>, loads data/<a>.js and data/<b>.js (each
 * registers a trial's fragments in window.umpireTrials; a page opened from disk cannot fetch
 * files, but it may load scripts of its own folder) and lays the two trials out turn by turn.
 * The fragments are markup the generator escaped; nothing from the URL reaches the page
 * except a seq that is one of the options listed in the pickers.
 */

(function () {
  const form = /** @type {HTMLFormElement | null} */ (document.getElementById("pick"));
  const pickA = /** @type {HTMLSelectElement | null} */ (document.getElementById("pick-a"));
  const pickB = /** @type {HTMLSelectElement | null} */ (document.getElementById("pick-b"));
  const status = document.getElementById("sbs-status");
  const out = document.getElementById("sbs");
  if (!form || !pickA || !pickB || !status || !out) return;
  const known = new Set(Array.from(pickA.options, (o) => o.value));

  const go = () => {
    location.search = `?a=${encodeURIComponent(pickA.value)}&b=${encodeURIComponent(pickB.value)}`;
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    go();
  });
  pickA.addEventListener("change", go);
  pickB.addEventListener("change", go);

  const params = new URLSearchParams(location.search);
  const a = params.get("a") || form.dataset.defaultA || "";
  const b = params.get("b") || form.dataset.defaultB || "";
  if (!known.has(a) || !known.has(b)) {
    status.textContent = known.size < 2 ? "This run has fewer than two trials." : "Pick two trials of this run.";
    return;
  }
  pickA.value = a;
  pickB.value = b;

  /**
   * @typedef {{ seq: number, task: string, summary: string, turns: { idx: number, html: string }[], stop: string, checks: string }} TrialFragments
   * @param {string} seq
   * @returns {Promise<TrialFragments>}
   */
  function load(seq) {
    return new Promise((resolve, reject) => {
      /** @type {any} */
      const registry = window;
      if (registry.umpireTrials && registry.umpireTrials[seq]) return resolve(registry.umpireTrials[seq]);
      const script = document.createElement("script");
      script.src = `data/${seq}.js`;
      script.onload = () =>
        registry.umpireTrials && registry.umpireTrials[seq]
          ? resolve(registry.umpireTrials[seq])
          : reject(new Error(`data/${seq}.js holds no trial`));
      script.onerror = () => reject(new Error(`cannot load data/${seq}.js`));
      document.head.appendChild(script);
    });
  }

  /** @param {string} className @param {string | null} markup @param {string} empty */
  function cell(className, markup, empty) {
    const div = document.createElement("div");
    div.className = className;
    // Markup from data/<seq>.js was escaped by the generator; the page's CSP refuses scripts in it anyway.
    if (markup !== null) div.innerHTML = markup;
    else {
      div.classList.add("sbs-empty");
      div.textContent = empty;
    }
    return div;
  }

  /** @param {string} label @param {HTMLElement[]} cells */
  function row(label, cells) {
    const section = document.createElement("div");
    section.className = "sbs-row";
    const head = document.createElement("div");
    head.className = "sbs-label";
    head.textContent = label;
    section.appendChild(head);
    for (const c of cells) section.appendChild(c);
    return section;
  }

  Promise.all([load(a), load(b)])
    .then(([left, right]) => {
      const turnsOf = (/** @type {TrialFragments} */ t) => new Map(t.turns.map((turn) => [turn.idx, turn.html]));
      const leftTurns = turnsOf(left);
      const rightTurns = turnsOf(right);
      const indexes = Array.from(new Set([...leftTurns.keys(), ...rightTurns.keys()])).sort((x, y) => x - y);
      const fragment = document.createDocumentFragment();
      fragment.appendChild(
        row("trial", [cell("sbs-cell sbs-a", left.summary, ""), cell("sbs-cell sbs-b", right.summary, "")]),
      );
      for (const idx of indexes) {
        fragment.appendChild(
          row(`turn ${idx}`, [
            cell("sbs-cell sbs-a", leftTurns.get(idx) ?? null, `no turn ${idx}`),
            cell("sbs-cell sbs-b", rightTurns.get(idx) ?? null, `no turn ${idx}`),
          ]),
        );
      }
      fragment.appendChild(
        row("stop", [cell("sbs-cell sbs-a", left.stop, ""), cell("sbs-cell sbs-b", right.stop, "")]),
      );
      fragment.appendChild(
        row("checks", [cell("sbs-cell sbs-a", left.checks, ""), cell("sbs-cell sbs-b", right.checks, "")]),
      );
      out.appendChild(fragment);
      status.textContent =
        left.task === right.task
          ? `#${left.seq} and #${right.seq}: ${indexes.length} turns aligned by number`
          : `#${left.seq} and #${right.seq} are different tasks (${left.task}, ${right.task}); turns aligned by number`;
      out.dataset.ready = "true";
    })
    .catch((error) => {
      status.textContent = `The side-by-side view could not load: ${error instanceof Error ? error.message : String(error)}`;
    });
})();
