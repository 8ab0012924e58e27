"""How much judging a strategy saves: pooling strategies simulated on a finished campaign.

For each topic, strategy and budget ``N``, the strategy (:mod:`.strategies`) judges the first
``N`` units of the depth-``k`` pool in its order, reading the finished qrels as the assessor's
answers; a unit the qrels do not judge is not relevant. The study reports, per strategy and
budget, the units judged and the relevant ones found (summed over the topics), and how well
the runs' mean average precision with only those judgements (the rest counted not relevant,
the number of relevant units being the number found) agrees with their MAP on the full qrels:
Kendall's tau (tau-b) between the two orderings of the runs and the root mean squared error of
the MAPs (Losada, Parapar and Barreiro 2017, §6, draw these curves on TREC).

Units are articles (TREC documents, or the articles of element and passage results); a unit is
relevant when :func:`~inexeval.analysis.pooling.unit_relevance` says so. Average precision is
binary, over each run's distinct units in rank order down to ``max_results``. Topics with no
relevant unit in the qrels, or that no run returns, are left out.

The study is one task per topic, run by an executor (:mod:`inexeval.executor`): serially, in
forked processes or on a Dask cluster, with the same results; the bandits' random choices for
topic ``i`` come from the ``i``-th child of ``SeedSequence(seed)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.analysis.pooling import code_pool, pool_candidates, runs_of_topic, unit_relevance
from inexeval.analysis.strategies import (
    BANDITS,
    FUSIONS,
    STRATEGIES,
    StrategyOptions,
    judging_order,
)
from inexeval.errors import InexevalError
from inexeval.executor import Executor, Serial, task_seeds
from inexeval.model.assessments import Assessments
from inexeval.model.pool import topic_order
from inexeval.model.run import Run

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class StrategySpec:
    """A strategy with its variant: ``take:combsum``, ``bandit:ucb``, ``mtf`` ..."""

    name: str
    variant: str | None = None

    def __str__(self) -> str:
        return self.name if self.variant is None else f"{self.name}:{self.variant}"

    def options(self, base: StrategyOptions) -> StrategyOptions:
        if self.name == "take" and self.variant is not None:
            return StrategyOptions(**{**base.__dict__, "fusion": self.variant})
        if self.name == "bandit" and self.variant is not None:
            return StrategyOptions(**{**base.__dict__, "bandit": self.variant})
        return base


def parse_strategies(text: str) -> list[StrategySpec]:
    """``depth,take:rrf,mtf,bandit,bandit:ucb,hedge``: strategies, take's fusion and the
    bandit's method after a colon."""
    specs = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, variant = part.partition(":")
        if name not in STRATEGIES:
            raise InexevalError(f"--strategies: unknown strategy {name!r} (known: "
                                f"{', '.join(STRATEGIES)})")
        allowed = FUSIONS if name == "take" else BANDITS if name == "bandit" else ()
        if variant and variant not in allowed:
            what = f"one of {', '.join(allowed)}" if allowed else "no variant"
            raise InexevalError(f"--strategies: {part!r}: {name} takes {what}")
        specs.append(StrategySpec(name, variant or None))
    if not specs:
        raise InexevalError("--strategies names no strategy")
    if len({str(s) for s in specs}) < len(specs):
        raise InexevalError("--strategies names a strategy twice")
    return specs


@dataclass(frozen=True)
class CurvePoint:
    """One strategy at one budget, over the study's topics (the keys of ``--format json``)."""

    strategy: str
    budget: int
    topic_count: int
    judged: int
    relevant_found: int
    kendall_tau: float
    rmse: float


@dataclass(frozen=True)
class _Shared:
    runs: Sequence[Run]
    qrels: Assessments
    strategies: Sequence[StrategySpec]
    budgets: IntArray
    depth: int
    max_results: int
    order: str | None
    options: StrategyOptions


@dataclass(frozen=True)
class _TopicOutcome:
    """One topic: ``judged`` and ``found`` (strategies × budgets), ``ap`` (strategies × budgets
    × runs) and ``full`` (runs)."""

    judged: IntArray
    found: IntArray
    ap: FloatArray
    full: FloatArray


def _average_precision(relevant: npt.NDArray[np.bool_], num_rel: npt.NDArray[np.int64]
                       ) -> FloatArray:
    """Binary AP of rankings along the last axis (``relevant``: ... × ranks), ``num_rel`` of
    the leading shape; 0 where ``num_rel`` is 0."""
    found = np.cumsum(relevant, axis=-1)
    ranks = np.arange(1, relevant.shape[-1] + 1)
    total = np.sum(np.where(relevant, found / ranks, 0.0), axis=-1)
    return np.where(num_rel > 0, total / np.maximum(num_rel, 1), 0.0)


