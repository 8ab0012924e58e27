// `/` searches inside the document: every hit highlighted, the current one in its own colour
// and scrolled into view; Enter / Shift+Enter in the box (or ] and [ outside it) go to the
// next / previous hit, Escape closes the search. Case is ignored; offsets are code points.

/** Where `query` occurs in `text` (a CodePointText), case ignored, as [start, end) pairs. */
export function findAll(text, query) {
  const needle = query.toLowerCase();
  if (needle.length === 0) return [];
  const hay = text.text.toLowerCase();
  // lower-casing keeps the length of nearly every string; if not, search the original
  const source = hay.length === text.text.length ? hay : text.text;
  const hits = [];
  for (let at = source.indexOf(needle); at >= 0; at = source.indexOf(needle, at + 1)) {
    hits.push([text.toCp(at), text.toCp(at + needle.length)]);
  }
  return hits;
}

/**
 * The search of a document page: `text()` gives the CodePointText, `rangeOf(start, end)` a
 * DOM Range, `before` the element the search bar is put in front of. Returns
 * { open, next, previous, active }.
 */
export function startFind({ text, rangeOf, before }) {
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
  hint.textContent = "Enter: next, Shift+Enter: previous, Esc: close";
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
    hits = text() === null ? [] : findAll(text(), input.value);
    current = hits.length > 0 ? 0 : -1;
    show();
    say();
    if (hits.length > 0) go(0);
  };
  const close = () => {
    bar.hidden = true;
    input.value = "";
    hits = [];
    current = -1;
    show();
    say();
    document.getElementById("doc")?.focus?.();
  };
  input.addEventListener("input", search);
  bar.addEventListener("submit", (event) => event.preventDefault());
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      go(current + (event.shiftKey ? -1 : 1));
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
