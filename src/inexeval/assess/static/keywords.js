// The assessor's keywords: matched by word stem, or by a regular expression written /like this/.
//
// The stem is a small English suffix-stripping rule (no dependency: the Snowball stemmer would
// be one more package for the browser and the server to agree on): lower case, a trailing
// "'s" dropped, then the first of the suffixes below that leaves at least 3 letters replaced,
// then a trailing "e" dropped and a doubled final consonant made single (running -> run). So
// evaluate, evaluates, evaluated, evaluating, evaluation and evaluations share "evaluat";
// passage and passages "passag"; query and queries "query". Words it misses (retrieval and
// retrieve) can be added one by one, or matched with a regular expression: /retriev\w*/.

const SUFFIXES = [
  ["izations", "ize"], ["ization", "ize"], ["ational", "ate"], ["ations", "ate"],
  ["ation", "ate"], ["ments", ""], ["ment", ""], ["nesses", ""], ["ness", ""], ["ings", ""],
  ["ing", ""], ["ies", "y"], ["ied", "y"], ["es", ""], ["ed", ""], ["ly", ""], ["s", ""],
];

/** The stem of a word (see the module comment). */
export function stem(word) {
  let w = word.toLowerCase().replace(/['’]s$/u, "");
  for (const [suffix, replacement] of SUFFIXES) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3
      && !(suffix === "s" && (w.endsWith("ss") || w.endsWith("us") || w.endsWith("is")))) {
      w = w.slice(0, w.length - suffix.length) + replacement;
      break;
    }
  }
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  if (w.length > 3 && /([^aeiouylsz])\1$/u.test(w)) w = w.slice(0, -1);
  return w;
}

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

const WORD = /[\p{L}\p{N}_]+(?:['’][\p{L}]+)?/gu;

/**
 * The [start, end) code-point offsets of every word of `text` (a CodePointText) whose stem is a
 * keyword's stem, and of every match of the /regular expression/ keywords; a word never runs
 * across `breaks` (the edges of block elements). Sorted.
 */
export function findKeywords(text, keywords, breaks = new Set()) {
  const stems = new Set();
  const patterns = [];
  for (const keyword of keywords) {
    const pattern = keywordPattern(keyword);
    if (pattern !== null) patterns.push(pattern);
    else for (const word of keyword.match(WORD) || []) stems.add(stem(word));
  }
  const found = [];
  if (stems.size > 0) {
    for (const match of text.text.matchAll(WORD)) {
      const start = text.toCp(match.index);
      const end = text.toCp(match.index + match[0].length);
      let from = start;
      for (let at = start + 1; at <= end; at += 1) {
        if (at === end || breaks.has(at)) {
          if (stems.has(stem(text.slice(from, at)))) found.push([from, at]);
          from = at;
        }
      }
    }
  }
  for (const pattern of patterns) {
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
