"""Pooling strategies: orders worked on paper, the bandits against a direct transcription of
Losada et al.'s algorithms, and every strategy's unlimited budget = the whole depth-k pool."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.helpers import assessments, element_run

from inexeval.analysis.pooling import pool_runs, strategy_pool
from inexeval.analysis.strategies import (
    Candidates,
    StrategyOptions,
    candidates,
    depth_order,
    fused_scores,
    judging_order,
    next_unit,
)
from inexeval.errors import InexevalError

A, B, C, D, E, F, G = range(7)


def _c(*lists: list[int], scores: list[list[float]] | None = None, depth: int = 100
       ) -> Candidates:
    size = max(max(x) for x in lists if x) + 1
    return candidates([np.array(x) for x in lists], size, depth,
                      None if scores is None else [np.array(s) for s in scores])


def _relevant(size: int, *units: int) -> np.ndarray:
    flags = np.zeros(size, dtype=bool)
    flags[list(units)] = True
    return flags


# r1 = a b c d, r2 = e a f g, cut at depth 3: the pool is a b c e f (codes renumbered 0..4)
TWO = ([A, B, C, D], [E, A, F, G])
POOL = {0: "a", 1: "b", 2: "c", 3: "e", 4: "f"}


def _names(order: np.ndarray) -> str:
    return "".join(POOL[int(u)] for u in order)


def test_candidates_keep_each_runs_first_rank_and_renumber() -> None:
    c = candidates([np.array([A, A, B]), np.array([D, B])], 5, 3)
    assert c.size == 3  # a, b, d
    assert [x.tolist() for x in c.lists] == [[0, 1], [2, 1]]
    assert [x.tolist() for x in c.ranks] == [[1, 3], [1, 2]]


def test_depth_order_is_rank_by_rank_in_run_order() -> None:
    assert _names(depth_order(_c(*TWO, depth=3))) == "aebcf"


def test_take_by_rrf_rbp_combsum_and_combmnz_worked_on_paper() -> None:
    c = _c(*TWO, depth=3, scores=[[9, 8, 7], [9, 8, 7]])
    options = StrategyOptions()
    # rrf: a 1/61 + 1/62; e 1/61; b 1/62; c and f 1/63 (c first: the depth order)
    assert _names(judging_order("take", c, None, options)) == "aebcf"
    rrf = fused_scores(c, "rrf", options)
    assert rrf[0] == pytest.approx(1 / 61 + 1 / 62) and rrf[3] == pytest.approx(1 / 61)
    # rbp, p = 0.5: a 0.5 + 0.25; e 0.5; b 0.25; c, f 0.125
    rbp = fused_scores(c, "rbp", StrategyOptions(rbp_p=0.5))
    assert rbp.tolist() == [0.75, 0.25, 0.125, 0.5, 0.125]
    # combsum, scores 9 8 7 normalised 1 .5 0: a 1.5, b .5, c 0, e 1, f 0; combmnz doubles a
    combsum = StrategyOptions(fusion="combsum")
    assert fused_scores(c, "combsum", combsum).tolist() == [1.5, 0.5, 0.0, 1.0, 0.0]
    assert fused_scores(c, "combmnz", combsum).tolist() == [3.0, 0.5, 0.0, 1.0, 0.0]
    assert _names(judging_order("take", c, None, combsum)) == "aebcf"
    assert _names(judging_order("take", c, None, combsum, budget=2)) == "ae"


def test_mtf_worked_on_paper() -> None:
    c = _c(*TWO, depth=3)
    # relevant: b c e. r1 gives a (no: r1 priority -1); r2 gives e (yes, r2 again), then f
    # (its next unjudged: a is judged; no: r2 -1); tie, r1 first: b, c (yes), r1 is done
    order = judging_order("mtf", c, _relevant(5, 1, 2, 3), StrategyOptions())
    assert _names(order) == "aefbc"
    # nothing relevant: a (r1 -1), e (r2 -1), b (r1 -2), f (r2 -2), c
    assert _names(judging_order("mtf", c, _relevant(5), StrategyOptions())) == "aebfc"
    assert _names(judging_order("mtf", c, _relevant(5), StrategyOptions(), budget=3)) == "aeb"


def test_hedge_worked_on_paper() -> None:
    # r1 = a b, r2 = b c; N = 3. Costs ln(N / r) / 2: r1 a ln3/2, b ln1.5/2, c (missing: rank
    # (2 + 1 + 3) / 2 = 3) 0; r2 b ln3/2, c ln1.5/2, a 0. First pick: b (ln1.5/2 + ln3/2).
    c = _c([A, B], [B, C])
    # b not relevant: r1 weight 0.1^(ln1.5/ln3) = 0.43, r2 0.1: a 0.43 ln3/2 = 0.23 beats
    # c 0.1 ln1.5/2 = 0.02
    assert judging_order("hedge", c, _relevant(3), StrategyOptions()).tolist() == [B, A, C]
    # b relevant: r1 0.1^-(ln1.5/ln3) = 2.34, r2 10: c 10 ln1.5/2 = 2.03 beats a 1.29
    assert judging_order("hedge", c, _relevant(3, B), StrategyOptions()).tolist() == [B, C, A]
    assert 0.1 ** -(math.log(1.5) / math.log(3)) * math.log(3) / 2 < 10 * math.log(1.5) / 2


def _transcribed_bandit(lists: list[list[int]], relevant: np.ndarray, method: str, seed: int,
                        discount: float = 0.9) -> list[int]:
    """Losada, Parapar and Barreiro (2017), the allocation loop as their pseudo-code states it:
    while documents remain, choose a run by the method from each run's history of rewards, judge
    the run's next unjudged document, append the reward to the run's history."""
    rng = np.random.default_rng(seed)
    history: list[list[float]] = [[] for _ in lists]
    judged: list[int] = []
    total = len({d for run in lists for d in run})
    while len(judged) < total:
        alive = [i for i, run in enumerate(lists) if any(d not in judged for d in run)]
        values = []
        for i in alive:
            h = history[i]
            n = len(h)
            if method == "mm-ns":  # Beta(1 + sum g^(n-j) r_j, 1 + sum g^(n-j) (1 - r_j))
                a = 1 + sum(discount ** (n - 1 - j) * r for j, r in enumerate(h))
                b = 1 + sum(discount ** (n - 1 - j) * (1 - r) for j, r in enumerate(h))
                values.append(a / (a + b))
            elif method == "mm":
                values.append((1 + sum(h)) / (2 + n))
            elif method == "ucb":
                t = len(judged)
                if n == 0:
                    values.append(math.inf)
                else:
                    mean = sum(h) / n
                    lt = math.log(max(t, 1))
                    v = sum(r * r for r in h) / n - mean ** 2 + math.sqrt(2 * lt / n)
                    values.append(mean + math.sqrt(lt / n * min(0.25, v)))
            else:
                values.append(0.0)
        top = max(values)
        tied = [i for i, v in zip(alive, values) if v == top]
        run = tied[int(rng.integers(len(tied)))]
        document = next(d for d in lists[run] if d not in judged)
        judged.append(document)
        history[run].append(float(relevant[document]))
    return judged


@pytest.mark.parametrize("method", ["mm-ns", "mm", "ucb", "random"])
def test_bandits_equal_a_direct_transcription(method: str) -> None:
    generator = np.random.default_rng(7)
    lists = [list(generator.permutation(40)[:25]) for _ in range(6)]
    c = candidates([np.array(x) for x in lists], 40, 100)
    relevant = generator.random(c.size) < 0.3
    renumbered = [x.tolist() for x in c.lists]
    expected = _transcribed_bandit(renumbered, relevant, method, seed=3)
    options = StrategyOptions(bandit=method, seed=3)
    got = judging_order("bandit", c, relevant, options, rng=np.random.default_rng(3))
    assert got.tolist() == expected
    assert len(set(expected)) == c.size


def test_every_strategy_with_unlimited_budget_judges_the_whole_depth_pool() -> None:
    generator = np.random.default_rng(11)
    runs = [element_run(f"r{i}", {t: [(f"d{x}", "") for x in generator.permutation(30)[:20]]
                                  for t in ("1", "2")}, kind="document") for i in range(5)]
    qrels = assessments("trec", {t: [(f"d{x}", "", {"relevance": int(x % 3 == 0)})
                                     for x in range(30)] for t in ("1", "2")})
    depth = pool_runs(runs, depth=7)
    for strategy in ("depth", "take", "mtf", "bandit", "hedge"):
        for bandit in (("mm-ns", "mm", "ucb", "random", "mtf") if strategy == "bandit"
                       else ("mm-ns",)):
            pool = strategy_pool(runs, strategy, depth=7, assessments=qrels,
                                 options=StrategyOptions(bandit=bandit))
            for topic, tp in depth.items():
                got = sorted(zip(pool[topic].files, pool[topic].min_ranks, pool[topic].runs))
                assert got == sorted(zip(tp.files, tp.min_ranks, tp.runs)), (strategy, bandit)
            small = strategy_pool(runs, strategy, depth=7, budget=4, assessments=qrels,
                                  options=StrategyOptions(bandit=bandit))
            assert [len(tp) for tp in small.values()] == [4, 4]
            assert list(small["1"].files) == list(pool["1"].files[:4])


def test_an_adaptive_strategy_needs_judgements_for_a_budget() -> None:
    runs = [element_run("r", {"1": [("a", ""), ("b", "")]}, kind="document")]
    with pytest.raises(InexevalError, match="needs --qrels"):
        strategy_pool(runs, "mtf", depth=2, budget=1)
    with pytest.raises(InexevalError, match="give --qrels"):
        judging_order("hedge", _c([A]), None, StrategyOptions())
    start = strategy_pool(runs, "mtf", depth=2)
    assert list(start["1"].files) == ["a", "b"]


def test_serving_one_unit_at_a_time_follows_the_judging_order() -> None:
    """An assessor served by next_unit, answering as the qrels say, judges in the order the
    simulation gives, for every strategy."""
    generator = np.random.default_rng(5)
    c = candidates([generator.permutation(30)[:12] for _ in range(4)], 30, 100)
    relevant = generator.random(c.size) < 0.35
    for strategy, bandit in (("depth", "mm-ns"), ("take", "mm-ns"), ("mtf", "mm-ns"),
                             ("hedge", "mm-ns"), ("bandit", "mm-ns"), ("bandit", "ucb"),
                             ("bandit", "random"), ("bandit", "mtf")):
        options = StrategyOptions(bandit=bandit, seed=2)
        expected = judging_order(strategy, c, relevant, options, rng=np.random.default_rng(2))
        answers: dict[int, bool] = {}
        served = []
        while (unit := next_unit(strategy, c, answers, set(), options, 2)) is not None:
            served.append(unit)
            answers[unit] = bool(relevant[unit])
        assert served == expected.tolist(), (strategy, bandit)


def test_two_assessors_under_mtf_worked_on_paper() -> None:
    """r1 = a b c, r2 = e a f; b c e relevant. A is served a; B, while a is being judged (so
    counted not relevant), e; A (a not relevant, e being judged) b; once e is found relevant
    MTF stays with r2: f."""
    c = _c(*TWO, depth=3)
    a, b, e, f = 0, 1, 3, 4
    options = StrategyOptions()
    assert next_unit("mtf", c, {}, set(), options) == a
    assert next_unit("mtf", c, {}, {a}, options) == e
    assert next_unit("mtf", c, {a: False}, {e}, options) == b
    assert next_unit("mtf", c, {a: False, e: True}, {b}, options) == f
    assert next_unit("mtf", c, {a: False, e: True, b: True, f: False, 2: True}, set(),
                     options) is None


@pytest.mark.parametrize(("option", "value", "said"), [
    ("rrf_k", -1.0, "--rrf-k"), ("rrf_k", math.nan, "--rrf-k"), ("rrf_k", math.inf, "--rrf-k"),
    ("rbp_p", 1.0, "--rbp-p"), ("rbp_p", math.nan, "--rbp-p"),
    ("discount", 0.0, "--discount"), ("discount", math.nan, "--discount"),
    ("beta", 1.0, "--hedge-beta"), ("beta", math.nan, "--hedge-beta"),
    ("seed", -1, "--seed"), ("seed", 1.5, "--seed"),
])
def test_fusion_and_bandit_parameters_out_of_range_are_errors(option: str, value: float,
                                                              said: str) -> None:
    # a NaN k made every RRF score NaN: a pool in no defined order, silently
    with pytest.raises(InexevalError, match=said):
        StrategyOptions(**{option: value})
    StrategyOptions(rrf_k=0.0)  # k = 0 is RRF's plain 1 / rank
