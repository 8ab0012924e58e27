"""Text renderings of results.

``trec``: trec_eval's three tab-separated columns ``measure topic value`` (with a leading run
column when there are several runs), per-topic lines first when asked, ``all`` for the means and
``num_q`` always; ``csv`` and ``json``: the tidy table; ``latex`` and ``table``: runs x measures
of the means, as in seed 000's tables.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable

from inexeval.results import ALL, Results, Row

COUNT_MEASURES = frozenset(
    {"num_q", "num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size"}
)


def _number(measure: str, value: float | None, digits: int) -> str:
    if value is None:
        return "undefined"
    if math.isnan(value):
        return "NaN"
    if measure in COUNT_MEASURES and float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def _rows(results: Results, per_topic: bool) -> list[Row]:
    rows: list[Row] = []
    means = results.means()
    for run in results.runs():
        if per_topic:
            rows.extend(r for r in results.rows if r.run == run)
        rows.extend(r for r in means if r.run == run)
    return rows


def render_trec(results: Results, digits: int = 4, per_topic: bool = False,
                run_column: bool | None = None) -> str:
    """``run_column``: lead with the run's name (default: when there are several runs)."""
    several = len(results.runs()) > 1 if run_column is None else run_column
    lines = []
    for row in _rows(results, per_topic):
        fields = [row.measure, row.topic, _number(row.measure, row.value, digits)]
        lines.append("\t".join([row.run, *fields] if several else fields))
    return "\n".join(lines) + ("\n" if lines else "")


def render_csv(results: Results, digits: int = 4, per_topic: bool = False,
               header: bool = True) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow(["run", "topic", "measure", "value"])
    for row in _rows(results, per_topic):
        writer.writerow([row.run, row.topic, row.measure, _number(row.measure, row.value, digits)])
    return out.getvalue()


def render_json(results: Results, digits: int = 4, per_topic: bool = False) -> str:
    def clean(value: float | None) -> float | None:
        return None if value is None or math.isnan(value) else round(value, digits)

    data = [
        {"run": r.run, "topic": r.topic, "measure": r.measure, "value": clean(r.value)}
        for r in _rows(results, per_topic)
    ]
    return json.dumps(data, indent=1) + "\n"


def _matrix(results: Results) -> tuple[list[str], list[str], dict[tuple[str, str], float | None]]:
    means = [r for r in results.means() if r.topic == ALL]
    runs = results.runs()
    measures = [m for m in dict.fromkeys(r.measure for r in means) if m != "num_q"]
    cells = {(r.run, r.measure): r.value for r in means}
    return runs, measures, cells


def latex_escape(text: str) -> str:
    """``text`` as LaTeX text: its special characters escaped, and ``<``, ``>`` and ``|``
    written as commands (in text mode they print as other glyphs: ``<`` as an inverted
    exclamation mark); a leading ``[`` is braced (after a tabular's ``\\`` it would be read as an
    optional argument)."""
    text = text.replace("\\", "\x00")
    for a, b in (("_", r"\_"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"), ("$", r"\$"),
                 ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"),
                 ("^", r"\textasciicircum{}"), ("<", r"\textless{}"), (">", r"\textgreater{}"),
                 ("|", r"\textbar{}")):
        text = text.replace(a, b)
    text = text.replace("\x00", r"\textbackslash{}")
    return "{}" + text if text.startswith("[") else text


def aligned(rows: list[list[str]]) -> str:
    """Rows of cells as aligned plain text: the first column left-aligned, the others right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]
    return "\n".join(lines) + "\n"


def render_table(results: Results, digits: int = 4, per_topic: bool = False) -> str:
    """Runs as rows, measures as columns, means as values (aligned plain text)."""
    runs, measures, cells = _matrix(results)
    header = ["run", *measures]
    body = [[run, *(_number(m, cells.get((run, m)), digits) for m in measures)] for run in runs]
    return aligned([header, *body])


def render_latex(results: Results, digits: int = 4, per_topic: bool = False) -> str:
    """A LaTeX tabular of the means, best value of each column in bold."""
    runs, measures, cells = _matrix(results)
    escape = latex_escape
    best = {m: max((cells.get((r, m)) or -math.inf) for r in runs) for m in measures}
    lines = [r"\begin{tabular}{l" + "r" * len(measures) + "}", r"\hline",
             " & ".join(["run", *(escape(m) for m in measures)]) + r" \\", r"\hline"]
    for run in runs:
        cells_text = []
        for m in measures:
            value = cells.get((run, m))
            text = _number(m, value, digits)
            cells_text.append(rf"\textbf{{{text}}}" if value is not None and value == best[m]
                              and len(runs) > 1 else text)
        lines.append(" & ".join([escape(run), *cells_text]) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


FORMATS: dict[str, Callable[..., str]] = {
    "trec": render_trec,
    "csv": render_csv,
    "json": render_json,
    "latex": render_latex,
    "table": render_table,
}


def render(results: Results, fmt: str = "trec", digits: int = 4, per_topic: bool = False) -> str:
    """Render results in one of :data:`FORMATS`."""
    return FORMATS[fmt](results, digits=digits, per_topic=per_topic)
