"""Text renderings of comparisons and agreements: ``table``, ``markdown``, ``latex``, ``csv``,
``json``.

A comparison against a baseline prints as runs x measures of the mean scores, baseline first,
each value marked when the run is significantly better (▲) or worse (▼) than the baseline at
``alpha`` after the correction (with several tests, one mark per test in the order of the tests,
· where not significant), under the header line saying how topics were paired and above a
legend. A comparison of every pair of runs (``--all-pairs``) prints as ranx's report does
(Bassani 2022): runs x measures, each run given a letter, each mean followed by the letters of
the runs it is significantly better than (superscripts), one table per test. ``csv`` and
``json`` hold exactly the row columns (:data:`inexeval.analysis.compare.COLUMNS`,
:data:`inexeval.analysis.agreement.AGREEMENT_COLUMNS`) at full precision, NaN as ``NaN`` (csv)
or null (json); elsewhere a p-value below the last printed digit prints as ``<0.0001`` (with
four digits). Markdown has no heading (it is pasted into a document that has its own): the
title is a paragraph. LaTeX is a booktabs table with a caption, led by a comment naming the
package. In judgement agreement a kappa or ratio that is 0/0 is undefined: ``undefined`` (null in
json), as ``eval`` prints an undefined measure, with a note under the table. A comparison whose
p-value is undefined (a t test on differences that are the same on every topic) has no mark, and
a note under the table (in the caption in LaTeX) says which and why. With ``power`` (``compare
--power``) the rows have one more column, ``power``, at the end (csv, json), and the other formats
print a second table under the first: each comparison's measure, test, runs, topics, difference
and achieved power, under a line saying how it was computed (:data:`POWER_NOTE`).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from inexeval.analysis.agreement import JUDGEMENT_COLUMNS, TopicAgreement
from inexeval.report.text import latex_escape, latex_table
from inexeval.results import aligned


class Comparison(Protocol):
    """What the renderings read of a comparison (:class:`inexeval.analysis.compare.Comparison`
    is one): named structurally, so that this module, which the comparison's ``to_latex``
    imports, does not import it back."""

    @property
    def rows(self) -> Sequence[Any]: ...
    @property
    def means(self) -> Mapping[str, Mapping[str, float | None]]: ...
    @property
    def runs(self) -> Sequence[str]: ...
    @property
    def measures(self) -> Sequence[str]: ...
    @property
    def baseline(self) -> str | None: ...
    @property
    def tests(self) -> Sequence[str]: ...
    @property
    def correction(self) -> str: ...
    @property
    def alpha(self) -> float: ...
    @property
    def header(self) -> str: ...
    @property
    def power(self) -> bool: ...
    @property
    def columns(self) -> tuple[str, ...]: ...

    def significant(self, row: Any) -> int: ...

FORMATS = ("table", "markdown", "latex", "csv", "json")

_BETTER, _WORSE, _NEITHER = "▲", "▼", "·"
_LATEX_MARKS = (r"$\uparrow$", r"$\downarrow$", r"$\cdot$")


P_COLUMNS = frozenset({"p_value", "p_adjusted"})
"""Columns holding p-values: below the last digit shown they print as ``<0.0001``."""


def _number(value: Any, digits: int, p_value: bool = False) -> str:
    if value is None:
        return UNDEFINED
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if p_value and value < 10.0 ** -digits:
            return f"<{10.0 ** -digits:.{digits}f}" if digits else "<1"
        return f"{value:.{digits}f}"
    return str(value)


def _full(value: Any) -> str:
    if value is None:
        return UNDEFINED
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else repr(value)
    return str(value)


UNDEFINED = "undefined"
"""How a value that is not defined (None) prints, as ``eval`` prints an undefined measure."""

KAPPA_UNDEFINED = ("kappa undefined: both assessments put every unit in one category, so "
                   "chance agreement p_e = 1 and (p_o - p_e) / (1 - p_e) is 0/0 (Cohen 1960; "
                   "statsmodels' cohens_kappa: nan); identical assessments with two categories "
                   "have kappa 1")
"""The note under a judgement table with an undefined kappa."""

P_UNDEFINED = ("a t test needs differences that vary from topic to topic: when they are the same "
               "on every topic their standard deviation is 0 (on one topic, undefined), so t = "
               "mean / (sd / sqrt(n)) and the effect size are undefined (R's t.test stops: data "
               "are essentially constant); the randomised, sign and wilcoxon tests still apply")
"""Why a comparison's p-value is undefined, in the note under its table."""


