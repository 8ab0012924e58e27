// The INEX 2005 rules on the document page (highlight mode): each row of the elements panel
// named for people with its XPath in a tooltip, inferred values marked as such, too small
// refused where a whole passage lies inside, and the rules panel's log of what the last
// change reset. The rules themselves are in rules.js; assess.js calls these. Document text
// only enters the page as DOM text nodes.

import { readable, resetMessage, wholePassage } from "./rules.js";

/** The name of an element for people ("Section 2 › ¶ 3"), the path when it has none. */
export function nameOf(names, path) {
  return names.get(path) ?? path;
}

/**
 * Mark a row of the elements panel: `label` (the span that showed the path) gets the name and
 * the path as its tooltip; an inferred value says what forces it; the too-small button is
 * disabled, with the reason, when the element holds a whole highlighted passage.
 */
export function decorateRow(li, label, path, { names, inferred, element, passages }) {
  label.textContent = nameOf(names, path);
  label.title = path;
  label.classList.add("name");
  if (path in inferred) {
    const cause = inferred[path];
    const note = document.createElement("span");
    note.className = "inferred-note";
    note.textContent = cause === "" ? "inferred: inline, never asked"
      : `inferred from ${nameOf(names, cause)}`;
    note.title = cause === "" ? "inline or short elements are too small" : cause;
    li.classList.add("inferred");
    li.dataset.inferred = cause;
    label.after(" ", note);
  }
  const whole = element ? wholePassage(element, passages) : null;
  const small = li.querySelector(".scale button[data-value='?']");
  if (small && whole !== null) {
    small.setAttribute("aria-disabled", "true");
    small.title = "Not too small: it holds a whole highlighted passage";
    small.setAttribute("aria-label", `${nameOf(names, path)}: too small is not possible, it `
      + "holds a whole highlighted passage");
  }
}

const SPAN = /\[(\d+), (\d+)\)/g;

/** Problem lines for people: element paths replaced by names, and with `quote(start, end)`
 * a passage's offsets by its first words. */
export function readableProblems(lines, names, quote = null) {
  return lines.map((line) => {
    const named = readable(line, names);
    return quote === null ? named
      : named.replace(SPAN, (_, s, e) => `“${quote(Number(s), Number(e))}”`);
  });
}

/** Show what the last change did in the rules panel's log (newest first, at most 8 lines)
 * and return the one-line notice for the assessor, or null when nothing was reset. */
export function logResets(resets, names, skipped = [], quote = null) {
  const log = document.getElementById("rules-log");
  const lines = [
    ...readableProblems(resets.map((r) => resetMessage(r, names)), names, quote),
    ...skipped.map((p) => `${nameOf(names, p)} holds a whole passage: not too small, assess it`),
  ];
  if (lines.length === 0) return null;
  if (log) {
    for (const line of [...lines].reverse()) {
      const li = document.createElement("li");
      li.textContent = line;
      log.prepend(li);
    }
    while (log.children.length > 8) log.lastElementChild.remove();
    document.getElementById("rules-log-empty")?.setAttribute("hidden", "");
  }
  const head = resets.length > 0
    ? `${resets.length === 1 ? "One value was" : `${resets.length} values were`} reset by the `
      + "2005 rules: "
    : "";
  return head + lines.join("; ");
}
