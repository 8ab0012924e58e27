"""Discriminative power: how many pairs of runs a measure tells apart (Sakai 2006; Sakai 2012).

For every pair of runs (a, b), a before b in the runs' order, the achieved significance level
(ASL) of the difference of their means, by one of two tests over X, the topics × runs matrix of
the measure (n topics, m runs):

* ``bootstrap``: the paired bootstrap test, shift method (Sakai 2006, "Evaluating evaluation
  metrics based on the bootstrap", SIGIR, Fig. 2). z = X[:, a] − X[:, b], t(z) = mean(z) /
  (sd(z) / √n) (sd with n − 1), w = z − mean(z); replicate k takes the topics of row k of the
  replicate matrix, t*_k = t(w[r_k]); ASL = #{k : |t*_k| ≥ |t(z)|} / B. The replicate matrix is
  ``numpy.random.default_rng(seed).integers(0, n, size=(B, n))`` (0-based topic indices, the
  same for every pair and measure) or one given (:func:`read_replicate_matrix`, as MATTERS
  accepts one), so that any implementation can reproduce every number.
* ``randomised-tukey``: the randomised Tukey HSD (Sakai 2012, "Evaluation with informational
  and navigational intents", WWW, §4; Carterette 2012, Algorithm 1). Replicate k permutes every
  topic's m scores across the runs independently; D*_k = max − min of the run means; ASL(a, b)
  = #{k : D*_k ≥ |mean_a − mean_b|} / B. Replicate k uses the doubles k·n·m to (k+1)·n·m − 1 of
  ``numpy.random.default_rng(seed)`` (one uniform per topic and run, argsorted per topic), so a
  block starting at replicate s advances the generator by s·n·m draws (``PCG64.advance``).

"Reaches" allows for rounding: |t*_k| ≥ |t(z)| − 10⁻⁹·max(1, |t(z)|) (sums of the same numbers
in another order differ in the last bits), as :mod:`inexeval.analysis.significance` does. A
replicate whose resampled differences are all equal has t* = 0 when their mean is 0 and ±∞
otherwise (IEEE's 0/0 and x/0): so a pair with z all equal and non-zero has ASL 0, a pair with
z all zero ASL 1. All equal is up to rounding, as :func:`inexeval.analysis.significance.constant`
decides (x + 0.1 against x is a difference of 0.1 on every topic); all zero, every difference
below its ``TIE``; w of such a pair is 0.

The discriminative power is the share of pairs with ASL < α. The difference required (Sakai
2006 §3.2) is, for each pair, |mean(w[r_k])| of the replicate at position ⌈αB⌉ when the
replicates are ordered by |t*_k| decreasing (ties in replicate order); the estimate is the
maximum over pairs. For the randomised Tukey HSD it is our choice, documented as such: the
⌈αB⌉-th largest D*_k, the range of means a pair needs to reach ASL < α up to ties.

Computation: a replicate block is one array operation over all pairs. For the bootstrap, the
block's b × n replicate matrix becomes b × n topic counts C, and C @ W and C @ W² (W the n ×
pairs matrix of shifted differences) give every replicate's sum and sum of squares for every
pair at once: mean* = C@W / n, sd*² = (C@W² − n·mean*²) / (n − 1). Blocks are split by
replicate index (:func:`inexeval.executor.blocks`), and the products are made :data:`UNIT`
replicates at a time, each aligned on a multiple of UNIT and of the same shape (so BLAS adds every
replicate's numbers in the same order): ``block`` (rounded up to a multiple of UNIT for the
bootstrap) and the executor never change a number. Memory: a few b × pairs arrays, and for the
difference required ⌈αB⌉ replicates per pair, the pairs taken in chunks
(:func:`pair_chunks`) so that these stay within :data:`KEPT` numbers: B = 1,000,000 runs in
the memory of B = 1,000 (each chunk draws the replicate rows again).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.analysis import significance
from inexeval.errors import InexevalError
from inexeval.executor import DaskExecutor, Executor, Serial, blocks
from inexeval.meta import study_scores, topics_by_runs
from inexeval.scores import Matrix, Scores, geometric_measures

METHODS = ("bootstrap", "randomised-tukey")

REPLICATES = {"bootstrap": 1000, "randomised-tukey": 1000}
"""B of each method when not given, the same in ``meta power``, ``report --meta``, ``meta pool``
and the API (Sakai 2006 and 2012 use B = 1000)."""

ROUNDING = 1e-9
"""A replicate statistic reaches the observed one when it is at least the observed one minus
this, times max(1, observed)."""

CELLS = 1_000_000
"""Numbers of one block's main array when ``block`` is not given (8 MB of doubles; a block
makes about fifteen such arrays)."""

KEPT = 1_000_000
"""Numbers kept at most for the difference required (⌈αB⌉ per pair of a chunk of pairs)."""

UNIT = 64
"""Bootstrap replicates per matrix product: every product has the same shape and starts at a
multiple of UNIT, so BLAS sums every replicate in the same order whatever the block (blocks are
rounded up to a multiple of UNIT)."""

WAVE = 8
"""Blocks handed at once to an executor that does not say its number of processes (Dask); a
process pool gets one block per process, and this process one at a time: every block's result
holds up to :data:`KEPT` numbers, so the blocks in flight bound the memory."""

IntMatrix = npt.NDArray[np.int64]


@dataclass(frozen=True)
class PowerResult:
    """Discriminative power of one measure: per pair (``pairs[i] = (a, b)``, indices into
    ``runs``) the means, the difference a − b and the ASL; the summary numbers; and, for the
    ASL curve, the ASLs sorted increasingly (:meth:`curve`)."""

    measure: str
    method: str
    replicates: int
    alpha: float
    runs: tuple[str, ...]
    n_topics: int
    pairs: tuple[tuple[int, int], ...]
    mean_a: Matrix
    mean_b: Matrix
    delta: Matrix
    asl: Matrix
    difference_required: float

    @property
    def significant(self) -> int:
        """Pairs with ASL < α."""
        return int(np.sum(self.asl < self.alpha))

    @property
    def discriminative_power(self) -> float:
        """Share of pairs with ASL < α (NaN without pairs)."""
        return self.significant / len(self.pairs) if self.pairs else math.nan

    def curve(self) -> Matrix:
        """The ASL curve (Sakai 2006, Fig. 3): the pairs' ASLs in increasing order."""
        return np.sort(self.asl)

    def pair_rows(self) -> list[dict[str, Any]]:
        """One dict per pair, with the keys of ``meta power --format json``'s ``pairs``."""
        return [{"measure": self.measure, "run_a": self.runs[a], "run_b": self.runs[b],
                 "n_topics": self.n_topics, "mean_a": float(self.mean_a[i]),
                 "mean_b": float(self.mean_b[i]), "delta": float(self.delta[i]),
                 "asl": float(self.asl[i])}
                for i, (a, b) in enumerate(self.pairs)]

    def summary(self) -> dict[str, Any]:
        """The keys of ``meta power --format json``'s ``summary``."""
        return {"measure": self.measure, "method": self.method,
                "replicates": self.replicates, "alpha": self.alpha, "pairs": len(self.pairs),
                "significant": self.significant,
                "discriminative_power": self.discriminative_power,
                "difference_required": self.difference_required}