POWER_NOTE = ("power: the achieved power of the comparison, that of a two-sided paired t test at "
              "level {alpha:g} with the comparison's n topics and its own effect size d = "
              "t / sqrt(n), from the noncentral t with n - 1 degrees of freedom and "
              "noncentrality sqrt(n) |d| (Sakai 2016; R's pwr.t.test(type = \"paired\"))")
"""The line above the power table (``{alpha}``: the comparison's level)."""

_POWER_TABLE = ("measure", "test", "run", "baseline", "n_topics", "delta", "power")


def power_table(comparison: Comparison, fmt: str, digits: int = 4) -> str:
    """The table of achieved powers of ``comparison`` (``compare --power``) in ``fmt`` (table,
    markdown, latex), under (LaTeX: in the caption) :data:`POWER_NOTE`."""
    rows = [[getattr(row, c) for c in _POWER_TABLE] for row in comparison.rows]
    title = POWER_NOTE.format(alpha=comparison.alpha)
    if fmt not in ("table", "markdown"):
        return render_rows(_POWER_TABLE, rows, fmt, digits, title)
    cells = [list(_POWER_TABLE), *([_number(v, digits) for v in row] for row in rows)]
    return _heading(title, fmt) + _table(cells, fmt, left=4)  # names left, numbers right


def undefined_note(comparison: Comparison, test: str | None = None) -> str:
    """The note saying which comparisons (of ``test``, default every test) have an undefined
    p-value (NaN: no mark) and why, or the empty string when every p-value is defined."""
    undefined = [row.run + ("" if comparison.baseline is not None else f" vs {row.baseline}")
                 + f" on {row.measure} ({row.test} test)"
                 for row in comparison.rows
                 if math.isnan(row.p_value) and test in (None, row.test)]
    if not undefined:
        return ""
    return f"p undefined (no mark) for {', '.join(undefined)}; {P_UNDEFINED}"


def render_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A header of ``columns`` and one line per row, numbers at full precision."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[_full(v) for v in row] for row in rows])
    return out.getvalue()


def render_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A list of objects with the keys ``columns`` in order, NaN as null."""
    data = [{k: (None if isinstance(v, float) and math.isnan(v) else v)
             for k, v in zip(columns, row)} for row in rows]
    return json.dumps(data, indent=1) + "\n"


def _markdown(rows: list[list[str]], left: int = 1) -> str:
    lines = ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    lines.insert(1, "|" + "|".join([*[":--"] * left, *["--:"] * (len(rows[0]) - left)]) + "|")
    return "\n".join(lines) + "\n"


def _heading(title: str, fmt: str) -> str:
    """The line above a table: a comment (``#``) in plain text, a paragraph in Markdown."""
    if not title:
        return ""
    return f"{title}\n\n" if fmt == "markdown" else f"# {title}\n"


def _note(note: str, fmt: str) -> str:
    """A note under a table: a comment in plain text, a paragraph after a blank line in Markdown
    (a line right under a Markdown table is one more row of it)."""
    if not note:
        return ""
    return f"\n{note}\n" if fmt == "markdown" else f"# {note}\n"


def render_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, digits: int = 4,
                title: str = "") -> str:
    """Rows of named columns in any of :data:`FORMATS` (``title``: a comment line above a table,
    a caption in LaTeX)."""
    if fmt == "csv":
        return render_csv(columns, rows)
    if fmt == "json":
        return render_json(columns, rows)
    cells = [list(columns), *([_number(v, digits, c in P_COLUMNS) for c, v in zip(columns, row)]
                              for row in rows)]
    if fmt == "latex":
        escaped = [[latex_escape(c) for c in row] for row in cells]
        return latex_table(escaped, latex_escape(title), "l" * 1 + "r" * (len(columns) - 1))
    return _heading(title, fmt) + (_markdown(cells) if fmt == "markdown" else aligned(cells))


