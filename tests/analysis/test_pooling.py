"""Pooling (analysis/pooling.py): hand-worked pools, the statistics, and a loop-by-loop reference
on a real run."""

from __future__ import annotations

import numpy as np
import pytest
from tests.helpers import DATA, element_run, needs_shared

from inexeval.analysis.pooling import pool_runs, pool_statistics, select_runs
from inexeval.errors import InexevalError
from inexeval.model.pool import Pool
from inexeval.model.run import Run


def _units(pool: Pool, topic: str = "1") -> list[tuple[str, str, int, int]]:
    return [tuple(u) for u in pool[topic]]  # type: ignore[misc]


def _articles(name: str, files: str, topic: str = "1") -> Run:
    """A document run whose results are the one-letter articles of ``files`` in rank order."""
    return element_run(name, {topic: [(f, "") for f in files]}, kind="document")


DEPTH_RUNS = [
    element_run("A", {"1": [("a", "/article[1]/p[1]"), ("a", "/article[1]/p[2]"),
                            ("b", "/article[1]/p[1]"), ("c", "/article[1]/p[1]")]}),
    element_run("B", {"1": [("b", "/article[1]/p[1]"), ("a", "/article[1]/p[1]"),
                            ("d", "/article[1]/p[1]")]}),
]


def test_depth_pools_elements_returned_within_the_depth() -> None:
    pool = pool_runs(DEPTH_RUNS, depth=2, unit="element")
    # b/p[1] is A's rank 3: beyond the depth, so only B counts for it
    assert _units(pool) == [("a", "/article[1]/p[1]", 1, 2), ("a", "/article[1]/p[2]", 2, 1),
                            ("b", "/article[1]/p[1]", 1, 1)]


def test_depth_pools_articles_of_element_results() -> None:
    assert _units(pool_runs(DEPTH_RUNS, depth=2, unit="article")) == [
        ("a", "", 1, 2), ("b", "", 1, 1)]
    # c is A's rank 4
    assert _units(pool_runs(DEPTH_RUNS, depth=3, unit="article")) == [
        ("a", "", 1, 2), ("b", "", 1, 2), ("d", "", 3, 1)]


ROUND_ROBIN = [_articles("A", "xyzw"), _articles("B", "yvxu"), _articles("C", "txs")]


def test_round_robin_stops_inside_a_round_at_exactly_n_articles() -> None:
    # round 1: A x, B y, C t; round 2: A y (known), B v -> 4 articles, stop in round 2.
    # runs counts ranks <= 2: C's rank 2 (x) counts although the pool was full before it.
    assert _units(pool_runs(ROUND_ROBIN, articles=4)) == [
        ("t", "", 1, 1), ("v", "", 2, 1), ("x", "", 1, 2), ("y", "", 1, 2)]


def test_round_robin_continues_to_the_next_round() -> None:
    # round 2 ends with C x (known); round 3: A z -> 5 articles. s (C rank 3) comes after.
    assert _units(pool_runs(ROUND_ROBIN, articles=5)) == [
        ("t", "", 1, 1), ("v", "", 2, 1), ("x", "", 1, 3), ("y", "", 1, 2), ("z", "", 3, 1)]


def test_round_robin_takes_everything_when_runs_hold_fewer_articles() -> None:
    pool = pool_runs(ROUND_ROBIN, articles=100)
    assert [u.file for u in pool["1"]] == list("stuvwxyz")
    assert {u.file: u.runs for u in pool["1"]}["x"] == 3


def test_round_robin_order_is_the_command_line_order() -> None:
    assert [u.file for u in pool_runs(ROUND_ROBIN[::-1], articles=2)["1"]] == ["t", "y"]


def test_round_robin_of_elements_counts_their_articles() -> None:
    runs = [element_run("A", {"1": [("a", "/article[1]/p[1]"), ("a", "/article[1]/p[2]"),
                                    ("b", "/article[1]")]}),
            element_run("B", {"1": [("a", "/article[1]/p[2]"), ("c", "/article[1]")]})]
    # A a/p1, B a/p2 (1 article), A a/p2 (known), B c (2 articles): stop in round 2
    assert _units(pool_runs(runs, articles=2, unit="element")) == [
        ("a", "/article[1]/p[1]", 1, 1), ("a", "/article[1]/p[2]", 1, 2),
        ("c", "/article[1]", 2, 1)]
    assert _units(pool_runs(runs, articles=2)) == [("a", "", 1, 2), ("c", "", 2, 1)]


def test_topics_in_numeric_order_and_selection() -> None:
    run = element_run("A", {t: [("a", "")] for t in ("10", "9", "x", "100")}, kind="document")
    assert list(pool_runs([run], depth=1)) == ["9", "10", "100", "x"]
    assert list(pool_runs([run], depth=1, topics=["100", "9", "7"])) == ["9", "100"]


