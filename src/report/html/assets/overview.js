// @ts-check
/**
 * The overview's table: filters (verdict, stop reason, task, agent config, mode, tag) hide
 * rows, a click on a column head sorts by it, and ticking two trials links them side by side.
 * Rows are rendered by the generator; this only hides and reorders them. The filters are kept
 * in the URL's fragment (index.html#verdict=failed) so a filtered view can be shared.
 */

(function () {
  const table = /** @type {HTMLTableElement | null} */ (document.getElementById("trials-table"));
  if (!table || !table.tHead) return;
  const head = table.tHead;
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const selects = /** @type {HTMLSelectElement[]} */ (Array.from(document.querySelectorAll("select[data-filter]")));
  const count = document.getElementById("shown-count");

  /** @param {HTMLTableRowElement} row @param {string} key @param {string} value */
  function matches(row, key, value) {
    if (!value) return true;
    if (key === "tags") return (row.dataset.tags || "").includes(` ${value} `);
    return row.dataset[key] === value;
  }

  function applyFilters() {
    const active = selects.filter((s) => s.value).map((s) => [s.dataset.filter || "", s.value]);
    let shown = 0;
    for (const row of rows) {
      const visible = active.every(([key, value]) => matches(row, key, value));
      row.hidden = !visible;
      if (visible) shown += 1;
    }
    if (count) count.textContent = `${shown} of ${rows.length} trials`;
    const fragment = new URLSearchParams(active).toString();
    try {
      history.replaceState(null, "", fragment ? `#${fragment}` : location.pathname + location.search);
    } catch {
      // Some browsers refuse history changes on file:// pages; the filter still applies.
    }
  }

  function readFragment() {
    const params = new URLSearchParams(location.hash.slice(1));
    for (const select of selects) {
      const wanted = params.get(select.dataset.filter || "");
      if (wanted !== null && Array.from(select.options).some((o) => o.value === wanted)) select.value = wanted;
    }
  }

  for (const select of selects) select.addEventListener("change", applyFilters);
  readFragment();
  if (location.hash) applyFilters();
  // Links such as the matrix's "+N more" set the fragment: apply it and show the table.
  window.addEventListener("hashchange", () => {
    for (const select of selects) select.value = "";
    readFragment();
    applyFilters();
    table.scrollIntoView({ block: "start" });
  });

  // Sorting: numbers by data-v (empty = unknown, always last), text by data-v or the cell text.
  let sortColumn = -1;
  let direction = 1;
  head.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("button.sort");
    const th = button && button.closest("th");
    if (!th) return;
    const column = Number(th.dataset.col);
    const numeric = th.dataset.type === "num";
    direction = column === sortColumn ? -direction : 1;
    sortColumn = column;
    /** @param {HTMLTableRowElement} row @returns {number | string | null} */
    const keyOf = (row) => {
      const cell = row.cells[column];
      const value = cell.dataset.v !== undefined ? cell.dataset.v : (cell.textContent || "").trim();
      if (!numeric) return value.toLowerCase();
      return value === "" || Number.isNaN(Number(value)) ? null : Number(value);
    };
    const keyed = Array.from(body.rows, (row, index) => ({ row, index, key: keyOf(row) }));
    keyed.sort((a, b) => {
      if (a.key === null || b.key === null) return a.key === b.key ? a.index - b.index : a.key === null ? 1 : -1;
      const order = numeric ? Number(a.key) - Number(b.key) : String(a.key).localeCompare(String(b.key));
      return order !== 0 ? order * direction : a.index - b.index;
    });
    const fragment = document.createDocumentFragment();
    for (const item of keyed) fragment.appendChild(item.row);
    body.appendChild(fragment);
    for (const other of Array.from(head.querySelectorAll("th[data-col]"))) other.setAttribute("aria-sort", "none");
    th.setAttribute("aria-sort", direction > 0 ? "ascending" : "descending");
  });

  // Side by side: the last two ticked trials.
  const link = /** @type {HTMLAnchorElement | null} */ (document.getElementById("compare-link"));
  const hint = document.getElementById("compare-hint");
  /** @type {string[]} */
  const picked = [];
  body.addEventListener("change", (event) => {
    const box = /** @type {HTMLInputElement} */ (event.target);
    if (!box.matches("input.pick")) return;
    const at = picked.indexOf(box.value);
    if (at >= 0) picked.splice(at, 1);
    if (box.checked) picked.push(box.value);
    while (picked.length > 2) {
      const dropped = picked.shift();
      const other = /** @type {HTMLInputElement | null} */ (body.querySelector(`input.pick[value="${dropped}"]`));
      if (other) other.checked = false;
    }
    if (!link || !hint) return;
    if (picked.length === 2) {
      link.href = `compare.html?a=${encodeURIComponent(picked[0])}&b=${encodeURIComponent(picked[1])}`;
      hint.textContent = `#${picked[0]} and #${picked[1]}`;
    } else {
      link.href = "compare.html";
      hint.textContent = "tick two trials to compare them";
    }
  });
})();