def replicate_matrix(seed: int, n_topics: int, replicates: int) -> IntMatrix:
    """The bootstrap's replicate matrix: ``default_rng(seed).integers(0, n_topics,
    size=(replicates, n_topics))``."""
    return np.random.default_rng(seed).integers(0, n_topics, size=(replicates, n_topics))


def read_replicate_matrix(path: str | Path, n_topics: int) -> IntMatrix:
    """A replicate matrix from a text file: one replicate a line, ``n_topics`` 0-based topic
    indices separated by blanks (as ``numpy.savetxt(fmt="%d")`` writes it). InexevalError,
    naming the line, for anything else."""
    rows: list[list[int]] = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != n_topics:
                raise InexevalError(f"a replicate has {len(fields)} topic indices, not "
                                    f"{n_topics} (one per topic)", path, number)
            try:
                row = [int(f) for f in fields]
            except ValueError:
                bad = next(f for f in fields if not f.lstrip("-").isdigit())
                raise InexevalError(f"{bad!r} is not a topic index", path, number) from None
            if min(row) < 0 or max(row) >= n_topics:
                raise InexevalError(f"topic index {min(row) if min(row) < 0 else max(row)} is "
                                    f"outside 0-{n_topics - 1}", path, number)
            rows.append(row)
    if not rows:
        raise InexevalError("the replicate matrix has no replicate", path)
    return np.array(rows, dtype=np.int64)


