"""A pool study's reduced qrels (some articles of some topics unjudged) prepared from the full
qrels' arrays, rows dropped (:meth:`JudgedArticles.without`, issue 35), score every task exactly
as the reduced qrels prepared from their records do."""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval.errors import RunError
from inexeval.formats.fol import read_fol_qrels, read_fol_run
from inexeval.measures import focused, focused_qrels
from inexeval.meta.pool import without_units
from inexeval.model import Assessments

from .test_fast_scoring import _write_qrels, _write_run, judgement, result

ARRAYS = ("topic", "rsize", "length", "bep", "doc", "passages", "start", "end", "trel", "nrel",
          "row_trel", "row_nrel")


def _unnoted(reduced: Assessments) -> Assessments:
    """The same qrels as new objects: prepared from their records."""
    return replace(reduced, topics={t: replace(a) for t, a in reduced.items()})


def _lookups(judged: focused_qrels.JudgedArticles) -> dict[tuple[str, str], int]:
    names = list(judged.names)
    width = len(names)
    return {(judged.topics[key // width], names[key % width]): row
            for key, row in zip(judged.keys.tolist(), judged.rows.tolist())}


@settings(max_examples=150, deadline=None)
@given(st.lists(judgement, min_size=1, max_size=12), st.lists(result, min_size=1, max_size=30),
       st.sets(st.tuples(st.sampled_from(["1", "2", "3"]),
                         st.sampled_from(["a", "b", "c", "d", "z"]))),
       st.sampled_from(sorted(focused.TASKS)))
def test_rows_dropped_are_the_reduced_qrels_prepared(
        tmp_path_factory: pytest.TempPathFactory,
        judged: list[tuple[str, str, list[tuple[int, int]]]],
        returned: list[tuple[str, str, int, int, bool]], gone: set[tuple[str, str]],
        task: str) -> None:
    folder = tmp_path_factory.mktemp("r")
    _write_qrels(folder / "q.txt", judged)
    _write_run(folder / "r.run", returned)
    qrels = read_fol_qrels(folder / "q.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = read_fol_run(folder / "r.run")
    focused_qrels.judged_articles(qrels)
    removed = {topic: np.array(sorted(n for t, n in gone if t == topic), dtype=str)
               for topic in ("1", "2", "3")}
    reduced = without_units(qrels, removed, "article")
    plain = _unnoted(reduced)
    derived = focused_qrels.judged_articles(reduced)
    prepared = focused_qrels.judged_articles(plain)
    for name in ARRAYS:
        assert getattr(derived, name).tolist() == getattr(prepared, name).tolist(), name
    assert _lookups(derived) == _lookups(prepared)
    assert derived.sole.tolist() == [
        next(iter(rows)) if len(rows := [r for (_, n), r in _lookups(derived).items()
                                         if n == name]) == 1 else -1
        for name in derived.names]
    for topic in reduced:
        assert (focused_qrels.judged_articles(reduced[topic]).rsize.tolist()
                == focused_qrels.judged_articles(plain[topic]).rsize.tolist())

    def scored(qrels: Assessments) -> str:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                results = focused.evaluate_task(qrels, [run], task, complete=True)
            except RunError as error:
                return str(error)
        return repr((results.rows, results.overall, [str(w.message) for w in caught]))

    assert scored(reduced) == scored(plain)


def test_nothing_removed_is_the_full_qrels_prepared(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("1 Q0 a 10 200 0 5:10\n1 Q0 b 0 100\n")
    qrels = read_fol_qrels(tmp_path / "q.txt")
    full = focused_qrels.judged_articles(qrels)
    assert full.without({"1": np.array(["z"])}) is full
    less = full.without({"1": np.array(["a"])})
    assert (less.trel.tolist(), less.nrel.tolist(), less.rsize.tolist()) == ([0], [0], [0])
