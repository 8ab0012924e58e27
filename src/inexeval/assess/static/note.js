// The assessor's note on a document for the organiser (GET|PUT .../note): a flag, "unsure" or
// "broken document", and a comment. A flag is saved when chosen, the comment when the box is
// left (or with Ctrl+Enter, or the button); the status says whether the server has the note.
// A note the server did not receive (offline, the server down) is sent again every few seconds
// and when the browser is back online; one it refused says why. Leaving the page with a note not
// saved asks first.

const RETRY_EVERY = 5000;

/**
 * Start the note control `root` (the #note section) on the note at `url`; `api(method, url,
 * body)` sends a request with the CSRF token, `errorMessage(response)` reads a refusal.
 * Returns `{ focus, unsaved }`: `focus()` puts the focus in the comment, `unsaved()` says
 * whether the note shown differs from the one the server has.
 */
export function startNote(root, url, { api, errorMessage }) {
  const flags = [...root.querySelectorAll('input[name="note-flag"]')];
  const comment = root.querySelector("#note-comment");
  const status = root.querySelector("#note-status");
  let saved = null; // the note the server has, {flag, comment}; null until loaded
  let sending = false;
  let retry = null; // the next attempt after the server did not answer
  // nothing to change before the note is loaded (a locked topic's stays disabled)
  const fieldset = root.querySelector("fieldset");
  const locked = fieldset.disabled;
  fieldset.disabled = true;

  const shown = () => ({
    flag: flags.find((f) => f.checked)?.value || null, comment: comment.value.trim(),
  });
  const same = (a, b) => a.flag === b.flag && a.comment === b.comment;
  const unsaved = () => saved !== null && !same(saved, shown());
  const say = (text, state) => {
    status.textContent = text;
    root.dataset.state = state;
  };
  const show = (note) => {
    for (const f of flags) f.checked = f.value === (note.flag || "");
    comment.value = note.comment;
  };

  /** Send the note shown until the server has it (a change made meanwhile is sent next). */
  const save = async () => {
    if (saved === null || sending) return;
    sending = true;
    try {
      for (let note = shown(); !same(saved, note); note = shown()) {
        say("Saving the note…", "saving");
        const response = await api("PUT", url, note).catch(() => null);
        if (response === null || response.status >= 500 || response.status === 429) {
          say("Note not saved: the server does not answer. It is sent again when the "
            + "connection is back.", "unsaved");
          clearTimeout(retry);
          retry = setTimeout(save, RETRY_EVERY);
          return;
        }
        if (!response.ok) {
          const why = await errorMessage(response);
          say(`Note not saved: ${why}`, "unsaved");
          return;
        }
        const answer = await response.json();
        saved = { flag: answer.flag, comment: answer.comment };
      }
      say(saved.flag || saved.comment ? "Note saved." : "", "saved");
    } finally {
      sending = false;
    }
  };

  for (const f of flags) f.addEventListener("change", save);
  comment.addEventListener("blur", save);
  root.querySelector("#note-save").addEventListener("click", save);
  root.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && event.target === comment) {
      event.preventDefault();
      save();
    } else if (event.key === "Escape") {
      event.preventDefault();
      save();
      document.getElementById("doc")?.focus();
    }
  });
  window.addEventListener("online", save);
  window.addEventListener("beforeunload", (event) => {
    if (unsaved()) {
      event.preventDefault();
      event.returnValue = "";
    }
  });

  (async () => {
    const response = await api("GET", url);
    if (!response.ok) throw new Error(await errorMessage(response));
    const note = await response.json();
    saved = { flag: note.flag, comment: note.comment };
    show(saved);
    fieldset.disabled = locked;
    say(saved.flag || saved.comment ? "Note saved." : "", "saved");
  })().catch((error) => say(`The note could not be loaded: ${error.message}`, "error"));

  return { focus: () => comment.focus(), unsaved };
}