def _marks(comparison: Comparison) -> dict[tuple[str, str], list[int]]:
    marks: dict[tuple[str, str], list[int]] = {}
    for row in comparison.rows:
        marks.setdefault((row.measure, row.run), []).append(comparison.significant(row))
    return marks


def _mark_text(signs: Sequence[int], several: bool, symbols: tuple[str, str, str]) -> str:
    better, worse, neither = symbols
    marks = [better if s > 0 else worse if s < 0 else neither for s in signs]
    return "".join(marks) if several else "".join(m for m in marks if m != neither)


def legend(comparison: Comparison, symbols: tuple[str, str, str] = (_BETTER, _WORSE, _NEITHER),
           escape: Callable[[str], str] = str, formula: Callable[[str], str] | None = None) -> str:
    """What the marks mean, in one sentence: ``escape`` applies to the text around the marks,
    ``formula`` (default: ``escape``) to the condition ``p < alpha`` (LaTeX: math mode, where
    ``<`` is a less-than sign, not the inverted exclamation mark it is in text)."""
    better, worse, neither = symbols
    tests = ", ".join(comparison.tests)
    corrected = ("" if comparison.correction == "none"
                 else f" after the {comparison.correction} correction")
    order = (escape(f"; one mark per test, in the order {tests}, ") + neither +
             escape(" not significant") if len(comparison.tests) > 1
             else escape(f" ({tests} test)"))
    condition = (formula or escape)(f"p < {comparison.alpha:g}")
    return (better + escape(f" significantly better than the baseline {comparison.baseline}, ") +
            worse + escape(" significantly worse: two-sided ") + condition + escape(corrected) +
            order)


def _matrix(comparison: Comparison, digits: int, symbols: tuple[str, str, str],
            bold: bool = False) -> list[list[str]]:
    marks = _marks(comparison)
    several = len(comparison.tests) > 1
    best = {m: max((v for v in comparison.means[m].values() if v is not None), default=None)
            for m in comparison.measures}
    rows = [["run", *comparison.measures]]
    for run in comparison.runs:
        cells = [run]
        for m in comparison.measures:
            value = comparison.means[m][run]
            text = "undefined" if value is None else f"{value:.{digits}f}"
            if bold and value is not None and value == best[m]:
                text = rf"\textbf{{{text}}}"
            mark = _mark_text(marks.get((m, run), []), several, symbols)
            cells.append(f"{text} {mark}".rstrip() if run != comparison.baseline else text)
        rows.append(cells)
    return rows


def render_comparison(comparison: Comparison, fmt: str = "table", digits: int = 4) -> str:
    """A comparison in any of :data:`FORMATS`."""
    if fmt in ("csv", "json"):
        columns = comparison.columns
        return render_rows(columns, [tuple(row)[:len(columns)] for row in comparison.rows], fmt,
                           digits, _title(comparison))
    if comparison.power:
        return (_render_means(comparison, fmt, digits) + "\n"
                + power_table(comparison, fmt, digits))
    return _render_means(comparison, fmt, digits)


def _render_means(comparison: Comparison, fmt: str, digits: int) -> str:
    """The means table (``table``, ``markdown``, ``latex``), without the power table."""
    if fmt == "latex":
        return render_latex(comparison, digits)
    if comparison.baseline is None:
        tables = [_heading(_title(comparison, test), fmt)
                  + _table(_letter_matrix(comparison, test, digits, fmt), fmt, left=2)
                  + _note(letters_legend(comparison, test), fmt)
                  + _note(undefined_note(comparison, test), fmt)
                  for test in comparison.tests]
        return "\n".join(tables)
    note = undefined_note(comparison)
    rows = _matrix(comparison, digits, (_BETTER, _WORSE, _NEITHER))
    rows[1][0] += " (baseline)"
    return (_heading(_title(comparison), fmt) + _table(rows, fmt)
            + ("\n" if fmt == "markdown" else "") + legend(comparison) + "\n" + _note(note, fmt))