def _topic(shared: _Shared, task: tuple[str, np.random.SeedSequence]) -> _TopicOutcome | None:
    topic, seed = task
    topic_runs = runs_of_topic(shared.runs, topic, shared.order)
    limit = max(shared.depth, shared.max_results)
    coded = code_pool(topic_runs, "article", limit)
    num_rel_full = _relevant_count(shared.qrels, topic)
    if num_rel_full == 0:
        return None
    relevant_key = unit_relevance(shared.qrels, topic, coded.files, coded.paths, "article")
    assert relevant_key is not None
    c = pool_candidates(topic_runs, coded, shared.depth)
    present = np.zeros(len(coded.keys), dtype=bool)
    for units in coded.units:
        present[units[: shared.depth]] = True
    pool_code = np.where(present, np.cumsum(present) - 1, -1)
    relevant = relevant_key[present]
    # each run's distinct units in rank order, as key codes, padded with -1
    lists = []
    for units in coded.units:
        _, first = np.unique(units[: shared.max_results], return_index=True)
        lists.append(units[np.sort(first)])
    width = max((len(x) for x in lists), default=0)
    keys = np.full((len(lists), width), -1, dtype=np.int64)
    for r, x in enumerate(lists):
        keys[r, : len(x)] = x
    valid = keys >= 0
    full_rel = valid & relevant_key[np.maximum(keys, 0)]
    full = _average_precision(full_rel, np.full(len(lists), num_rel_full))
    codes = np.where(valid, pool_code[np.maximum(keys, 0)], -1)
    budgets = shared.budgets
    n_strategies = len(shared.strategies)
    judged = np.zeros((n_strategies, len(budgets)), dtype=np.int64)
    found = np.zeros((n_strategies, len(budgets)), dtype=np.int64)
    ap = np.zeros((n_strategies, len(budgets), len(lists)))
    rngs = [np.random.default_rng(s) for s in seed.spawn(n_strategies)]
    for j, spec in enumerate(shared.strategies):
        order = judging_order(spec.name, c, relevant, spec.options(shared.options),
                              int(budgets.max()), rngs[j])
        position = np.full(c.size, np.iinfo(np.int64).max, dtype=np.int64)
        position[order] = np.arange(len(order))
        judged[j] = np.minimum(budgets, len(order))
        found_order = np.cumsum(relevant[order])
        found[j] = np.where(judged[j] > 0, found_order[np.maximum(judged[j] - 1, 0)], 0) \
            if len(order) else 0
        when = np.where(codes >= 0, position[np.maximum(codes, 0)], np.iinfo(np.int64).max)
        seen = (when[None, :, :] < budgets[:, None, None]) & full_rel[None, :, :]
        ap[j] = _average_precision(seen, np.broadcast_to(found[j][:, None], seen.shape[:2]))
    return _TopicOutcome(judged, found, ap, full)


def _relevant_count(qrels: Assessments, topic: str) -> int:
    """The relevant articles the qrels give the topic."""
    ta = qrels.get(topic)
    if ta is None or not len(ta):
        return 0
    files = np.array(sorted(set(ta.files.tolist())), dtype=object)
    relevant = unit_relevance(qrels, topic, files, np.full(len(files), "", dtype=object),
                              "article")
    return int(relevant.sum()) if relevant is not None else 0


def strategy_study(runs: Sequence[Run], qrels: Assessments, strategies: Sequence[StrategySpec],
                   budgets: Sequence[int], *, depth: int = 100, max_results: int = 1000,
                   order: str | None = None, options: StrategyOptions | None = None,
                   executor: Executor | None = None) -> list[CurvePoint]:
    """The curves of the module docstring: one point per strategy and budget, strategies in
    the given order, budgets ascending."""
    from scipy.stats import kendalltau

    if len(runs) < 2:
        raise InexevalError("the pooling study compares runs: give at least two")
    if not budgets or min(budgets) < 1:
        raise InexevalError("--budgets must be whole numbers of at least 1")
    if depth < 1 or max_results < 1:
        raise InexevalError("--depth and --max-results must be at least 1")
    options = options or StrategyOptions()
    returned = {t for r in runs for t in r}
    topics = sorted((t for t in qrels if t in returned), key=topic_order)
    if not topics:
        raise InexevalError("no topic is both in the qrels and in a run", qrels.source)
    wanted = np.array(sorted(set(budgets)), dtype=np.int64)
    shared = _Shared(runs, qrels, list(strategies), wanted, depth, max_results, order, options)
    tasks = list(zip(topics, task_seeds(options.seed, len(topics))))
    outcomes = [o for o in (executor or Serial()).map(_topic, tasks, shared,
                                                      description="pooling study")
                if o is not None]
    if not outcomes:
        raise InexevalError("no topic of the qrels has a relevant unit", qrels.source)
    full = np.mean([o.full for o in outcomes], axis=0)
    points = []
    for j, spec in enumerate(strategies):
        for b, budget in enumerate(wanted.tolist()):
            estimated = np.mean([o.ap[j, b] for o in outcomes], axis=0)
            tau = float(kendalltau(full, estimated).statistic)
            points.append(CurvePoint(
                str(spec), int(budget), len(outcomes),
                int(sum(o.judged[j, b] for o in outcomes)),
                int(sum(o.found[j, b] for o in outcomes)),
                tau, float(np.sqrt(np.mean((estimated - full) ** 2)))))
    return points


def curves_json(points: Sequence[CurvePoint]) -> dict[str, Any]:
    """``{"curves": [{strategy, budget, topic_count, judged, relevant_found, kendall_tau,
    rmse}]}`` (a tau that cannot be computed, as when every run scores the same, is None)."""
    return {"curves": [{"strategy": p.strategy, "budget": p.budget,
                        "topic_count": p.topic_count, "judged": p.judged,
                        "relevant_found": p.relevant_found,
                        "kendall_tau": None if np.isnan(p.kendall_tau) else p.kendall_tau,
                        "rmse": p.rmse} for p in points]}
