// The fixture site's one page script (same origin, no dependencies). It reports the page's
// layout to the server, runs the live clock and the drawn text caret, paints the canvas
// scorecard, loads the lazy scorecard, and drives the in-page dialogs and the note form.
// Plain ES2020 for Chromium; the server serves it after the in-page geometry script.
(function () {
  var pageMeta = document.querySelector('meta[name="umpire-page"]');
  var pageNumber = pageMeta ? Number(pageMeta.content) || 0 : 0;
  // Reports of one page count up from pageNumber * 100000, so a later page always wins.
  var localSeq = 0;
  var postChain = Promise.resolve();
  var debounceTimer = null;
  var pending = new Set();

  /** Registers work that must finish before a flush reports (dialog requests, reappearing). */
  function track(promise) {
    pending.add(promise);
    var done = function () {
      pending.delete(promise);
    };
    promise.then(done, done);
    return promise;
  }

  function delay(ms) {
    return new Promise(function (resolve) {
      setTimeout(resolve, ms);
    });
  }

  function round(n) {
    return Math.round(n * 100) / 100;
  }

  // Where a mark is, whether it is visible and whether something covers it: umpire's one in-page
  // geometry (src/browser/page-geometry.ts), which the server sends in front of this script.
  var geometry = window.__umpireGeometry;

  function describeMark(el) {
    var g = geometry.describe(el);
    return {
      name: el.getAttribute("data-mark"),
      x: g.x,
      y: g.y,
      width: g.width,
      height: g.height,
      visible: g.visible,
      covered: g.covered,
    };
  }

  function collect() {
    var marks = Array.prototype.map.call(document.querySelectorAll("[data-mark]"), describeMark);
    var volatile = [];
    document.querySelectorAll("[data-volatile]").forEach(function (el) {
      if (getComputedStyle(el).display === "none") return;
      var r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) return;
      volatile.push({ x: round(r.left), y: round(r.top), width: round(r.width), height: round(r.height) });
    });
    var report = geometry.view();
    report.marks = marks;
    report.volatile = volatile;
    return report;
  }

  /** Collects and posts a report now; resolves once the server has stored it. */
  function reportNow() {
    if (debounceTimer !== null) {
      clearTimeout(debounceTimer);
      debounceTimer = null;
    }
    var report = collect();
    localSeq += 1;
    report.seq = pageNumber * 100000 + localSeq;
    // Posts go one after another so the server sees them in order.
    postChain = postChain.then(function () {
      return fetch("/__layout", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(report),
      }).then(
        function (res) {
          return res.ok;
        },
        function () {
          return false;
        },
      );
    });
    return postChain.then(function (stored) {
      return { seq: report.seq, stored: stored };
    });
  }

  function scheduleReport() {
    if (debounceTimer !== null) return;
    debounceTimer = setTimeout(function () {
      debounceTimer = null;
      reportNow();
    }, 50);
  }

  /**
   * The runner awaits this before each screenshot: it lets in-flight dialog work settle (at most
   * 3 s), then stores a fresh report of the current state.
   */
  window.__umpireLayoutFlush = function () {
    var settled = Promise.all(Array.from(pending)).catch(function () {});
    return Promise.race([settled, delay(3000)]).then(reportNow);
  };

  function insideVolatile(node) {
    var el = node && (node.nodeType === 1 ? node : node.parentElement);
    return !!(el && el.closest && el.closest("[data-volatile]"));
  }

  // Moving regions (clock, caret, spinner) change all the time; they do not trigger reports.
  var observer = new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var rec = records[i];
      if (insideVolatile(rec.target)) continue;
      if (rec.type === "childList") {
        var nodes = Array.prototype.slice.call(rec.addedNodes).concat(Array.prototype.slice.call(rec.removedNodes));
        if (
          nodes.length > 0 &&
          nodes.every(function (n) {
            return n.nodeType === 1 && n.hasAttribute("data-volatile");
          })
        )
          continue;
      }
      scheduleReport();
      return;
    }
  });

  // ---- live clock -------------------------------------------------------------------------
  function startClock() {
    var clock = document.querySelector("[data-mark=clock]");
    if (!clock) return;
    var tick = function () {
      clock.textContent = `${new Date().toISOString().slice(11, 19)} UTC`;
      setTimeout(tick, 1000 - (Date.now() % 1000) + 5);
    };
    tick();
  }

  // ---- drawn text caret (the native one is transparent) -----------------------------------
  var caret = null;
  var caretVisible = true;

  function caretTarget() {
    var el = document.activeElement;
    if (!el) return null;
    if (el.tagName === "TEXTAREA") return el;
    if (el.tagName === "INPUT" && (el.type === "text" || el.type === "search")) return el;
    return null;
  }

  /** Where the insertion point is, in viewport pixels, measured with an off-screen mirror. */
  function caretPosition(el) {
    var cs = getComputedStyle(el);
    var mirror = document.createElement("div");
    mirror.setAttribute("data-volatile", "");
    var copy = [
      "boxSizing",
      "width",
      "paddingTop",
      "paddingRight",
      "paddingBottom",
      "paddingLeft",
      "borderTopWidth",
      "borderRightWidth",
      "borderBottomWidth",
      "borderLeftWidth",
      "borderStyle",
      "fontFamily",
      "fontSize",
      "fontWeight",
      "fontStyle",
      "letterSpacing",
      "lineHeight",
      "textTransform",
      "wordSpacing",
      "textIndent",
      "tabSize",
    ];
    copy.forEach(function (p) {
      mirror.style[p] = cs[p];
    });
    var single = el.tagName === "INPUT";
    mirror.style.position = "absolute";
    mirror.style.visibility = "hidden";
    mirror.style.left = "-10000px";
    mirror.style.top = "0";
    mirror.style.whiteSpace = single ? "pre" : "pre-wrap";
    mirror.style.overflowWrap = single ? "normal" : "break-word";
    var end = el.selectionEnd == null ? el.value.length : el.selectionEnd;
    mirror.textContent = el.value.substring(0, end);
    var marker = document.createElement("span");
    marker.textContent = el.value.substring(end) || ".";
    mirror.appendChild(marker);
    document.body.appendChild(mirror);
    var left = marker.offsetLeft;
    var top = marker.offsetTop;
    document.body.removeChild(mirror);
    var r = el.getBoundingClientRect();
    var lineHeight = parseFloat(cs.lineHeight) || 20;
    var x = r.left + left - el.scrollLeft;
    var y = single ? r.top + (r.height - lineHeight) / 2 : r.top + top - el.scrollTop;
    var inside = x >= r.left && x <= r.right - 1 && y >= r.top && y + lineHeight <= r.bottom + 1;
    return inside ? { x: x, y: y, height: lineHeight } : null;
  }

  function updateCaret() {
    if (!caret) return;
    var el = caretTarget();
    var pos = el ? caretPosition(el) : null;
    if (!pos) {
      if (caret.style.display !== "none") {
        caret.style.display = "none";
        scheduleReport();
      }
      return;
    }
    caret.style.display = "block";
    caret.style.left = `${Math.round(pos.x)}px`;
    caret.style.top = `${Math.round(pos.y)}px`;
    caret.style.height = `${Math.round(pos.height)}px`;
    caretVisible = true;
    caret.style.visibility = "visible";
    scheduleReport();
  }

  function startCaret() {
    caret = document.createElement("div");
    caret.className = "umpire-caret";
    caret.setAttribute("data-volatile", "");
    document.body.appendChild(caret);
    setInterval(function () {
      if (caret.style.display === "none") return;
      caretVisible = !caretVisible;
      caret.style.visibility = caretVisible ? "visible" : "hidden";
    }, 530);
    ["focusin", "focusout", "input", "keyup", "mouseup", "select"].forEach(function (type) {
      document.addEventListener(
        type,
        function () {
          setTimeout(updateCaret, 0);
        },
        true,
      );
    });
    document.addEventListener("selectionchange", updateCaret);
    window.addEventListener("scroll", updateCaret, true);
  }

  // ---- canvas scorecard -------------------------------------------------------------------
  function paintCanvas(canvas) {
    var binary = atob(canvas.getAttribute("data-draw") || "");
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var ops = JSON.parse(new TextDecoder().decode(bytes));
    var width = Number(canvas.getAttribute("width"));
    var height = Number(canvas.getAttribute("height"));
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    var ctx = canvas.getContext("2d");
    ctx.scale(dpr, dpr);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, width, height);
    ctx.textBaseline = "alphabetic";
    ops.forEach(function (op) {
      if (op[0] === "text") {
        ctx.font = op[4];
        ctx.fillStyle = op[5];
        ctx.textAlign = op[6];
        ctx.fillText(op[3], op[1], op[2]);
      } else if (op[0] === "rect") {
        ctx.fillStyle = op[5];
        ctx.fillRect(op[1], op[2], op[3], op[4]);
      } else if (op[0] === "line") {
        ctx.strokeStyle = op[5];
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.moveTo(op[1], op[2] + 0.5);
        ctx.lineTo(op[3], op[4] + 0.5);
        ctx.stroke();
      }
    });
  }

  // ---- lazy scorecard ---------------------------------------------------------------------
  function startLazy(holder) {
    var src = holder.getAttribute("data-lazy-scorecard");
    var wait = Number(holder.getAttribute("data-lazy-delay")) || 0;
    delay(wait)
      .then(function () {
        return fetch(src, { credentials: "same-origin" });
      })
      .then(function (res) {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.text();
      })
      .then(function (html) {
        holder.outerHTML = html;
      })
      .catch(function (err) {
        holder.innerHTML = `<p class="empty" data-mark="load-error">Could not load the scorecard (${String(err.message)}).</p>`;
      });
  }

  // ---- dialogs and actions ----------------------------------------------------------------
  function postJson(path, body) {
    return fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.json().then(function (data) {
        if (!res.ok) throw new Error(data && data.error ? data.error : `HTTP ${res.status}`);
        return data;
      });
    });
  }

  function dialog(kind) {
    return document.querySelector(`[data-dialog="${kind}"]`);
  }

  function openDialog() {
    return document.querySelector("[data-dialog]:not([hidden])");
  }

  function cookieBackdrop() {
    return document.querySelector("[data-cookie-dialog]");
  }

  function cookieOpen() {
    var c = cookieBackdrop();
    return !!(c && !c.hidden);
  }

  function setCookieOpen(open) {
    var c = cookieBackdrop();
    if (!c) return;
    c.hidden = !open;
    var main = document.querySelector("main");
    if (main) main.inert = open;
  }

  var reappearMs = 400;

  /** Sends a cookie choice; the server decides (per scenario) whether it closes the dialog. */
  function chooseCookies(choice) {
    return track(
      postJson("/__cookie", { choice: choice })
        .then(function (outcome) {
          if (outcome.reappear) {
            setCookieOpen(false);
            return delay(outcome.reappearMs || reappearMs).then(function () {
              setCookieOpen(true);
            });
          }
          setCookieOpen(outcome.open);
        })
        .catch(function () {}),
    );
  }

  var noteForm = document.querySelector("[data-note-form]");
  var status = document.querySelector("[data-mark=save-status]");
  var saveCounter = 0;

  function noteName() {
    return noteForm.querySelector("[data-mark=note-name]").value;
  }

  function openSaveConfirm() {
    var d = dialog("save");
    d.querySelector("[data-confirm-name]").textContent = `notes/${noteName()}`;
    d.hidden = false;
  }

  function saveNote() {
    var d = dialog("save");
    d.hidden = true;
    var ticket = ++saveCounter;
    status.textContent = "Saving…";
    var body = { name: noteName(), body: noteForm.querySelector("[data-mark=note-body]").value };
    var match = noteForm.getAttribute("data-match");
    if (match) body.match = match;
    var show = function (text) {
      if (ticket === saveCounter) status.textContent = text;
    };
    // The flush waits for the request (the note is on disk when it returns), but not for a slow
    // save's late acknowledgement: the agent is meant to see "Saving…" meanwhile.
    track(
      postJson("/__notes", body).then(
        function (saved) {
          if (saved.ackDelayMs > 0)
            delay(saved.ackDelayMs).then(function () {
              show(`Saved ${saved.path}`);
            });
          else show(`Saved ${saved.path}`);
        },
        function (err) {
          show(`Could not save: ${err.message}`);
        },
      ),
    );
  }

  function deleteMatch(button) {
    dialog("delete").hidden = true;
    var id = button.getAttribute("data-match");
    track(
      postJson("/__delete", { id: id })
        .then(function (result) {
          var main = document.querySelector("main");
          if (main && result.mainHtml) main.innerHTML = result.mainHtml;
        })
        .catch(function () {}),
    );
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target.closest("[data-mark]") : null;
    if (!target) return;
    switch (target.getAttribute("data-mark")) {
      case "delete-match":
        dialog("delete").hidden = false;
        break;
      case "confirm-delete":
        deleteMatch(document.querySelector("[data-mark=delete-match]"));
        break;
      case "confirm-save":
        saveNote();
        break;
      case "confirm-cancel":
        target.closest("[data-dialog]").hidden = true;
        break;
      case "cookie-reject":
        chooseCookies("reject");
        break;
      case "cookie-accept":
        chooseCookies("accept");
        break;
      default:
        return;
    }
  });

  if (noteForm) {
    noteForm.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!cookieOpen()) openSaveConfirm();
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var open = openDialog();
    if (open) {
      open.hidden = true;
      return;
    }
    if (cookieOpen()) chooseCookies("escape");
  });

  // ---- start ------------------------------------------------------------------------------
  startClock();
  startCaret();
  document.querySelectorAll("canvas[data-draw]").forEach(paintCanvas);
  document.querySelectorAll("[data-lazy-scorecard]").forEach(startLazy);
  observer.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  window.addEventListener("scroll", scheduleReport, { passive: true });
  window.addEventListener("resize", scheduleReport);
  window.addEventListener("load", scheduleReport);
  reportNow();
})();
