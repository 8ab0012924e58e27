"""The self-contained HTML report (``inexeval report``, ``inexeval compare --format html``).

One file with its CSS, its figures (inline SVG, :mod:`inexeval.report.svg`) and a few lines of
vanilla JavaScript (sortable tables) inside: no request leaves the file, which a Content Security
Policy also enforces, so it can be mailed around and opened offline. Built with the standard
library (the report works from the core install); every string that comes from an input file
(run names, topic ids, measure names, paths) goes through :func:`html.escape`.

Its first lines say when it was made (:func:`report_date`; ``SOURCE_DATE_EPOCH`` fixes it, as
for reproducible builds), by which inexeval, over how many topics and under which averaging
rule, which tests and which correction ("none" when none); its last section lists every input
with its size and SHA-256 (:func:`inexeval.outputs.fingerprint`) and how many assessed topics
each run answers. At 1400 pixels nothing scrolls sideways (up to twenty runs): long names wrap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING

from inexeval.report import svg

if TYPE_CHECKING:
    from inexeval.comparison import Comparison
    from inexeval.meta.power import PowerResult

BETTER = "▲"
WORSE = "▼"
NEITHER = "·"

_KIND = {BETTER: "better", WORSE: "worse", NEITHER: "neither"}
_TITLE = {BETTER: "significantly better than the baseline",
          WORSE: "significantly worse than the baseline", NEITHER: "not significant"}

_CSS = """
:root { --ink:#1f2933; --muted:#52606d; --line:#d9e2ec; --soft:#f5f7fa; --accent:#0b4f8a;
        --win:#2e7d32; --loss:#c62828; }
* { box-sizing:border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,
       sans-serif; color:var(--ink); background:#eef2f6; }
header { background:var(--accent); color:#fff; padding:28px 0 22px; }
header h1 { margin:0 0 4px; font-size:26px; font-weight:600; }
header p { margin:0; opacity:.9; }
main, .wrap { max-width:1360px; margin:0 auto; padding:0 24px; }
main { padding-bottom:40px; }
section { background:#fff; border:1px solid var(--line); border-radius:8px; margin:22px 0;
          padding:18px 22px; }
h2 { margin:0 0 10px; font-size:19px; color:var(--accent); }
details { margin:8px 0; }
summary { cursor:pointer; font-weight:600; padding:4px 0; }
p.note { color:var(--muted); margin:6px 0 0; font-size:13px; }
table { border-collapse:collapse; font-variant-numeric:tabular-nums; font-size:14px; }
th, td { padding:5px 10px; border-bottom:1px solid var(--line); text-align:right;
         white-space:nowrap; }
th, td.text { white-space:normal; overflow-wrap:anywhere; }
th { min-width:4em; }
th { background:var(--soft); font-weight:600; }
th:first-child, td:first-child, td.text, th.text { text-align:left; }
p.header::first-letter { text-transform:uppercase; }
tbody tr:nth-child(even) { background:#fafbfc; }
tbody tr:hover { background:#eef6ff; }
td.best { font-weight:700; }
span.letter { display:inline-block; min-width:1.4em; color:var(--muted); font-weight:600; }
.baseline td { background:#fffbea; }
.mark-better { color:var(--win); font-weight:700; }
.mark-worse { color:var(--loss); font-weight:700; }
.mark-neither { color:#9aa5b1; }
.scroll { overflow-x:auto; max-height:560px; overflow-y:auto; }
.wide { overflow-x:auto; }
table.sortable th { cursor:pointer; user-select:none; position:sticky; top:0; }
table.sortable th::after { content:" ↕"; color:#9aa5b1; font-size:11px; }
table.sortable th[aria-sort=ascending]::after { content:" ▲"; color:var(--accent); }
table.sortable th[aria-sort=descending]::after { content:" ▼"; color:var(--accent); }
.figures { display:grid; grid-template-columns:repeat(auto-fit,minmax(440px,1fr)); gap:16px; }
figure { margin:0; }
figcaption { font-size:13px; color:var(--muted); margin-top:4px; }
svg.chart { width:100%; max-width:860px; height:auto; display:block; margin:0 auto; }
.figures.wide { grid-template-columns:1fr; }
.figures.wide svg.chart { max-width:none; }
table.details, table.per-topic { font-size:13px; }
table.details th, table.details td { padding:4px 7px; }
table.per-topic th, table.per-topic td { padding:3px 5px; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:2px 16px; margin:0;
           font-size:14px; }
dl.facts dt { color:var(--muted); }
dl.facts dd { margin:0; }
code.digest { font-size:12px; overflow-wrap:anywhere; }
table.inputs td:nth-child(2) { text-align:left; font-family:ui-monospace,monospace;
                               font-size:12px; white-space:normal; word-break:break-all; }
svg .plot-area { fill:#fff; stroke:#bcccdc; }
svg .grid { stroke:#e4e7eb; }
svg .axis, svg .zero { stroke:#52606d; }
svg text { font:11px system-ui,sans-serif; fill:#52606d; }
svg .axis-label { font-size:12px; fill:#1f2933; }
ul.legend { list-style:none; padding:0; margin:6px 0 0; display:flex; flex-wrap:wrap;
            gap:4px 16px; font-size:13px; }
.swatch { display:inline-block; width:28px; height:6px; margin-right:6px;
          vertical-align:middle; }
td.matrix { text-align:center; min-width:70px; }
pre { background:var(--soft); border:1px solid var(--line); border-radius:6px; padding:10px 12px;
      white-space:pre-wrap; word-break:break-all; font-size:13px; margin:6px 0; }
footer { color:var(--muted); font-size:12px; text-align:center; padding:0 0 28px; }
@media print {
  /* the whole report on paper: no scroll box, every folded table open, no figure cut */
  body { background:#fff; font-size:12px; }
  header { background:none; color:var(--ink); padding:0 0 8px; }
  main, .wrap { max-width:none; padding:0; }
  section { border:none; border-radius:0; padding:0; margin:14px 0; }
  .scroll, .wide { overflow:visible; max-height:none; }
  details::details-content { content-visibility:visible; display:block; }
  summary { list-style:none; }
  table.sortable th { position:static; }
  table.sortable th::after { content:none; }
  th, td { white-space:normal; }
  table.details, table.per-topic { font-size:10.5px; }
  tr, figure, ul.legend { break-inside:avoid; }
  .figures { display:block; }
  .figures figure { margin:0 0 12px; }
  svg.chart { max-width:100%; }
}
"""

_SORT_JS = """
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[column];
        var value = cell.getAttribute("data-value");
        return value === null ? cell.textContent : parseFloat(value);
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), order;
        if (typeof x === "number" && typeof y === "number") {
          if (isNaN(x) || isNaN(y)) { order = isNaN(x) - isNaN(y); return order; }
          order = x - y;
        } else {
          order = String(x).localeCompare(String(y), undefined, {numeric: true});
        }
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""

_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
           "img-src data:")
"""Nothing may be loaded from anywhere: the page is its own and only resource."""


@dataclass
class Curve:
    """One figure of curves: x, one series per run, axis labels and a caption."""

    title: str
    x: Sequence[float]
    series: Mapping[str, Sequence[float]]
    x_label: str
    y_label: str


@dataclass(frozen=True)
class InputFile:
    """One input of a report: what it is (``assessments``, ``run TREC2INEX``, ``collection``),
    its path as given, and its size in bytes and SHA-256 (None for standard input or a pipe)."""

    role: str
    path: str
    size: int | None = None
    sha256: str | None = None

    @classmethod
    def of(cls, role: str, path: str) -> InputFile:
        """The input with its size and digest read from the file (or folder)."""
        from inexeval.outputs import fingerprint

        found = fingerprint(path)
        return cls(role, path, *(found if found is not None else (None, None)))


def report_date() -> str:
    """When a report is made, in UTC to the minute; ``SOURCE_DATE_EPOCH`` (seconds since 1970,
    the reproducible-builds convention) gives a fixed date instead."""
    import os
    from datetime import datetime, timezone

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = (datetime.fromtimestamp(int(epoch), timezone.utc) if epoch.isascii() and
            epoch.isdigit() else datetime.now(timezone.utc))
    return when.strftime("%Y-%m-%d %H:%M UTC")


@dataclass
class Page:
    """What a report shows; every part but the title and the provenance is optional.

    ``means[measure][run]``; ``marks[(measure, run)]`` is :data:`BETTER`, :data:`WORSE` or
    absent; ``rows`` the comparison rows with the CSV columns of ``inexeval compare``;
    ``per_topic[measure][run][topic]``; ``differences[measure][run][topic]`` (run minus
    baseline); ``agreement[(measure_a, measure_b)]`` Kendall's tau between the rankings.
    """

    title: str
    command: str
    version: str
    subtitle: str = ""
    header: str = ""
    runs: Sequence[str] = ()
    measures: Sequence[str] = ()
    baseline: str | None = None
    legend: str = ""
    means: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    marks: Mapping[tuple[str, str], str] = field(default_factory=dict)
    rows: Sequence[Mapping[str, object]] = ()
    per_topic: Mapping[str, Mapping[str, Mapping[str, float | None]]] = field(
        default_factory=dict)
    differences: Mapping[str, Mapping[str, Mapping[str, float]]] = field(default_factory=dict)
    curves: Sequence[Curve] = ()
    agreement: Mapping[tuple[str, str], float] = field(default_factory=dict)
    inputs: Sequence[tuple[str, str, int]] = ()
    """Each run's name, file and number of topics with results."""
    main: str = ""
    """The measure whose per-topic table is open and whose differences are drawn."""
    digits: int = 4
    created: str = ""
    """When the report was made (:func:`report_date`)."""
    files: Sequence[InputFile] = ()
    """Every input: assessments, runs, collection."""
    averaging: str = ""
    """The number of topics and the averaging rule, in one line
    (:func:`inexeval.scores.describe_rule`)."""
    n_assessed: int = 0
    """The number of assessed topics (for each run's coverage)."""
    tests: Sequence[str] = ()
    correction: str = "none"
    alpha: float = 0.05
    letters: Mapping[str, str] = field(default_factory=dict)
    """All-pairs comparisons: each run's letter (:func:`~inexeval.report.comparison.run_letters`)."""
    beaten: Mapping[tuple[str, str], Sequence[str]] = field(default_factory=dict)
    """All-pairs comparisons: for each (measure, run), per test, the letters of the runs it is
    significantly better than."""
    meta: Sequence[Mapping[str, object]] = ()
    """``report --meta``: each measure's discriminative power, the keys of ``meta power
    --format json``'s ``summary`` (:meth:`inexeval.meta.power.PowerResult.summary`)."""
    asl_curves: Mapping[str, Sequence[float]] = field(default_factory=dict)
    """``report --meta``: each measure's ASL curve, its pairs' ASLs in increasing order."""
    meta_seed: int = 42
    """``report --meta``: the seed of the bootstrap replicates."""
    sections: Sequence[tuple[str, str, str]] = ()
    """Sections of their own, after the summary: (anchor, title, HTML body) (the report of
    chunkers: :mod:`inexeval.rag.report`)."""


def _value(value: object, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return escape(str(value))


def _cell(value: object, digits: int, shown: str | None = None) -> str:
    """A table cell; a number carries its exact value for sorting, text is left-aligned."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        data = f' data-value="{"NaN" if math.isnan(value) else repr(float(value))}"'
    elif value is None:
        data = ' data-value="NaN"'
    else:
        data = ' class="text"'
    return f"<td{data}>{_value(value, digits) if shown is None else shown}</td>"


def table_cell(value: object, digits: int) -> str:
    """A cell of a sortable table (a number carries its exact value)."""
    return _cell(value, digits)


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}"><h2>{escape(title)}</h2>{body}</section>'


def means_table(page: Page) -> str:
    """Runs x measures of the means, the baseline first, the best value of a measure bold and
    a marker on every value significantly better or worse than the baseline."""
    runs = sorted(page.runs, key=lambda r: r != page.baseline)
    head = "".join(f"<th>{escape(m)}</th>" for m in page.measures)
    best = {m: max((v for v in page.means.get(m, {}).values()
                    if v is not None and not math.isnan(v)), default=None)
            for m in page.measures}
    lines = []
    for run in runs:
        cells = []
        for m in page.measures:
            value = page.means.get(m, {}).get(run)
            mark = page.marks.get((m, run), "")
            shown = _value(value, page.digits)
            if mark:
                shown += " " + "".join(
                    f'<span class="mark-{_KIND[m]}" title="{_TITLE[m]}">{m}</span>' for m in mark)
            beaten = page.beaten.get((m, run))
            if beaten and any(beaten):
                shown += "<sup>" + "/".join(escape(letters) for letters in beaten) + "</sup>"
            bold = ' class="best"' if value is not None and value == best[m] else ""
            cells.append(f"<td{bold}>{shown}</td>")
        role = ' class="baseline"' if run == page.baseline else ""
        label = escape(run) + (" <small>(baseline)</small>" if run == page.baseline else "")
        if page.letters:
            label = f'<span class="letter">{escape(page.letters[run])}</span> {label}'
        lines.append(f"<tr{role}><td>{label}</td>{''.join(cells)}</tr>")
    note = f'<p class="note">{escape(page.legend)}</p>' if page.legend else ""
    return (f'<div class="wide"><table class="means"><thead><tr><th>run</th>{head}</tr>'
            f'</thead><tbody>{"".join(lines)}</tbody></table></div>{note}')


_DETAIL_COLUMNS = (("measure", "measure"), ("test", "test"), ("run", "run"),
                   ("baseline", "baseline"), ("n_topics", "n"), ("mean", "mean"),
                   ("baseline_mean", "baseline mean"), ("delta", "Δ"), ("p_value", "p"),
                   ("p_adjusted", "p adjusted"), ("ci_low", "95% CI of Δ"),
                   ("effect_size", "effect size"), ("wins", "wins / ties / losses"))


_TEXT_HEAD = ' class="text"'


def details_table(rows: Sequence[Mapping[str, object]], digits: int,
                  baseline: str | None = None) -> str:
    """Every comparison with its test, p-values, interval, effect size and wins/ties/losses
    (the baseline column only for comparisons of every pair of runs), and its achieved power
    when computed (``--power``)."""
    columns = [(k, label) for k, label in _DETAIL_COLUMNS if k != "baseline" or baseline is None]
    if any(isinstance(row.get("power"), float) and not math.isnan(row["power"])  # type: ignore[arg-type]
           for row in rows):
        columns.append(("power", "achieved power"))
    head = "".join(f'<th{_TEXT_HEAD if k in ("measure", "test", "run", "baseline") else ""}>'
                   f"{escape(label)}</th>" for k, label in columns)
    lines = []
    for row in rows:
        cells = []
        for key, _ in columns:
            if key == "ci_low":
                shown = f"[{_value(row.get('ci_low'), digits)}, {_value(row.get('ci_high'), digits)}]"
                cells.append(_cell(row.get("ci_low"), digits, shown=shown))
            elif key == "wins":
                shown = f"{row.get('wins')} / {row.get('ties')} / {row.get('losses')}"
                cells.append(_cell(row.get("wins"), digits, shown=shown))
            elif key in ("p_value", "p_adjusted"):
                p = row.get(key)
                small = isinstance(p, float) and p < 10.0 ** -digits
                cells.append(_cell(p, digits, shown=f"&lt;{10.0 ** -digits:.{digits}f}"
                                   if small else None))
            else:
                cells.append(_cell(row.get(key), digits))
        lines.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="scroll"><table class="sortable details"><thead><tr>{head}</tr>'
            f'</thead><tbody>{"".join(lines)}</tbody></table></div>')


def breakable(name: str) -> str:
    """``name`` escaped, with a line-break opportunity after each ``_``, ``-`` and ``.`` (so a
    narrow column header breaks a run's name between its parts)."""
    text = escape(name)
    for mark in ("_", "-", "."):
        text = text.replace(mark, f"{mark}<wbr>")
    return text


def per_topic_table(measure: str, values: Mapping[str, Mapping[str, float | None]],
                    baseline: str | None, digits: int) -> str:
    """Topics x runs of one measure, sortable by any column (click a header)."""
    runs = sorted(values, key=lambda r: r != baseline)
    topics = list(dict.fromkeys(t for run in runs for t in values[run]))
    head = "".join(f"<th>{breakable(run)}</th>" for run in runs)
    body = "".join(
        f'<tr><td>{escape(topic)}</td>'
        + "".join(_cell(values[run].get(topic), digits) for run in runs) + "</tr>"
        for topic in topics)
    return (f'<div class="scroll"><table class="sortable per-topic" '
            f'data-measure="{escape(measure)}"><thead><tr><th>topic</th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def agreement_table(measures: Sequence[str], tau: Mapping[tuple[str, str], float]) -> str:
    """The measure-agreement matrix: Kendall's tau between the rankings of the runs by two
    measures, blue for agreement, red for disagreement."""
    head = "".join(f"<th>{escape(m)}</th>" for m in measures)
    lines = []
    for a in measures:
        cells = []
        for b in measures:
            value = 1.0 if a == b else tau.get((a, b), tau.get((b, a), math.nan))
            shade = "" if math.isnan(value) else (
                f' style="background:hsla({210 if value >= 0 else 0},70%,50%,'
                f'{abs(value) * 0.45:.2f})"')
            cells.append(f'<td class="matrix"{shade}>{_value(value, 3)}</td>')
        lines.append(f"<tr><td>{escape(a)}</td>{''.join(cells)}</tr>")
    return (f'<table class="agreement"><thead><tr><th></th>{head}</tr></thead>'
            f'<tbody>{"".join(lines)}</tbody></table>')


def facts(page: Page) -> str:
    """When and by which inexeval the report was made, the topics and the averaging rule, the
    tests and the correction ("none" said when none), the assessments."""
    items = []
    if page.created:
        items.append(("made", page.created))
    items.append(("by", f"inexeval {page.version}"))
    if page.averaging:
        items.append(("topics", page.averaging))
    if page.tests:
        plural = "s" if len(page.tests) > 1 else ""
        items.append((f"test{plural}", (f"{', '.join(page.tests)}: paired, two-sided, "
                                        f"significant at p < {page.alpha:g}")))
        items.append(("correction", page.correction if page.correction != "none" else
                      "none (each p-value as the test gives it)"))
    assessments = [f for f in page.files if f.role == "assessments"]
    if assessments:
        items.append(("assessments", assessments[0].path))
    body = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items)
    return f'<dl class="facts">{body}</dl>'


def _size(size: int | None) -> str:
    if size is None:
        return "–"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit} ({size:,} bytes)"
    return f"{size} bytes"


def inputs_table(page: Page) -> str:
    """Every input with its size and SHA-256, and for each run the assessed topics it answers
    (out of :attr:`Page.n_assessed`)."""
    answered = {path: (name, n) for name, path, n in page.inputs}
    files = list(page.files) or [InputFile(f"run {name}", path) for name, path, _ in page.inputs]
    lines = []
    for item in files:
        found = answered.get(item.path) if item.role.startswith("run ") else None
        coverage = ""
        if found is not None:
            share = f" ({found[1] / page.n_assessed:.0%})" if page.n_assessed else ""
            coverage = (f"{found[1]} of {page.n_assessed}{share}" if page.n_assessed
                        else str(found[1]))
        digest = (f'<code class="digest">{escape(item.sha256)}</code>' if item.sha256
                  else "– (read from a pipe)" if item.size is None and item.path in ("-", "")
                  else "–")
        lines.append(f'<tr><td class="text">{breakable(item.role)}</td>'
                     f'<td class="text">{escape(item.path)}</td>'
                     f'<td data-value="{item.size if item.size is not None else "NaN"}">'
                     f"{_size(item.size)}</td>"
                     f'<td class="text">{digest}</td><td>{escape(coverage)}</td></tr>')
    return ('<div class="wide"><table class="inputs"><thead><tr><th class="text">input</th>'
            '<th class="text">file</th><th>size</th><th class="text">SHA-256</th>'
            "<th>assessed topics answered</th></tr></thead>"
            f'<tbody>{"".join(lines)}</tbody></table></div>')


def _figures(items: Sequence[str], wide: bool = False) -> str:
    return f'<div class="figures{" wide" if wide else ""}">{"".join(items)}</div>'


def curve_figures(curves: Sequence[Curve], averaging: str = "") -> str:
    """Figures of curves side by side, each captioned with its title and ``averaging``."""
    return _figures([_curve_figure(c, averaging) for c in curves])


def _curve_figure(curve: Curve, averaging: str = "") -> str:
    chart = svg.line_chart(curve.x, curve.series, x_label=curve.x_label, y_label=curve.y_label)
    # the averaging once: a title that says it already (a report's curves) is not followed by it
    rule = f"<br>{escape(averaging)}" if averaging and averaging not in curve.title else ""
    return (f'<figure class="curve" data-title="{escape(curve.title)}">{chart}'
            f"{svg.legend(list(curve.series))}<figcaption>{escape(curve.title)}{rule}"
            "</figcaption></figure>")


def _difference_figure(measure: str, run: str, baseline: str,
                       differences: Mapping[str, float], reach: float | None = None) -> str:
    wins = sum(d > 0 for d in differences.values())
    losses = sum(d < 0 for d in differences.values())
    chart = svg.difference_bars(differences, y_label=f"{measure}: {run} − {baseline}",
                                reach=reach)
    return (f'<figure class="differences" data-measure="{escape(measure)}" '
            f'data-run="{escape(run)}">{chart}<figcaption>{escape(run)} against '
            f"{escape(baseline)} on {escape(measure)}: {_topics(wins)} better, {losses} worse, "
            f"{len(differences) - wins - losses} tied</figcaption></figure>")


def _topics(count: int) -> str:
    return f"{count} topic{'s' if count != 1 else ''}"


_META_COLUMNS = (("measure", "measure"), ("pairs", "pairs"), ("significant", "significant"),
                 ("discriminative_power", "discriminative power"),
                 ("difference_required", "difference required"))


def measures_section(page: Page) -> str:
    """``report --meta``: the measures' discriminative power and difference required (Sakai
    2006) as a table, and their ASL curves (Sakai 2006, Fig. 3) as one chart."""
    head = "".join(f'<th{_TEXT_HEAD if k == "measure" else ""}>{escape(label)}</th>'
                   for k, label in _META_COLUMNS)
    lines = ["<tr>" + "".join(_cell(row.get(k), page.digits) for k, _ in _META_COLUMNS)
             + "</tr>" for row in page.meta]
    table = (f'<div class="scroll"><table class="sortable meta"><thead><tr>{head}</tr></thead>'
             f'<tbody>{"".join(lines)}</tbody></table></div>')
    first = page.meta[0]
    pairs = max((len(curve) for curve in page.asl_curves.values()), default=0)
    figure = ""
    if pairs:
        x = [float(i + 1) for i in range(pairs)]
        series = {m: [float(v) for v in curve] for m, curve in page.asl_curves.items()}
        chart = svg.line_chart(x, series, x_label="run pairs sorted by ASL",
                               y_label="achieved significance level (ASL)")
        caption = (f"ASL curves: each measure's {pairs} pairs of runs sorted by their ASL; the "
                   f"lower the curve, the more pairs the measure tells apart")
        figure = _figures([(f'<figure class="curve asl" data-title="ASL curves">{chart}'
                            f"{svg.legend(list(series))}<figcaption>{escape(caption)}"
                            "</figcaption></figure>")])
    note = (f"{first.get('method')} test of every pair of runs (Sakai 2006) on the "
            f"comparison's topics ({page.averaging}), "
            f"B = {first.get('replicates')} resamples, seed {page.meta_seed}; discriminative "
            f"power: the share of pairs with ASL < {first.get('alpha')}; difference required: "
            "the largest over pairs of the difference of means at which the ASL reaches that "
            "level (as inexeval meta power).")
    return table + f'<p class="note">{escape(note)}</p>' + figure


def render(page: Page) -> str:
    """The whole HTML document."""
    parts = [_section("summary", "This report", facts(page))]
    parts += [_section(anchor, title, body) for anchor, title, body in page.sections]
    if page.means:
        body = means_table(page)
        if page.header:
            body = f'<p class="note header">{escape(page.header)}.</p>' + body
        parts.append(_section("comparison", "Comparison with the baseline"
                              if page.baseline else "Comparison", body))
    if page.rows:
        parts.append(_section("tests", "Significance tests",
                              details_table(page.rows, page.digits, page.baseline)
                              + '<p class="note">Click a column header to sort.</p>'))
    if page.curves:
        parts.append(_section("curves", "Curves", _figures([_curve_figure(c, page.averaging)
                                                           for c in page.curves])))
    if page.differences and page.baseline:
        figures = [_difference_figure(m, run, page.baseline, by_topic, max(
                       (abs(d) for each in by_run.values() for d in each.values()), default=0.0))
                   for m, by_run in page.differences.items() for run, by_topic in by_run.items()]
        parts.append(_section("differences", "Per-topic differences against the baseline",
                              _figures(figures, wide=True)
                              + '<p class="note">The charts of a measure share one scale.</p>'))
    if page.meta:
        parts.append(_section("measures", "Measures", measures_section(page)))
    if page.agreement:
        parts.append(_section("agreement", "Measure agreement",
                              agreement_table(page.measures, page.agreement)
                              + '<p class="note">Kendall\'s tau-b between the rankings of the '
                              "runs by their mean scores under two measures.</p>"))
    if page.per_topic:
        tables = "".join(f'<details{" open" if m == page.main else ""}><summary>{escape(m)}'
                         "</summary>" + per_topic_table(m, by_run, page.baseline, page.digits)
                         + "</details>" for m, by_run in page.per_topic.items())
        parts.append(_section("per-topic", "Per-topic values", tables
                              + '<p class="note">Click a column header to sort; click again '
                              "to reverse.</p>"))
    if page.inputs or page.files:
        parts.append(_section("inputs", "Inputs", inputs_table(page)))
    made = f"{escape(page.created)}, " if page.created else ""
    parts.append(_section("provenance", "How this report was made",
                          f"<pre><code>{escape(page.command)}</code></pre>"
                          f'<p class="note">{made}inexeval {escape(page.version)}</p>'))
    subtitle = f"<p>{escape(page.subtitle)}</p>" if page.subtitle else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(page.title)}</title><style>{_CSS}</style></head><body>"
        f'<header><div class="wrap"><h1>{escape(page.title)}</h1>{subtitle}</div></header>'
        f'<main>{"".join(parts)}</main>'
        f"<footer>Made with inexeval {escape(page.version)}.</footer>"
        f"<script>{_SORT_JS}</script></body></html>\n")


def topic_differences(values: Mapping[str, Mapping[str, float | None]], run: str,
                      baseline: str) -> dict[str, float]:
    """``run - baseline`` on every topic where both are defined (``values[run][topic]``)."""
    return {t: v - b for t, v in values[run].items()
            if v is not None and (b := values[baseline].get(t)) is not None}


def main_measure(measures: Sequence[str]) -> str:
    """The measure a report leads with: the official task mean (MAiP, MAgP) if compared, else
    the first measure."""
    return next((m for m in measures if m in ("MAiP", "MAgP")), measures[0])


def from_comparison(comparison: Comparison, *, title: str, command: str, version: str,
                    subtitle: str = "", curves: Sequence[Curve] = (),
                    inputs: Sequence[tuple[str, str, int]] = (), digits: int = 4,
                    created: str = "", files: Sequence[InputFile] = (),
                    rule: str | None = None, n_assessed: int | None = None,
                    meta: Sequence[PowerResult] = ()) -> Page:
    """The page of a :class:`~inexeval.analysis.compare.Comparison`: means with markers, the
    tests, the per-topic values and differences of the main measure against the baseline, the
    measure-agreement matrix (two measures or more), and ``curves``. ``rule``: the averaging
    rule of the means (:data:`inexeval.scores.RULES`; default the comparison's own header,
    which says how topics were paired); ``files``: every input (:meth:`InputFile.of`);
    ``n_assessed``: the assessed topics each run's coverage is out of (default: the compared
    topics); ``meta``: the measures' :class:`~inexeval.meta.power.PowerResult` (``report
    --meta``: the Measures section)."""
    from inexeval.analysis.agreement import measure_agreement
    from inexeval.report.comparison import (
        better_than,
        legend,
        letters_legend,
        run_letters,
        undefined_note,
    )
    from inexeval.scores import describe_rule

    several = len(comparison.tests) > 1
    signs: dict[tuple[str, str], list[int]] = {}
    # markers say "against the baseline": comparisons of every pair have none
    for row in comparison.rows if comparison.baseline is not None else ():
        signs.setdefault((row.measure, row.run), []).append(comparison.significant(row))
    marks = {}
    for key, found in signs.items():
        text = "".join(BETTER if s > 0 else WORSE if s < 0 else NEITHER for s in found)
        marks[key] = text if several else text.strip(NEITHER)
    main = main_measure(comparison.measures)
    baseline = comparison.baseline
    differences = {} if baseline is None else {main: {
        run: topic_differences(comparison.per_topic[main], run, baseline)
        for run in comparison.runs if run != baseline}}
    agreement = {}
    usable = [m for m in comparison.measures
              if sum(v is not None for v in comparison.means[m].values()) >= 2]
    if len(usable) >= 2 and len(comparison.runs) >= 2:
        agreement = {(row.measure_a, row.measure_b): row.kendall_tau
                     for row in measure_agreement(comparison.means, usable)}
    letters: dict[str, str] = {}
    beaten: dict[tuple[str, str], list[str]] = {}
    if baseline is None:
        letters = run_letters(comparison.runs)
        for test in comparison.tests:
            better = better_than(comparison, test)
            for m in comparison.measures:
                for run in comparison.runs:
                    beaten.setdefault((m, run), []).append(
                        "".join(letters[r] for r in better.get((m, run), [])))
    tests_order = (f" (one group per test, in the order {', '.join(comparison.tests)})"
                   if len(comparison.tests) > 1 else "")
    marks_legend = (legend(comparison, (BETTER, WORSE, NEITHER)) if baseline is not None
                    else "Every pair of runs is compared; "
                    + letters_legend(comparison, ", ".join(comparison.tests)) + tests_order
                    + ". Each comparison is in the significance tests below.")
    note = undefined_note(comparison)
    if note:
        marks_legend = f"{marks_legend.rstrip('.')}; {note}."
    return Page(
        title=title, subtitle=subtitle, command=command, version=version,
        header=comparison.header, runs=comparison.runs, measures=comparison.measures,
        baseline=baseline, legend=marks_legend, means=comparison.means, marks=marks,
        rows=[row._asdict() for row in comparison.rows], per_topic=comparison.per_topic,
        differences=differences, curves=curves, agreement=agreement, inputs=inputs, main=main,
        digits=digits, created=created, files=files,
        averaging=(describe_rule(rule, len(comparison.topics)) if rule is not None
                   else f"{_topics(len(comparison.topics))}; {comparison.header}"),
        n_assessed=len(comparison.topics) if n_assessed is None else n_assessed,
        tests=comparison.tests,
        correction=comparison.correction, alpha=comparison.alpha, letters=letters,
        beaten=beaten, meta=[result.summary() for result in meta],
        asl_curves={result.measure: result.curve().tolist() for result in meta},
        meta_seed=comparison.seed)
