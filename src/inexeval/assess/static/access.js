// For screen readers: the document's highlighted passages as a text list (the highlights
// themselves are CSS Custom Highlights, which assistive technology does not announce). The
// list is visually hidden, lives in the side panel and says each passage in full, in order.

/** Draw the list of `passages` ([start, end) in code points) of `text` (a CodePointText). */
export function drawPassageText(text, passages) {
  let section = document.getElementById("passage-text");
  if (section === null) {
    section = document.createElement("section");
    section.id = "passage-text";
    section.className = "visually-hidden";
    section.setAttribute("aria-labelledby", "passage-text-title");
    const title = document.createElement("h2");
    title.id = "passage-text-title";
    const list = document.createElement("ol");
    section.append(title, list);
    document.querySelector("aside.side")?.append(section);
  }
  const count = passages.length;
  section.querySelector("h2").textContent = count === 0 ? "No highlighted text"
    : `Highlighted text: ${count} passage${count === 1 ? "" : "s"}`;
  section.querySelector("ol").replaceChildren(...passages.map(([start, end]) => {
    const li = document.createElement("li");
    li.textContent = text.slice(start, end).replace(/\s+/g, " ").trim();
    li.dataset.start = String(start);
    li.dataset.end = String(end);
    return li;
  }));
}

/** Forced colours (Windows high contrast) are on. */
export const forcedColours = window.matchMedia("(forced-colors: active)");

/**
 * In forced colours, boxes around `ranges` drawn in a layer of `wrap` (the positioned box of
 * the document): Chromium paints every CSS Custom Highlight there with the one system
 * Highlight background, so passages get a solid outline and keywords a dashed one to tell
 * them apart. Out of forced colours the layer is empty.
 */
export function drawOutlines(kind, ranges, wrap) {
  let layer = document.getElementById(`outlines-${kind}`);
  if (layer === null) {
    layer = document.createElement("div");
    layer.id = `outlines-${kind}`;
    layer.className = `outlines outlines-${kind}`;
    layer.setAttribute("aria-hidden", "true");
    wrap.append(layer);
  }
  if (!forcedColours.matches) {
    layer.replaceChildren();
    return;
  }
  const box = wrap.getBoundingClientRect();
  const boxes = [];
  for (const range of ranges) {
    for (const rect of range.getClientRects()) {
      if (rect.width < 1) continue;
      const mark = document.createElement("span");
      mark.style.left = `${rect.left - box.left}px`;
      mark.style.top = `${rect.top - box.top}px`;
      mark.style.width = `${rect.width}px`;
      mark.style.height = `${rect.height}px`;
      boxes.push(mark);
    }
  }
  layer.replaceChildren(...boxes);
}
