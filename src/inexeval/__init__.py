"""inexeval: evaluation of XML element retrieval and focused (passage) retrieval as in INEX.

The API has the verbs of ir_measures: :func:`evaluate` (per-topic values and means),
:func:`calc_aggregate` (the means of one run), :func:`iter_calc` (a stream of
``Metric(topic, measure, value)``) and :class:`Evaluator` (measures and assessments bound once
for many runs); :class:`Experiment` holds a whole study (assessments, runs, measures or task,
topics, the averaging rule, jobs) and evaluates, compares, plots and reports it;
:func:`compare` tests whether runs differ significantly (:mod:`inexeval.analysis.compare`). Qrels and runs may be paths, pandas DataFrames or
pytrec_eval-style dicts (:mod:`inexeval.inputs`); measures names or objects of
:mod:`inexeval.measures`. Readers are in :mod:`inexeval.formats`
(:func:`load_assessments`, :func:`load_run`), the collection index in :mod:`inexeval.collection`.
Heavy modules are imported on first use, so the command line starts at once.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "evaluate": "inexeval.evaluation",
    "iter_calc": "inexeval.evaluation",
    "calc_aggregate": "inexeval.evaluation",
    "as_assessments": "inexeval.inputs",
    "as_run": "inexeval.inputs",
    "Evaluator": "inexeval.evaluation",
    "Results": "inexeval.results",
    "Row": "inexeval.results",
    "Metric": "inexeval.results",
    "load_assessments": "inexeval.formats.detect",
    "load_run": "inexeval.formats.detect",
    "load_collection": "inexeval.collection.build",
    "build_index": "inexeval.collection.build",
    "parse_measure": "inexeval.measures.registry",
    "InexevalError": "inexeval.errors",
    "with_implicit": "inexeval.evaluation",
    "compare": "inexeval.experiment",
    "Experiment": "inexeval.experiment",
    "Evaluation": "inexeval.experiment",
    "Comparison": "inexeval.comparison",
    "Scores": "inexeval.scores",
    "read_scores": "inexeval.formats.scores",
    "save_scores": "inexeval.formats.scores",
}

__all__ = ["Comparison", "Evaluation", "Evaluator", "Experiment", "InexevalError", "Metric",
           "Results", "Row", "Scores", "as_assessments", "as_run", "build_index",
           "calc_aggregate", "compare", "evaluate", "iter_calc", "load_assessments",
           "load_collection", "load_run", "parse_measure", "read_scores", "save_scores",
           "with_implicit"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name == "__version__":  # read on first use (importlib.metadata is slow to import)
        from inexeval.version import package_version

        return package_version()
    raise AttributeError(f"module 'inexeval' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API (what the lazy loader gives), for ``dir(inexeval)`` and completion."""
    dunders = (name for name in globals() if name.startswith("__"))
    return sorted({*__all__, "__version__", *dunders})
