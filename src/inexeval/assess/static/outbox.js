// One outbox for the whole app: the changes of a document page that the server has not yet
// acknowledged are kept in the browser (localStorage), one entry per page visit:
//
//   inexeval:<user>:outbox:<visit id> = { doc_api, url, file, version, base, pending, alive,
//                                          conflicts? }
//
// `pending` are the queued judgements (whole states, oldest first), `version` the server
// version the first one was made on and `base` the judgement at that version. The page that
// made an entry owns it while it is open (`alive` is renewed every few seconds, and set to 0
// when the page is left); an entry whose page is gone is sent by any page of the app as soon
// as the server answers (on load, when the browser comes back online, and every few seconds
// while some are waiting), the server merging it into newer versions
// (inexeval/assess/merge.py). A true conflict is not decided here: the entry waits, and the
// banner links to its document, whose page asks the assessor.

import { mergeJudgement } from "./merge.js";

export const ALIVE_EVERY = 3000;
const ORPHAN_AFTER = 10000;
const RETRY_EVERY = 5000;

const prefix = (user) => `inexeval:${user}:outbox:`;

/** A new entry key for one visit of a document page. */
export function visitKey(user) {
  const id = (crypto.randomUUID?.() || `${Date.now()}-${Math.random()}`).replace(/[^\w-]/g, "");
  return `${prefix(user)}${id}`;
}

/** The visit id of an entry key, sent with each change the visit makes (with the change's
 * place among the visit's, `sequence`): the server merges a visit's change from the visit's
 * own newest save (whose answer may have been lost), so that the seconds the visit counted
 * are counted once, and drops a late copy of an older change. */
export function visitOf(key) {
  return key.slice(key.lastIndexOf(":") + 1).slice(0, 64);
}

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

/** Store an entry (or remove it when nothing is pending); false when storage refused it. */
export function writeEntry(key, entry) {
  try {
    if (entry === null || entry.pending.length === 0) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(entry));
  } catch {
    return false;
  } finally {
    showBanner();
  }
  return true;
}

/** Every entry of the user's outbox as [key, entry], oldest first. */
export function entries(user) {
  const found = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (key === null || !key.startsWith(prefix(user))) continue;
    const entry = read(key);
    if (entry && Array.isArray(entry.pending) && entry.pending.length > 0) found.push([key, entry]);
  }
  return found.sort((a, b) => (a[1].created || 0) - (b[1].created || 0));
}

/** Whether the page that made an entry is gone (left, closed or crashed). */
export function orphaned(entry, now = Date.now()) {
  return !entry.alive || entry.alive < now - ORPHAN_AFTER;
}

const content = (j) => ({
  status: j.status, passages: j.passages, best_entry_point: j.best_entry_point,
  exhaustivity: j.exhaustivity || {}, values: j.values || {}, seconds: j.seconds,
});

/**
 * The queued states after `sent` moved onto `answer`, the server's merge of `sent` with
 * changes made elsewhere: each keeps its own change since the one before it (its change wins
 * where both changed a value: it is the assessor's later act).
 */
export function rebase(sent, rest, answer) {
  let before = sent;
  let onto = content(answer);
  return rest.map((next) => {
    const { merged } = mergeJudgement(before, next, onto, true);
    before = next;
    onto = {
      ...merged, seconds: merged.seconds ?? next.seconds,
      visit: next.visit, sequence: next.sequence,
    };
    return onto;
  });
}

let context = null;

/** Send one orphaned entry, its queued states in order; resolves to "saved", "offline",
 * "login", "conflict" or "refused". Only one page sends an entry at a time (a Web Lock). */
