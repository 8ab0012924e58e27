// The document's font size and line width, chosen in the toolbar and kept per assessor (in
// the browser's storage under the user's name): the same reading settings on every document.

const SIZES = [0.9, 1.05, 1.2, 1.4, 1.7]; // rem; 1.05 is the page's own
const WIDTHS = [["narrow", "Narrow", "36rem"], ["medium", "Medium", "48rem"],
  ["wide", "Wide", "64rem"], ["full", "Full", "none"]];

/** Add the controls before `before` (in the toolbar) for the document element `doc`. */
export function startReading(user, doc, before) {
  const key = `inexeval:${user}:reading`;
  let kept = {};
  try {
    kept = JSON.parse(localStorage.getItem(key) || "{}") || {};
  } catch {
    kept = {};
  }
  let size = Number.isInteger(kept.size) && kept.size >= 0 && kept.size < SIZES.length
    ? kept.size : 1;
  let width = WIDTHS.some(([name]) => name === kept.width) ? kept.width : "medium";

  const group = document.createElement("span");
  group.className = "reading";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Reading: font size and line width");
  const smaller = document.createElement("button");
  smaller.type = "button";
  smaller.id = "font-smaller";
  smaller.textContent = "A−";
  smaller.title = "Smaller text";
  smaller.setAttribute("aria-label", "Smaller text");
  const larger = document.createElement("button");
  larger.type = "button";
  larger.id = "font-larger";
  larger.textContent = "A+";
  larger.title = "Larger text";
  larger.setAttribute("aria-label", "Larger text");
  const label = document.createElement("label");
  label.textContent = "Line ";
  const select = document.createElement("select");
  select.id = "line-width";
  for (const [name, shown] of WIDTHS) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = shown;
    select.append(option);
  }
  label.append(select);
  group.append(smaller, larger, " ", label);
  before.before(group);

  const apply = () => {
    doc.style.fontSize = `${SIZES[size]}rem`;
    doc.style.maxWidth = WIDTHS.find(([name]) => name === width)[2];
    select.value = width;
    smaller.setAttribute("aria-disabled", String(size === 0));
    larger.setAttribute("aria-disabled", String(size === SIZES.length - 1));
    doc.dataset.fontSize = String(SIZES[size]);
    try {
      localStorage.setItem(key, JSON.stringify({ size, width }));
    } catch {
      // storage disabled: the settings hold for this page
    }
  };
  smaller.addEventListener("click", () => { size = Math.max(0, size - 1); apply(); });
  larger.addEventListener("click", () => { size = Math.min(SIZES.length - 1, size + 1); apply(); });
  select.addEventListener("change", () => { width = select.value; apply(); });
  apply();
}