def _pairs(m: int) -> tuple[tuple[int, int], ...]:
    return tuple((a, b) for a in range(m) for b in range(a + 1, m))


def _rank_of(alpha: float, replicates: int) -> int:
    """⌈αB⌉, at least 1 (α·B computed in decimal: 0.05 · 1000 is 50, not 50.000000000000007)."""
    return max(1, math.ceil(round(alpha * replicates, 9)))


def _reach(observed: Matrix) -> Matrix:
    """The threshold a replicate statistic must reach (rounding allowed; ∞ stays ∞)."""
    finite = np.isfinite(observed)
    slack = ROUNDING * np.maximum(1.0, np.where(finite, observed, 1.0))
    return np.where(finite, observed - slack, observed)


def t_statistics(sums: Matrix, squares: Matrix, n: int) -> tuple[Matrix, Matrix]:
    """(t, mean) of samples of n values from their sums and sums of squares (any shape): t =
    mean / (sd / √n), sd with n − 1 (clipped at 0), 0/0 = 0 and x/0 = ±∞."""
    mean = sums / n
    variance = np.maximum((squares - sums * mean) / (n - 1), 0.0)
    scale = np.sqrt(variance / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(scale > 0, mean / np.where(scale > 0, scale, 1.0),
                     np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
    return t, mean


def _observed_t(z: Matrix, flat: npt.NDArray[np.bool_], zero: npt.NDArray[np.bool_]
                ) -> Matrix:
    """t(z) of every column of the n × pairs differences (the spec's definition, directly),
    0 for the columns that are ``zero`` and ±∞ for the other ``flat`` (constant) ones."""
    n = z.shape[0]
    mean = z.mean(axis=0)
    scale = np.where(flat, 0.0, z.std(axis=0, ddof=1) / math.sqrt(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, mean / np.where(scale > 0, scale, 1.0),
                        np.where(zero, 0.0, np.copysign(np.inf, mean)))


@dataclass(frozen=True)
class _Study:
    """What every block of one measure needs (shared with the executor's workers)."""

    x: Matrix                  # topics × runs
    shifted: Matrix            # bootstrap: n × pairs, w
    reach: Matrix              # per pair: the threshold of |t*| (bootstrap) or of D*
    keep: int                  # ⌈αB⌉


def _bootstrap_block(study: _Study, rows: IntMatrix, first: int, last: int
                     ) -> tuple[npt.NDArray[np.int64], Matrix, Matrix]:
    """One block of bootstrap replicates for pairs ``first`` to ``last`` − 1: per pair, the
    count of |t*| reaching the observed one, and the block's ``keep`` largest |t*| (ties in
    replicate order) with their |mean*|."""
    shifted = study.shifted[:, first:last]
    n = shifted.shape[0]
    b = len(rows)
    padded = -(-b // UNIT) * UNIT
    flat = (np.arange(b)[:, None] * n + rows).ravel()
    counts = np.bincount(flat, minlength=padded * n).astype(np.float64)
    counts = counts.reshape(padded // UNIT, UNIT, n)
    sums = (counts @ shifted).reshape(padded, -1)[:b]
    squares = (counts @ (shifted * shifted)).reshape(padded, -1)[:b]
    t, mean = t_statistics(sums, squares, n)
    size = np.abs(t)
    reached = (size >= study.reach[first:last]).sum(axis=0)
    keep = min(study.keep, len(rows))
    order = np.argsort(-size, axis=0, kind="stable")[:keep]
    return (reached.astype(np.int64), np.take_along_axis(size, order, axis=0),
            np.abs(np.take_along_axis(mean, order, axis=0)))


def tukey_ranges(x: Matrix, seed: int, start: int, stop: int) -> Matrix:
    """D*_k for replicates ``start`` to ``stop`` − 1 of the randomised Tukey HSD over the
    topics × runs matrix x: replicate k argsorts doubles k·n·m ... (k+1)·n·m − 1 of
    ``default_rng(seed)`` per topic to permute that topic's scores."""
    n, m = x.shape
    generator = np.random.PCG64(seed)
    generator.advance(start * n * m)
    uniforms = np.random.Generator(generator).random((stop - start, n, m))
    order = np.argsort(uniforms, axis=2)
    means = np.take_along_axis(np.broadcast_to(x, order.shape), order, axis=2).mean(axis=1)
    ranges: Matrix = means.max(axis=1) - means.min(axis=1)
    return ranges


Task = tuple[str, int, int, int, int, int, Any]


def _task(shared: dict[str, Any], task: Task) -> Any:
    method, index, first, last, start, stop, rows = task
    study: _Study = shared["studies"][index]
    if method == "bootstrap":
        return _bootstrap_block(study, rows, first, last)
    return tukey_ranges(study.x, shared["seed"], start, stop)


def default_block(method: str, n_topics: int, n_runs: int, pairs: int | None = None) -> int:
    """Replicates per block when none is given: about :data:`CELLS` numbers in the largest
    array of a block (b × pairs for the bootstrap, ``pairs`` those of a chunk; b × n × m for
    the randomised Tukey)."""
    if pairs is None:
        pairs = n_runs * (n_runs - 1) // 2
    per = max(1, pairs) if method == "bootstrap" else n_topics * n_runs
    return max(1, CELLS // max(per, n_topics))


def pair_chunks(pairs: int, keep: int) -> list[tuple[int, int]]:
    """The bootstrap's pairs in chunks of at most :data:`KEPT` // ⌈αB⌉ pairs: the difference
    required keeps ⌈αB⌉ replicates per pair, so a chunk's memory is bounded whatever B (every
    chunk reads the replicate rows again, drawn anew from the seed)."""
    return list(blocks(max(pairs, 1), max(1, KEPT // keep)))


def power_study(scores: Scores, measures: Sequence[str] | None = None, *,
                method: str = "bootstrap", replicates: int | None = None, alpha: float = 0.05,
                seed: int = 42, executor: Executor | None = None, block: int | None = None,
                replicates_given: IntMatrix | None = None) -> list[PowerResult]:
    """:func:`discriminative_power` of several measures (default: every measure of the
    scores), every (measure, block) one task of the executor; ``replicates`` B (default
    :data:`REPLICATES` of the method); the topics of :func:`inexeval.meta.study_scores`."""
    if method not in METHODS:
        raise InexevalError(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    replicates = REPLICATES[method] if replicates is None else replicates
    scores = study_scores(scores)
    if not 0 < alpha < 1:
        raise InexevalError(f"alpha {alpha!r} is not between 0 and 1")
    names = list(scores.measures if measures is None else measures)
    executor = executor or Serial()
    xs = [topics_by_runs(scores, name) for name in names]
    n, m = len(scores.topics), len(scores.runs)
    if m < 2 or n < 2:
        raise InexevalError(f"discriminative power needs at least two runs and two topics, "
                            f"not {m} and {n}")
    if replicates_given is not None:
        if replicates_given.ndim != 2 or replicates_given.shape[1] != n:
            raise InexevalError(f"the replicate matrix has {replicates_given.shape[-1]} "
                                f"columns, not one per topic ({n})")
        if method != "bootstrap":
            raise InexevalError("a replicate matrix is for the bootstrap method only")
        replicates = len(replicates_given)
    if replicates < 1:
        raise InexevalError(f"the number of replicates must be at least 1, not {replicates}")
    pairs = _pairs(m)
    a_index = np.array([a for a, _ in pairs])
    b_index = np.array([b for _, b in pairs])
    keep = _rank_of(alpha, replicates)
    chunks = pair_chunks(len(pairs), keep) if method == "bootstrap" else [(0, len(pairs))]
    size = block or default_block(method, n, m, chunks[0][1] - chunks[0][0])
    if method == "bootstrap":
        size = -(-size // UNIT) * UNIT
    studies = []
    for x in xs:
        z = x[:, a_index] - x[:, b_index]
        if method == "bootstrap":
            # constant up to rounding as significance.constant decides: sd 0, w 0 (not noise)
            flat = significance.constant_columns(z)
            zero = np.all(np.abs(z) < significance.TIE, axis=0)
            shifted = np.where(flat, 0.0, z - z.mean(axis=0))
            studies.append(_Study(x, shifted, _reach(np.abs(_observed_t(z, flat, zero))),
                                  keep))
        else:
            means = x.mean(axis=0)
            studies.append(_Study(x, z[:, :0],
                                  _reach(np.abs(means[a_index] - means[b_index])), keep))
    shared = {"studies": studies, "seed": seed}
    spans = list(blocks(replicates, size))
    found: dict[tuple[int, int], list[Any]] = {}
    wave_size = WAVE if isinstance(executor, DaskExecutor) else getattr(executor, "jobs", 1)
    for wave in _waves(method, chunks, spans, len(names), seed, n, replicates_given,
                       wave_size):
        out = executor.map(_task, wave, shared, description=f"meta power ({method})")
        for (_, index, first, _, _, _, _), result in zip(wave, out):
            parts = found.setdefault((index, first), [])
            parts.append(result)
            if method == "bootstrap":
                found[(index, first)] = [_merge(parts, keep)]
    results = []
    for i, (name, x, study) in enumerate(zip(names, xs, studies)):
        means = x.mean(axis=0)
        if geometric_measures([name]):  # logarithms: show trec_eval's geometric means
            means = np.exp(means)
        if method == "bootstrap":
            merged = [found[(i, first)][0] for first, _ in chunks]
            asl = np.concatenate([part[0] for part in merged]) / replicates
            required = max(float(part[2][keep - 1].max()) for part in merged)
        else:
            ranges = np.concatenate(found[(i, 0)])
            asl = (ranges[:, None] >= study.reach).sum(axis=0) / replicates
            required = float(np.sort(ranges)[::-1][keep - 1])
        results.append(PowerResult(
            name, method, replicates, alpha, scores.runs, n, pairs, means[a_index],
            means[b_index], means[a_index] - means[b_index], asl.astype(np.float64), required))
    return results


def _waves(method: str, chunks: list[tuple[int, int]], spans: list[tuple[int, int]],
           n_measures: int, seed: int, n: int, given: IntMatrix | None,
           size: int) -> Iterator[list[Task]]:
    """The tasks, ``size`` blocks at a time; the bootstrap's rows drawn in order here, from the
    start for every chunk of pairs."""
    for first, last in chunks:
        rng = np.random.default_rng(seed)
        for wave_start in range(0, len(spans), size):
            wave: list[Task] = []
            for start, stop in spans[wave_start:wave_start + size]:
                rows: Any = None
                if method == "bootstrap":
                    rows = (given[start:stop] if given is not None
                            else rng.integers(0, n, size=(stop - start, n)))
                wave.extend((method, index, first, last, start, stop, rows)
                            for index in range(n_measures))
            yield wave


def _merge(parts: list[tuple[Any, Matrix, Matrix]], keep: int) -> tuple[Any, Matrix, Matrix]:
    """Blocks' counts added and their largest |t*| merged, earlier replicates first on ties."""
    if len(parts) == 1:
        return parts[0]
    reached = sum(p[0] for p in parts)
    sizes = np.concatenate([p[1] for p in parts])
    mean_sizes = np.concatenate([p[2] for p in parts])
    order = np.argsort(-sizes, axis=0, kind="stable")[:keep]
    return (reached, np.take_along_axis(sizes, order, axis=0),
            np.take_along_axis(mean_sizes, order, axis=0))


def discriminative_power(scores: Scores, measure: str, method: str = "bootstrap",
                         replicates: int | None = None, alpha: float = 0.05, seed: int = 42,
                         executor: Executor | None = None, block: int | None = None,
                         replicates_given: IntMatrix | None = None) -> PowerResult:
    """The ASL of every pair of runs under one measure, its discriminative power and difference
    required, by ``method`` (``bootstrap`` or ``randomised-tukey``) with ``replicates`` (B,
    default :data:`REPLICATES`) replicates: see the module's docstring for the definitions. ``executor`` runs the
    replicate blocks of ``block`` replicates (default :func:`default_block`); neither changes a
    number. ``replicates_given``: the bootstrap's replicate matrix (B × n, 0-based)."""
    return power_study(scores, [measure], method=method, replicates=replicates, alpha=alpha,
                       seed=seed, executor=executor, block=block,
                       replicates_given=replicates_given)[0]
