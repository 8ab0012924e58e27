// The assessment logic of the document page with no DOM in it: code-point text, passages,
// word snapping, the elements that hold highlighted text and what a passages-mode document
// still needs before it can be marked done (highlight mode's rules are in rules.js). Offsets are Unicode code points, ends exclusive, as in FOL
// qrels and the collection index (inexeval.collection); the DOM counts UTF-16 units, so
// CodePointText converts between the two.

const SURROGATE = /[\uD800-\uDFFF]/;
const WORD = /^[\p{L}\p{N}\p{M}_]$/u;
const SPACE = /^\s$/u;

/** A document's text indexed by code points, converting to and from UTF-16 units. */
export class CodePointText {
  constructor(text) {
    this.text = text;
    if (!SURROGATE.test(text)) {
      this.length = text.length;
      this.cpToU16 = null;
      this.u16ToCp = null;
      return;
    }
    const cpToU16 = [];
    const u16ToCp = new Int32Array(text.length + 1);
    let u = 0;
    for (const ch of text) {
      u16ToCp[u] = cpToU16.length;
      if (ch.length === 2) u16ToCp[u + 1] = cpToU16.length + 1;
      cpToU16.push(u);
      u += ch.length;
    }
    cpToU16.push(u);
    u16ToCp[u] = cpToU16.length - 1;
    this.length = cpToU16.length - 1;
    this.cpToU16 = Int32Array.from(cpToU16);
    this.u16ToCp = u16ToCp;
  }

  /** UTF-16 index of code-point offset `cp`. */
  toU16(cp) {
    return this.cpToU16 === null ? cp : this.cpToU16[cp];
  }

  /** Code-point offset of UTF-16 index `u` (the middle of a pair counts as after it). */
  toCp(u) {
    return this.u16ToCp === null ? u : this.u16ToCp[u];
  }

  /** The character at code-point offset `cp` ("" outside the text). */
  charAt(cp) {
    if (cp < 0 || cp >= this.length) return "";
    const u = this.toU16(cp);
    return String.fromCodePoint(this.text.codePointAt(u));
  }

  /** The text of code points [start, end). */
  slice(start, end) {
    return this.text.slice(this.toU16(start), this.toU16(end));
  }
}

export function isWordChar(ch) {
  return ch !== "" && WORD.test(ch);
}

/**
 * The most characters an edge of a selection is moved to reach its word's edge: a "word" runs
 * on through letters of inline elements with no blank between them (a table's cells, IEEE's
 * front matter), and one longer than this is no word an assessor meant; the edge stays where
 * the selection put it.
 */
export const SNAP_LIMIT = 24;

/** Letters of the scripts written without blanks between words (Chinese, Japanese, Thai...):
 * the browser steps through them word by word with a dictionary, so a selection's edge there
 * is a word's edge already (snapped to the next blank, it ran on over the whole sentence). */
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]$/u;

/**
 * Snap a selection [start, end) to whole words: leading and trailing white space is dropped,
 * then an edge that falls inside a word is moved to the word's edge (by at most SNAP_LIMIT
 * characters, else not at all; never inside unspaced scripts, see UNSPACED). `breaks` holds
 * offsets where a word ends whatever the characters (the edges of block elements: a heading's
 * last word and the next paragraph's first are two words even with no space between them).
 * Null when nothing is left.
 */
export function snapToWords(text, start, end, breaks = new Set()) {
  let s = Math.max(0, Math.min(start, end));
  let e = Math.min(text.length, Math.max(start, end));
  while (s < e && SPACE.test(text.charAt(s))) s += 1;
  while (e > s && SPACE.test(text.charAt(e - 1))) e -= 1;
  if (s >= e) return null;
  const inWord = (at) => {
    if (at <= 0 || at >= text.length || breaks.has(at)) return false;
    const [before, after] = [text.charAt(at - 1), text.charAt(at)];
    return isWordChar(before) && isWordChar(after)
      && !UNSPACED.test(before) && !UNSPACED.test(after);
  };
  let from = s;
  while (s - from < SNAP_LIMIT && inWord(from)) from -= 1;
  let to = e;
  while (to - e < SNAP_LIMIT && inWord(to)) to += 1;
  return [inWord(from) ? s : from, inWord(to) ? e : to];
}

/** The start of the word holding offset `at` (`at` itself between words, in a word longer
 * than SNAP_LIMIT or in unspaced text), as snapToWords finds it. */
export function wordStart(text, at, breaks = new Set()) {
  const s = Math.max(0, Math.min(at, text.length));
  if (s >= text.length) return s;
  return snapToWords(text, s, s + 1, breaks)?.[0] ?? s;
}

