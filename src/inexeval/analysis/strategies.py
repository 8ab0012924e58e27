"""Pooling strategies: the order in which a topic's assessor judges the units of a depth-k pool.

Every strategy orders the units of one topic's depth-``k`` pool (the union of every run's top
``k`` units); a judgement budget of ``N`` judges the first ``N`` of that order, and an unlimited
budget judges the whole depth-``k`` pool. A run's list here is its distinct units in rank order
(an article returned by several element results counts at its first rank).

* ``depth``: rank 1 of every run (in the runs' order), then rank 2, ... (INEX 2002's depth pool
  judged in rank order; Losada et al. 2017's baseline);
* ``take``: the units by a fused score, best first (trectools' Take@N family): ``combsum``
  (sum of each run's min-max normalised scores; Fox and Shaw 1994), ``combmnz`` (combsum times
  the number of runs returning the unit), ``rrf`` (reciprocal rank fusion, ``sum 1/(k + rank)``,
  Cormack, Clarke and Büttcher 2009, ``k`` = 60), ``rbp`` (``sum (1 - p) p^(rank - 1)``, the
  weight rank-biased precision gives a rank; Moffat and Zobel 2008, ``p`` = 0.8);
* ``mtf``: move-to-front (Cormack, Palmer and Clarke 1998): every run starts with the same
  priority; the first run of highest priority gives its next unjudged unit, and keeps giving
  while they are relevant; a non-relevant one lowers its priority by one;
* ``bandit``: the runs are the arms of a multi-armed bandit, pulling one judges its next
  unjudged unit, the reward is the unit's relevance (Losada, Parapar and Barreiro 2016, 2017):
  ``mm-ns`` (default; their best: maximum posterior mean of a Beta(1, 1) prior updated with
  judgements discounted by ``discount`` per later judgement of the same run, the
  non-stationary variant), ``mm`` (the stationary maximum mean), ``ucb`` (UCB1-Tuned, Auer,
  Cesa-Bianchi and Fischer 2002), ``random`` and ``mtf`` (move-to-front with ties broken at
  random, as Losada et al. run it);
* ``hedge``: Aslam, Pavlu and Savell (2003): runs are experts of Freund and Schapire's Hedge with
  weights (all 1 at first); a unit at rank ``r`` of a run costs that run ``ln(N / r) / 2`` (``N``
  the pool's size; a unit the run does not return sits at the mean of the ranks it leaves,
  ``(n + 1 + N) / 2``); the next unit is the unjudged one of highest weighted cost; once judged,
  each run's weight is multiplied by ``beta`` to the power of its cost over the largest, the
  cost counting negatively when the unit is relevant (``beta`` = 0.1).

The adaptive strategies (``mtf``, ``bandit``, ``hedge``) read the judgements as they come: here,
from finished qrels (a simulation). Ties a strategy leaves open are broken by the ``depth``
order, or, for the bandits, at random by a seeded generator, so that the order is a function of
the runs, the relevance and the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

STRATEGIES = ("depth", "round-robin", "take", "mtf", "bandit", "hedge")
ADAPTIVE = ("mtf", "bandit", "hedge")
FUSIONS = ("combsum", "combmnz", "rrf", "rbp")
BANDITS = ("mm-ns", "mm", "ucb", "random", "mtf")


@dataclass(frozen=True)
class StrategyOptions:
    """A strategy's parameters (see the module docstring for their meaning and defaults)."""

    fusion: str = "rrf"
    rrf_k: float = 60.0
    rbp_p: float = 0.8
    bandit: str = "mm-ns"
    discount: float = 0.9
    beta: float = 0.1
    seed: int = 1

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise InexevalError(f"unknown fusion {self.fusion!r} (known: {', '.join(FUSIONS)})")
        if self.bandit not in BANDITS:
            raise InexevalError(f"unknown bandit {self.bandit!r} (known: {', '.join(BANDITS)})")
        if not 0.0 < self.rbp_p < 1.0:
            raise InexevalError(f"--rbp-p {self.rbp_p} is not strictly between 0 and 1")
        if not 0.0 < self.discount <= 1.0:
            raise InexevalError(f"--discount {self.discount} is not in (0, 1]")
        if not 0.0 < self.beta < 1.0:
            raise InexevalError(f"--hedge-beta {self.beta} is not strictly between 0 and 1")
        if not 0.0 <= self.rrf_k < float("inf"):  # NaN fails too
            raise InexevalError(f"--rrf-k {self.rrf_k} is not a finite number >= 0")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InexevalError(f"--seed {self.seed!r} is not a whole number from 0")


