// Highlighting from the keyboard: the document takes the focus (Tab, or a click) and shows a
// caret; the arrow keys move it (Left/Right by word, Up/Down by line, Home/End to the line's
// edges), Shift+arrows extend the selection from where it was; h then highlights the selection
// (whole words, white space at its edges left out), u unhighlights, b sets the best entry
// point at the caret. The selection is the browser's own (Selection.modify), so what is shown
// is what h saves.

const MOVES = {
  ArrowLeft: ["backward", "word"], ArrowRight: ["forward", "word"],
  ArrowUp: ["backward", "line"], ArrowDown: ["forward", "line"],
  Home: ["backward", "lineboundary"], End: ["forward", "lineboundary"],
};

/**
 * Start the keyboard caret of `doc` (the document's element) drawn inside `wrap`. After
 * Shift+↓ or Shift+↑, `clamp(sel, [node, offset], forward)` may pull the selection's focus
 * back (to the edge of the paragraph it left; `node`, `offset`: the focus before the key).
 * `head()` is the height of the sticky bar above the text, which the caret never hides under.
 */
export function startCaret(doc, wrap, { clamp = () => {}, head = () => 0 } = {}) {
  doc.tabIndex = 0;
  doc.setAttribute("role", "document");
  doc.setAttribute("aria-label", "Document text: arrow keys move the caret, Shift and arrow "
    + "keys select, h highlights, b sets the best entry point");
  const marker = document.createElement("span");
  marker.id = "caret-marker";
  marker.hidden = true;
  marker.setAttribute("aria-hidden", "true");
  wrap.append(marker);

  const inside = (node) => node !== null && doc.contains(node);
  const firstText = () => {
    const walker = document.createTreeWalker(doc, NodeFilter.SHOW_TEXT,
      (node) => (/\S/.test(node.data) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP));
    return walker.nextNode();
  };
  const lastText = () => {
    const walker = document.createTreeWalker(doc, NodeFilter.SHOW_TEXT,
      (node) => (/\S/.test(node.data) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP));
    let last = null;
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) last = node;
    return last;
  };
  /** A selection whose anchor is in the document and whose focus ran out of it (a word or
   * line past the last one goes on into the side panel; the next key then started again at
   * the top) has its focus pulled back to the document's edge: its last letter going
   * forward, its first going backward. */
  const pullBack = (sel) => {
    if (sel.rangeCount === 0 || !inside(sel.anchorNode) || inside(sel.focusNode)) return;
    const whole = document.createRange();
    whole.selectNodeContents(doc);
    if (whole.comparePoint(sel.focusNode, sel.focusOffset) > 0) {
      const node = lastText();
      if (node !== null) sel.extend(node, node.data.search(/\s*$/));
    } else {
      const node = firstText();
      if (node !== null) sel.extend(node, node.data.search(/\S/));
    }
  };
  /** Put the caret in the document when the selection is elsewhere (or nowhere). */
  const ensure = () => {
    const sel = window.getSelection();
    pullBack(sel);
    if (sel.rangeCount > 0 && inside(sel.focusNode)) return sel;
    const node = firstText();
    if (node === null) return null;
    sel.collapse(node, node.data.search(/\S/));
    return sel;
  };
  const draw = () => {
    const sel = window.getSelection();
    if (document.activeElement !== doc || sel.rangeCount === 0 || !inside(sel.focusNode)) {
      marker.hidden = true;
      return;
    }
    const range = document.createRange();
    range.setStart(sel.focusNode, sel.focusOffset);
    const rects = range.getClientRects();
    const rect = rects.length > 0 ? rects[0] : range.getBoundingClientRect();
    if (rect.height === 0 && rect.width === 0 && rect.top === 0) {
      marker.hidden = true;
      return;
    }
    const box = wrap.getBoundingClientRect();
    marker.hidden = false;
    marker.style.left = `${rect.left - box.left}px`;
    marker.style.top = `${rect.top - box.top}px`;
    marker.style.height = `${Math.max(rect.height, 14)}px`;
  };

  /** Scroll the focus of `sel` into view, clear of the sticky bar (a paragraph taller than
   * the window has its caret line shown, not its first line). */
  const reveal = (sel) => {
    if (sel.rangeCount === 0 || !inside(sel.focusNode)) return;
    const range = document.createRange();
    range.setStart(sel.focusNode, sel.focusOffset);
    const rects = range.getClientRects();
    const rect = rects.length > 0 ? rects[0] : range.getBoundingClientRect();
    if (rect.height === 0 && rect.top === 0) {
      sel.focusNode.parentElement?.scrollIntoView({ block: "nearest" });
      return;
    }
    const margin = Math.max(rect.height, 16);
    const top = head() + margin;
    const bottom = window.innerHeight - margin;
    if (rect.top < top) window.scrollBy({ top: rect.top - top });
    else if (rect.bottom > bottom) window.scrollBy({ top: rect.bottom - bottom });
  };

  doc.addEventListener("focus", () => {
    ensure();
    draw();
  });
  doc.addEventListener("blur", draw);
  // a click beside the text (the page's margin around it) puts the browser's caret in the
  // text without focusing it: the keys then did nothing; the text takes the focus
  wrap.addEventListener("click", () => {
    const sel = window.getSelection();
    if (document.activeElement === doc || sel.rangeCount === 0 || !inside(sel.focusNode)) return;
    doc.focus({ preventScroll: true });
    draw();
  });
  document.addEventListener("selectionchange", draw);
  doc.addEventListener("keydown", (event) => {
    const move = MOVES[event.key];
    if (move === undefined || event.ctrlKey || event.metaKey || event.altKey) return;
    const sel = ensure();
    if (sel === null) return;
    event.preventDefault();
    const before = [sel.focusNode, sel.focusOffset];
    sel.modify(event.shiftKey ? "extend" : "move", ...move);
    if (!inside(sel.focusNode)) {
      // moved out of the document: a caret stays where it was, a selection ends at the edge
      if (event.shiftKey) pullBack(sel);
      else sel.collapse(...before);
    }
    if (event.shiftKey && move[1] === "line") clamp(sel, before, move[0] === "forward");
    reveal(sel);
    draw();
  });
  return { draw, reveal };
}
