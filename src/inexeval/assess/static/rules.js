// The INEX 2005 rules of highlight mode, as X-Rai enforced them, with no DOM in it: the same
// rules, in the same words and order, as inexeval.assess.rules (settle, inferred, refusals,
// too_small_rest and the highlight problems); a browser test runs one table of cases through
// this module (the page) and through the server's POST .../check.
//
// Exhaustivity "2" (highly), "1" (partly), "?" (too small, the lowest); an element is at least
// as exhaustive as any element inside it; an element holding a whole highlighted passage is
// not too small; inline elements (el.inline, sent by the server) are never asked and are "?".

import { bestEntryPointProblems, elementsHoldingHighlights } from "./judge.js";

export const TOO_SMALL = "?";
export const HIGHEST = "2";
const RANKS = { "?": 0, 1: 1, 2: 2 };

const rank = (code) => (code === undefined || code === null ? -1 : RANKS[code] ?? -1);

export function ancestors(path) {
  const found = [];
  let cut = path.lastIndexOf("/");
  while (cut > 0) {
    path = path.slice(0, cut);
    found.push(path);
    cut = path.lastIndexOf("/");
  }
  return found;
}

export function parentOf(path) {
  const cut = path.lastIndexOf("/");
  return cut > 0 ? path.slice(0, cut) : null;
}

const isAncestorOrSelf = (above, below) => below === above || below.startsWith(`${above}/`);

/** The elements (paths, document order) whose text intersects a highlighted passage. */
export function holding(elements, passages) {
  return elementsHoldingHighlights(elements, passages).map((el) => el.path);
}

/** The first passage lying wholly inside [start, end), or null. */
export function wholePassage(el, passages) {
  return passages.find(([s, e]) => el.start <= s && e <= el.end) ?? null;
}

const cannotBeTooSmall = (path, [s, e]) =>
  `${path} contains the whole highlighted passage [${s}, ${e}), so it cannot be too small (?)`;

class Structure {
  constructor(elements) {
    this.elements = elements;
    this.byPath = new Map(elements.map((el, i) => [el.path, { ...el, index: i }]));
  }

  has(path) { return this.byPath.has(path); }

  inline(path) { return this.byPath.get(path)?.inline === true; }

  order(path) { return this.byPath.get(path).index; }

  sorted(paths) { return [...paths].sort((a, b) => this.order(a) - this.order(b)); }
}

const structures = new WeakMap();
function structureOf(elements) {
  let found = structures.get(elements);
  if (!found) {
    found = new Structure(elements);
    structures.set(elements, found);
  }
  return found;
}

/** The changed values the rules refuse (inexeval.assess.rules.refusals). */
export function refusals(before, requested, elements, passages) {
  const st = structureOf(elements);
  const found = [];
  for (const [path, code] of Object.entries(requested)) {
    if (before[path] === code || !st.has(path) || st.inline(path)) continue;
    if (code === TOO_SMALL) {
      const whole = wholePassage(st.byPath.get(path), passages);
      if (whole !== null) found.push(cannotBeTooSmall(path, whole));
    }
  }
  return found;
}

/**
 * The exhaustivity after an assessor's change from `before` to `requested`, with the passages
 * of after the change (inexeval.assess.rules.settle, which documents each step). Returns
 * {exhaustivity, resets: [{path, before, after, reason}], inferred: {path: cause}} or
 * {refused: [messages]}.
 */
export function settle(before, requested, elements, passages) {
  const refused = refusals(before, requested, elements, passages);
  if (refused.length > 0) return { refused };
  const st = structureOf(elements);
  const held = holding(elements, passages);
  const heldSet = new Set(held);
  const values = new Map(st.sorted(Object.keys(requested).filter((p) => st.has(p)))
    .map((p) => [p, requested[p]]));
  const resets = new Map();
  const changed = st.sorted([...new Set([...Object.keys(before), ...Object.keys(requested)])]
    .filter((p) => st.has(p) && before[p] !== requested[p]));
  const changedSet = new Set(changed);
  // every change, the assessor's and then the rules' own, goes through the same rules
  const work = changed.map((path) => [path, before[path], values.get(path)]);
  const reset = (path, reason, after = null) => {
    const old = values.get(path);
    values.delete(path);
    if (after !== null) values.set(path, after);
    const first = resets.get(path);
    resets.delete(path);
    resets.set(path, { path, before: first ? first.before : old, after, reason });
    work.push([path, old, after ?? undefined]);
  };
  const inside = (path) => st.sorted([...values.keys()])
    .filter((d) => d !== path && isAncestorOrSelf(path, d));

  for (const path of st.sorted([...values.keys()])) {
    if (changedSet.has(path)) continue;
    if (!heldSet.has(path)) {
      reset(path, `${path} holds no highlighted text any more`);
    } else if (values.get(path) === TOO_SMALL && !st.inline(path)) {
      const whole = wholePassage(st.byPath.get(path), passages);
      if (whole !== null) {
        reset(path, `${path} now contains the whole highlighted passage [${whole[0]}, `
          + `${whole[1]}), so it cannot be too small (?)`);
      }
    }
  }
  let steps = 0;
  while (work.length > 0) {
    const [path, old, now] = work.shift();
    steps += 1;
    // changed again since (the later change is queued), or a runaway
    if (values.get(path) !== now || steps > 8 * elements.length + 8) continue;
    if (now === TOO_SMALL) {
      for (const below of inside(path)) {
        if (values.get(below) !== TOO_SMALL) {
          reset(below, `${path} is too small, so everything inside it is`, TOO_SMALL);
        }
      }
    } else if (old === TOO_SMALL) {
      for (const below of inside(path)) {
        if (values.get(below) === TOO_SMALL && !st.inline(below)) {
          reset(below, `${path} is no longer too small: assess what is inside it anew`);
        }
      }
    }
    if (now === "1") {
      for (const below of inside(path)) {
        if (rank(values.get(below)) > rank(now)) {
          reset(below, `${path} is now 1, less than this element inside it`);
        }
      }
      for (const above of ancestors(path)) {
        if (values.get(above) === TOO_SMALL) {
          reset(above, `${path} inside it is now 1, more than too small`);
        }
      }
    } else if (now === HIGHEST) {
      for (const above of ancestors(path)) {
        if (values.has(above) && values.get(above) !== HIGHEST) {
          reset(above, `${path} inside it is now 2`, HIGHEST);
        }
      }
    }
    if (rank(now) >= rank(old)) continue;
    for (const above of ancestors(path)) {
      const code = values.get(above);
      if (code === undefined || code === TOO_SMALL || st.inline(above) || changedSet.has(above)
        || !(rank(old) >= rank(code) && rank(code) > rank(now))) continue;
      if (!inside(above).some((d) => rank(values.get(d)) >= rank(code))) {
        reset(above, `${path} inside it was its only support for ${code} and is now `
          + `${now ?? "unknown"}`);
      }
    }
  }
  const exhaustivity = Object.fromEntries(values);
  const inferredNow = fill(exhaustivity, st, held);
  return { exhaustivity, resets: [...resets.values()], inferred: inferredNow };
}