@dataclass(frozen=True)
class Candidates:
    """One topic's depth-k pool as the strategies see it: ``lists[r]`` holds run ``r``'s
    distinct unit codes (``0 .. size - 1``) in rank order, ``ranks[r]`` their ranks in the run
    (1-based, of the unit's first result) and ``scores[r]`` their scores (NaN when the run has
    none)."""

    size: int
    lists: Sequence[IntArray]
    ranks: Sequence[IntArray]
    scores: Sequence[FloatArray] = field(default_factory=list)


def candidates(units: Sequence[IntArray], size: int, depth: int,
               scores: Sequence[FloatArray] | None = None) -> Candidates:
    """The candidates of a topic from each run's unit codes in rank order (``units[r]``, codes
    below ``size``, repeats allowed), cut at ``depth`` results; units not in any run's top
    ``depth`` are left out and the codes renumbered in order (``size`` becomes the pool's)."""
    lists, ranks, kept_scores = [], [], []
    for r, run_units in enumerate(units):
        top = np.asarray(run_units[:depth], dtype=np.int64)
        _, first = np.unique(top, return_index=True)
        first.sort()
        lists.append(top[first])
        ranks.append(first.astype(np.int64) + 1)
        if scores is not None:
            kept_scores.append(np.asarray(scores[r][:depth], dtype=np.float64)[first])
        else:
            kept_scores.append(np.full(len(first), np.nan))
    present = np.zeros(size, dtype=bool)
    for run_list in lists:
        present[run_list] = True
    renumber = np.cumsum(present) - 1
    return Candidates(int(present.sum()), [renumber[x] for x in lists], ranks, kept_scores)


def depth_order(c: Candidates) -> IntArray:
    """Rank 1 of every run in the runs' order, then rank 2, ...: each unit at its first
    appearance."""
    if c.size == 0:
        return np.zeros(0, dtype=np.int64)
    unit = np.concatenate(c.lists)
    position = np.concatenate([np.arange(len(x)) for x in c.lists])
    run = np.repeat(np.arange(len(c.lists)), [len(x) for x in c.lists])
    order = np.lexsort((run, position))
    ordered = unit[order]
    _, first = np.unique(ordered, return_index=True)
    return ordered[np.sort(first)]


def fused_scores(c: Candidates, fusion: str, options: StrategyOptions) -> FloatArray:
    """Each unit's fused score (see ``take`` in the module docstring). A run without scores
    (or with equal ones) counts ``1 - (position - 1) / length``, its ranks as scores."""
    total = np.zeros(c.size, dtype=np.float64)
    returned = np.zeros(c.size, dtype=np.float64)
    for units, ranks, scores in zip(c.lists, c.ranks, c.scores):
        if not len(units):
            continue
        if fusion == "rrf":
            weight = 1.0 / (options.rrf_k + ranks)
        elif fusion == "rbp":
            weight = (1.0 - options.rbp_p) * options.rbp_p ** (ranks - 1.0)
        else:
            weight = _normalised(scores, len(units))
        np.add.at(total, units, weight)
        np.add.at(returned, units, 1.0)
    return total * returned if fusion == "combmnz" else total


def _normalised(scores: FloatArray, n: int) -> FloatArray:
    """Min-max normalised scores (Lee 1997); ranks as scores when there are none to use."""
    if len(scores) and np.isfinite(scores).all() and scores.max() > scores.min():
        low, high = float(scores.min()), float(scores.max())
        return np.asarray((scores - low) / (high - low), dtype=np.float64)
    return 1.0 - np.arange(n, dtype=np.float64) / n


def take_order(c: Candidates, options: StrategyOptions) -> IntArray:
    """The units by fused score, best first; ties in ``depth`` order."""
    base = depth_order(c)
    fused = fused_scores(c, options.fusion, options)[base]
    return base[np.argsort(-fused, kind="stable")]


