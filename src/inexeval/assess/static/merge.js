// The three-way merge of a judgement, as the server does it (inexeval/assess/merge.py), for
// the page: changes still queued, and undo steps, made on a state the server has since merged
// with another tab's changes are moved onto the merged state before they are sent.

import { mergePassages, subtractPassage } from "./judge.js";

/** The characters of `a` not in `b`, as sorted, merged passages. */
export function subtractPassages(a, b) {
  let left = mergePassages(a);
  for (const cut of mergePassages(b)) left = subtractPassage(left, cut);
  return left;
}

/** (theirs ∪ (mine − base)) − (base − mine): passages as sets of characters. */
export function mergePassageSets(base, mine, theirs) {
  const added = subtractPassages(mine, base);
  const removed = subtractPassages(base, mine);
  return subtractPassages(mergePassages([...theirs, ...added]), removed);
}

/** JSON with the keys of every object sorted (equal values, equal text). */
const canonical = (value) => JSON.stringify(value ?? null, (_, v) => (
  v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
const same = (a, b) => canonical(a) === canonical(b);

/**
 * Mine's change since `base` applied to `theirs`. A value both changed differently is a
 * conflict: listed in `conflicts` and taken from mine when `preferMine` (the assessor chose to
 * keep their change), else from theirs. Returns { merged, conflicts }.
 */
export function mergeJudgement(base, mine, theirs, preferMine = false) {
  const conflicts = [];
  const scalar = (name, b, m, t) => {
    if (same(m, b) || same(m, t)) return t;
    if (same(t, b)) return m;
    conflicts.push(name);
    return preferMine ? m : t;
  };
  const mapping = (name, b = {}, m = {}, t = {}) => {
    const out = {};
    for (const key of [...new Set([...Object.keys(b), ...Object.keys(m), ...Object.keys(t)])]
      .sort()) {
      const value = scalar(`${name} ${key}`, b[key], m[key], t[key]);
      if (value !== undefined && value !== null) out[key] = value;
    }
    return out;
  };
  const merged = {
    passages: mergePassageSets(base.passages || [], mine.passages || [], theirs.passages || []),
    best_entry_point: scalar("best_entry_point", base.best_entry_point, mine.best_entry_point,
      theirs.best_entry_point) ?? null,
    exhaustivity: mapping("exhaustivity", base.exhaustivity, mine.exhaustivity,
      theirs.exhaustivity),
    values: mapping("values", base.values, mine.values, theirs.values),
  };
  let status;
  if (mine.status === base.status || mine.status === theirs.status) status = theirs.status;
  else if (theirs.status === base.status) status = mine.status;
  else status = "in-progress";
  const mineContent = [mergePassages(mine.passages || []), mine.best_entry_point ?? null,
    mine.exhaustivity || {}, mine.values || {}];
  const content = [merged.passages, merged.best_entry_point, merged.exhaustivity, merged.values];
  if (status === "done" && mine.status === "done" && !same(content, mineContent)) {
    status = "in-progress";
  }
  merged.status = status;
  if ("seconds" in mine || "seconds" in theirs) {
    merged.seconds = (theirs.seconds || 0) + Math.max(0, (mine.seconds || 0) - (base.seconds || 0));
  }
  return { merged, conflicts };
}

/** The passages with the white space at their edges left out (an unhighlight of a word next
 * to a space leaves no passage starting or ending with one); empty ones dropped. */
export function trimPassages(text, passages) {
  const out = [];
  for (let [s, e] of passages) {
    while (s < e && /\s/u.test(text.charAt(s))) s += 1;
    while (e > s && /\s/u.test(text.charAt(e - 1))) e -= 1;
    if (s < e) out.push([s, e]);
  }
  return out;
}
