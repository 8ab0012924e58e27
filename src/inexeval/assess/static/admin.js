// The organiser's pages: assigning, withdrawing and locking on /admin (each asks first), the
// read-only view of a judgement and the side-by-side adjudication of two judgements.
// Document text only ever enters the page as DOM text nodes, never as HTML.

import {
  CodePointText, kinds, mergePassages, silentRanges, snapToWords, subtractPassage,
} from "./judge.js";

const page = document.body.dataset.page;
const data = JSON.parse(document.getElementById("page-data")?.textContent || "{}");

async function api(method, url, body) {
  const headers = { Accept: "application/json", "X-CSRF-Token": data.csrf_token };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(url, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) throw new Error(await errorMessage(response));
  return response.json();
}

async function errorMessage(response) {
  try {
    const body = await response.json();
    return body.error || `${response.status} ${response.statusText}`;
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

function say(id, text) {
  const el = document.getElementById(id);
  if (el) el.textContent = text;
}

// ---------------------------------------------------------------- /admin

/** A change from the admin page, after the organiser confirms it; the page reloads after. */
async function change(method, url, body, question) {
  if (question && !window.confirm(question)) return;
  const response = await api(method, url, body);
  if (response.ok) window.location.reload();
  else say("admin-message", await errorMessage(response));
}

function adminPage() {
  for (const button of document.querySelectorAll("button[data-lock]")) {
    button.addEventListener("click", () => change("POST", button.dataset.lock, undefined, button.dataset.confirm));
  }
  for (const button of document.querySelectorAll("button[data-unassign]")) {
    button.addEventListener("click", () => change("DELETE", button.dataset.unassign, undefined, button.dataset.confirm));
  }
  for (const form of document.querySelectorAll("form[data-assign]")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const assessor = form.elements.assessor.value;
      if (!assessor) { say("admin-message", "Every assessor has this topic already."); return; }
      change("POST", form.dataset.assign, { assessor });
    });
  }
}

// ---------------------------------------------------------------- document panes

/** The code point offsets where a line starts: those of the elements that are not inline. */
function lineStarts(elements) {
  const kind = kinds(elements);
  return new Set(elements.filter((el, i) => kind[i] !== "inline" && el.start > 0).map((el) => el.start));
}

/** Fill a pane with the text (a CodePointText), a line break before each block element and
 * the passages (code point offsets) as <mark> elements, one per line they cover; the text of
 * ``silent`` ranges (:func:`silentRanges`) is kept in the pane, hidden. */
function renderPane(pane, text, lines, passages, entry, silent = []) {
  pane.replaceChildren();
  const cuts = [...new Set([0, text.length, ...lines, ...passages.flat(), ...silent.flat()])]
    .filter((at) => at >= 0 && at <= text.length).sort((x, y) => x - y);
  for (let k = 0; k + 1 < cuts.length; k += 1) {
    const [start, end] = [cuts[k], cuts[k + 1]];
    if (lines.has(start)) pane.append(document.createElement("br"));
    let piece = document.createTextNode(text.slice(start, end));
    if (silent.some(([s, e]) => s <= start && end <= e)) {
      const hidden = document.createElement("span");
      hidden.hidden = true;
      hidden.append(piece);
      piece = hidden;
    }
    if (!passages.some(([s, e]) => s <= start && end <= e)) { pane.append(piece); continue; }
    const mark = document.createElement("mark");
    mark.dataset.start = String(start);
    mark.dataset.end = String(end);
    mark.append(piece);
    pane.append(mark);
  }
  if (entry !== null && entry !== undefined) {
    const mark = [...pane.querySelectorAll("mark")].find(
      (m) => Number(m.dataset.start) <= entry && entry < Number(m.dataset.end));
    if (mark) { mark.classList.add("entry"); mark.title = "best entry point"; }
  }
}

function verdict(judgement) {
  if (!judgement) return "not adjudicated";
  if (judgement.status !== "done") return judgement.status === "unseen" ? "not seen" : "in progress";
  return judgement.relevant ? `relevant, ${judgement.passages.length} passage(s)` : "not relevant";
}

/** The selection inside ``pane`` as code point offsets [start, end), or null (the pane's
 * text content is the document's text: line breaks hold no text). */
function selectedRange(pane, text) {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!pane.contains(range.startContainer) || !pane.contains(range.endContainer)) return null;
  const offset = (node, at) => {
    const before = document.createRange();
    before.setStart(pane, 0);
    before.setEnd(node, at);
    return before.toString().length;
  };
  const start = text.toCp(offset(range.startContainer, range.startOffset));
  const end = text.toCp(offset(range.endContainer, range.endOffset));
  return end > start ? [start, end] : null;
}

/** Scroll `pane` so that its text at UTF-16 offset `at` is a few lines from its top. */
function scrollPaneTo(pane, at) {
  const walker = document.createTreeWalker(pane, NodeFilter.SHOW_TEXT);
  let seen = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (seen + node.data.length > at) {
      const range = document.createRange();
      range.setStart(node, at - seen);
      range.setEnd(node, Math.min(node.data.length, at - seen + 1));
      const rect = range.getBoundingClientRect();
      pane.scrollTop += rect.top - pane.getBoundingClientRect().top - 3 * rect.height;
      return;
    }
    seen += node.data.length;
  }
}

async function judgementPage() {
  const pane = document.getElementById("pane-view");
  try {
    const [content, judgement] = await Promise.all([getJSON(data.content), getJSON(data.judgement)]);
    const text = new CodePointText(content.text);
    renderPane(pane, text, lineStarts(content.elements), judgement.passages,
      judgement.best_entry_point, silentRanges(text, content.elements));
    say("judgement-summary", `${verdict(judgement)}, version ${judgement.version}` +
      (judgement.updated ? `, saved ${judgement.updated}` : ""));
  } catch (failure) {
    say("judgement-summary", `could not be loaded: ${failure.message}`);
  }
  pane.setAttribute("aria-busy", "false");
  document.body.dataset.ready = "true";
}