class _Arms:
    """The runs as arms: each one's pointer to its next unjudged unit."""

    def __init__(self, c: Candidates) -> None:
        self.lists = [x.tolist() for x in c.lists]
        self.next = [0] * len(self.lists)
        self.judged = np.zeros(c.size, dtype=bool)

    def unit(self, arm: int) -> int | None:
        """The arm's next unjudged unit (its pointer moved past judged ones), or None."""
        units, i = self.lists[arm], self.next[arm]
        while i < len(units) and self.judged[units[i]]:
            i += 1
        self.next[arm] = i
        return units[i] if i < len(units) else None

    def live(self) -> BoolArray:
        return np.array([self.unit(a) is not None for a in range(len(self.lists))], dtype=bool)


def mtf_order(c: Candidates, relevant: BoolArray, budget: int | None = None,
              rng: np.random.Generator | None = None) -> IntArray:
    """Move-to-front (see the module docstring); ties between runs of equal priority go to the
    first in order, or, with ``rng``, to one drawn at random."""
    arms = _Arms(c)
    priority = np.zeros(len(c.lists), dtype=np.float64)
    order: list[int] = []
    current: int | None = None
    limit = c.size if budget is None else min(budget, c.size)
    while len(order) < limit:
        if current is None or arms.unit(current) is None:
            live = arms.live()
            best = np.flatnonzero(live & (priority == priority[live].max()))
            current = int(best[rng.integers(len(best))] if rng is not None else best[0])
        unit = arms.unit(current)
        assert unit is not None
        arms.judged[unit] = True
        order.append(unit)
        if not relevant[unit]:
            priority[current] -= 1.0
            current = None
    return np.array(order, dtype=np.int64)


def bandit_order(c: Candidates, relevant: BoolArray, options: StrategyOptions,
                 budget: int | None = None, rng: np.random.Generator | None = None) -> IntArray:
    """A bandit's judging order (see the module docstring): each step picks an arm among those
    with an unjudged unit left, judges its next unit and learns the reward. Ties are broken by
    one draw ``rng.integers(number tied)`` per step."""
    rng = rng if rng is not None else np.random.default_rng(options.seed)
    if options.bandit == "mtf":
        return mtf_order(c, relevant, budget, rng)
    arms = _Arms(c)
    n = len(c.lists)
    alpha, beta = np.ones(n), np.ones(n)
    pulls, rewards = np.zeros(n), np.zeros(n)
    order: list[int] = []
    limit = c.size if budget is None else min(budget, c.size)
    while len(order) < limit:
        live = arms.live()
        if options.bandit == "random":
            value = np.zeros(n)
        elif options.bandit == "ucb":
            value = _ucb1_tuned(pulls, rewards, len(order))
        else:
            value = alpha / (alpha + beta)
        value = np.where(live, value, -np.inf)
        best = np.flatnonzero(value == value.max())
        arm = int(best[rng.integers(len(best))])
        unit = arms.unit(arm)
        assert unit is not None
        arms.judged[unit] = True
        order.append(unit)
        reward = float(relevant[unit])
        pulls[arm] += 1
        rewards[arm] += reward
        if options.bandit == "mm-ns":
            alpha[arm] = 1.0 + options.discount * (alpha[arm] - 1.0) + reward
            beta[arm] = 1.0 + options.discount * (beta[arm] - 1.0) + 1.0 - reward
        else:
            alpha[arm] += reward
            beta[arm] += 1.0 - reward
    return np.array(order, dtype=np.int64)


