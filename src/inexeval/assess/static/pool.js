// The pool page's filter by status and search by name (file, title or first words), shown
// above the pool; `/` puts the cursor in the search box. Rows are hidden, never rebuilt.

const STATUSES = [
  ["all", "All documents"], ["waiting", "Not done"], ["unseen", "Unseen"],
  ["in-progress", "In progress"], ["done", "Done"], ["relevant", "Done, relevant"],
  ["non-relevant", "Done, non-relevant"],
];

/** Add the filter to the pool list `list`; returns a function telling whether a row shows. */
export function startPoolFilter(list) {
  const rows = [...list.querySelectorAll("[data-file]")];
  const form = document.createElement("form");
  form.className = "pool-filter";
  form.setAttribute("role", "search");
  form.addEventListener("submit", (event) => event.preventDefault());
  const statusLabel = document.createElement("label");
  statusLabel.textContent = "Show ";
  const status = document.createElement("select");
  status.id = "pool-status";
  for (const [value, name] of STATUSES) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = name;
    status.append(option);
  }
  statusLabel.append(status);
  const searchLabel = document.createElement("label");
  searchLabel.textContent = "Search ";
  const search = document.createElement("input");
  search.type = "search";
  search.id = "pool-search";
  search.placeholder = "name or words (key /)";
  search.setAttribute("aria-keyshortcuts", "/");
  searchLabel.append(search);
  const count = document.createElement("span");
  count.id = "pool-count";
  count.setAttribute("role", "status");
  form.append(statusLabel, " ", searchLabel, " ", count);
  list.before(form);

  const apply = () => {
    const wanted = status.value;
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const state = row.dataset.status;
      const statusOk = wanted === "all" || state === wanted
        || (wanted === "waiting" && (state === "unseen" || state === "in-progress"))
        || (wanted === "done" && (state === "relevant" || state === "non-relevant"));
      const haystack = row.textContent.toLowerCase();
      const show = statusOk && words.every((w) => haystack.includes(w));
      row.hidden = !show;
      if (show) shown += 1;
    }
    count.textContent = `${shown} of ${rows.length} shown`;
  };
  status.addEventListener("change", apply);
  search.addEventListener("input", apply);
  search.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      search.value = "";
      apply();
    }
    if (event.key === "Enter" || event.key === "Escape") {
      event.preventDefault();
      rows.find((row) => !row.hidden)?.querySelector("a").focus();
    }
  });
  document.addEventListener("keydown", (event) => {
    const t = event.target;
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey
      || t instanceof HTMLInputElement || t instanceof HTMLSelectElement) return;
    event.preventDefault();
    search.focus();
  });
  apply();
  return (row) => !row.hidden;
}
