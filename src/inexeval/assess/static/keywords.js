// The assessor's keywords: matched by word stem, or by a regular expression written /like this/.
//
// Stems are Snowball's English (Porter2) stemmer, run by the server (inexeval/assess/stems.py,
// the snowballstemmer package): GET {document}/keywords gives the [start, end) code-point spans
// of the words whose stem is a keyword's, so evaluate, evaluated, evaluating and evaluation
// (all "evalu") match. Regular expressions run here, in the assessor's own browser.

import { isWordChar } from "./judge.js";

/** A keyword written /pattern/ (flags s and m allowed; case is always ignored) as a RegExp; null for a plain word,
 * or for a pattern that is no valid regular expression. */
export function keywordPattern(keyword) {
  const match = /^\/(.+)\/([a-z]*)$/su.exec(keyword.trim());
  if (match === null) return null;
  try {
    // any case, whole text; s (dot matches a line end) and m kept when given
    return new RegExp(match[1], `giu${match[2].replace(/[^sm]/g, "")}`);
  } catch {
    return null;
  }
}

/** Whether a keyword can be used (a word, or a valid /regular expression/). */
export function validKeyword(keyword) {
  const k = keyword.trim();
  if (k === "" || k.length > 100) return false;
  if (k.startsWith("/") && k.length > 1) return keywordPattern(k) !== null;
  return true;
}

/**
 * The [start, end) code-point offsets to colour in `text` (a CodePointText): the server's
 * `stemSpans` that are whole words by the page's rule (a word never runs across `breaks`, the
 * edges of block elements; the server offers every run of pieces between element edges) and
 * every match of the /regular expression/ keywords. Sorted.
 */
export function findKeywords(text, keywords, breaks = new Set(), stemSpans = []) {
  const edge = (at) => breaks.has(at) || !isWordChar(text.charAt(at - 1))
    || !isWordChar(text.charAt(at));
  const found = stemSpans.filter(([start, end]) => {
    if (!edge(start) || !edge(end)) return false;
    for (let at = start + 1; at < end; at += 1) if (breaks.has(at)) return false;
    return true;
  });
  for (const keyword of keywords) {
    const pattern = keywordPattern(keyword);
    if (pattern === null) continue;
    for (const match of text.text.matchAll(pattern)) {
      if (match[0].length === 0) continue;
      found.push([text.toCp(match.index), text.toCp(match.index + match[0].length)]);
    }
  }
  return found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/**
 * The keyword editor of the document page, put in `parent` before `before`: the keywords as
 * removable chips and a box to add one. `keywords()` gives the current list; `save(list)`
 * keeps a new one (resolving to the list kept, or throwing with a message).
 */
export function startKeywordEditor({ parent, before = null, keywords, save }) {
  const section = document.createElement("section");
  section.id = "keyword-editor";
  section.setAttribute("aria-labelledby", "keyword-editor-title");
  const title = document.createElement("h2");
  title.id = "keyword-editor-title";
  title.textContent = "Keywords";
  const hint = document.createElement("p");
  hint.className = "hint";
  hint.textContent = "Coloured in every document of this topic: a word matches its other forms "
    + "(evaluate, evaluation); /a regular expression/ matches what it says.";
  const list = document.createElement("ul");
  list.className = "chips";
  const form = document.createElement("form");
  const label = document.createElement("label");
  label.textContent = "Add ";
  const input = document.createElement("input");
  input.id = "keyword-input";
  input.placeholder = "word or /regex/";
  input.maxLength = 100;
  label.append(input);
  const add = document.createElement("button");
  add.type = "submit";
  add.textContent = "Add";
  const message = document.createElement("span");
  message.id = "keyword-message";
  message.setAttribute("role", "status");
  form.append(label, " ", add, " ", message);
  section.append(title, hint, list, form);
  parent.insertBefore(section, before);

  const keep = async (next) => {
    try {
      await save(next);
      message.textContent = "";
    } catch (error) {
      message.textContent = error.message;
    }
    draw();
  };
  const draw = () => {
    list.replaceChildren(...keywords().map((word) => {
      const li = document.createElement("li");
      li.append(word, " ");
      const remove = document.createElement("button");
      remove.type = "button";
      remove.textContent = "×";
      remove.setAttribute("aria-label", `Remove keyword ${word}`);
      remove.addEventListener("click", () => keep(keywords().filter((w) => w !== word)));
      li.append(remove);
      return li;
    }));
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const word = input.value.trim();
    if (!validKeyword(word)) {
      message.textContent = word.startsWith("/") ? "Not a valid regular expression."
        : "A keyword has 1 to 100 characters.";
      return;
    }
    input.value = "";
    if (!keywords().includes(word)) keep([...keywords(), word]);
  });
  draw();
  return draw;
}