def _table(rows: list[list[str]], fmt: str, left: int = 1) -> str:
    return _markdown(rows, left) if fmt == "markdown" else aligned(rows, left)


_LETTERS = "abcdefghijklmnoprstuvwxyz"
"""The letters naming runs in an all-pairs table: the Latin alphabet without q, which has no
superscript form in Unicode."""
_SUPERSCRIPT = dict(zip(_LETTERS, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"))


def run_letters(runs: Sequence[str]) -> dict[str, str]:
    """A short name for each run of an all-pairs table: a, b, c ... z (no q), then aa, ab ..."""
    names: dict[str, str] = {}
    for i, run in enumerate(runs):
        letters = ""
        i += 1
        while i:
            i, rest = divmod(i - 1, len(_LETTERS))
            letters = _LETTERS[rest] + letters
        names[run] = letters
    return names


def better_than(comparison: Comparison, test: str) -> dict[tuple[str, str], list[str]]:
    """For each (measure, run), the runs it is significantly better than under ``test`` at
    ``alpha`` after the correction, in run order: the marks of an all-pairs table."""
    order = {run: i for i, run in enumerate(comparison.runs)}
    better: dict[tuple[str, str], list[str]] = {}
    for row in comparison.rows:
        if row.test != test:
            continue
        sign = comparison.significant(row)
        if sign:
            winner, loser = (row.run, row.baseline) if sign > 0 else (row.baseline, row.run)
            better.setdefault((row.measure, winner), []).append(loser)
    return {key: sorted(runs, key=order.__getitem__) for key, runs in better.items()}


def _superscript(letters: Sequence[str], fmt: str) -> str:
    if not letters:
        return ""
    text = "".join(letters)
    if fmt == "latex":
        return f"$^{{{text}}}$"
    if fmt == "markdown":
        return f"<sup>{text}</sup>"
    return "".join(_SUPERSCRIPT.get(c, c) for c in text)


def _letter_matrix(comparison: Comparison, test: str, digits: int, fmt: str) -> list[list[str]]:
    """The ranx-style table of one test: letter, run, then each measure's mean followed by the
    letters of the runs it beats (LaTeX: escaped names, best mean of a measure in bold)."""
    letters = run_letters(comparison.runs)
    better = better_than(comparison, test)
    best = {m: max((v for v in comparison.means[m].values() if v is not None), default=None)
            for m in comparison.measures}
    escape = latex_escape if fmt == "latex" else str
    rows = [["", "run", *(escape(m) for m in comparison.measures)]]
    for run in comparison.runs:
        cells = [letters[run], escape(run)]
        for m in comparison.measures:
            value = comparison.means[m][run]
            text = UNDEFINED if value is None else f"{value:.{digits}f}"
            if fmt == "latex" and value is not None and value == best[m] and len(
                    comparison.runs) > 1:
                text = rf"\textbf{{{text}}}"
            beaten = [letters[r] for r in better.get((m, run), [])]
            cells.append(text + _superscript(beaten, fmt))
        rows.append(cells)
    return rows


def letters_legend(comparison: Comparison, test: str) -> str:
    """What the letters of an all-pairs table mean, in one sentence."""
    corrected = ("" if comparison.correction == "none"
                 else f" after the {comparison.correction} correction")
    return (f"a letter after a mean names a run it is significantly better than ({test} test, "
            f"two-sided p < {comparison.alpha:g}{corrected})")


def _title(comparison: Comparison, test: str | None = None) -> str:
    tests = test or ", ".join(comparison.tests)
    against = ("between every pair of runs" if comparison.baseline is None
               else f"against the baseline {comparison.baseline}")
    plural = "s" if test is None and len(comparison.tests) > 1 else ""
    return f"{tests} test{plural} {against}; {comparison.header}"


def render_latex(comparison: Comparison, digits: int = 4) -> str:
    """A booktabs table ready for a paper: runs x measures of the means, the best value of each
    measure in bold, arrows for significant differences from the baseline (one per test), the
    legend in the caption; an all-pairs comparison as ranx's report (one table per test, each
    mean followed by the letters of the runs it is significantly better than)."""
    if comparison.baseline is None:
        tables = []
        for test in comparison.tests:
            rows = _letter_matrix(comparison, test, digits, "latex")
            caption = _title(comparison, test) + "; " + letters_legend(comparison, test)
            caption = latex_escape(caption.replace(f"p < {comparison.alpha:g}", "\x01"))
            caption = caption.replace("\x01", f"$p < {comparison.alpha:g}$")
            note = undefined_note(comparison, test)
            if note:
                caption += latex_escape(f"; {note}")
            tables.append(latex_table(rows, caption, "ll" + "r" * len(comparison.measures)))
        return "\n".join(tables)
    note = undefined_note(comparison)
    rows = _matrix(comparison, digits, _LATEX_MARKS, bold=True)
    escaped = [[latex_escape(rows[0][0]), *(latex_escape(m) for m in rows[0][1:])]]
    escaped += [[latex_escape(r[0]), *r[1:]] for r in rows[1:]]
    caption = legend(comparison, _LATEX_MARKS, latex_escape, lambda text: f"${text}$")
    if note:
        caption += latex_escape(f"; {note}")
    return latex_table(escaped, caption, "l" + "r" * len(comparison.measures))


def render_judgements(rows: Sequence[TopicAgreement], fmt: str = "table", digits: int = 4,
                      title: str = "") -> str:
    """Judgement agreement per topic and ``all``: the columns
    :data:`~inexeval.analysis.agreement.JUDGEMENT_COLUMNS`, then ``DIM_elements`` and
    ``DIM_kappa`` per graded dimension; the pooled confusion matrices of the dimensions follow
    a table (json: a ``confusion`` object in each row)."""
    dims = list(rows[-1].dimensions) if rows else []
    columns = [*JUDGEMENT_COLUMNS, *(f"{d}_{what}" for d in dims for what in ("elements", "kappa"))]
    # a kappa or a ratio that is 0/0 is undefined (None): "undefined", null in json
    flat = [[None if isinstance(v, float) and math.isnan(v) else v
             for v in (*row[:len(JUDGEMENT_COLUMNS)],
                       *(v for d in dims for v in row.dimensions[d][:2]))] for row in rows]
    kappas = [i for i, c in enumerate(columns) if c.endswith("kappa")]
    note = any(row[i] is None for row in flat for i in kappas) and fmt not in ("csv", "json")
    if note and fmt == "latex":
        title = f"{title}; {KAPPA_UNDEFINED}" if title else KAPPA_UNDEFINED
    if fmt == "json":
        data = json.loads(render_json(columns, flat))
        for item, row in zip(data, rows):
            item["confusion"] = {d: {"categories": row.categories[d],
                                     "matrix": row.dimensions[d][2]} for d in dims}
        return json.dumps(data, indent=1) + "\n"
    text = render_rows(columns, flat, fmt, digits, title)
    if note and fmt != "latex":
        text += _note(KAPPA_UNDEFINED, fmt)
    if fmt == "csv" or not dims:
        return text
    for d in dims:
        categories = [str(c) for c in rows[-1].categories[d]]
        matrix = [[f"{d}: A \\ B", *categories],
                  *([c, *(str(n) for n in counts)]
                    for c, counts in zip(categories, rows[-1].dimensions[d][2]))]
        text += "\n" + render_rows(matrix[0], matrix[1:], fmt, digits,
                                   f"confusion matrix of {d}, all topics (rows: A, columns: B)")
    return text


__all__ = [
    "FORMATS",
    "better_than",
    "legend",
    "letters_legend",
    "power_table",
    "render_comparison",
    "render_csv",
    "render_json",
    "render_judgements",
    "render_latex",
    "render_rows",
    "run_letters",
    "undefined_note",
]