/** The [start, end) offsets of every whole-word occurrence of the words, any case. */
export function findWords(text, words, breaks = new Set()) {
  if (words.length === 0) return [];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(?:${escaped.join("|")})`, "giu");
  const found = [];
  for (const match of text.text.matchAll(pattern)) {
    const start = text.toCp(match.index);
    const end = text.toCp(match.index + match[0].length);
    const edge = (at) => breaks.has(at) || !isWordChar(text.charAt(at - 1))
      || !isWordChar(text.charAt(at));
    if (edge(start) && edge(end)) found.push([start, end]);
  }
  return found;
}

/** Sorted passages, touching or overlapping ones merged (inexeval.assess.model.merge_passages). */
export function mergePassages(passages) {
  const merged = [];
  for (const [s, e] of [...passages].sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
    if (e <= s) continue;
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

export function addPassage(passages, passage) {
  return mergePassages([...passages, passage]);
}

/** The passages with [start, end) taken out of them, sorted and merged (a cut inside a
 * passage leaves its two parts in document order). */
export function subtractPassage(passages, [start, end]) {
  const out = [];
  for (const [s, e] of passages) {
    if (e <= start || s >= end) {
      out.push([s, e]);
      continue;
    }
    if (s < start) out.push([s, start]);
    if (e > end) out.push([end, e]);
  }
  return mergePassages(out);
}

/** The passage holding offset `at` (a caret inside it), or null. */
export function passageAt(passages, at) {
  return passages.find(([s, e]) => s <= at && at < e) ?? null;
}

/** Highlighted characters inside [start, end). */
export function highlightedIn(passages, start, end) {
  let total = 0;
  for (const [s, e] of passages) total += Math.max(0, Math.min(e, end) - Math.max(s, start));
  return total;
}

/** The elements (in document order) whose text contains highlighted characters. */
export function elementsHoldingHighlights(elements, passages) {
  return elements.filter((el) => el.end > el.start && highlightedIn(passages, el.start, el.end) > 0);
}

/** What keeps a passages-mode judgement (INEX 2006-2010) from being done: a relevant document
 * has a best entry point, a non-relevant one none (inexeval.assess.rules, passages mode). */
export function bestEntryPointProblems(judgement) {
  const found = [];
  const point = judgement.best_entry_point;
  if (judgement.passages.length > 0 && point === null) {
    found.push("a relevant document needs a best entry point");
  }
  if (judgement.passages.length === 0 && point !== null) {
    found.push("a best entry point on a document with nothing highlighted");
  }
  return found;
}

// ---------------------------------------------------------------- element kinds

const HEADING = new Set(["st", "atl", "ti", "title", "name", "h", "h1", "h2", "h3", "h4", "h5",
  "h6", "hdr", "hdr1", "hdr2", "fgc", "caption"]);
const LIST = new Set(["list", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9", "la", "lb",
  "lc", "ld", "le", "numeric-list", "numberlist", "normallist", "definitionlist", "ul", "ol",
  "dl", "ilist"]);
const ITEM = new Set(["li", "item", "entry", "dd", "dt", "bb"]);
const BLOCK = new Set(["article", "fm", "bdy", "body", "bm", "sec", "section", "ss1", "ss2",
  "ss3", "subsection", "p", "p1", "p2", "p3", "ip1", "ip2", "ip3", "ip4", "ip5", "ilrj", "abs",
  "abstract", "fig", "tbl", "table", "row", "tr", "bib", "bibl", "app", "header", "ack", "au",
  "div", "blockquote", "pre", "vt", "dialog", "proof", "theorem", "edintro", "kwd", "sgmlmath",
  "figw"]);

export function tagOf(path) {
  const step = path.slice(path.lastIndexOf("/") + 1);
  const bracket = step.indexOf("[");
  const name = bracket < 0 ? step : step.slice(0, bracket);
  return name.slice(name.indexOf(":") + 1).toLowerCase();
}

export function parentPath(path) {
  const cut = path.lastIndexOf("/");
  return cut > 0 ? path.slice(0, cut) : null;
}

/** Tags of an entry read as one line whatever its parts are: IEEE's bibliography entry (`bb`:
 * authors `au`, title `atl`, journal `ti`, each a block or a heading elsewhere). */
const ONE_LINE = new Set(["bb"]);

/** Tags of elements about the document rather than of it (summary.py's METADATA_TAGS): the
 * Wikipedia collections' `<conversionwarning>0</conversionwarning>` before the body. */
export const METADATA_TAGS = new Set(["conversionwarning"]);

/** Whether an element is metadata that says nothing (a conversion warning of 0): the page
 * and the organiser's panes keep its text, hidden, so that offsets stay the document's. */
export function isSilent(text, el) {
  return METADATA_TAGS.has(tagOf(el.path)) && text.slice(el.start, el.end).trim() === "0";
}

/** The code point ranges [start, end) of the silent elements (:func:`isSilent`). */
export function silentRanges(text, elements) {
  return elements.filter((el) => isSilent(text, el)).map((el) => [el.start, el.end]);
}

/** The CSS class of an element: heading, list, item, block or inline (block if it holds a
 * block; inline inside an entry read as one line). */
export function kinds(elements) {
  const kind = elements.map((el) => {
    const tag = tagOf(el.path);
    const above = el.path.split("/").slice(1, -1);
    if (above.some((step) => ONE_LINE.has(tagOf(`/${step}`)))) return "inline";
    if (HEADING.has(tag)) return "heading";
    if (LIST.has(tag)) return "list";
    if (ITEM.has(tag)) return "item";
    if (BLOCK.has(tag)) return "block";
    return "inline";
  });
  const index = new Map(elements.map((el, i) => [el.path, i]));
  for (let i = elements.length - 1; i >= 0; i -= 1) {
    const up = index.get(parentPath(elements[i].path));
    if (up !== undefined && kind[i] !== "inline" && kind[up] === "inline") kind[up] = "block";
  }
  return kind;
}