def test_unit_element_needs_element_runs() -> None:
    with pytest.raises(InexevalError, match="element runs only"):
        pool_runs([_articles("A", "xy")], depth=1, unit="element")


def test_depth_or_articles() -> None:
    with pytest.raises(InexevalError, match="one of --depth and --articles"):
        pool_runs(ROUND_ROBIN, depth=1, articles=1)
    with pytest.raises(InexevalError, match="one of --depth and --articles"):
        pool_runs(ROUND_ROBIN)


def test_runs_per_group_keeps_the_first_m_of_each_group() -> None:
    names = ["grpA-1", "grpA-2", "grpB-1", "grpA-3", "grpB-2"]
    assert select_runs(names, r"^(grp\w)-", 2) == [0, 1, 2, 4]
    assert select_runs(names, r"^(grp\w)-", 1) == [0, 2]
    assert select_runs(names, r"grp[AB]", 1) == [0, 2]  # no group: the whole match
    with pytest.raises(InexevalError, match="does not match"):
        select_runs([*names, "other"], r"^(grp\w)-", 1)
    with pytest.raises(InexevalError, match="not a regular expression"):
        select_runs(names, "(", 1)


def test_statistics_credit_unique_units_to_their_run() -> None:
    pool = pool_runs(ROUND_ROBIN, articles=5)
    (stats,) = pool_statistics(pool, ROUND_ROBIN)
    assert (stats.units, stats.articles, stats.unique) == (5, 5, 3)
    assert dict(stats.contributions) == {"A": 1, "B": 1, "C": 1}  # z, v, t
    (without_runs,) = pool_statistics(pool)
    assert without_runs.unique == 3 and dict(without_runs.contributions) == {}


def test_statistics_refuse_runs_that_are_not_the_pools() -> None:
    pool = pool_runs(ROUND_ROBIN, articles=5)
    with pytest.raises(InexevalError, match="no run of those given return"):
        pool_statistics(pool, ROUND_ROBIN[:2])
    with pytest.raises(InexevalError, match="2 runs of those given return"):
        pool_statistics(pool, [*ROUND_ROBIN, _articles("D", "tt")])


def _reference_round_robin(runs: list[Run], topic: str, target: int) -> dict[str, tuple[int, int]]:
    """Round-robin article pooling as the 2006-2010 procedure reads, one result at a time."""
    lists = [[str(f) for f in r[topic].ordered().files] if topic in r else [] for r in runs]
    pooled: list[str] = []
    final_round = 0
    for depth in range(max(map(len, lists))):
        for results in lists:
            if len(pooled) < target and depth < len(results):
                final_round = depth + 1
                if results[depth] not in pooled:
                    pooled.append(results[depth])
    out = {}
    for article in pooled:
        ranks = [results.index(article) + 1 for results in lists if article in results]
        out[article] = (min(ranks), sum(rank <= final_round for rank in ranks))
    return out


@needs_shared
def test_real_run_agrees_with_a_result_by_result_reference() -> None:
    from inexeval import load_run

    real = load_run(DATA / "ipcs" / "bert_inex_converted_1.run")
    rng = np.random.default_rng(7)
    runs = [real]
    for k in range(3):  # shuffled copies of the real run: different orders, same articles
        topics = {t: tr.take(rng.permutation(len(tr))) for t, tr in real.items()}
        runs.append(Run(f"shuffled{k}", real.kind, {
            t: type(tr)(t, tr.files, tr.paths, tr.offsets, tr.lengths,
                        np.arange(1, len(tr) + 1), tr.rsv, tr.lines)
            for t, tr in topics.items()}))
    pool = pool_runs(runs, articles=30)
    assert len(pool) == len(real)
    for topic in list(real)[:12]:
        got = {u.file: (u.min_rank, u.runs) for u in pool[topic]}
        assert got == _reference_round_robin(runs, topic, 30)
        assert len(got) == min(30, len(set(real[topic].files)))


def test_round_robin_deeper_than_the_article_count() -> None:
    # the pool completes in round 9, deeper than the first prefix of 3 results
    runs = [_articles("A", "aaaaaaaab"), _articles("B", "aaaaaaaac")]
    assert _units(pool_runs(runs, articles=3)) == [("a", "", 1, 2), ("b", "", 9, 1),
                                                   ("c", "", 9, 1)]
    assert _units(pool_runs(runs, articles=2)) == [("a", "", 1, 2), ("b", "", 9, 1)]


def test_statistics_of_an_element_pool() -> None:
    # depth 2: a/p1 (A, B), a/p2 (A only), b/p1 (B only: A has it at rank 3)
    (stats,) = pool_statistics(pool_runs(DEPTH_RUNS, depth=2, unit="element"), DEPTH_RUNS)
    assert (stats.units, stats.articles, stats.unique) == (3, 2, 2)
    assert dict(stats.contributions) == {"A": 1, "B": 1}
