// The assessment interface: keyboard navigation of the topic page, the document page
// (rendering, highlighting, exhaustivity, best entry point, saving) (the admin pages: admin.js).
// Document text only ever enters the page as DOM text nodes, never as HTML.

import {
  CodePointText, snapToWords, wordStart, addPassage, subtractPassage, passageAt,
  elementsHoldingHighlights, bestEntryPointProblems, kinds, tagOf, parentPath, METADATA_TAGS,
  isSilent, silentRanges,
} from "./judge.js";
import { settle, tooSmallRest, highlightProblems, inferredValues, holding } from "./rules.js";
import { decorateRow, logResets, nameOf, readableProblems } from "./rules_page.js";
import { mergeJudgement, trimPassages } from "./merge.js";
import { startHistory, refreshHistory } from "./history.js";
import { drawPassageText, drawOutlines, forcedColours } from "./access.js";
import { startPoolFilter } from "./pool.js";
import { startFind } from "./find.js";
import { findKeywords, startKeywordEditor } from "./keywords.js";
import { startCaret } from "./caret.js";
import { startReading } from "./reading.js";
import { startNote } from "./note.js";
import {
  startOutbox, writeEntry, visitKey, visitOf, entries, orphaned, rebase, ALIVE_EVERY,
} from "./outbox.js";

const page = document.body.dataset.page;
const data = JSON.parse(document.getElementById("page-data")?.textContent || "{}");

