"""What ``inexeval eval`` computes when the user names no measure, and what ``--table`` shows.

The default set follows the kind of assessments, as each campaign reported its runs: FOL qrels
(INEX 2008-2010 highlighting) get the focused task's headline measures; INEX 2002-2004 element
assessments get ``inex_eval`` under the strict and generalised quantisations (Gövert and Kazai
2002), precision at 5, 10 and 25 and, with a collection to give element sizes, ``inex_eval_ng``;
INEX 2005 assessments precision and overlap at 10 (Hiemstra and Mihajlović 2005); TREC document
qrels trec_eval's document measures.
"""

from __future__ import annotations

import sys
from typing import TextIO

FOCUSED_HEADLINE = ["iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP"]
"""The official evaluator's summary of the focused and thorough tasks (inex_eval 3.1)."""

IN_CONTEXT_HEADLINE = ["gP[5]", "gP[10]", "gP[25]", "gP[50]", "MAgP"]
"""The measures the INEX 2008-2010 overviews report for the in-context tasks."""

TASKS = ("focused", "thorough", "relevant-in-context", "best-in-context", "t2i")
"""The official INEX 2007-2010 tasks (:func:`inexeval.measures.focused.evaluate_task`)."""

HEADLINE = {"focused": FOCUSED_HEADLINE, "thorough": FOCUSED_HEADLINE,
            "relevant-in-context": IN_CONTEXT_HEADLINE, "best-in-context": IN_CONTEXT_HEADLINE,
            "t2i": IN_CONTEXT_HEADLINE}

ELEMENT_2002_2004 = ["inex_eval(quant=strict)", "inex_eval(quant=generalised)", "P@5", "P@10",
                     "P@25"]
DOCUMENT = ["num_ret", "num_rel", "num_rel_ret", "AP", "R-Prec", "bpref", "RR", "P@5", "P@10",
            "P@20", "R@100", "nDCG@10", "nDCG@20", "Judged@10"]
"""trec_eval's usual summary, in ir_measures' names."""

_KIND = {"fol": "FOL qrels", "inex2002": "INEX 2002 assessments",
         "inex2003": "INEX 2003/2004 assessments", "inex2005": "INEX 2005-2008 assessments",
         "trec": "TREC document qrels"}


def default_measures(scale: str, *, passage_runs: bool, collection: bool,
                     stream: TextIO | None = None) -> tuple[str | None, list[str]]:
    """The task (or None) and the measures to compute when none is named, announced once on
    ``stream`` (stderr by default): FOL qrels with passage runs (``passage_runs``: FOL runs, or
    element runs, which FOL qrels score as their passages) are scored as the focused task."""
    from inexeval.measures.registry import canonical_name

    task: str | None = None
    what = ""
    if scale == "fol" and passage_runs:
        task, measures, what = "focused", FOCUSED_HEADLINE, "the focused task's "
    elif scale in ("inex2002", "inex2003"):
        measures = ELEMENT_2002_2004 + (["inex_eval_ng"] if scale == "inex2003" and collection
                                        else [])
    elif scale == "trec":
        measures, what = DOCUMENT, "trec_eval's "
    else:
        measures = ["P@10", "overlap@10"]
    measures = [canonical_name(m) for m in measures]  # as the rows name them
    (stream or sys.stderr).write(f"inexeval: measures for {_KIND.get(scale, scale)}: {what}"
                                 f"{', '.join(measures)} (choose with -m or --task)\n")
    return task, measures


def table_measures(task: str, asked: list[str]) -> list[str]:
    """The measures of a task that ``--table`` shows: those named with ``-m``, else the
    task's headline (:data:`HEADLINE`)."""
    return asked or HEADLINE[task]
