"""Helpers of the passage tests: write small FOL files and evaluate them."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from inexeval.formats.fol import read_fol_qrels, read_fol_run
from inexeval.measures.focused import evaluate_task
from inexeval.results import Results


def same(a: float | None, b: float | None) -> bool:
    """Numeric equality to 1e-9 with NaN equal to NaN."""
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9


Evaluate = Callable[..., Results]


@pytest.fixture
def evaluate(tmp_path: Path) -> Evaluate:
    """``evaluate(qrels_text, run_text, task, **options)`` on files written to a temp dir."""
    def run(qrels: str, run_text: str, task: str, **options: object) -> Results:
        (tmp_path / "q.txt").write_text(qrels)
        (tmp_path / "r.run").write_text(run_text)
        return evaluate_task(read_fol_qrels(tmp_path / "q.txt"),
                             [read_fol_run(tmp_path / "r.run")], task, **options)  # type: ignore[arg-type]
    return run


def values(results: Results, topic: str) -> dict[str, float | None]:
    """``measure -> value`` of one topic (``all`` for the means) of the only run."""
    rows = results.means() if topic == "all" else [r for r in results.rows if r.topic == topic]
    return {r.measure: r.value for r in rows}