async function adjudicatePage() {
  const [content, a, b] = await Promise.all(
    [getJSON(data.content), getJSON(data.judgement_a), getJSON(data.judgement_b)]);
  let result = await getJSON(data.judgement_result);
  const text = new CodePointText(content.text);
  const lines = lineStarts(content.elements);
  const silent = silentRanges(text, content.elements);
  const panes = {
    a: document.getElementById("pane-a"), b: document.getElementById("pane-b"),
    result: document.getElementById("pane-result"),
  };
  let editing = result.status === "done" ? result.passages.map((p) => [...p]) : [];
  const show = () => {
    renderPane(panes.result, text, lines, editing, result.status === "done" ? result.best_entry_point : null, silent);
    say("verdict-result", result.status === "done" ? verdict(result) : "not adjudicated");
  };
  renderPane(panes.a, text, lines, a.passages, a.best_entry_point, silent);
  renderPane(panes.b, text, lines, b.passages, b.best_entry_point, silent);
  say("verdict-a", verdict(a));
  say("verdict-b", verdict(b));
  show();
  // every pane opens at the first disagreement: the first character highlighted by one
  // assessor only (else the first best entry point that differs)
  const only = (ps, others) => others.reduce((left, p) => subtractPassage(left, p),
    mergePassages(ps));
  const starts = [...only(a.passages, b.passages), ...only(b.passages, a.passages)]
    .map(([x]) => x);
  let differs = starts.length > 0 ? Math.min(...starts) : null;
  if (differs === null && a.best_entry_point !== b.best_entry_point) {
    differs = Math.min(...[a.best_entry_point, b.best_entry_point].filter((p) => p !== null));
  }
  if (differs !== null && Number.isFinite(differs)) {
    for (const pane of Object.values(panes)) scrollPaneTo(pane, text.toU16(differs));
  }
  document.querySelector(".side-by-side")?.setAttribute("data-first-difference",
    differs === null ? "" : String(differs));
  // scrolling one pane scrolls the others to the same share of the text
  for (const pane of Object.values(panes)) {
    pane.addEventListener("scroll", () => {
      const share = pane.scrollTop / Math.max(1, pane.scrollHeight - pane.clientHeight);
      for (const other of Object.values(panes)) {
        if (other !== pane && Math.abs(other.scrollTop - share * (other.scrollHeight - other.clientHeight)) > 2) {
          other.scrollTop = share * (other.scrollHeight - other.clientHeight);
        }
      }
    });
  }
  const editRange = (apply) => {
    const range = selectedRange(panes.result, text) || selectedRange(panes.a, text) || selectedRange(panes.b, text);
    if (!range) { say("adjudicate-message", "Select text in a pane first."); return; }
    editing = apply(range);
    renderPane(panes.result, text, lines, editing, null, silent);
    say("verdict-result", "edited, not saved");
    say("adjudicate-message", "Edited: save the edit to keep it.");
  };
  // added text is whole words without white space at its edges, as on the document page
  document.getElementById("edit-add")?.addEventListener("click", () => editRange((r) => {
    const snapped = snapToWords(text, r[0], r[1], lines);
    return snapped === null ? editing : mergePassages([...editing, snapped]);
  }));
  document.getElementById("edit-remove")?.addEventListener("click", () => editRange((r) => subtractPassage(editing, r)));
  document.getElementById("edit-clear")?.addEventListener("click", () => {
    editing = [];
    renderPane(panes.result, text, lines, editing, null, silent);
    say("verdict-result", "edited, not saved");
  });
  for (const button of document.querySelectorAll("button[data-choice]")) {
    button.addEventListener("click", async () => {
      const choice = button.dataset.choice;
      const body = { choice, a: data.a, b: data.b };
      if (choice === "edit") {
        body.passages = editing;
        // the adjudicated best entry point stays where it is while it lies in the edit
        const entry = result.status === "done" ? result.best_entry_point : null;
        body.best_entry_point = entry !== null && entry !== undefined
          && editing.some(([s, e]) => s <= entry && entry < e) ? entry : null;
      }
      const response = await api("PUT", data.adjudicate, body);
      if (!response.ok) { say("adjudicate-message", await errorMessage(response)); return; }
      result = await response.json();
      editing = result.passages.map((p) => [...p]);
      show();
      say("adjudicate-message", `Saved as the adjudicated judgement (version ${result.version}).`);
    });
  }
  document.querySelector(".side-by-side")?.setAttribute("aria-busy", "false");
  document.body.dataset.ready = "true";
}

function adjudicationList() {
  const button = document.getElementById("accept-agreed");
  button?.addEventListener("click", async () => {
    if (!window.confirm(button.dataset.confirm)) return;
    const response = await api("POST", data.accept, { a: data.a, b: data.b, threshold: data.threshold });
    if (!response.ok) { say("adjudicate-message", await errorMessage(response)); return; }
    const done = await response.json();
    say("adjudicate-message", `${done.adjudicated.length} agreed article(s) adjudicated as ${done.a} judged them.`);
  });
}

if (page === "admin") adminPage();
else if (page === "adjudicate") adjudicationList();
else if (page === "judgement") judgementPage();
else if (page === "adjudicate-doc") {
  adjudicatePage().catch((failure) => say("adjudicate-message", `The document could not be loaded: ${failure.message}`));
}
