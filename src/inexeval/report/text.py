"""Text renderings of results.

``trec``: trec_eval's three tab-separated columns ``measure topic value`` (with a leading run
column when there are several runs), per-topic lines first when asked, ``all`` for the means and
``num_q`` always; ``csv`` and ``json``: the tidy table at full precision (``repr`` of each
value: the exact double, as ``inexeval compare`` writes them; ``digits`` applies to the other
formats); ``latex`` and ``table``: runs x measures of the means, as in seed 000's tables. A table
is aligned in columns for a terminal and tab-separated for a pipe (:func:`columns`).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable

from inexeval.results import ALL, Results, Row, aligned

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


def _full(measure: str, value: float | None) -> str:
    """A value at full precision: ``repr`` of the double (it reads back to the same number)."""
    if value is None:
        return "undefined"
    if math.isnan(value):
        return "NaN"
    if measure in COUNT_MEASURES and float(value).is_integer():
        return str(int(value))
    return repr(float(value))


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
    """The tidy table ``run,topic,measure,value``, values at full precision (``digits`` is
    not used: a CSV file is read by programs, which should get the exact numbers)."""
    out = io.StringIO()
    import csv

    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow(["run", "topic", "measure", "value"])
    for row in _rows(results, per_topic):
        writer.writerow([row.run, row.topic, row.measure, _full(row.measure, row.value)])
    return out.getvalue()


def render_json(results: Results, digits: int = 4, per_topic: bool = False) -> str:
    """A list of ``{"run", "topic", "measure", "value"}`` objects, values at full precision
    (``digits`` is not used), an undefined or NaN value null."""
    def clean(measure: str, value: float | None) -> float | int | None:
        if value is None or math.isnan(value):
            return None
        return int(value) if measure in COUNT_MEASURES and value.is_integer() else float(value)

    data = [
        {"run": r.run, "topic": r.topic, "measure": r.measure,
         "value": clean(r.measure, r.value)}
        for r in _rows(results, per_topic)
    ]
    import json

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


def columns(rows: list[list[str]], terminal: bool = True) -> str:
    """Rows of cells for reading (``terminal``: aligned by :func:`aligned`) or for a program
    (tab-separated, one row a line, as ``cut`` and ``awk -F'\\t'`` read them)."""
    if terminal:
        return aligned(rows)
    return "".join("\t".join(row) + "\n" for row in rows)


def render_table(results: Results, digits: int = 4, per_topic: bool = False,
                 terminal: bool = True) -> str:
    """Runs as rows, measures as columns, means as values: aligned for a ``terminal``, else
    tab-separated (:func:`columns`)."""
    runs, measures, cells = _matrix(results)
    header = ["run", *measures]
    body = [[run, *(_number(m, cells.get((run, m)), digits) for m in measures)] for run in runs]
    return columns([header, *body], terminal)


BOOKTABS = "% needs \\usepackage{booktabs} (\\toprule, \\midrule, \\bottomrule)"
"""The first line of every LaTeX table inexeval prints: the package it needs."""


def latex_table(rows: list[list[str]], caption: str, align: str) -> str:
    """A floating booktabs table: ``rows`` (already LaTeX, the first the header) under
    ``caption``, preceded by a comment naming the package it needs (:data:`BOOKTABS`)."""
    lines = [BOOKTABS, r"\begin{table}", r"\centering", rf"\caption{{{caption}}}",
             rf"\begin{{tabular}}{{{align}}}", r"\toprule", " & ".join(rows[0]) + r" \\",
             r"\midrule", *(" & ".join(row) + r" \\" for row in rows[1:]), r"\bottomrule",
             r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def render_latex(results: Results, digits: int = 4, per_topic: bool = False,
                 rule: str | None = None) -> str:
    """A booktabs table of the means, best value of each column in bold, with a caption saying
    what they average: the topics and ``rule`` (:func:`inexeval.scores.describe_rule`, over the
    topics of the results) when the caller gives it, else "over N topics", N each run's
    ``num_q``."""
    runs, measures, cells = _matrix(results)
    escape = latex_escape
    best = {m: max((cells.get((r, m)) or -math.inf) for r in runs) for m in measures}
    rows = [["run", *(escape(m) for m in measures)]]
    for run in runs:
        cells_text = []
        for m in measures:
            value = cells.get((run, m))
            text = _number(m, value, digits)
            cells_text.append(rf"\textbf{{{text}}}" if value is not None and value == best[m]
                              and len(runs) > 1 else text)
        rows.append([escape(run), *cells_text])
    return latex_table(rows, escape(_caption(results, len(runs), rule)),
                       "l" + "r" * len(measures))


def _caption(results: Results, n_runs: int, rule: str | None) -> str:
    best = "; best value in bold" if n_runs > 1 else ""
    if rule is not None:
        from inexeval.scores import describe_rule

        return f"Mean scores, {describe_rule(rule, len(results.topics()))}{best}."
    counts = sorted({int(r.value) for r in results.means()
                     if r.measure == "num_q" and r.value is not None})
    topics = ("" if not counts else
              f" over {counts[0]} topic{'s' if counts[0] != 1 else ''}" if len(counts) == 1
              else f" over {counts[0]}-{counts[-1]} topics")
    return f"Mean scores{topics}{best}."


FORMATS: dict[str, Callable[..., str]] = {
    "trec": render_trec,
    "csv": render_csv,
    "json": render_json,
    "latex": render_latex,
    "table": render_table,
}


def render(results: Results, fmt: str = "trec", digits: int = 4, per_topic: bool = False,
           terminal: bool = True, rule: str | None = None) -> str:
    """Render results in one of :data:`FORMATS` (``terminal``: a ``table`` aligned for reading,
    else tab-separated; ``rule``: the averaging rule, said in a LaTeX caption)."""
    if fmt == "table":
        return render_table(results, digits, per_topic, terminal)
    if fmt == "latex":
        return render_latex(results, digits, per_topic, rule)
    return FORMATS[fmt](results, digits=digits, per_topic=per_topic)
