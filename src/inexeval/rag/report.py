"""The HTML report of chunkers and chunk retrievers (``inexeval report QUESTIONS.csv RUN...``,
``inexeval chunks ... --report FILE``): the report of :mod:`inexeval.report.html` with a
section of its own first, the chunkers (or runs) × every measure, means as ``eval`` and
``chunks`` print them (each family's official mean), and each retrieval measure's mean
against k per chunker; then the comparison, its tests and the per-question values."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inexeval.comparison import Comparison
    from inexeval.measures.registry import Measure
    from inexeval.report.html import Curve, InputFile
    from inexeval.results import Results


def curves_over_k(results: Results, measures: Sequence[Measure]) -> list[Curve]:
    """One curve per measure family asked at several cut-offs (``chroma_R@1``, ``@3`` ...):
    each run's mean at every k."""
    from inexeval.report.html import Curve

    families: dict[str, list[Measure]] = {}
    for measure in measures:
        if measure.cutoff is not None:
            families.setdefault(measure.without_cutoff(), []).append(measure)
    curves = []
    for name, members in families.items():
        if len(members) < 2:
            continue
        members = sorted(members, key=lambda m: int(m.cutoff))
        curves.append(Curve(
            f"{name}@k against k, mean over the questions", [float(m.cutoff) for m in members],
            {run: [float("nan") if value is None else value
                   for value in (results.mean(str(m), run) for m in members)]
             for run in results.runs()}, "k (chunks retrieved)", name))
    return curves


def chunkers_section(results: Results, measures: Sequence[Measure], what: str,
                     digits: int) -> str:
    """The table of ``what`` (chunkers, runs) × measures and the curves over k."""
    from inexeval.report.html import curve_figures, table_cell

    names = [str(m) for m in measures]
    head = "".join(f"<th>{escape(m)}</th>" for m in names)
    lines = "".join(
        f'<tr><td class="text">{escape(run)}</td>'
        + "".join(table_cell(results.mean(m, run), digits) for m in names) + "</tr>"
        for run in results.runs())
    topics = len(next(iter(results.topics_evaluated.values()), []))
    table = (f'<div class="wide"><table class="sortable chunkers"><thead><tr>'
             f'<th class="text">{escape(what)}</th>{head}</tr></thead><tbody>{lines}</tbody>'
             "</table></div>"
             f'<p class="note">Each mean over the {topics} questions as the official code takes '
             "it (as inexeval eval and inexeval chunks print it). Click a column header to "
             "sort.</p>")
    curves = curves_over_k(results, measures)
    return table + (curve_figures(curves) if curves else "")


def render_report(results: Results, measures: Sequence[Measure], compared: Comparison, *,
                  what: str, argv: Sequence[str], files: Sequence[InputFile], digits: int,
                  subtitle: str, inputs: Sequence[tuple[str, str, int]] = (),
                  meta: bool = False, meta_replicates: int | None = None) -> str:
    """The whole page (see the module docstring); ``what``: ``chunkers`` or ``runs``;
    ``inputs``: each run's name, file and questions answered; ``meta``: the Measures section
    (as ``report --meta``: :func:`inexeval.meta.power.power_study`, bootstrap, B
    ``meta_replicates``, on the compared questions)."""
    from inexeval.report import html
    from inexeval.version import package_version

    powers = []
    if meta:
        from inexeval.meta.power import power_study
        from inexeval.scores import Scores

        scores = Scores.from_results(results, rule="all", topics=compared.topics)
        powers = power_study(scores.select(measures=compared.measures), method="bootstrap",
                             replicates=meta_replicates, alpha=compared.alpha,
                             seed=compared.seed)
    page = html.from_comparison(
        compared, title=f"Evaluation report: {what} on {len(compared.topics)} questions",
        subtitle=subtitle, command=shlex.join(argv), version=package_version(),
        digits=digits, created=html.report_date(), files=files, rule=compared.rule,
        inputs=inputs, meta=powers)
    page.sections = [(what, what.capitalize(),
                      chunkers_section(results, measures, what[:-1], digits))]
    return html.render(page)