async function send(key) {
  const attempt = async () => {
    let entry = read(key);
    while (entry !== null && entry.pending.length > 0) {
      if (entry.conflicts) return "conflict";
      const sending = entry.pending[0];
      let response;
      try {
        response = await context.api("PUT", entry.doc_api, { ...sending, version: entry.version });
      } catch {
        return "offline";
      }
      if (response.status >= 500 || response.status === 429) return "offline";
      if (response.status === 401) return "login";
      const answer = await response.json().catch(() => ({}));
      if (response.status === 409) {
        entry.conflicts = answer.conflicts?.length ? answer.conflicts : ["version"];
        writeEntry(key, entry);
        return "conflict";
      }
      if (!response.ok) {
        context.refused.push(`${entry.file}: ${answer.error || response.status}`);
        writeEntry(key, null);
        return "refused";
      }
      const rest = entry.pending.slice(1);
      entry = { ...entry, version: answer.version, base: content(answer),
        pending: answer.merged ? rebase(sending, rest, answer) : rest };
      writeEntry(key, entry);
    }
    return "saved";
  };
  if (!navigator.locks) return attempt();
  return navigator.locks.request(key, { ifAvailable: true },
    (lock) => (lock === null ? "offline" : attempt()));
}

let timer = null;
let sending = false;

/** Send every orphaned entry the page may send (not those `keep` refuses). */
export async function flushOrphans() {
  if (context === null || sending) return;
  sending = true;
  let waiting = false;
  try {
    for (const [key, entry] of entries(context.user)) {
      if (!orphaned(entry) || entry.conflicts || !context.mine(entry)) continue;
      const outcome = await send(key);
      if (outcome === "saved") context.saved();
      if (outcome === "offline" || outcome === "login") {
        waiting = true;
        context.offline = outcome;
        break;
      }
    }
    if (!waiting) context.offline = null;
  } finally {
    sending = false;
    showBanner();
  }
  clearTimeout(timer);
  if (entries(context.user).some(([, e]) => orphaned(e) && !e.conflicts)) {
    timer = setTimeout(flushOrphans, RETRY_EVERY);
  }
}

/** The banner: how many changes are not saved yet, and the documents waiting for a decision. */
export function showBanner() {
  if (context === null) return;
  let banner = document.getElementById("outbox");
  if (banner === null) {
    banner = document.createElement("div");
    banner.id = "outbox";
    banner.setAttribute("role", "status");
    banner.setAttribute("aria-live", "polite");
    document.querySelector("header.bar")?.after(banner);
  }
  const found = entries(context.user);
  const unsaved = found.reduce((sum, [, e]) => sum + e.pending.length, 0)
    + context.extra();
  const conflicted = found.filter(([, e]) => e.conflicts);
  const parts = [];
  if (unsaved > 0) {
    const why = context.offline === "login" ? "log in again to send them"
      : "kept in this browser and sent as soon as the server answers";
    parts.push(`${unsaved} change${unsaved === 1 ? "" : "s"} not saved yet: ${why}.`);
  }
  const nodes = [];
  if (parts.length > 0) nodes.push(parts.join(" "));
  for (const [, e] of conflicted) {
    const link = document.createElement("a");
    link.href = e.url;
    link.textContent = e.file;
    nodes.push(" A change to ", link, " conflicts with a newer version: open it to decide.");
  }
  for (const message of context.refused) nodes.push(` Refused by the server: ${message}.`);
  banner.replaceChildren(...nodes);
  banner.hidden = nodes.length === 0;
  banner.dataset.unsaved = String(unsaved);
  document.body.dataset.unsaved = String(unsaved);
}

/**
 * Start the outbox on a page: `api(method, url, body)` sends a request with the CSRF token;
 * `extra()` counts changes the page holds but has not stored yet; `mine(entry)` says which
 * orphans this page may send (a document page adopts those of its own document itself);
 * `saved()` is called when an entry has been sent.
 */
export function startOutbox({
  user, api, extra = () => 0, mine = () => true, saved = () => {},
}) {
  if (!user) return;
  context = { user, api, extra, mine, saved, refused: [], offline: null };
  window.addEventListener("storage", (event) => {
    if (event.key === null || event.key.startsWith(prefix(user))) showBanner();
  });
  window.addEventListener("online", () => flushOrphans());
  showBanner();
  flushOrphans();
}
