// pytest-ocr HTML report: draws the case list and a case's details from the embedded
// JSON. Every value in that JSON is untrusted (OCR output, file names, messages):
// it reaches the page only as textContent, attribute values set by name, or numbers.
(function () {
  "use strict";

  window.addEventListener("error", function (event) {
    document.body.setAttribute("data-ocr-error", String(event.message));
  });

  const DATA = JSON.parse(document.getElementById("ocr-data").textContent);
  const CASES = DATA.cases;
  const PAGE_SIZE = 50;
  const LIST_METRICS = ["cer", "wer", "field_f1"].filter((m) => DATA.metrics.includes(m));
  if (!LIST_METRICS.length && DATA.metrics.length) LIST_METRICS.push(DATA.metrics[0]);
  const SORT_METRIC = LIST_METRICS[0];
  const GAP = "\u00b7"; // a character the other side does not have
  const VISIBLE = { "\n": "\u23ce", "\t": "\u21e5", "\r": "\u240d" };
  // Bidirectional overrides and control characters would make text read differently
  // from what it holds: they are shown as U+FFFD.
  const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  const HIDDEN_ALL = new RegExp(HIDDEN.source, "g");

  function shown(text) {
    return String(text).replace(HIDDEN_ALL, "\ufffd");
  }

  // el("td", {class: "num", title: t}, child, ...): children are nodes or text.
  function el(tag, attrs) {
    const node = document.createElement(tag);
    for (const name in attrs || {}) {
      if (attrs[name] !== null && attrs[name] !== undefined) node.setAttribute(name, attrs[name]);
    }
    for (let i = 2; i < arguments.length; i++) {
      const child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(shown(child)));
    }
    return node;
  }

  // Numbers as people read them: the rule of pytest_ocr/report/numbers.py, mirrored
  // because the page draws the cases itself. Four decimals, rounded half to even as
  // Python rounds; three significant digits below 0.001, in Python's "g" form.
  const TINY = 0.001;

  function fixed4(x) {
    // toFixed rounds a tie away from zero. A tie at the fifth decimal is k + 0.5
    // ten-thousandths exactly, which a double holds only when 32x is an odd integer.
    const t = x * 32;
    if (Number.isInteger(t) && t % 2 === 1 && x < 1e11) {
      const k = x * 10000 - 0.5; // exact: an integer
      return ((k % 2 === 0 ? k : k + 1) / 10000).toFixed(4);
    }
    return x.toFixed(4);
  }

  function general3(x) {
    // No tie here: halfway between two three-digit values below 0.001 is never a double.
    const parts = x.toExponential(2).split("e");
    const exponent = Number(parts[1]);
    if (exponent < -4) {
      const digits = parts[0].replace(/\.?0+$/, "");
      return digits + "e-" + String(-exponent).padStart(2, "0");
    }
    return x.toFixed(2 - exponent).replace(/\.?0+$/, "");
  }

  function number(value) {
    if (value === null || value === undefined) return "-";
    if (typeof value !== "number") return String(value);
    if (Number.isNaN(value)) return "nan";
    if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
    const sign = value < 0 || Object.is(value, -0) ? "-" : "";
    const x = Math.abs(value);
    return sign + (x !== 0 && x < TINY ? general3(x) : fixed4(x));
  }

  function signed(value) {
    const shown = number(value);
    return shown.startsWith("-") || !value ? shown : "+" + shown;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  // -- state, kept in the address's fragment so a view can be linked -----------------

  // shownOpen: the linked case's page was found once (later paging is the reader's).
  // text: the diff shows the texts as scored (after normalisation) or as given (raw).
  const state = {
    view: "overview", engine: "", outcome: "", q: "", sort: "id", page: 0, open: null, shownOpen: false,
    text: "scored",
  };
  // Outcomes a case has of itself, and how it moved against the baseline (its "change").
  const CHANGES = ["regressed", "improved", "new"];

  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    state.engine = params.get("engine") || "";
    state.outcome = params.get("outcome") || "";
    state.q = params.get("q") || "";
    state.sort = params.get("sort") === "worst" ? "worst" : "id";
    state.page = Math.max(0, parseInt(params.get("page") || "0", 10) || 0);
    state.open = params.get("case");
    state.text = params.get("text") === "raw" ? "raw" : "scored";
    const asked = params.get("view");
    const listing = state.open || params.has("engine") || params.has("outcome") || params.has("q");
    state.view = asked === "cases" || asked === "overview" ? asked : listing ? "cases" : "overview";
  }

  function writeHash() {
    const params = new URLSearchParams();
    params.set("view", state.view);
    if (state.view === "cases") {
      for (const key of ["engine", "outcome", "q"]) if (state[key]) params.set(key, state[key]);
      if (state.sort !== "id") params.set("sort", state.sort);
      if (state.page) params.set("page", String(state.page));
      if (state.open) params.set("case", state.open);
      if (state.text === "raw") params.set("text", "raw");
    }
    history.replaceState(null, "", "#" + params.toString());
  }

  function showView() {
    document.body.classList.add("js");
    for (const view of ["overview", "cases"]) {
      document.getElementById(view).hidden = state.view !== view;
      document.getElementById("tab-" + view).classList.toggle("active", state.view === view);
    }
  }

  // -- the case list -----------------------------------------------------------------

  function matches(c) {
    if (state.engine && c.engine !== state.engine) return false;
    if (state.outcome && (CHANGES.includes(state.outcome) ? c.change : c.outcome) !== state.outcome) return false;
    if (state.q) {
      const q = state.q.toLowerCase();
      const hay = [c.id, c.file, c.source_file, c.image, c.reference, c.prediction, c.error]
        .concat(c.tags || [], c.warnings || []);
      if (!hay.some((text) => text && String(text).toLowerCase().includes(q))) return false;
    }
    return true;
  }

  function selected() {
    const list = CASES.filter(matches);
    if (state.sort === "worst" && SORT_METRIC) {
      const sign = DATA.better[SORT_METRIC] === "higher" ? 1 : -1;
      const key = (c) => (c.metrics && c.metrics[SORT_METRIC] !== null && c.metrics[SORT_METRIC] !== undefined
        ? sign * c.metrics[SORT_METRIC] : Infinity);
      list.sort((a, b) => key(a) - key(b) || (a.id < b.id ? -1 : 1));
    }
    return list;
  }

  function option(value, label, current) {
    const node = el("option", { value: value }, label);
    if (value === current) node.selected = true;
    return node;
  }

  function drawControls() {
    const box = clear(document.getElementById("case-controls"));
    const engine = el("select", { id: "filter-engine", "aria-label": "engine" }, option("", "all engines", state.engine));
    for (const name of DATA.engines) engine.appendChild(option(name, name, state.engine));
    const outcome = el("select", { id: "filter-outcome", "aria-label": "outcome" },
      option("", "all outcomes", state.outcome), option("passed", "passed", state.outcome),
      option("failed", "failed", state.outcome), option("error", "errors", state.outcome),
      option("filtered", "filtered", state.outcome));
    if (DATA.baseline) {
      for (const change of CHANGES) outcome.appendChild(option(change, change + " (vs baseline)", state.outcome));
    }
    const sort = el("select", { id: "sort", "aria-label": "order" }, option("id", "by id", state.sort));
    if (SORT_METRIC) sort.appendChild(option("worst", "worst " + SORT_METRIC + " first", state.sort));
    const search = el("input", { id: "filter-q", type: "search", placeholder: "search ids, texts, errors",
      "aria-label": "search" });
    search.value = state.q;
    engine.addEventListener("change", () => update({ engine: engine.value }));
    outcome.addEventListener("change", () => update({ outcome: outcome.value }));
    sort.addEventListener("change", () => update({ sort: sort.value }));
    let timer = null;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => update({ q: search.value }), 150);
    });
    box.append(engine, outcome, sort, search);
  }

  function update(changes) {
    Object.assign(state, { page: 0 }, changes);
    writeHash();
    drawList();
  }

  function pager(total) {
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    const first = state.page * PAGE_SIZE;
    const prev = el("button", { type: "button", class: "prev" }, "\u2190 previous");
    const next = el("button", { type: "button", class: "next" }, "next \u2192");
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
    prev.addEventListener("click", () => { state.page -= 1; writeHash(); drawList(); });
    next.addEventListener("click", () => { state.page += 1; writeHash(); drawList(); });
    const text = total ? `${first + 1}\u2013${Math.min(total, first + PAGE_SIZE)} of ${total}` : "no case matches";
    return el("div", { class: "pager" }, prev, el("span", { class: "range" }, text), next);
  }

  function drawList() {
    const list = selected();
    if (state.open && !state.shownOpen) {
      // A linked case: go to its page once.
      const at = list.findIndex((c) => c.id === state.open);
      if (at >= 0) state.page = Math.floor(at / PAGE_SIZE);
      state.shownOpen = true;
    }
    const pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    const box = clear(document.getElementById("case-list"));
    const head = el("tr", null, el("th", null, "outcome"), el("th", null, "item"), el("th", null, "engine"));
    for (const m of LIST_METRICS) head.appendChild(el("th", { class: "num" }, m));
    head.appendChild(el("th", null, "notes"));
    const body = el("tbody");
    for (const c of list.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE)) {
      const row = el("tr", { class: "case-row " + c.outcome, "data-id": c.id, tabindex: "0" },
        el("td", null, el("span", { class: "outcome " + c.outcome }, c.outcome)),
        el("td", { class: "text" }, c.id), el("td", { class: "text" }, c.engine));
      for (const m of LIST_METRICS) row.appendChild(el("td", { class: "num" }, number(c.metrics && c.metrics[m])));
      const notes = [];
      if (c.warnings && c.warnings.length) notes.push(c.warnings.length + " warning" + (c.warnings.length > 1 ? "s" : ""));
      if (c.cached) notes.push("cached");
      if (c.change) notes.push(c.change);
      row.appendChild(el("td", { class: "notes" }, notes.join(", ")));
      body.appendChild(row);
      const toggle = () => {
        state.open = state.open === c.id ? null : c.id;
        writeHash();
        drawList();
      };
      row.addEventListener("click", toggle);
      row.addEventListener("keydown", (event) => { if (event.key === "Enter") toggle(); });
      if (state.open === c.id) {
        row.classList.add("open");
        body.appendChild(el("tr", { class: "detail-row" },
          el("td", { colspan: String(LIST_METRICS.length + 4) }, caseDetail(c))));
      }
    }
    box.append(pager(list.length),
      el("table", { class: "cases" }, el("thead", null, head), body), pager(list.length));
  }

  // -- a case's details ---------------------------------------------------------------

  function thumbnail(c) {
    const block = c.thumb === null ? null : document.getElementById("ocr-thumb-" + c.thumb);
    const url = block ? block.textContent : "";
    if (url.startsWith("data:image/")) {
      return el("img", { class: "thumb", src: url, alt: "image of " + c.image });
    }
    return el("div", { class: "thumb placeholder" }, "image unavailable", el("br"),
      el("small", null, c.thumb_error || "no thumbnail"));
  }

  function codePoint(ch) {
    return "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
  }

  // Adds text to a row of spans, merging runs of one class; hidden characters get a
  // span of their own that names them.
  function put(row, cls, text, changed) {
    for (const ch of text) {
      let shownCh = ch;
      let kind = cls;
      let title = null;
      if (HIDDEN.test(ch)) {
        shownCh = "\ufffd";
        kind = cls + " ctl";
        title = codePoint(ch);
      } else if (changed && VISIBLE[ch]) {
        shownCh = VISIBLE[ch];
      }
      const last = row[row.length - 1];
      if (!title && last && last.kind === kind && !last.title) last.text += shownCh;
      else row.push({ kind: kind, text: shownCh, title: title });
    }
  }

  // Rows of (reference spans, recognized spans), the same number of characters on both
  // sides (gaps filled), broken after each reference line, and at a space both sides
  // share once a row is WRAP wide: a scored text whose line breaks were collapsed is one
  // line, and both sides must wrap at the same place to stay aligned.
  const WRAP = 60;

  function diffRows(reference, prediction, ops) {
    const ref = Array.from(reference);
    const hyp = Array.from(prediction);
    const rows = [];
    let cur = { ref: [], hyp: [], width: 0 };
    let i = 0;
    let j = 0;
    for (let k = 0; k < ops.length; k += 3) {
      const kind = ops[k];
      const a = ops[k + 1];
      const b = ops[k + 2];
      if (kind === 0) {
        for (let n = 0; n < a; n++) {
          if (ref[i + n] === "\n") {
            rows.push(cur);
            cur = { ref: [], hyp: [], width: 0 };
          } else {
            put(cur.ref, "eq", ref[i + n], false);
            put(cur.hyp, "eq", hyp[j + n], false);
            cur.width += 1;
            if (ref[i + n] === " " && cur.width >= WRAP) {
              rows.push(cur);
              cur = { ref: [], hyp: [], width: 0 };
            }
          }
        }
      } else {
        const cls = kind === 1 ? "sub" : kind === 2 ? "del" : "ins";
        const width = Math.max(a, b);
        put(cur.ref, cls, ref.slice(i, i + a).join(""), true);
        put(cur.hyp, cls, hyp.slice(j, j + b).join(""), true);
        if (width > a) put(cur.ref, "gap", GAP.repeat(width - a), false);
        if (width > b) put(cur.hyp, "gap", GAP.repeat(width - b), false);
        cur.width += width;
      }
      i += a;
      j += b;
    }
    rows.push(cur);
    return rows;
  }

  function spans(parts) {
    const cell = el("td", { class: "diff-text" });
    for (const p of parts) {
      cell.appendChild(el("span", { class: "d-" + p.kind.replace(" ", " d-"), title: p.title }, p.text));
    }
    return cell;
  }

  // The texts the diff shows: as scored (what the metrics compared, after the case's
  // normalisation) unless the reader switched to the texts as given, or the scored ones
  // could not be rebuilt (c.scored null).
  function diffTexts(c) {
    const s = c.scored;
    if (state.text === "raw" || !s || s.same) {
      return { reference: c.reference, prediction: c.prediction, ops: c.diff };
    }
    return {
      reference: s.reference === null ? c.reference : s.reference,
      prediction: s.prediction === null ? c.prediction : s.prediction,
      ops: s.diff,
    };
  }

  // -- an output without a reference text (a page checked by facts) ----------------------

  // The output rendered as Markdown: c.output holds inert nodes [tag, attributes, ...children] made by
  // pytest_ocr/report/markdown_view.py; only these tags are made, and only these attributes set.
  const OUTPUT_TAGS = new Set(["div", "p", "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tfoot",
    "tr", "th", "td", "caption", "em", "strong", "del", "b", "i", "u", "s", "sup", "sub", "code", "pre", "span",
    "mark", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6"]);
  const OUTPUT_CLASSES = ["math", "image", "link"];

  // Marks an element as where the checks c.facts[i] (i in indices) looked, naming each with its reason.
  function markFacts(node, c, indices) {
    const facts = indices.map((i) => c.facts[i]).filter((f) => f);
    node.classList.add("fact-mark");
    node.setAttribute("data-facts", indices.join(" "));
    node.title = shown(facts.map((f) => "check " + f.id + " (" + f.type + ") does not hold: " + f.reason).join("\n"));
    return node;
  }

  function outputNode(c, node) {
    if (typeof node === "string") return document.createTextNode(shown(node));
    if (!Array.isArray(node)) return document.createTextNode("");
    const attrs = node[1] || {};
    const element = document.createElement(OUTPUT_TAGS.has(node[0]) ? node[0] : "span");
    for (const name of ["rowspan", "colspan", "start"]) {
      if (Number.isInteger(attrs[name])) element.setAttribute(name, String(attrs[name]));
    }
    if (OUTPUT_CLASSES.includes(attrs.class)) element.classList.add("md-" + attrs.class);
    if (typeof attrs.title === "string") element.title = shown(attrs.title);
    if (Array.isArray(attrs.facts)) markFacts(element, c, attrs.facts.filter(Number.isInteger));
    for (const child of node.slice(2)) element.appendChild(outputNode(c, child));
    return element;
  }

  // The output as written, each span a failed check looked at marked (spans in code points).
  function rawOutput(c) {
    const chars = Array.from(c.prediction);
    const marks = [];
    const cuts = new Set([0, chars.length]);
    (c.facts || []).forEach((f, i) => {
      for (const span of f.passed ? [] : f.spans || []) {
        if (span[0] >= 0 && span[0] < span[1] && span[1] <= chars.length) {
          marks.push({ start: span[0], end: span[1], fact: i });
          cuts.add(span[0]);
          cuts.add(span[1]);
        }
      }
    });
    const points = Array.from(cuts).sort((a, b) => a - b);
    const pre = el("pre", { class: "output raw" });
    for (let k = 0; k + 1 < points.length; k++) {
      const text = chars.slice(points[k], points[k + 1]).join("");
      const facts = marks.filter((m) => m.start <= points[k] && points[k + 1] <= m.end).map((m) => m.fact);
      pre.appendChild(facts.length ? markFacts(el("mark", null, text), c, Array.from(new Set(facts))) : el("span", null, text));
    }
    return pre;
  }

  function outputView(c) {
    const raw = state.text === "raw" || !c.output;
    const failed = (c.facts || []).filter((f) => !f.passed);
    const located = failed.filter((f) => f.spans && f.spans.length).length;
    const toggle = el("input", { type: "checkbox", class: "raw-switch" });
    toggle.checked = raw;
    toggle.disabled = !c.output;
    let about = "No reference text to compare with: the engine's output, " + (raw
      ? "as written" + (c.output ? "." : " (too long to render).")
      : "rendered as Markdown (links, images and HTML are shown, never loaded or run).");
    if (failed.length) {
      about += " Marked: where " + (located === failed.length ? "each check that does not hold"
        : located + " of the " + failed.length + " checks that do not hold") + " looked (hover for its reason).";
    }
    const box = el("div", { class: "output-box", "data-text": raw ? "raw" : "rendered" },
      el("label", { class: "text-switch" }, toggle, " show the output as written (Markdown source)"),
      raw ? rawOutput(c) : el("div", { class: "output rendered" }, outputNode(c, c.output)),
      el("p", { class: "legend" }, about));
    toggle.addEventListener("change", () => {
      state.text = toggle.checked ? "raw" : "scored";
      writeHash();
      box.replaceWith(outputView(c));
    });
    return box;
  }

  function diffView(c) {
    if (c.reference === null && c.prediction !== null) return outputView(c);
    if (c.reference === null || c.prediction === null || !c.diff) {
      return el("p", { class: "note" }, c.prediction === null
        ? "No recognized text: the item did not get that far." : "No reference text to compare with.");
    }
    const texts = diffTexts(c);
    const table = el("table", { class: "diff" }, el("thead", null, el("tr", null,
      el("th", null, "reference"), el("th", null, "recognized"))));
    const body = el("tbody");
    for (const row of diffRows(texts.reference, texts.prediction, texts.ops)) {
      body.appendChild(el("tr", null, spans(row.ref), spans(row.hyp)));
    }
    table.appendChild(body);
    const steps = c.normalization && c.normalization.length ? c.normalization.join(", ") : "none";
    const raw = state.text === "raw" || !c.scored;
    let about;
    if (!c.normalization) {
      about = "Texts as given: the item was not scored.";
    } else if (!c.scored) {
      about = "Texts as given: the normalisation the metrics applied (" + steps + ") could not be rebuilt, " +
        "so differences it ignores are marked too.";
    } else if (raw) {
      about = "Texts as given, before normalisation; the metrics compared them after: " + steps + ".";
    } else if (c.scored.same) {
      about = "Texts as scored: the normalisation (" + steps + ") changed neither text.";
    } else {
      about = "Texts as scored: after the normalisation the metrics applied (" + steps + "), so differences " +
        "it removes are not marked.";
    }
    const toggle = el("input", { type: "checkbox", class: "raw-switch" });
    toggle.checked = raw;
    toggle.disabled = !c.scored;
    const box = el("div", { class: "diff-box", "data-text": raw ? "raw" : "scored" },
      el("label", { class: "text-switch" }, toggle, " show the texts as given (before normalisation)"),
      table, el("p", { class: "legend" },
        el("span", { class: "d-sub" }, "substituted"), " ", el("span", { class: "d-del" }, "missing"), " ",
        el("span", { class: "d-ins" }, "extra"), " ", el("span", { class: "d-gap" }, GAP), " gap. ", about));
    toggle.addEventListener("change", () => {
      state.text = toggle.checked ? "raw" : "scored";
      writeHash();
      box.replaceWith(diffView(c));
    });
    return box;
  }

  function metricsView(c) {
    const checks = {};
    for (const check of c.checks || []) (checks[check.metric] = checks[check.metric] || []).push(check);
    const body = el("tbody");
    const names = Object.keys(c.metrics || {});
    for (const name of Object.keys(c.thresholds || {})) if (!names.includes(name)) names.push(name);
    for (const name of names) {
      const own = checks[name] || [];
      const verdict = own.length ? (own.every((k) => k.passed) ? "passed" : "failed") : "";
      body.appendChild(el("tr", { class: verdict },
        el("td", null, name), el("td", { class: "num" }, number(c.metrics ? c.metrics[name] : null)),
        el("td", null, own.map((k) => k.expression).join("; ") || (c.thresholds || {})[name] || ""),
        el("td", null, verdict ? el("span", { class: "outcome " + verdict }, verdict) : "")));
    }
    return el("table", { class: "metrics" }, el("thead", null, el("tr", null, el("th", null, "metric"),
      el("th", { class: "num" }, "value"), el("th", null, "threshold"), el("th", null, "verdict"))), body);
  }

  function fieldsView(c) {
    const f = c.fields_check;
    if (!f) return null;
    const body = el("tbody");
    for (const key of f.missing || []) body.appendChild(el("tr", { class: "missing" }, el("td", null, key),
      el("td", null, "missing"), el("td"), el("td"), el("td")));
    for (const key in f.incorrect || {}) {
      const m = f.incorrect[key];
      body.appendChild(el("tr", { class: "incorrect" }, el("td", null, key), el("td", null, "incorrect"),
        el("td", { class: "text" }, String(m.expected)), el("td", { class: "text" }, String(m.extracted)),
        el("td", null, typeof m.match === "string" ? m.match : JSON.stringify(m.match))));
    }
    for (const key of f.extra || []) body.appendChild(el("tr", { class: "extra" }, el("td", null, key),
      el("td", null, "extra"), el("td"), el("td"), el("td")));
    for (const key of f.absent || []) body.appendChild(el("tr", { class: "missing" }, el("td", null, key),
      el("td", null, "required, absent"), el("td"), el("td"), el("td")));
    const box = el("div", { class: "fields" }, el("h4", null, "Key fields (from " + (c.fields_source || "none") + ")"));
    if (body.childNodes.length) {
      box.appendChild(el("table", { class: "field-mismatches" }, el("thead", null, el("tr", null,
        el("th", null, "field"), el("th", null, "problem"), el("th", null, "expected"), el("th", null, "extracted"),
        el("th", null, "match"))), body));
    } else {
      box.appendChild(el("p", { class: "note" }, "Every expected field matched."));
    }
    if (c.fields) {
      box.appendChild(el("details", null, el("summary", null, "extracted fields"),
        el("pre", { class: "text" }, JSON.stringify(c.fields, null, 2))));
    }
    return box;
  }

  function charLabel(ch) {
    if (ch === "<INSERT>") return "\u2205 extra";
    if (ch === "<DELETE>") return "\u2205 missing";
    if (ch === " ") return "\u2423";
    if (VISIBLE[ch]) return VISIBLE[ch];
    if (HIDDEN.test(ch)) return codePoint(ch);
    return ch;
  }

  // Rows: reference characters; columns: what was recognized; colour: how often.
  function heatmap(confusions, caption) {
    if (!confusions || !confusions.length) return el("p", { class: "note" }, caption + ": no confusions.");
    const refs = [];
    const hyps = [];
    const count = {};
    let max = 0;
    for (const [ref, hyp, n] of confusions) {
      if (!refs.includes(ref)) refs.push(ref);
      if (!hyps.includes(hyp)) hyps.push(hyp);
      count[JSON.stringify([ref, hyp])] = n;
      max = Math.max(max, n);
    }
    const head = el("tr", null, el("th", { class: "corner" }, "reference \u2193 recognized \u2192"));
    for (const hyp of hyps) head.appendChild(el("th", { class: "hm-label" }, charLabel(hyp)));
    const body = el("tbody");
    for (const ref of refs) {
      const row = el("tr", null, el("th", { class: "hm-label" }, charLabel(ref)));
      for (const hyp of hyps) {
        const n = count[JSON.stringify([ref, hyp])];
        const cell = el("td", { class: n ? "hm-cell" : "hm-empty" }, n ? String(n) : "");
        if (n) {
          cell.title = charLabel(ref) + " \u2192 " + charLabel(hyp) + " \u00d7" + n;
          cell.style.backgroundColor = "rgba(214, 39, 40, " + (0.15 + 0.85 * n / max).toFixed(3) + ")";
        }
        row.appendChild(cell);
      }
      body.appendChild(row);
    }
    return el("figure", { class: "heatmap" }, el("table", null, el("thead", null, head), body),
      el("figcaption", null, caption));
  }

  function baselineView(c) {
    const b = c.baseline;
    if (!b) return null;
    const status = b.status + (c.change && c.change !== b.status ? ", " + c.change : "");
    const box = el("div", { class: "baseline" }, el("h4", null, "Baseline: " + status));
    if (b.deltas && b.deltas.length) {
      const body = el("tbody");
      for (const d of b.deltas) {
        body.appendChild(el("tr", { class: d.verdict === "regressed" ? "failed" : d.verdict }, el("td", null, d.metric),
          el("td", { class: "num" }, number(d.old)), el("td", { class: "num" }, number(d.new)),
          el("td", { class: "num" }, signed(d.new - d.old)), el("td", null, d.tolerance),
          el("td", null, d.how ? d.verdict + " (" + d.how + ")" : d.verdict)));
      }
      box.appendChild(el("table", { class: "deltas" }, el("thead", null, el("tr", null, el("th", null, "metric"),
        el("th", { class: "num" }, "baseline"), el("th", { class: "num" }, "now"), el("th", { class: "num" }, "change"),
        el("th", null, "tolerance"), el("th", null, "verdict"))), body));
    }
    if (b.lost_facts && b.lost_facts.length) {
      const lost = el("ul", { class: "lost-facts" });
      for (const f of b.lost_facts) {
        lost.appendChild(el("li", null, "check " + f.id + " (" + f.type + ") held in the baseline and no longer holds: " + f.reason));
      }
      box.appendChild(lost);
    }
    return box;
  }

  // The case's checks (facts about the page): each one's verdict, those that do not hold first.
  function checksView(c) {
    if (!c.facts || !c.facts.length) return null;
    const body = el("tbody");
    const ordered = c.facts.filter((f) => !f.passed).concat(c.facts.filter((f) => f.passed));
    for (const f of ordered) {
      const held = f.runs > 1 ? "held in " + f.passes + " of " + f.runs + " outputs" + (f.reason ? "; " : "") : "";
      const shownOutput = c.reference === null && c.prediction !== null;
      const marked = !f.passed && f.spans && f.spans.length && shownOutput ? " (marked in the output)" : "";
      body.appendChild(el("tr", { class: f.passed ? "passed" : "failed" }, el("td", null, f.id), el("td", null, f.type),
        el("td", null, f.category || ""), el("td", null, f.passed ? "holds" : "does not hold"),
        el("td", { class: "reason" }, held + (f.reason || "") + marked)));
    }
    const held = c.facts.filter((f) => f.passed).length;
    return el("div", { class: "checks" }, el("h4", null, "Checks: " + held + " of " + c.facts.length + " hold"),
      el("table", { class: "checks" }, el("thead", null, el("tr", null, el("th", null, "check"), el("th", null, "type"),
        el("th", null, "category"), el("th", null, "verdict"), el("th", null, "why"))), body));
  }

  function caseDetail(c) {
    const facts = el("dl", { class: "facts" });
    const add = (label, value) => {
      if (value !== null && value !== undefined && value !== "") facts.append(el("dt", null, label), el("dd", null, value));
    };
    add("case", c.case);
    add("engine", c.engine);
    add("file", c.file + ":" + c.line);
    if (c.source_file) add("entry", c.source_file + (c.source_line ? ":" + c.source_line : ""));
    add("image", c.image);
    if (c.page) add("page", c.page + " of the PDF, rasterised at " + c.dpi + " dpi");
    add("tags", (c.tags || []).join(", "));
    add("group", c.group);
    add("confidence", c.confidence === null ? null : number(c.confidence));
    add("time", number(c.duration_s) + " s" + (c.inference_s === null ? "" : ", engine " + number(c.inference_s) + " s"));
    if (c.cached) add("output", "from the cache");
    const detail = el("div", { class: "detail", "data-case": c.id },
      el("div", { class: "detail-head" }, thumbnail(c), facts));
    if (c.error) {
      // A filtered item's "error" is why it was not evaluated.
      const filtered = c.outcome === "filtered";
      detail.appendChild(el("div", { class: filtered ? "filtered-box" : "error-box" },
        el("h4", null, filtered ? "Not evaluated" : "Error"), el("pre", { class: filtered ? "reason" : "error" }, c.error)));
    }
    if (c.warnings && c.warnings.length) {
      const list = el("ul", { class: "warnings" });
      for (const w of c.warnings) list.appendChild(el("li", null, w));
      detail.append(el("h4", null, "Warnings"), list);
    }
    detail.append(el("h4", null, "Text"), diffView(c));
    detail.append(el("h4", null, "Metrics and thresholds"), metricsView(c));
    const checks = checksView(c);
    if (checks) detail.appendChild(checks);
    const fields = fieldsView(c);
    if (fields) detail.appendChild(fields);
    const baseline = baselineView(c);
    if (baseline) detail.appendChild(baseline);
    detail.append(el("h4", null, "Top character confusions"), heatmap(c.confusions, "this case"));
    return detail;
  }

  // -- start ----------------------------------------------------------------------------

  function draw() {
    readHash();
    state.shownOpen = false;
    showView();
    drawControls();
    drawList();
    if (state.open) {
      // A linked case: its row at the top, its details below. Its thumbnail has no height until it is
      // decoded, and a page too short then cannot scroll the row up (a band of other rows, or in a
      // screenshot a blank one, above the case): scrolled again once the picture is in.
      const row = document.querySelector("tr.case-row.open");
      const picture = document.querySelector(".detail-row img.thumb");
      if (row) {
        row.scrollIntoView();
        if (picture && !picture.complete) picture.addEventListener("load", () => row.scrollIntoView(), { once: true });
      }
    }
  }

  const engineMaps = clear(document.getElementById("engine-confusions"));
  for (const engine of DATA.engines) engineMaps.appendChild(heatmap(DATA.confusions[engine], engine));
  for (const view of ["overview", "cases"]) {
    document.getElementById("tab-" + view).addEventListener("click", (event) => {
      event.preventDefault();
      state.view = view;
      writeHash();
      showView();
    });
  }
  window.addEventListener("hashchange", draw);
  draw();
  document.body.setAttribute("data-ocr-rendered", String(CASES.length));
  // Milliseconds from navigation to the first page drawn (the benchmark reads it).
  document.body.setAttribute("data-ocr-ms", String(Math.round(performance.now())));
})();