function fill(values, st, held) {
  for (const path of held) {
    if (st.inline(path) && !(path in values)) values[path] = TOO_SMALL;
  }
  for (const path of held.filter((p) => values[p] === HIGHEST)) {
    for (const above of ancestors(path)) {
      if (st.has(above) && !(above in values)) values[above] = HIGHEST;
    }
  }
  const small = held.filter((p) => values[p] === TOO_SMALL);
  for (const path of held) {
    if (!(path in values) && small.some((s) => isAncestorOrSelf(s, path))) values[path] = TOO_SMALL;
  }
  return inferredValues(values, st.elements, held);
}

/** The values the rules force, each with its cause (inexeval.assess.rules.inferred). */
export function inferredValues(exhaustivity, elements, held) {
  const st = structureOf(elements);
  const causes = {};
  for (const path of held) {
    const code = exhaustivity[path];
    if (code === undefined) continue;
    if (st.inline(path) && code === TOO_SMALL) {
      causes[path] = "";
    } else if (code === HIGHEST) {
      const below = held.find((d) => d !== path && isAncestorOrSelf(path, d)
        && exhaustivity[d] === HIGHEST);
      if (below !== undefined) causes[path] = below;
    } else if (code === TOO_SMALL) {
      const above = ancestors(path).find((a) => exhaustivity[a] === TOO_SMALL);
      if (above !== undefined) causes[path] = above;
    }
  }
  return causes;
}

/** "?" for every child of `path` holding highlighted text with no value yet, except those
 * holding a whole passage (inexeval.assess.rules.too_small_rest): [requested, skipped]. */
export function tooSmallRest(exhaustivity, elements, passages, path) {
  const st = structureOf(elements);
  const requested = { ...exhaustivity };
  const skipped = [];
  for (const child of holding(elements, passages)) {
    if (parentOf(child) !== path || child in exhaustivity || st.inline(child)) continue;
    if (wholePassage(st.byPath.get(child), passages) !== null) skipped.push(child);
    else requested[child] = TOO_SMALL;
  }
  return [requested, skipped];
}

/** What keeps a highlight-mode judgement from being done (inexeval.assess.rules.problems),
 * without the best entry point's lines. */
export function exhaustivityProblems(judgement, elements) {
  const st = structureOf(elements);
  const exhaustivity = judgement.exhaustivity;
  const found = [];
  const held = holding(elements, judgement.passages);
  const heldSet = new Set(held);
  for (const path of held) { // an inline element is never asked (its value, if any, is "?")
    if (!(path in exhaustivity) && !st.inline(path)) {
      found.push(`${path} holds highlighted text but has no exhaustivity`);
    }
  }
  for (const path of Object.keys(exhaustivity)) {
    if (!heldSet.has(path)) found.push(`${path} has an exhaustivity but holds no highlighted text`);
  }
  for (const [path, code] of Object.entries(exhaustivity)) {
    if (code === TOO_SMALL && st.has(path) && !st.inline(path)) {
      const whole = wholePassage(st.byPath.get(path), judgement.passages);
      if (whole !== null) found.push(cannotBeTooSmall(path, whole));
    }
  }
  for (const [path, code] of Object.entries(exhaustivity)) {
    for (const above of ancestors(path)) {
      if (above in exhaustivity && rank(exhaustivity[above]) < rank(code)) {
        found.push(`${above} (${exhaustivity[above]}) is less exhaustive than ${path} (${code}) `
          + "inside it");
      }
    }
  }
  return found;
}

/** Everything that keeps a highlight-mode judgement from being done, in the server's words and
 * order (inexeval.assess.rules.problems). */
export function highlightProblems(judgement, elements) {
  return [...exhaustivityProblems(judgement, elements), ...bestEntryPointProblems(judgement)];
}

const PATH = /\/[^\s/,()[\]]+\[\d+\](?:\/[^\s/,()[\]]+\[\d+\])*/g;

/** A rule's message for people: each element path replaced by the element's name. */
export function readable(message, names) {
  return message.replace(PATH, (path) => names.get(path) ?? path);
}

/** One reset as the assessor is told it. */
export function resetMessage(reset, names) {
  const name = names.get(reset.path) ?? reset.path;
  const now = reset.after === null ? "to be assessed again" : `now ${reset.after}`;
  return `${name}: ${reset.before} reset, ${now} (${readable(reset.reason, names)})`;
}
