// `/` searches inside the document: every hit highlighted, the current one in its own colour
// and scrolled into view; ↓ / ↑ in the box (or ] and [ outside it) go to the next / previous
// hit. Enter selects the current hit and gives the document the focus (h highlights it, p
// extends it to its paragraph); Escape closes the search with the caret at the hit. Case is
// ignored; offsets are code points.

/** Where `query` occurs in `text` (a CodePointText), case ignored, as [start, end) pairs;
 * none that touches a `hidden` range (code points: text kept in the page, not shown). */
export function findAll(text, query, hidden = []) {
  const needle = query.toLowerCase();
  if (needle.length === 0) return [];
  const hay = text.text.toLowerCase();
  // lower-casing keeps the length of nearly every string; if not, search the original
  const source = hay.length === text.text.length ? hay : text.text;
  const hits = [];
  for (let at = source.indexOf(needle); at >= 0; at = source.indexOf(needle, at + 1)) {
    hits.push([text.toCp(at), text.toCp(at + needle.length)]);
  }
  return hits.filter(([s, e]) => !hidden.some(([hs, he]) => s < he && hs < e));
}

/**
 * The search of a document page: `text()` gives the CodePointText, `rangeOf(start, end)` a
 * DOM Range, `before` the element the search bar is put in front of, `place(start, end)` puts
 * the document's selection on [start, end) (a caret when they are equal) and focuses it;
 * `hidden()` the ranges of text kept in the page but not shown, never a hit.
 * Returns { open, next, previous, active }.
 */
export function startFind({ text, rangeOf, before, place, hidden = () => [] }) {
  const bar = document.createElement("form");
  bar.id = "find";
  bar.setAttribute("role", "search");
  bar.hidden = true;
  const label = document.createElement("label");
  label.textContent = "Find in the document ";
  const input = document.createElement("input");
  input.type = "search";
  input.id = "find-input";
  input.setAttribute("aria-keyshortcuts", "/");
  label.append(input);
  const count = document.createElement("span");
  count.id = "find-count";
  count.setAttribute("role", "status");
  const hint = document.createElement("span");
  hint.className = "hint";
  hint.textContent = "↓ ↑: next, previous hit; Enter: select it; Esc: caret at it";
  bar.append(label, " ", count, " ", hint);
  before.before(bar);

  let hits = [];
  let current = -1;
  const show = () => {
    if (!("highlights" in CSS)) return;
    if (hits.length === 0) {
      CSS.highlights.delete("search");
      CSS.highlights.delete("search-current");
    } else {
      CSS.highlights.set("search", new Highlight(...hits.map(([s, e]) => rangeOf(s, e))));
      CSS.highlights.set("search-current", new Highlight(rangeOf(...hits[current])));
    }
  };
  const say = () => {
    if (input.value === "") count.textContent = "";
    else if (hits.length === 0) count.textContent = "no hit";
    else count.textContent = `${current + 1} of ${hits.length}`;
    bar.dataset.current = String(current);
    bar.dataset.hits = String(hits.length);
  };
  const go = (index) => {
    if (hits.length === 0) return;
    current = (index + hits.length) % hits.length;
    show();
    say();
    const rect = rangeOf(...hits[current]).getBoundingClientRect();
    const top = (document.querySelector(".doc-head")?.offsetHeight || 0) + 40;
    if (rect.top < top || rect.bottom > window.innerHeight - 40) {
      window.scrollBy({ top: rect.top - window.innerHeight / 2 });
    }
  };
  const search = () => {
    hits = text() === null ? [] : findAll(text(), input.value, hidden());
    current = hits.length > 0 ? 0 : -1;
    show();
    say();
    if (hits.length > 0) go(0);
  };
  /** Close the search; the hit it was at becomes the selection (`select`) or the caret. */
  const close = (select = false) => {
    const hit = current >= 0 ? hits[current] : null;
    bar.hidden = true;
    input.value = "";
    hits = [];
    current = -1;
    show();
    say();
    if (hit !== null) place(hit[0], select ? hit[1] : hit[0]);
    else document.getElementById("doc")?.focus?.();
  };
  input.addEventListener("input", search);
  bar.addEventListener("submit", (event) => event.preventDefault());
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      close(true);
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp"
      || (event.key === "Enter" && event.shiftKey)) {
      event.preventDefault();
      go(current + (event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
  });
  return {
    open: () => {
      bar.hidden = false;
      input.focus();
      input.select();
    },
    next: () => go(current + 1),
    previous: () => go(current - 1),
    active: () => hits.length > 0,
  };
}
