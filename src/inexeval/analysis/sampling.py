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
