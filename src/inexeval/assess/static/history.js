// The history panel: the last 20 changes of the login session (GET /api/history), each with
// a link back to its document. Text only (textContent): file names never become HTML.

let panel = null;
let getJSON = null;

const clock = (seconds) => new Date(seconds * 1000).toLocaleTimeString([], {
  hour: "2-digit", minute: "2-digit", second: "2-digit",
});

/** Fetch the history and draw it (nothing happens when the panel is not on the page). */
export async function refreshHistory() {
  if (panel === null) return;
  let changes = [];
  try {
    changes = (await getJSON("/api/history")).changes;
  } catch {
    return; // offline: the panel keeps what it showed
  }
  const list = panel.querySelector("ol");
  list.replaceChildren(...changes.map((row) => {
    const li = document.createElement("li");
    const time = document.createElement("time");
    time.dateTime = new Date(row.at * 1000).toISOString();
    time.textContent = clock(row.at);
    const link = document.createElement("a");
    link.href = row.url;
    link.textContent = row.file;
    if (row.url === window.location.pathname) link.setAttribute("aria-current", "page");
    li.append(time, " ", link, ` (topic ${row.topic}): ${row.change}`);
    return li;
  }));
  panel.querySelector(".history-empty").hidden = changes.length > 0;
  panel.dataset.count = String(changes.length);
}

/** Put the panel into `parent` (before `before`, if given), open or folded. */
export function startHistory(fetchJSON, parent, { before = null, open = true } = {}) {
  if (parent === null) return;
  getJSON = fetchJSON;
  panel = document.createElement("details");
  panel.id = "history";
  panel.open = open;
  const summary = document.createElement("summary");
  const title = document.createElement("h2");
  title.textContent = "Your last changes";
  summary.append(title);
  const empty = document.createElement("p");
  empty.className = "history-empty";
  empty.textContent = "No change saved in this session yet.";
  panel.append(summary, empty, document.createElement("ol"));
  parent.insertBefore(panel, before);
  refreshHistory();
}