/** A request to the JSON API with the session's CSRF token; resolves to the Response. */
async function api(method, url, body) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRF-Token"] = data.csrf_token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(url, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function getJSON(url) {
  const response = await api("GET", url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

/** The readable message of an error response ({detail} or {error}), else its status line. */
async function errorMessage(response) {
  try {
    const body = await response.json();
    return body.detail || body.error || body.message || `${response.status} ${response.statusText}`;
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

function typing(event) {
  const t = event.target;
  return t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement
    || t instanceof HTMLSelectElement || t.isContentEditable;
}

function plainKey(event) {
  return !event.ctrlKey && !event.metaKey && !event.altKey && !typing(event);
}

function say(id, text) {
  const el = document.getElementById(id);
  if (el) el.textContent = text;
}

document.getElementById("logout")?.addEventListener("submit", async (event) => {
  event.preventDefault();
  await api("POST", "/logout");
  window.location.assign("/login");
});

// ---------------------------------------------------------------- topic page: the pool

function topicPage() {
  const rows = [...document.querySelectorAll("#pool [data-file]")];
  const waiting = (row) => row.dataset.status === "unseen" || row.dataset.status === "in-progress";
  const pool = document.getElementById("pool");
  const shows = pool ? startPoolFilter(pool) : () => true;
  let current = Math.max(0, rows.findIndex(waiting));
  /** Focus row i, or the nearest row the filter shows in the direction of the move. */
  const focus = (i, step = 1) => {
    if (rows.length === 0) return;
    let at = Math.max(0, Math.min(rows.length - 1, i));
    while (at >= 0 && at < rows.length && !shows(rows[at])) at += step;
    if (at < 0 || at >= rows.length) return;
    current = at;
    rows[current].querySelector("a").focus();
  };
  rows.forEach((row, i) => row.querySelector("a").addEventListener("focus", () => { current = i; }));
  focus(current);
  const first = current;
  document.addEventListener("keydown", (event) => {
    if (!plainKey(event)) return;
    if (event.key === "j" || event.key === "ArrowDown") focus(current + 1);
    else if (event.key === "k" || event.key === "ArrowUp") focus(current - 1, -1);
    else if (event.key === "Enter" && rows[current]) rows[current].querySelector("a").click();
    else if (event.key === "n") {
      // the next document not done after the focused one; on the row the page opened at
      // (the first not done), that one itself
      const from = current === first && waiting(rows[current]) ? current : current + 1;
      const order = [...rows.slice(from), ...rows.slice(0, from)];
      const next = order.find(waiting);
      if (next) next.querySelector("a").click();
      else say("pool-message", "Every document of this pool is done.");
    } else return;
    event.preventDefault();
  });
}

// ---------------------------------------------------------------- document page


/**
 * Build the document into `root` from text nodes only: one DOM element per XML element, its
 * text and its children in document order. Returns the text nodes with their UTF-16 starts.
 * White space between blocks is kept (textContent stays the document's text) but not shown;
 * white space between two inline elements (Wikipedia's `<link>A</link> <link>B</link>`,
 * IEEE's `<it>a</it> <b>b</b>`) is shown, as one blank: hidden, the two words ran together
 * on the screen and the keyboard's word steps took them as one.
 */
function renderDocument(root, text, elements) {
  const kind = kinds(elements);
  const nodes = [];
  const starts = [];
  const made = new Map();
  const fragment = document.createDocumentFragment();
  const stack = [];
  let at = 0; // UTF-16 position written so far

  /** A node after which white space runs on in the same line: text or an inline element. */
  const flowing = (node) => node !== null && (node.nodeType === Node.TEXT_NODE
    || node.classList.contains("x-inline"));
  // `nextInline`: the text written is followed by an inline element (else by a block, or by
  // the end of its parent)
  const write = (parent, parentKind, until, nextInline = false) => {
    if (until <= at) return;
    const node = document.createTextNode(text.text.slice(at, until));
    nodes.push(node);
    starts.push(at);
    const between = nextInline && flowing(parent.lastChild);
    if (parentKind !== "inline" && parentKind !== "heading" && !between
      && !/\S/.test(node.data)) {
      const hidden = document.createElement("span");
      hidden.className = "gap";
      hidden.append(node);
      parent.append(hidden);
    } else {
      parent.append(node);
    }
    at = until;
  };
  const close = () => {
    const top = stack.pop();
    write(top.node, top.kind, top.end);
  };

  elements.forEach((el, i) => {
    const start = text.toU16(el.start);
    const end = text.toU16(el.end);
    const up = parentPath(el.path);
    while (stack.length > 0 && stack[stack.length - 1].path !== up) close();
    const parent = stack.length > 0 ? stack[stack.length - 1] : { node: fragment, kind: "block" };
    write(parent.node, parent.kind, start, kind[i] === "inline");
    const node = document.createElement(kind[i] === "inline" ? "span" : "div");
    node.className = `x-${kind[i]}`;
    node.dataset.tag = tagOf(el.path);
    if (METADATA_TAGS.has(node.dataset.tag)) {
      // about the conversion, not of the article: shown apart, and not at all when it says
      // "0" (no warning); its text stays in the page, so offsets are the document's own
      node.classList.add("x-meta");
      node.hidden = isSilent(text, el);
    }
    parent.node.append(node);
    made.set(el.path, node);
    stack.push({ path: el.path, node, kind: kind[i], end });
  });
  while (stack.length > 0) close();
  write(fragment, "block", text.text.length);
  root.replaceChildren(fragment);
  const breaks = new Set();
  elements.forEach((el, i) => {
    if (kind[i] !== "inline") breaks.add(el.start).add(el.end);
  });
  return { nodes, starts, breaks, made };
}

const GRADED_CODES = {
  2002: ["0N", "1S", "1L", "1E", "2S", "2L", "2E", "3L", "3E"],
  2003: ["E0S0", "E1S1", "E1S2", "E1S3", "E2S1", "E2S2", "E2S3", "E3S1", "E3S2", "E3S3"],
};

function documentPage() {
  const doc = document.getElementById("doc");
  const storageKey = visitKey(data.user);
  const state = {
    text: null, elements: [], order: new Map(), nodes: [], starts: [], breaks: new Set(),
    made: new Map(), breakList: [],
    judgement: null, mode: data.mode || "highlight", keywords: data.keywords || [], stemSpans: [],
    pooled: data.pooled || [], serverProblems: [], implicit: {}, names: new Map(), skipped: [],
    pending: [], saving: false, retry: 0, focusPath: null, undo: [], redo: [], advance: false,
    baseSeconds: 0, activeMs: 0,
    acked: null, created: Date.now(), sequence: 0, stepping: 0,
  };
  // each queued state says which visit made it and its place among the visit's changes: the
  // server bases a change on the visit's own newest save (whose answer may have been lost) and
  // drops a late copy of an older one
  const visit = visitOf(storageKey);
  window.inexeval = { state, timings: {} };
  const graded = state.mode === "2002" || state.mode === "2003";
  const lastXKey = `inexeval:${data.user}:last-x`;
  const undoXKey = `inexeval:${data.user}:undo-x`;

  // ---- offsets: a DOM point is counted in UTF-16 units from the start of #doc
  const pointOffset = (container, offset) => {
    const range = document.createRange();
    range.setStart(doc, 0);
    range.setEnd(container, offset);
    return state.text.toCp(range.toString().length);
  };

  /** The DOM point (text node, UTF-16 offset) at code-point offset `cp`. */
  const domPoint = (cp, preferNext) => {
    const u = state.text.toU16(cp);
    let lo = 0;
    let hi = state.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (state.starts[mid] < u || (preferNext && state.starts[mid] === u)) lo = mid;
      else hi = mid - 1;
    }
    const node = state.nodes[lo];
    return [node, Math.min(node.data.length, u - state.starts[lo])];
  };

  const rangeOf = (start, end) => {
    const range = new Range();
    range.setStart(...domPoint(start, true));
    range.setEnd(...domPoint(end, false));
    return range;
  };

  /** The selection's part inside #doc as [start, end) in code points (a drag that ran past
   * the document is cut at its edge), or null when it does not touch the document. */
  const selection = () => {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0) return null;
    const range = sel.getRangeAt(0);
    const whole = document.createRange();
    whole.selectNodeContents(doc);
    // comparePoint: -1 before the document, 0 inside, 1 after
    const first = whole.comparePoint(range.startContainer, range.startOffset);
    const last = whole.comparePoint(range.endContainer, range.endOffset);
    if (first > 0 || last < 0) return null;
    const start = first < 0 ? 0 : pointOffset(range.startContainer, range.startOffset);
    const end = last > 0 ? state.text.length : pointOffset(range.endContainer, range.endOffset);
    return [start, end];
  };

  // ---- time: the one definition of inexeval.assess.model.ACTIVE_SECONDS. A moment counts
  // while the page is visible and the assessor acted (key, click, scroll, wheel, pointer move)
  // within the last ACTIVE_SECONDS; counted at every act, every second and on hiding.
  const activeWindow = 1000 * (data.active_seconds || 120);
  state.lastAct = performance.now();
  state.lastTick = state.lastAct;
  const tick = () => {
    const now = performance.now();
    if (!document.hidden) {
      state.activeMs += Math.max(0, Math.min(now, state.lastAct + activeWindow) - state.lastTick);
    }
    state.lastTick = now;
  };
  const acted = () => {
    tick();
    state.lastAct = performance.now();
  };
  for (const kind of ["keydown", "pointerdown", "pointermove", "wheel", "scroll"]) {
    window.addEventListener(kind, acted, { capture: true, passive: true });
  }
  setInterval(tick, 1000);
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) tick();
    else {
      state.lastTick = performance.now();
      state.lastAct = state.lastTick; // coming back to the page is an act
    }
  });
  const seconds = () => {
    tick();
    return Math.round((state.baseSeconds + state.activeMs / 1000) * 10) / 10;
  };
  window.inexeval.activeSeconds = () => seconds() - state.baseSeconds;

  // ---- drawing
  const wrap = doc.parentElement;
  const drawPassages = () => {
    const ranges = state.judgement.passages.map(([s, e]) => rangeOf(s, e));
    drawOutlines("passage", ranges, wrap);
    // the elements lying wholly in a passage carry a class (underlined in forced colours)
    for (const node of doc.querySelectorAll(".in-passage")) node.classList.remove("in-passage");
    const passages = state.judgement.passages; // sorted and merged: the last starting at or
    for (const el of state.elements) { // before the element is the only one that may hold it
      let lo = 0;
      let hi = passages.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (passages[mid][0] <= el.start) lo = mid + 1;
        else hi = mid;
      }
      if (el.end > el.start && lo > 0 && el.end <= passages[lo - 1][1]) {
        state.made.get(el.path)?.classList.add("in-passage");
      }
    }
    if (!("highlights" in CSS)) return;
    CSS.highlights.set("passage", new Highlight(...ranges));
  };

  const keywordsToggle = document.getElementById("keywords-toggle");
  const drawKeywords = () => {
    if (!("highlights" in CSS)) return;
    if (!keywordsToggle.checked || state.keywords.length === 0) {
      CSS.highlights.delete("keyword");
      drawOutlines("keyword", [], wrap);
      return;
    }
    const ranges = findKeywords(state.text, state.keywords, state.breaks, state.stemSpans)
      .map(([start, end]) => rangeOf(start, end));
    drawOutlines("keyword", ranges, wrap);
    // in forced colours a keyword would look like a passage: only its dashed outline is drawn
    if (forcedColours.matches) CSS.highlights.delete("keyword");
    else CSS.highlights.set("keyword", new Highlight(...ranges));
  };

  // the spans of the words matching the keywords by Snowball stem, from the server (the latest
  // asked wins; offline, regular expressions are still coloured)
  let stemAsked = 0;
  const loadStemSpans = async () => {
    const asked = ++stemAsked;
    try {
      const found = await getJSON(`${data.doc_api}/keywords`);
      if (asked === stemAsked) state.stemSpans = found.spans;
    } catch {
      if (asked === stemAsked) state.stemSpans = [];
    }
    if (asked === stemAsked) drawKeywords();
  };

  const marker = document.getElementById("bep-marker");
  const drawBestEntryPoint = () => {
    const at = state.judgement.best_entry_point;
    if (at === null || at === undefined || state.text === null || state.text.length === 0) {
      marker.hidden = true;
      return;
    }
    const range = rangeOf(at, Math.min(at + 1, state.text.length));
    const rects = range.getClientRects();
    const rect = rects.length > 0 ? rects[0] : range.getBoundingClientRect();
    const box = marker.parentElement.getBoundingClientRect();
    marker.hidden = false;
    // from the wrap's padding box (inside its border); the 2-pixel bar ends where the letter
    // starts
    const wrapBox = marker.parentElement;
    const left = rect.left - box.left - wrapBox.clientLeft - 2;
    marker.style.top = `${rect.top - box.top - wrapBox.clientTop}px`;
    marker.style.left = `${left}px`;
    marker.style.height = `${Math.max(rect.height, 16)}px`;
    marker.style.setProperty("--gutter", `${-left}px`);
  };

  const held = () => elementsHoldingHighlights(state.elements, state.judgement.passages);
  /** The first words of the document's text [start, end), for messages. */
  const quote = (start, end) => state.text.slice(start, Math.min(end, start + 40))
    .replace(/\s+/g, " ") + (end - start > 40 ? "…" : "");
  /** Highlight mode: the values the 2005 rules force, each with its cause (rules.js). */
  const inferred = () => inferredValues(state.judgement.exhaustivity, state.elements,
    holding(state.elements, state.judgement.passages));

  /** The elements the side panel lists: in highlight mode those holding highlighted text;
   * in 2002/2003 modes also the pooled ones and those with an explicit or implicit value. */
  const listed = () => {
    if (state.mode === "passages") return [];
    const paths = new Set(held().filter((el) => !(state.mode === "highlight" && el.inline))
      .map((el) => el.path));
    if (graded) {
      for (const p of [...state.pooled, ...Object.keys(state.judgement.values),
        ...Object.keys(state.implicit)]) paths.add(p);
    }
    return [...paths].filter((p) => state.order.has(p))
      .sort((a, b) => state.order.get(a) - state.order.get(b));
  };

  const valueOf = (path) => {
    if (state.mode === "passages") return undefined;
    return state.mode === "highlight" ? state.judgement.exhaustivity[path]
      : state.judgement.values[path];
  };

  const scaleButtons = (path) => {
    const group = document.createElement("span");
    group.className = "scale";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", `Exhaustivity of ${nameOf(state.names, path)}`);
    for (const [value, key, name] of [["2", "2", "highly exhaustive"],
      ["1", "1", "partly exhaustive"], ["?", "3", "too small"]]) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = value;
      button.title = `${name} (key ${key})`;
      button.setAttribute("aria-label", `${nameOf(state.names, path)}: ${name} (key ${key})`);
      button.setAttribute("aria-pressed", String(valueOf(path) === value));
      button.dataset.value = value;
      button.addEventListener("click", () => setValue(path, value));
      group.append(button);
    }
    return group;
  };

  const gradedSelect = (path) => {
    const select = document.createElement("select");
    select.setAttribute("aria-label", `Value of ${path}`);
    const none = document.createElement("option");
    none.value = "";
    none.textContent = state.implicit[path] ? `(implicit ${state.implicit[path]})` : "–";
    select.append(none);
    for (const code of GRADED_CODES[state.mode]) {
      const option = document.createElement("option");
      option.value = code;
      option.textContent = code;
      select.append(option);
    }
    select.value = valueOf(path) || "";
    select.addEventListener("change", () => setValue(path, select.value || null));
    return select;
  };

  /** Passages mode: the highlighted passages as a text list (their first words). */
  const drawPassageList = () => {
    const list = document.getElementById("elements");
    const rows = state.judgement.passages.map(([s, e]) => {
      const li = document.createElement("li");
      li.className = "passage";
      const until = Math.min(e, s + 120);
      const cuts = [s, ...state.breakList.filter((at) => at > s && at < until), until];
      const words = cuts.slice(1).map((at, i) => state.text.slice(cuts[i], at))
        .map((part) => part.replace(/\s+/g, " ").trim()).filter((part) => part !== "")
        .join(" ¶ ");
      li.textContent = e - s > 120 ? `${words}…` : words;
      li.title = `characters ${s} to ${e}`;
      return li;
    });
    list.replaceChildren(...rows);
    document.getElementById("elements-empty").hidden = rows.length > 0;
  };

  const drawPanel = () => {
    if (state.mode === "passages") {
      drawPassageList();
      return;
    }
    const list = document.getElementById("elements");
    const focused = document.activeElement?.closest?.("#elements li")?.dataset.path;
    const found = problems();
    const rows = listed().map((path) => {
      const li = document.createElement("li");
      li.tabIndex = -1;
      li.dataset.path = path;
      li.style.setProperty("--depth", String(path.split("/").length - 2));
      const label = document.createElement("span");
      label.className = "label";
      const step = document.createElement("span");
      step.className = "path";
      step.textContent = path.slice(path.lastIndexOf("/") + 1);
      step.title = path;
      const snippet = document.createElement("span");
      snippet.className = "snippet";
      const el = state.elements[state.order.get(path)];
      const block = state.breakList.find((at) => at > el.start) ?? el.end;
      snippet.textContent = state.text.slice(el.start, Math.min(el.end, block, el.start + 80));
      label.append(step, " ", snippet);
      li.append(label, state.mode === "highlight" ? scaleButtons(path) : gradedSelect(path));
      if (state.mode === "highlight") {
        decorateRow(li, step, path, { names: state.names, inferred: inferred(), element: el,
          passages: state.judgement.passages });
      }
      li.addEventListener("focusin", () => { state.focusPath = path; markCurrent(); });
      if (valueOf(path) === undefined && !(path in state.implicit)) li.classList.add("needs");
      if (found.some((line) => line.includes(`${path} `) || line.includes(`${path}:`))) {
        li.classList.add("flagged");
      }
      return li;
    });
    list.replaceChildren(...rows);
    document.getElementById("elements-empty").hidden = rows.length > 0;
    markCurrent();
    if (focused) list.querySelector(`li[data-path="${CSS.escape(focused)}"]`)?.focus();
  };

  /** Mark the element the keys 2, 1, 3 apply to, in the panel and in the document. */
  const markCurrent = () => {
    const current = currentPath();
    for (const li of document.querySelectorAll("#elements li")) {
      li.classList.toggle("current", li.dataset.path === current);
    }
    for (const node of doc.querySelectorAll(".current-element")) {
      node.classList.remove("current-element");
    }
    const inPanel = document.activeElement?.closest?.("#elements li");
    if (inPanel || (current !== null && valueOf(current) === undefined)) {
      state.made.get(current)?.classList.add("current-element");
    }
  };

  /** The problems the page shows: computed here in highlight mode (the same rules as the
   * server's), the server's own list in the 2002/2003 modes. */
  const problems = () => {
    if (state.mode === "passages") return bestEntryPointProblems(state.judgement);
    return state.mode === "highlight" ? highlightProblems(state.judgement, state.elements)
      : state.serverProblems;
  };

  const drawStatus = () => {
    const found = problems();
    const box = document.getElementById("consistency");
    box.classList.toggle("ok", found.length === 0);
    box.classList.toggle("bad", found.length > 0);
    box.dataset.state = found.length === 0 ? "green" : "red";
    document.getElementById("consistency-list").replaceChildren(...found.map((line) => {
      const li = document.createElement("li");
      // highlight mode names elements for people (the XPath in the tooltip)
      li.textContent = state.mode === "highlight"
        ? readableProblems([line], state.names, quote)[0] : line;
      li.title = line;
      return li;
    }));
    const relevant = state.judgement.passages.length > 0
      || Object.values(state.judgement.values).some((c) => c !== "0N" && c !== "E0S0");
    const status = state.judgement.status;
    const kind = relevant ? "relevant" : "non-relevant";
    // done only once the server has it: until then the page says so
    const unsaved = state.pending.length > 0 || state.saving;
    let title = "Not ready to be done:";
    if (found.length === 0) {
      if (status !== "done") title = `Complete: press d to mark it done (${kind})`;
      else title = unsaved ? `Done (${kind}), not saved yet` : `Done (${kind})`;
    }
    say("consistency-title", title);
    const shown = document.getElementById("doc-status");
    if (status !== "done") shown.textContent = status;
    else shown.textContent = unsaved ? "done — not saved yet" : `done, ${kind}`;
    shown.dataset.status = status === "done" && unsaved ? "done-unsaved" : status;
    return found;
  };

  window.inexeval.problems = () => problems();

  const draw = () => {
    for (const [id, steps] of [["do-undo", state.undo], ["do-redo", state.redo]]) {
      const button = document.getElementById(id);
      if (button) button.setAttribute("aria-disabled", String(steps.length === 0));
    }
    drawPassages();
    drawPassageText(state.text, state.judgement.passages);
    drawBestEntryPoint();
    drawPanel();
    drawStatus();
  };

  // ---- saving: each change is queued as the whole judgement and PUT with the last version
  // the server acknowledged, one request at a time; queued changes survive a reload.
  const saved = document.getElementById("saved");
  const showSave = (text, kind) => {
    saved.textContent = text;
    saved.dataset.state = kind;
  };

  /** The page's queue in the app's outbox (static/outbox.js); `alive` 0 once the page is
   * left, so that any page of the app sends what is still queued. */
  const remember = (alive = Date.now()) => {
    // storage full or disabled: the queue in memory still retries
    writeEntry(storageKey, {
      doc_api: data.doc_api, url: window.location.pathname, file: data.file || data.doc_api,
      version: state.judgement.version, base: state.acked, pending: state.pending, alive,
      created: state.created,
    });
  };
  setInterval(() => { if (state.pending.length > 0) remember(); }, ALIVE_EVERY);
  window.addEventListener("pagehide", () => { if (state.pending.length > 0) remember(0); });

  const enqueue = () => {
    const j = state.judgement;
    const next = {
      status: j.status, passages: j.passages, best_entry_point: j.best_entry_point,
      exhaustivity: j.exhaustivity, values: j.values, seconds: seconds(),
      visit, sequence: (state.sequence += 1),
    };
    const last = state.pending.length - 1;
    const inFlight = state.saving ? 0 : -1;
    // a queued state of the same status is replaced, unless an earlier visit made it (adopted
    // from the outbox): that one is sent as its visit made it
    if (last > inFlight && state.pending[last].status === next.status
      && state.pending[last].visit === visit) state.pending[last] = next;
    else state.pending.push(next);
    remember();
    drawStatus();
    flush();
  };

  const flush = async () => {
    if (state.saving || state.asking || state.pending.length === 0) return;
    state.saving = true;
    const sending = state.pending[0];
    const started = performance.now();
    showSave("saving…", "saving");
    let response = null;
    try {
      response = await api("PUT", data.doc_api, { ...sending, version: state.judgement.version });
    } catch {
      response = null;
    }
    if (response === null || response.status >= 500 || response.status === 429) {
      state.saving = false;
      state.retry = Math.min(30000, Math.max(500, state.retry * 2));
      showSave(`not saved (${response === null ? "offline" : response.status}): retrying`,
        "retry");
      setTimeout(flush, state.retry);
      return;
    }
    state.retry = 0;
    if (response.ok) {
      const answer = await response.json();
      state.saving = false;
      window.inexeval.timings.lastSave = performance.now() - started;
      state.pending.shift();
      state.judgement.version = answer.version;
      state.acked = judgementContent(answer);
      if (answer.merged) takeMerged(sending, answer);
      if (state.pending.length === 0) {
        window.inexeval.timings.acknowledged = performance.now() - window.inexeval.timings.changed;
        if (answer.status) state.judgement.status = answer.status;
        if (answer.passages) state.judgement.passages = answer.passages;
        showSave("saved", "saved");
        takeRules(answer);
        draw();
        refreshHistory();
        if (state.advance) moveOn();
      }
      remember();
      flush();
      return;
    }
    if (response.status === 409) {
      const body = await response.clone().json().catch(() => ({}));
      if (body.conflicts?.length > 0 && body.current) {
        state.saving = false;
        state.asking = true;
        askConflict(sending, body);
        return;
      }
    }
    // Refused: the server's version is reloaded; changes made meanwhile were made on the
    // refused state, so they go too (the assessor is told to redo them).
    const message = await errorMessage(response);
    if (response.status !== 401) {
      try {
        await load();
      } catch {
        // the notice below says what happened; the next change retries from the old state
      }
    }
    state.pending = [];
    state.advance = false;
    state.undo = [];
    state.redo = [];
    remember();
    state.saving = false;
    if (response.status === 409) {
      showSave("reloaded", "conflict");
      notice("This document was changed in another tab or window: the saved version has "
        + "been reloaded and your last change was not saved. Please check it and redo it.",
      "conflict");
    } else if (response.status === 401) {
      showSave("not saved", "error");
      notice(`Not saved: your session has ended (${message}). Log in again in another tab, `
        + "then redo the change.", "error");
    } else {
      showSave("not saved", "error");
      notice(`Not saved: ${message}`, "error");
    }
  };

  const judgementContent = (j) => ({
    status: j.status, passages: j.passages || [], best_entry_point: j.best_entry_point ?? null,
    exhaustivity: { ...(j.exhaustivity || {}) }, values: { ...(j.values || {}) },
    seconds: j.seconds || 0,
  });

  /** Show the last queued state, or the server's when nothing is queued. */
  const showQueued = (answer) => {
    const last = state.pending[state.pending.length - 1];
    const shown = last || judgementContent(answer);
    for (const key of ["status", "passages", "best_entry_point", "exhaustivity", "values"]) {
      state.judgement[key] = shown[key];
    }
    draw();
  };

  /** The server merged `sent` with changes saved elsewhere (another tab, an older visit): the
   * queued changes and the undo and redo steps are moved onto the merged state, so that none
   * of them takes the other changes away. */
  const takeMerged = (sent, answer) => {
    const onto = (steps) => steps.map((step) => {
      const { merged } = mergeJudgement(sent, step, answer, true);
      delete merged.seconds;
      return merged;
    });
    state.pending = rebase(sent, state.pending, answer);
    state.undo = onto(state.undo);
    state.redo = onto(state.redo);
    state.baseSeconds += Math.max(0, (answer.seconds || 0) - (sent.seconds || 0));
    showQueued(answer);
    notice("Merged with changes saved in another tab or window (or an earlier visit).", "info");
  };

  /** A true conflict: both changed the same value. The assessor keeps theirs (this page's
   * change wins where both changed a value; the other changes stay) or takes the saved one. */
  const askConflict = (sent, body) => {
    const box = conflictDialog();
    box.querySelector(".conflict-fields").replaceChildren(
      ...body.conflicts.map((field) => conflictRow(field, sent, body.current)));
    box.onclose = async () => {
      state.asking = false;
      const current = body.current;
      if (box.returnValue === "mine") {
        const base = state.acked || judgementContent(current);
        const { merged } = mergeJudgement(base, sent, current, true);
        const first = {
          ...merged, seconds: sent.seconds, visit: sent.visit, sequence: sent.sequence,
        };
        state.pending = [first, ...rebase(sent, state.pending.slice(1), first)];
        state.judgement.version = current.version;
        state.acked = judgementContent(current);
        remember();
        showQueued(current);
        notice("Your change was kept; the other changes saved meanwhile were kept too.", "info");
        flush();
        return;
      }
      state.pending = [];
      state.undo = [];
      state.redo = [];
      remember();
      await load();
      showSave("reloaded", "conflict");
      notice("The saved version was taken: your conflicting change was dropped.", "conflict");
    };
    showSave("conflict", "conflict");
    box.showModal();
  };

  /** One field both sides changed, for people: its name and both values (a best entry
   * point as its place in the text: the words it starts). */
  const conflictRow = (field, mine, saved) => {
    const li = document.createElement("li");
    li.dataset.field = field;
    const place = (at) => (at === null || at === undefined ? "none"
      : `at “${quote(at, Math.min(state.text.length, at + 40))}” (character ${at})`);
    const [name, path] = field.split(" ", 2);
    const label = document.createElement("strong");
    let yours;
    let theirs;
    if (name === "best_entry_point") {
      label.textContent = "Best entry point";
      [yours, theirs] = [place(mine.best_entry_point), place(saved.best_entry_point)];
    } else {
      const what = name === "exhaustivity" ? "Exhaustivity" : "Value";
      label.textContent = `${what} of ${nameOf(state.names, path)}`;
      [yours, theirs] = [mine[name]?.[path] ?? "none", saved[name]?.[path] ?? "none"];
    }
    const one = document.createElement("span");
    one.className = "mine";
    one.textContent = `yours ${yours}`;
    const two = document.createElement("span");
    two.className = "theirs";
    two.textContent = `saved ${theirs}`;
    li.append(label, ": ", one, "; ", two);
    return li;
  };

  /** The dialog of a true conflict (made once, text only). */
  const conflictDialog = () => {
    let box = document.getElementById("merge-conflict");
    if (box !== null) return box;
    box = document.createElement("dialog");
    box.id = "merge-conflict";
    box.setAttribute("aria-labelledby", "merge-conflict-title");
    const form = document.createElement("form");
    form.method = "dialog";
    const title = document.createElement("h2");
    title.id = "merge-conflict-title";
    title.textContent = "This document was changed in another tab or window";
    const text = document.createElement("p");
    text.append("Both changed:");
    const fields = document.createElement("ul");
    fields.className = "conflict-fields";
    const ask = document.createElement("p");
    ask.textContent = "Keep your change (the other changes are kept too) or take the saved "
      + "version?";
    const mine = document.createElement("button");
    mine.value = "mine";
    mine.textContent = "Keep mine";
    const theirs = document.createElement("button");
    theirs.value = "theirs";
    theirs.textContent = "Take the saved version";
    form.append(title, text, fields, ask, mine, " ", theirs);
    box.append(form);
    document.body.append(box);
    return box;
  };

  /** The judgement's content and status, as undo and redo keep it. */
  const snapshot = () => {
    const j = state.judgement;
    return {
      status: j.status, passages: j.passages.map((p) => [...p]),
      best_entry_point: j.best_entry_point, exhaustivity: { ...j.exhaustivity },
      values: { ...j.values },
    };
  };

  /** Apply a change to the judgement, draw it and save it; `record` makes it an undo step. */
  const change = (update, status = "in-progress", record = true) => {
    window.inexeval.timings.changed = performance.now();
    const before = snapshot();
    update(state.judgement);
    if (record && state.mode === "highlight" && !applyRules(before)) return false;
    if (record) {
      state.undo.push(before);
      state.redo = [];
    }
    state.judgement.status = status;
    const holding = new Set(held().map((el) => el.path));
    for (const path of Object.keys(state.judgement.exhaustivity)) {
      if (!holding.has(path)) delete state.judgement.exhaustivity[path];
    }
    if (state.judgement.passages.length === 0 && !graded) {
      state.judgement.best_entry_point = null;
    }
    draw();
    enqueue();
  };

  /** Highlight mode: the INEX 2005 rules on an assessor's change (rules.js): a refused change
   * is undone and said; otherwise the values it made inconsistent are reset, those the rules
   * force are inferred, and the assessor is told what was reset. Undo and redo bring back
   * saved states as they were, without the rules. */
  const applyRules = (before) => {
    const j = state.judgement;
    const settled = settle(before.exhaustivity, j.exhaustivity, state.elements, j.passages);
    if (settled.refused) {
      Object.assign(j, before);
      notice(`Not possible: ${readableProblems(settled.refused, state.names, quote).join("; ")}.`,
        "error");
      draw();
      return false;
    }
    j.exhaustivity = settled.exhaustivity;
    const told = logResets(settled.resets, state.names, state.skipped, quote);
    state.skipped = [];
    if (told !== null) notice(told, "reset");
    return true;
  };

  /** Bring back a snapshot as a change saved like any other. The server makes a changed done
   * document in-progress (inexeval.assess.rules.apply), so a done snapshot is restored in two
   * saves: its content, then its status. */
  const restoreState = (target) => {
    const same = JSON.stringify({ ...snapshot(), status: null })
      === JSON.stringify({ ...target, status: null });
    const put = (j) => {
      j.passages = target.passages.map((p) => [...p]);
      j.best_entry_point = target.best_entry_point;
      j.exhaustivity = { ...target.exhaustivity };
      j.values = { ...target.values };
    };
    if (target.status === "done" && !same) {
      change(put, "in-progress", false);
      change(() => {}, "done", false);
    } else {
      change(put, target.status === "unseen" && !same ? "in-progress" : target.status, false);
    }
  };

  /** Before an undo or redo: when nothing of this page is on its way and the server has a
   * newer save than this page knows (another tab, another window), the assessor is asked
   * first; declined, the saved version is shown and this page's undo steps go. The server's
   * answer is only compared when this page has made and saved nothing since the question was
   * sent: a save of this page made meanwhile (a second Ctrl+Z, a change) may be the newer
   * version the server answers with before this page has its answer, and an assessor's own
   * save is never taken for another tab's (the server merges the step in any case). */
  const stepAcrossNewer = async () => {
    if (state.pending.length > 0 || state.saving) return true;
    const known = state.judgement.version;
    const sequence = state.sequence;
    let current = null;
    state.stepping += 1; // (the browser tests wait for it as for a save)
    try {
      current = await getJSON(data.doc_api);
    } catch {
      return true; // offline: the server merges the step when it gets it
    } finally {
      state.stepping -= 1;
    }
    if (state.sequence !== sequence || state.pending.length > 0 || state.saving
      || state.judgement.version !== known) return true;
    if (current.version === state.judgement.version) return true;
    const status = current.status === "done" ? "done" : current.status;
    const go = window.confirm("This document was saved in another tab or window after this "
      + `page last saved it (it is now ${status}). Undo here anyway, on top of that save?`);
    if (go) return true;
    await load();
    state.undo = [];
    state.redo = [];
    draw();
    notice("Not undone: the version saved in another tab or window is shown.", "info");
    return false;
  };

  const undo = async () => {
    if (state.undo.length === 0) {
      undoLastX();
      return;
    }
    if (!(await stepAcrossNewer()) || state.undo.length === 0) return;
    const target = state.undo.pop();
    state.redo.push(snapshot());
    clearNotice();
    restoreState(target);
  };

  const redo = async () => {
    if (state.redo.length === 0) {
      notice("Nothing to redo.", "info");
      return;
    }
    if (!(await stepAcrossNewer()) || state.redo.length === 0) return;
    const target = state.redo.pop();
    state.undo.push(snapshot());
    clearNotice();
    restoreState(target);
  };

  /** Ctrl+Z with nothing to undo on this page reverts the `x` that led here: the previous
   * document opens and restores its state from before the `x`. */
  const undoLastX = () => {
    let last = null;
    try {
      last = JSON.parse(sessionStorage.getItem(lastXKey) || "null");
    } catch {
      last = null;
    }
    if (last === null || last.doc_api === data.doc_api) {
      notice("Nothing to undo on this document.", "info");
      return;
    }
    sessionStorage.removeItem(lastXKey);
    sessionStorage.setItem(undoXKey, JSON.stringify(last));
    window.location.assign(last.url);
  };

  /** After d or x: the next unassessed document of the pool (pool order), else the pool. */
  const moveOn = () => {
    state.advance = false;
    window.location.assign(data.next_url || data.topic_url);
  };

  const notice = (text, kind) => {
    const box = document.getElementById("notice");
    box.textContent = text;
    box.dataset.kind = kind;
    box.hidden = false;
  };
  const clearNotice = () => { document.getElementById("notice").hidden = true; };

  // ---- actions
  /** After h or u: the selection goes; from the keyboard the caret stays at its end. */
  const dropSelection = () => {
    const sel = window.getSelection();
    if (document.activeElement === doc && sel.rangeCount > 0) sel.collapseToEnd();
    else sel.removeAllRanges();
  };

  const highlight = () => {
    const sel = selection();
    if (sel === null || sel[0] === sel[1]) {
      notice("Select some text of the document first, then press h.", "info");
      return;
    }
    const snapped = snapToWords(state.text, sel[0], sel[1], state.breaks);
    if (snapped === null) return;
    clearNotice();
    change((j) => {
      j.passages = addPassage(j.passages, snapped);
      // the first highlight brings a best entry point at its start (b moves it)
      if (!graded && (j.best_entry_point === null || j.best_entry_point === undefined)) {
        j.best_entry_point = snapped[0];
      }
    });
    dropSelection();
    // the panel starts at the innermost listed element holding the new text, still without a
    // value (a highlighted paragraph is asked first, not the article around it)
    const depth = (path) => path.split("/").length;
    let next = null;
    for (const path of listed()) {
      const el = state.elements[state.order.get(path)];
      if (valueOf(path) !== undefined || path in state.implicit) continue;
      if (el.end <= snapped[0] || el.start >= snapped[1]) continue;
      if (next === null || depth(path) > depth(next)) next = path;
    }
    if (next !== null) state.focusPath = next;
    markCurrent();
    // highlight mode: the list takes the focus (↑/↓ move in it, 2/1/3 give values; Escape
    // goes back to the caret in the text)
    if (next !== null && state.mode === "highlight") {
      document.querySelector(`#elements li[data-path="${CSS.escape(next)}"]`)?.focus();
    }
  };

  const unhighlight = () => {
    const sel = selection();
    if (sel === null) {
      notice("Select part of a highlighted passage (or put the caret in one), then press u.",
        "info");
      return;
    }
    let cut;
    if (sel[0] === sel[1]) {
      cut = passageAt(state.judgement.passages, sel[0]);
      if (cut === null) {
        notice("The caret is not in a highlighted passage.", "info");
        return;
      }
    } else {
      cut = snapToWords(state.text, sel[0], sel[1], state.breaks);
      if (cut === null) return;
    }
    clearNotice();
    change((j) => { j.passages = trimPassages(state.text, subtractPassage(j.passages, cut)); });
    dropSelection();
  };

  const setValue = (path, value) => {
    state.focusPath = path;
    const field = state.mode === "highlight" ? "exhaustivity" : "values";
    const done = change((j) => {
      j[field] = { ...j[field] };
      if (value === null) delete j[field][path];
      else j[field][path] = value;
    });
    if (done === false) return; // refused by the rules: the element stays current
    // the next element without a value after this one in the list, else the first
    const paths = listed();
    const at = paths.indexOf(path);
    const next = [...paths.slice(at + 1), ...paths.slice(0, at + 1)]
      .find((p) => valueOf(p) === undefined && !(p in state.implicit));
    if (next) state.focusPath = next;
    markCurrent();
    document.querySelector(`#elements li[data-path="${CSS.escape(state.focusPath)}"]`)?.focus();
  };

  /** t (highlight mode): too small for every remaining child of the current element that
   * holds highlighted text, and so for everything inside them (X-Rai's one-click button). */
  const tooSmallRemaining = () => {
    const path = currentPath();
    if (path === null) return;
    const j = state.judgement;
    const [requested, skipped] = tooSmallRest(j.exhaustivity, state.elements, j.passages, path);
    if (Object.keys(requested).length === Object.keys(j.exhaustivity).length
      && skipped.length === 0) {
      notice(`${nameOf(state.names, path)} has no child left to assess.`, "info");
      return;
    }
    state.skipped = skipped;
    change((judgement) => { judgement.exhaustivity = requested; });
    state.focusPath = listed().find((p) => valueOf(p) === undefined) ?? path;
    markCurrent();
  };

  const setBestEntryPoint = () => {
    const sel = selection();
    if (sel === null) {
      notice("Click in the document where reading should start, then press b.", "info");
      return;
    }
    if (!graded && state.judgement.passages.length === 0) {
      notice("Highlight the relevant text first: a best entry point belongs to a relevant "
        + "document.", "info");
      return;
    }
    clearNotice();
    const at = wordStart(state.text, Math.min(sel[0], state.text.length - 1), state.breaks);
    change((j) => { j.best_entry_point = at; });
  };

  const markDone = () => {
    const found = drawStatus();
    // The server's list (2002/2003 modes) is of the last saved state: with changes still on
    // their way the request goes out and the server decides.
    const stale = graded && state.pending.length > 0;
    if (found.length > 0 && !stale) {
      notice(`Not done: ${found.join("; ")}.`, "error");
      document.getElementById("consistency").focus();
      return;
    }
    clearNotice();
    if (!graded && state.judgement.passages.length === 0) {
      askNonRelevant();
      return;
    }
    if (state.judgement.status !== "done") change(() => {}, "done");
    sessionStorage.removeItem(lastXKey);
    state.advance = true;
    if (state.pending.length === 0 && !state.saving) moveOn();
  };

  const dialog = document.getElementById("confirm-nonrelevant");
  const askNonRelevant = () => dialog.showModal();
  /** Clear the judgement and mark it done, as one undo step. */
  const markNonRelevant = () => {
    const clear = (j) => {
      j.passages = [];
      j.best_entry_point = null;
      j.exhaustivity = {};
      j.values = {};
    };
    state.undo.push(snapshot());
    state.redo = [];
    const update = graded ? (j) => {
      clear(j);
      j.values = Object.fromEntries(state.pooled.map((p) => [p, state.mode === "2002"
        ? "0N" : "E0S0"]));
      const root = state.elements[0]?.path;
      if (root) j.values[root] = state.mode === "2002" ? "0N" : "E0S0";
    } : clear;
    // one change, one save: the server keeps a changed document done unless it was done
    // already (then it makes it in-progress, and done is a second save)
    if (state.judgement.status !== "done") {
      change(update, "done", false);
      return;
    }
    change(update, "in-progress", false);
    change(() => {}, "done", false);
  };
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "yes") markNonRelevant();
  });

  /** x: not relevant in one key (no dialog; Ctrl+Z reverts it, also from the next
   * document), then the next unassessed document. */
  const notRelevant = () => {
    const before = snapshot();
    clearNotice();
    markNonRelevant();
    try {
      sessionStorage.setItem(lastXKey, JSON.stringify(
        { doc_api: data.doc_api, url: window.location.pathname, before }));
    } catch {
      // storage disabled: Ctrl+Z then reverts it on this page only
    }
    state.advance = true;
  };

  /** The element the keys 2, 1, 3 apply to: the focused row, else the current one, else the
   * first without a value. */
  const currentPath = () => {
    const li = document.activeElement?.closest?.("#elements li");
    if (li) return li.dataset.path;
    const paths = listed();
    if (paths.includes(state.focusPath)) return state.focusPath;
    return paths.find((p) => valueOf(p) === undefined) ?? paths[0] ?? null;
  };

  const nextUnassessed = () => {
    if (data.next_url) window.location.assign(data.next_url);
    else notice("No other document of this topic is waiting.", "info");
  };

  /** The list's current element moved by `step`, the focus left where it is. */
  const moveCurrent = (step) => {
    const paths = listed();
    const at = paths.indexOf(currentPath());
    state.focusPath = paths[Math.max(0, Math.min(paths.length - 1, at + step))];
    markCurrent();
    document.querySelector(`#elements li[data-path="${CSS.escape(state.focusPath)}"]`)
      ?.scrollIntoView({ block: "nearest" });
  };

  const moveFocus = (step) => {
    const paths = listed();
    if (paths.length === 0) return;
    const at = paths.indexOf(currentPath());
    const path = paths[Math.max(0, Math.min(paths.length - 1, at + step))];
    document.querySelector(`#elements li[data-path="${CSS.escape(path)}"]`)?.focus();
  };

  /** Shift+↓ (`forward`) or Shift+↑ that moved the selection's focus past the end (start)
   * of the paragraph it was in stops there: a keyboard selection never runs on into the next
   * paragraph by a line. */
  const stopAtParagraph = (sel, [node, offset], forward) => {
    if (!doc.contains(node) || !doc.contains(sel.focusNode)) return;
    const from = pointOffset(node, offset);
    const to = pointOffset(sel.focusNode, sel.focusOffset);
    const edge = forward ? state.blockEnds.find((at) => at > from && at < to)
      : state.blockStarts.findLast((at) => at < from && at > to);
    if (edge !== undefined) sel.extend(...domPoint(edge, !forward));
  };

  /** p: the selection (or the caret) extended to the innermost paragraph (any element that
   * is not inline) holding it; repeated, to the element around that, its section. White space
   * at the edges is left out. */
  const selectParagraph = () => {
    const sel = selection();
    if (sel === null) {
      notice("Put the caret in the text first (a click, Tab or /), then press p.", "info");
      return;
    }
    const blank = (at) => /\s/u.test(state.text.charAt(at));
    const trim = ([s, e]) => {
      let [a, b] = [s, e];
      while (a < b && blank(a)) a += 1;
      while (b > a && blank(b - 1)) b -= 1;
      return [a, b];
    };
    const [s, e] = sel[0] === sel[1] ? sel : trim(sel);
    for (let i = state.elements.length - 1; i >= 0; i -= 1) {
      const el = state.elements[i];
      if (state.kind[i] === "inline" || el.start > s || el.end < e) continue;
      const [a, b] = trim([el.start, el.end]);
      if (a < b && (a < s || b > e)) {
        clearNotice();
        place(a, b);
        return;
      }
    }
  };

  /** The document's selection on [start, end) (a caret when equal), the focus in the text. */
  const place = (start, end) => {
    const [startNode, startOffset] = domPoint(start, true);
    const [endNode, endOffset] = domPoint(end, start < end ? false : true);
    window.getSelection().setBaseAndExtent(startNode, startOffset, endNode, endOffset);
    doc.focus({ preventScroll: true });
  };

  const find = startFind({
    text: () => state.text, rangeOf, before: document.querySelector(".doc-layout"), place,
    hidden: () => (state.text === null ? [] : silentRanges(state.text, state.elements)),
  });
  const note = startNote(document.getElementById("note"), `${data.doc_api}/note`,
    { api, errorMessage });
  const keys = {
    "/": find.open, c: note.focus, "]": find.next, "[": find.previous,
    h: highlight, u: unhighlight, p: selectParagraph, d: markDone, r: askNonRelevant, x: notRelevant,
    ...(graded ? {} : { b: setBestEntryPoint }),
    ...(state.mode === "highlight" ? { t: tooSmallRemaining } : {}),
    n: nextUnassessed,
    w: () => {
      keywordsToggle.checked = !keywordsToggle.checked;
      drawKeywords();
    },
    ArrowDown: () => moveFocus(1), ArrowUp: () => moveFocus(-1),
  };
  const scaleKeys = { 2: "2", 1: "1", 3: "?" };
  document.addEventListener("keydown", (event) => {
    const command = (event.ctrlKey || event.metaKey) && !event.altKey && !typing(event);
    if (command && event.key.toLowerCase() === "z" && !dialog.open && state.text !== null) {
      event.preventDefault();
      if (event.shiftKey) redo();
      else undo();
      return;
    }
    if (!plainKey(event) || dialog.open || state.text === null) return;
    const inPanel = document.activeElement?.closest?.("#elements li");
    if ((event.key === "ArrowDown" || event.key === "ArrowUp") && !inPanel) {
      // outside the list and outside the text (whose caret they move), ↑/↓ move the list's
      // current element without taking the focus there
      if (document.activeElement === doc || listed().length === 0) return;
      event.preventDefault();
      moveCurrent(event.key === "ArrowDown" ? 1 : -1);
      return;
    }
    if (event.key in scaleKeys && state.mode === "highlight") {
      event.preventDefault();
      const path = currentPath();
      if (path) setValue(path, scaleKeys[event.key]);
      return;
    }
    if (event.key === "Escape" && inPanel) {
      event.preventDefault();
      doc.focus();
      return;
    }
    const action = keys[event.key];
    if (action === undefined) return;
    event.preventDefault();
    action();
  });
  for (const [id, action] of [["do-highlight", highlight], ["do-unhighlight", unhighlight],
    ["do-bep", setBestEntryPoint], ["do-done", markDone], ["do-notrelevant", notRelevant],
    ["do-undo", undo], ["do-redo", redo], ["do-rest-small", tooSmallRemaining]]) {
    const button = document.getElementById(id);
    if (button === null) continue;
    // A mouse press on a button must not clear the text selection it acts on.
    button.addEventListener("mousedown", (event) => event.preventDefault());
    button.addEventListener("click", action);
  }
  keywordsToggle.addEventListener("change", drawKeywords);
  window.addEventListener("beforeunload", (event) => {
    if (state.pending.length > 0) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
  window.addEventListener("online", () => { state.retry = 0; flush(); });
  new ResizeObserver(() => {
    // the judgement may come before the text: nothing is drawn until both are here
    if (state.judgement === null || state.text === null) return;
    drawBestEntryPoint();
    if (forcedColours.matches) {
      drawPassages();
      drawKeywords();
    }
  }).observe(doc);
  forcedColours.addEventListener("change", () => {
    if (state.judgement && state.text !== null) {
      drawPassages();
      drawKeywords();
    }
  });
  const head = document.querySelector(".doc-head");
  new ResizeObserver(() => {
    document.documentElement.style.setProperty("--head", `${head.offsetHeight}px`);
  }).observe(head);

  /** The server's findings on a judgement it sent (GET or the answer to a PUT). */
  const takeRules = (answer) => {
    state.serverProblems = answer.problems || [];
    state.implicit = answer.implicit || {};
  };

  const load = async () => {
    const judgement = await getJSON(data.doc_api);
    judgement.passages = judgement.passages || [];
    judgement.exhaustivity = judgement.exhaustivity || {};
    judgement.values = judgement.values || {};
    state.judgement = judgement;
    state.acked = judgementContent(judgement);
    state.baseSeconds = judgement.seconds || 0;
    state.activeMs = 0;
    state.lastTick = performance.now();
    takeRules(judgement);
    if (state.text !== null) draw();
  };

  /** Changes of this document queued in an earlier visit (the app's outbox) that never
   * reached the server are taken over and sent now, on the version they were made on: the
   * server merges them into anything saved since, and a true conflict asks. */
  const restore = () => {
    const found = entries(data.user).find(([key, e]) => key !== storageKey
      && e.doc_api === data.doc_api && orphaned(e));
    if (found === undefined) return;
    const [key, stored] = found;
    writeEntry(key, null);
    const loaded = judgementContent(state.judgement);
    const base = stored.base || loaded;
    const last = stored.pending[stored.pending.length - 1];
    const { merged } = mergeJudgement(base, last, loaded, true);
    state.pending = stored.pending;
    state.judgement.version = stored.version;
    state.acked = base;
    Object.assign(state.judgement, { ...merged, seconds: state.judgement.seconds });
    remember();
    notice("Unsaved changes from an earlier visit were restored and are being saved.", "info");
    flush();
  };

  /** The `x` of this document reverted from the next one (see undoLastX). */
  const undoneX = () => {
    let undone = null;
    try {
      undone = JSON.parse(sessionStorage.getItem(undoXKey) || "null");
    } catch {
      undone = null;
    }
    if (undone === null || undone.doc_api !== data.doc_api) return;
    sessionStorage.removeItem(undoXKey);
    state.redo.push(snapshot());
    restoreState(undone.before);
    notice("Not relevant undone: the document is as it was before x.", "info");
  };

  /** A document with highlights reopens scrolled to its first one. */
  const reopenAtFirstHighlight = () => {
    const first = state.judgement.passages[0];
    if (first === undefined) return;
    const [node] = domPoint(first[0], true);
    const element = node.parentElement;
    if (element === null) return;
    element.scrollIntoView({ block: "center" });
  };

  const start = async () => {
    const t0 = performance.now();
    // the words matching the keywords by stem come with the text (none when they cannot)
    const stems = getJSON(`${data.doc_api}/keywords`).then((found) => found.spans, () => []);
    const [content, , stemSpans] = await Promise.all(
      [getJSON(`${data.doc_api}/content`), load(), stems]);
    state.stemSpans = stemSpans;
    const t1 = performance.now();
    state.text = new CodePointText(content.text);
    state.elements = content.elements;
    state.names = new Map(content.elements.map((el) => [el.path, el.name ?? el.path]));
    state.order = new Map(content.elements.map((el, i) => [el.path, i]));
    const rendered = renderDocument(doc, state.text, content.elements);
    state.nodes = rendered.nodes;
    state.starts = rendered.starts;
    state.breaks = rendered.breaks;
    state.breakList = [...rendered.breaks].sort((a, b) => a - b);
    state.kind = kinds(content.elements);
    const blocks = content.elements.filter((el, i) => state.kind[i] !== "inline");
    state.blockStarts = [...new Set(blocks.map((el) => el.start))].sort((a, b) => a - b);
    state.blockEnds = [...new Set(blocks.map((el) => el.end))].sort((a, b) => a - b);
    state.made = rendered.made;
    restore();
    startOutbox({
      user: data.user, api, mine: (entry) => entry.doc_api !== data.doc_api,
      saved: refreshHistory,
    });
    startHistory(getJSON, document.querySelector("aside.side"),
      { before: document.querySelector("aside.side .help"), open: false });
    startKeywordEditor({
      parent: document.querySelector("aside.side"), before: document.getElementById("history"),
      keywords: () => state.keywords,
      save: async (next) => {
        const response = await api("PUT", data.keywords_api, { keywords: next });
        if (!response.ok) throw new Error(await errorMessage(response));
        state.keywords = (await response.json()).keywords;
        await loadStemSpans();
      },
    });
    startReading(data.user, doc, document.querySelector(".toolbar .status"));
    drawKeywords();
    draw();
    undoneX();
    reopenAtFirstHighlight();
    startCaret(doc, wrap, {
      clamp: stopAtParagraph,
      head: () => (window.matchMedia("(min-width: 60rem)").matches ? head.offsetHeight : 0),
    });
    doc.setAttribute("aria-busy", "false");
    document.body.dataset.ready = "true";
    const t2 = performance.now();
    Object.assign(window.inexeval.timings,
      { fetch: t1 - t0, render: t2 - t1, ready: t2 - t0, sinceNavigation: t2 });
  };
  start().catch((error) => {
    notice(`The document could not be loaded: ${error.message}`, "error");
  });
}

if (page === "topic") topicPage();
else if (page === "doc") documentPage();
if (page !== "doc" && page !== "login" && data.user) {
  startOutbox({ user: data.user, api, saved: refreshHistory });
  if (page === "topic" || page === "topics") startHistory(getJSON, document.getElementById("main"));
}