def _ucb1_tuned(pulls: FloatArray, rewards: FloatArray, played: int) -> FloatArray:
    """UCB1-Tuned's index (Auer et al. 2002, §4): an arm never played comes first; else
    ``mean + sqrt(ln t / n * min(1/4, V))``, ``V = mean - mean^2 + sqrt(2 ln t / n)`` for
    rewards of 0 and 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = rewards / pulls
        log_t = np.log(max(played, 1))
        variance = mean - mean * mean + np.sqrt(2.0 * log_t / pulls)
        value = mean + np.sqrt(log_t / pulls * np.minimum(0.25, variance))
    return np.asarray(np.where(pulls == 0, np.inf, value), dtype=np.float64)


def hedge_costs(c: Candidates) -> FloatArray:
    """Each run's cost of each unit, ``ln(N / r) / 2`` (runs × units; see the module
    docstring)."""
    n_units = c.size
    costs = np.empty((len(c.lists), n_units), dtype=np.float64)
    for r, units in enumerate(c.lists):
        missing_rank = (len(units) + 1 + n_units) / 2.0
        rank = np.full(n_units, missing_rank)
        rank[units] = np.arange(1, len(units) + 1)
        costs[r] = 0.5 * np.log(n_units / rank)
    return costs


def hedge_order(c: Candidates, relevant: BoolArray, options: StrategyOptions,
                budget: int | None = None) -> IntArray:
    """Hedge (Aslam, Pavlu and Savell 2003; see the module docstring); ties in ``depth``
    order."""
    base = depth_order(c)
    if c.size == 0:
        return base
    costs = hedge_costs(c)[:, base]
    largest = max(float(costs.max()), np.finfo(np.float64).tiny)
    weights = np.ones(len(c.lists))
    judged = np.zeros(c.size, dtype=bool)
    order: list[int] = []
    limit = c.size if budget is None else min(budget, c.size)
    while len(order) < limit:
        value = weights @ costs
        value[judged] = -np.inf
        pick = int(np.argmax(value))
        judged[pick] = True
        order.append(int(base[pick]))
        sign = -1.0 if relevant[base[pick]] else 1.0
        weights = weights * options.beta ** (sign * costs[:, pick] / largest)
        weights /= weights.sum()
    return np.array(order, dtype=np.int64)


def judging_order(strategy: str, c: Candidates, relevant: BoolArray | None,
                  options: StrategyOptions, budget: int | None = None,
                  rng: np.random.Generator | None = None) -> IntArray:
    """The first ``budget`` units (all without a budget) a strategy judges, as codes of ``c``.
    The adaptive strategies need ``relevant`` (one flag per unit); ``round-robin`` here is the
    ``depth`` order (the two differ only in where the pool stops)."""
    if strategy in ("depth", "round-robin"):
        order = depth_order(c)
    elif strategy == "take":
        order = take_order(c, options)
    elif strategy in ADAPTIVE:
        if relevant is None:
            raise InexevalError(f"the {strategy} strategy chooses by the judgements made: give "
                                "--qrels to simulate it")
        if strategy == "mtf":
            return mtf_order(c, relevant, budget)
        if strategy == "bandit":
            return bandit_order(c, relevant, options, budget, rng)
        return hedge_order(c, relevant, options, budget)
    else:
        raise InexevalError(f"unknown pooling strategy {strategy!r} (known: "
                            f"{', '.join(STRATEGIES)})")
    return order if budget is None else order[:budget]


class _Unanswered(Exception):
    """Raised by :class:`_Answers` for the first unit a replayed strategy picks that has no
    judgement yet."""

    def __init__(self, unit: int) -> None:
        super().__init__(unit)
        self.unit = unit


class _Answers:
    """The judgements made so far as the ``relevant`` flags of an adaptive strategy: a unit
    being judged counts as not relevant (another assessor gets the unit the strategy would
    choose next), a unit without either stops the replay."""

    def __init__(self, answers: dict[int, bool], pending: set[int]) -> None:
        self.answers = answers
        self.pending = pending

    def __getitem__(self, unit: Any) -> bool:
        key = int(unit)
        if key in self.answers:
            return self.answers[key]
        if key in self.pending:
            return False
        raise _Unanswered(key)


def next_unit(strategy: str, c: Candidates, answers: dict[int, bool], pending: set[int],
              options: StrategyOptions, rng_seed: np.random.SeedSequence | int | None = None
              ) -> int | None:
    """The unit an assessor judges next under ``strategy`` (None when every unit is judged or
    being judged): the strategy replayed on the judgements made so far (``answers``: unit ->
    relevant), units being judged by others (``pending``) counted as not relevant, up to the
    first unit with neither. The same seed gives the same replay, so that serving a live
    campaign one unit at a time follows :func:`judging_order` when the answers come in the
    order it served them."""
    if strategy not in ADAPTIVE:
        order = judging_order(strategy, c, None, options)
        return next((int(u) for u in order if int(u) not in answers and int(u) not in pending),
                    None)
    rng = np.random.default_rng(rng_seed if rng_seed is not None else options.seed)
    oracle: Any = _Answers(answers, pending)
    try:
        order = judging_order(strategy, c, oracle, options, rng=rng)
    except _Unanswered as first:
        return first.unit
    return next((int(u) for u in order if int(u) not in answers and int(u) not in pending),
                None)
