"""Stratified sampling of a pool for the inferred measures (:mod:`inexeval.measures.sampled`).

A topic's pooled units are ranked by a fused ranking (``take``'s, :mod:`.strategies`); depth
strata ``1-10:1.0,11-100:0.2,101-1000:0.05`` cut that ranking into ranges of ranks, each sampled
at its rate, as TREC's sampled pools are (Yilmaz, Kanoulas and Aslam 2008: a top stratum judged
whole, deeper strata sampled ever more thinly). From a stratum of ``n`` units exactly
``k = max(1, round(rate × n))`` (at most ``n``) are drawn uniformly without replacement, so
each unit's inclusion probability is ``k / n``, and what the estimators assume
(sampled / documents per stratum) is exact. Units ranked below the last stratum are not pooled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError

_STRATUM = re.compile(r"^(\d+)-(\d+):([0-9.]+(?:[eE][-+]?\d+)?)$")


@dataclass(frozen=True)
class Stratum:
    """Ranks ``first`` to ``last`` (1-based, inclusive) of the fused ranking, sampled at
    ``rate``; ``name`` is ``first-last``."""

    first: int
    last: int
    rate: float

    @property
    def name(self) -> str:
        return f"{self.first}-{self.last}"


def parse_strata(text: str) -> tuple[Stratum, ...]:
    """``1-10:1.0,11-100:0.2``: ranges of ranks in increasing order that do not overlap, each
    with a rate in (0, 1]."""
    strata: list[Stratum] = []
    for part in text.split(","):
        match = _STRATUM.match(part.strip())
        if match is None:
            raise InexevalError(f"--strata: {part.strip()!r} is not FIRST-LAST:RATE (as in "
                                "1-10:1.0)")
        first, last, rate = int(match.group(1)), int(match.group(2)), float(match.group(3))
        if not 1 <= first <= last:
            raise InexevalError(f"--strata: {part.strip()!r} is not a range of ranks from 1")
        if not 0.0 < rate <= 1.0:
            raise InexevalError(f"--strata: the rate of {part.strip()!r} is not in (0, 1]")
        if strata and first <= strata[-1].last:
            raise InexevalError(f"--strata: {part.strip()!r} overlaps or precedes "
                                f"{strata[-1].name}")
        strata.append(Stratum(first, last, rate))
    return tuple(strata)


@dataclass(frozen=True)
class Sample:
    """A topic's stratified sample over the first ``len(stratum)`` units of a ranking:
    each one's stratum (index into the strata), whether it was drawn and its inclusion
    probability."""

    stratum: npt.NDArray[np.int64]
    drawn: npt.NDArray[np.bool_]
    probability: npt.NDArray[np.float64]


def stratified_sample(ranked: int, strata: tuple[Stratum, ...], rng: np.random.Generator
                      ) -> Sample:
    """Sample the first ``ranked`` units of a ranking by ``strata`` (see the module
    docstring); units below the last stratum, or between two, are left out of the sample's
    arrays (those cover the ranks that some stratum holds, in rank order)."""
    stratum_of, drawn, probability = [], [], []
    for i, s in enumerate(strata):
        n = max(0, min(s.last, ranked) - s.first + 1)
        if n == 0:
            continue
        k = min(n, max(1, int(s.rate * n + 0.5)))
        chosen = np.zeros(n, dtype=bool)
        chosen[rng.choice(n, size=k, replace=False)] = True
        stratum_of.append(np.full(n, i, dtype=np.int64))
        drawn.append(chosen)
        probability.append(np.full(n, k / n))
    if not stratum_of:
        return Sample(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool), np.zeros(0))
    return Sample(np.concatenate(stratum_of), np.concatenate(drawn), np.concatenate(probability))


def covered_ranks(ranked: int, strata: tuple[Stratum, ...]) -> npt.NDArray[np.int64]:
    """The 0-based positions of the first ``ranked`` units that some stratum holds."""
    parts = [np.arange(s.first - 1, min(s.last, ranked), dtype=np.int64) for s in strata]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def ap_prior(lists: list[npt.NDArray[np.int64]], ranks: list[npt.NDArray[np.int64]], size: int,
             depth: int) -> npt.NDArray[np.float64]:
    """Each unit's AP prior, averaged over the runs: a unit at rank ``r`` of a run of depth
    ``Z`` weighs ``(1 + 1/r + 1/(r + 1) + ... + 1/Z) / (2 Z)`` (Aslam, Pavlu and Savell 2003;
    the sampling distribution of statAP, Aslam, Pavlu and Yilmaz 2006), 0 where not returned.
    ``lists[r]`` and ``ranks[r]`` are run ``r``'s unit codes and their ranks (at most
    ``depth``)."""
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, depth + 1))])
    weight = np.zeros(size)
    for units, at in zip(lists, ranks):
        np.add.at(weight, units, (1.0 + harmonic[depth] - harmonic[at - 1]) / (2.0 * depth))
    return weight / max(len(lists), 1)


def inclusion_probabilities(weight: npt.NDArray[np.float64], budget: int
                            ) -> npt.NDArray[np.float64]:
    """Probabilities proportional to ``weight`` summing to ``budget`` (all 1 when the budget
    covers every unit), none above 1: the capped units take 1 and the rest share what is left
    in proportion."""
    n = len(weight)
    if budget >= n:
        return np.ones(n)
    capped = np.zeros(n, dtype=bool)
    while True:
        free = weight[~capped].sum()
        scale = (budget - capped.sum()) / free if free > 0 else 0.0
        probability = np.where(capped, 1.0, weight * scale)
        over = ~capped & (probability >= 1.0)
        if not over.any():
            return probability
        capped |= over


def statap_sample(weight: npt.NDArray[np.float64], budget: int, rng: np.random.Generator
                  ) -> tuple[npt.NDArray[np.int64], list[str], Sample]:
    """A sample of about ``budget`` units drawn by the AP prior ``weight``, made stratified so
    that the inclusion probabilities the estimators use are exact: the units, by weight
    descending, are binned by their probability ``p`` under :func:`inclusion_probabilities`
    (``p = 1``; ``1/2 < p < 1``; ``1/4 < p <= 1/2`` ...: strata ``p1``, ``p2``, ``p4`` ...) and
    each bin of ``n`` units draws ``max(1, round(sum of p))`` of them. Returns the units in
    that order, the stratum names and the sample."""
    order = np.argsort(-weight, kind="stable")
    probability = inclusion_probabilities(weight[order], budget)
    level = np.where(probability >= 1.0, 0,
                     np.floor(-np.log2(np.maximum(probability, 1e-300))).astype(np.int64) + 1)
    level = np.where(weight[order] > 0, level, level.max(initial=0) + 1)
    names, stratum_of, drawn, probabilities = [], [], [], []
    for i, value in enumerate(np.unique(level).tolist()):
        members = np.flatnonzero(level == value)
        n = len(members)
        k = min(n, max(1, int(probability[members].sum() + 0.5)))
        chosen = np.zeros(n, dtype=bool)
        chosen[rng.choice(n, size=k, replace=False)] = True
        names.append(f"p{2 ** value}" if value < 60 else f"p{value}")
        stratum_of.append(np.full(n, i, dtype=np.int64))
        drawn.append(chosen)
        probabilities.append(np.full(n, k / n))
    ordered = order[np.argsort(level, kind="stable")]
    if not names:
        return ordered, names, Sample(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool),
                                      np.zeros(0))
    return ordered, names, Sample(np.concatenate(stratum_of), np.concatenate(drawn),
                                  np.concatenate(probabilities))
