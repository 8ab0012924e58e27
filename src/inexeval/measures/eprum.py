"""User-model measures: EPRUM, PRUM, GR/ERR and T2I (seed 004; seed 002 §7.3.3; spec §6).

The user consults a ranked list item by item and, from each item ``k``, reaches unit ``x`` with
probability ``P(k ⇝ x)`` given by a navigation model (:mod:`inexeval.measures.navigation`).
Navigations from different ranks are independent (seed 004 hypothesis 3.1), so the probability
that ``x`` has been seen after ``k`` ranks is the noisy-or of eq. 1, updated rank by rank, and
the number ``F_k`` of ideal units discovered is a Poisson-binomial variable (eqs. 6-7), tracked
exactly by adding and removing one Bernoulli factor whenever a unit's seen-probability changes
(O(t) per change for t ideal units), or by a normal approximation.

Measure names (ir_measures grammar ``NAME(param=value,...)@cutoff``):

* ``EPRUM`` - average over the natural recall points ``m/t``, ``m = 1..t`` (spec §6.4 [R]);
  ``EPRUM@0.5`` (printed ``EPRUM[0.50]``) - precision at recall level 0.5 (eqs. 4-5).
* ``EPRUM_P@k`` - precision at rank ``k``: ``E[ML*_{F_k}] / k``, the expected length of the best
  list for the number of ideal units the user discovered in ``k`` ranks, over ``k`` [D]; equals
  P@k for the classical user. The denominator stays ``k`` for shorter runs (spec §9.2).
* ``PRUM``, ``PRUM@0.5`` - the same with the ideal search length ``m = ⌈ℓt⌉`` (spec §6.3 [R]).
* ``GR@k`` - 100 · expected share of the relevant units (weights = quantised values) seen after
  ``k`` ranks (spec §6.2 [R]; seed 002); ``ERR@k`` the same as a ratio (seed 000 eq. 15).
* ``T2I``, ``T2I@0.5`` - EPRUM with the tolerance-to-irrelevance user (spec §6.5);
  ``tolerance`` (characters) is required.

Ideal units and idealism come from the assessments: ``quant`` gives ``P(x ∈ I)`` of every judged
unit (spec §2); with ``ideal=irb`` the units with a value > 0 are made overlap-free by the greedy
rule of spec §4.2 (value desc, depth desc, assessment order), since ideal elements must not nest
(seed 004 §3.1); with ``ideal=given`` they are used as they are, and nested ones are an error.
Graded idealism (seed 004 §3.1): for the distinct values ``0 = v_0 < v_1 < ... < v_J`` the measure
is ``Σ_j (v_j - v_{j-1}) · M(I_j)`` with ``I_j = {x : P(x ∈ I) ≥ v_j}``, divided by the weight of
the levels that gave a value (``levels_norm=max``, spec §6.4 [D]: a user whose satisfaction level
is above every value has no ideal unit) or not divided (``levels_norm=none``: such users count 0).
Recall levels that even the ideal list cannot surely reach are skipped (seed 004 §2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.collection.paths import ancestors, depth
from inexeval.errors import InexevalError, MeasureError
from inexeval.measures.common import quantised
from inexeval.measures.navigation import (
    ClassicalNavigation,
    Geometry,
    HierarchicalNavigation,
    Item,
    NavigationModel,
    Pointer,
    Reach,
    T2INavigation,
    items_of,
)
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model import TopicAssessments, TopicRun

FloatArray = npt.NDArray[np.float64]

NORMAL_MIN_UNCERTAIN = 10
"""Seed 004 §5: the normal law is used once at least this many units are uncertain."""

_REACH_EPS = 1e-12


# --- seen probabilities (seed 004 eq. 1) -----------------------------------------------------

def seen_updates(reach: Reach) -> list[tuple[int, int, float, float]]:
    """``(rank, target, before, after)`` for every change of ``P(x ∈ S_k)``, rank by rank, by the
    noisy-or of seed 004 eq. 1: ``after = 1 - (1 - before)(1 - P(k ⇝ x))``."""
    seen: dict[int, float] = {}
    updates = []
    for k, x, p in zip(reach.ranks.tolist(), reach.targets.tolist(), reach.probs.tolist()):
        before = seen.get(x, 0.0)
        after = 1.0 - (1.0 - before) * (1.0 - p)
        if after != before:
            seen[x] = after
            updates.append((k, x, before, after))
    return updates


def seen_probabilities(reach: Reach, n_ranks: int, n_targets: int) -> FloatArray:
    """Dense ``P(x ∈ S_k)``: row ``k - 1`` for ranks ``1..n_ranks``, one column per target."""
    out = np.zeros((n_ranks + 1, n_targets), dtype=np.float64)
    changed = np.zeros((n_ranks + 1, n_targets), dtype=bool)
    for k, x, _, after in seen_updates(reach):
        out[k + 1, x] = after
        changed[k + 1, x] = True
    # carry each target's last value forward over ranks that do not reach it
    index = np.where(changed, np.arange(n_ranks + 1)[:, None], 0)
    np.maximum.accumulate(index, axis=0, out=index)
    return np.take_along_axis(out, index, axis=0)[1:]


# --- the Poisson-binomial count of discovered units (seed 004 eqs. 6-7) ---------------------

def poisson_binomial(probs: Sequence[float] | FloatArray) -> FloatArray:
    """``P(F = f)`` for ``f = 0..n`` when ``F`` is a sum of independent Bernoulli(``probs``)
    (seed 004 eq. 7), by the O(n²) dynamic programme."""
    dist = np.zeros(len(probs) + 1, dtype=np.float64)
    dist[0] = 1.0
    for i, p in enumerate(np.asarray(probs, dtype=np.float64).tolist()):
        dist[1:i + 2] = dist[1:i + 2] * (1.0 - p) + dist[:i + 1] * p
        dist[0] *= 1.0 - p
    return dist


def _replace_factor(dist: list[float], before: float, after: float) -> list[float]:
    """The count distribution with one Bernoulli factor ``before`` replaced by ``after``.

    Removing the factor divides by ``(1 - before) + before·z``; the recursion runs forwards when
    ``before <= 0.5`` and backwards otherwise, so each step multiplies errors by at most 1."""
    n = len(dist) - 1
    removed = [0.0] * n
    if before == 0.0:
        removed = dist[:n]
    elif before <= 0.5:
        keep, prev = 1.0 - before, 0.0
        for i in range(n):
            prev = (dist[i] - before * prev) / keep
            removed[i] = prev
    else:
        keep, nxt = 1.0 - before, 0.0
        for i in range(n, 0, -1):
            nxt = (dist[i] - keep * nxt) / before
            removed[i - 1] = nxt
    miss = 1.0 - after
    out = [miss * removed[0]]
    out.extend(miss * removed[i] + after * removed[i - 1] for i in range(1, n))
    out.append(after * removed[n - 1])
    return out


_ERF = np.frompyfunc(math.erf, 1, 1)


def normal_below(probs: Sequence[float] | FloatArray, n_levels: int) -> FloatArray:
    """Approximate ``P(F < m)`` for ``m = 1..n_levels``: the normal law of seed 004 §5 with a
    continuity correction and the one-term skewness (Edgeworth) correction, the "refined normal
    approximation" of the Poisson-binomial (Volkova 1996) [D]. Measured error on the
    distribution function with 10 units: about 0.01 at worst when every probability is in
    [0.2, 0.8],
    0.014 when all are 0.1 (or 0.9), 0.034 for probabilities anywhere in (0, 1)."""
    p = np.asarray(probs, dtype=np.float64)
    mean = float(p.sum())
    var = float((p * (1.0 - p)).sum())
    m = np.arange(1, n_levels + 1, dtype=np.float64)
    if var == 0.0:
        return (mean < m - 0.5).astype(np.float64)
    sd = math.sqrt(var)
    skew = float((p * (1.0 - p) * (1.0 - 2.0 * p)).sum()) / sd**3
    z = (m - 0.5 - mean) / sd
    phi = np.exp(-z * z / 2.0) / math.sqrt(2.0 * math.pi)
    cdf = 0.5 * (1.0 + np.asarray(_ERF(z / math.sqrt(2.0)), dtype=np.float64))
    return np.clip(cdf + skew * (1.0 - z * z) * phi / 6.0, 0.0, 1.0)


def below_probabilities(reach: Reach, n_ranks: int, n_targets: int,
                        approx: str = "exact") -> FloatArray:
    """``Q[k - 1, m - 1] = P(F_k < m)`` for ranks ``k = 1..n_ranks`` and ``m = 1..n_targets``.

    ``approx="exact"``: the Poisson-binomial, one factor replaced per seen-probability change.
    ``approx="normal"``: :func:`normal_below` at ranks where at least
    :data:`NORMAL_MIN_UNCERTAIN` units have ``0 < P(x ∈ S_k) < 1``, exact otherwise."""
    t = n_targets
    rows = [np.ones(t, dtype=np.float64)]
    at: list[int] = []
    dist = [1.0] + [0.0] * t
    current = np.zeros(t, dtype=np.float64)
    updates = seen_updates(reach)
    for i, (k, x, before, after) in enumerate(updates):
        if approx == "exact":
            dist = _replace_factor(dist, before, after)
        current[x] = after
        if i + 1 < len(updates) and updates[i + 1][0] == k:
            continue
        if approx == "exact":
            row = np.cumsum(dist[:t])
        else:
            uncertain = current[(current > 0.0) & (current < 1.0)]
            if len(uncertain) >= NORMAL_MIN_UNCERTAIN:
                row = normal_below(current, t)
            else:
                sure = int(np.count_nonzero(current >= 1.0))
                exact = np.concatenate((np.zeros(sure), poisson_binomial(uncertain)))
                row = np.cumsum(np.pad(exact, (0, t + 1 - len(exact)))[:t])
        rows.append(np.clip(row, 0.0, 1.0))
        at.append(k)
    which = np.searchsorted(np.array(at, dtype=np.int64), np.arange(n_ranks), side="right")
    return np.stack(rows)[which] if n_ranks else np.zeros((0, t), dtype=np.float64)


# --- search lengths (seed 004 eqs. 4-5) ------------------------------------------------------

def expected_ideal_search_length(below_ideal: FloatArray) -> FloatArray:
    """``E[ML*]`` for ``m = 1..t`` (eq. 4: ``1 + Σ_k P(F*_k < m)``), ``inf`` where the ideal
    list leaves some users below ``m`` after its last item (the level is unreachable)."""
    if len(below_ideal) == 0:
        return np.full(below_ideal.shape[1], np.inf)
    out = 1.0 + below_ideal.sum(axis=0)
    out[below_ideal[-1] > _REACH_EPS] = np.inf
    return out  # type: ignore[no-any-return]


def expected_inverse_search_length(below: FloatArray) -> FloatArray:
    """``E[A/ML]`` for ``m = 1..t`` (eq. 5): ``1 - P(F_N < m)/N - Σ_{k<N} P(F_k < m)/(k(k+1))``;
    0 for an empty list."""
    n = len(below)
    if n == 0:
        return np.zeros(below.shape[1], dtype=np.float64)
    k = np.arange(1, n, dtype=np.float64)
    return 1.0 - below[-1] / n - (1.0 / (k * (k + 1.0))) @ below[:-1]  # type: ignore[no-any-return]


# --- ideal units from the assessments -------------------------------------------------------

@dataclass(frozen=True)
class IdealSet:
    """Non-nested ideal units with their idealism ``P(x ∈ I)`` in ``(0, 1]``, sorted by
    decreasing idealism (ties in assessment order): also the sorted-ideal list."""

    units: tuple[Pointer, ...]
    idealism: FloatArray


def _check_values(ta: TopicAssessments, values: FloatArray, quant: str) -> None:
    bad = np.flatnonzero(~((values >= 0.0) & (values <= 1.0)))
    if len(bad):
        i = int(bad[0])
        raise InexevalError(
            f"topic {ta.topic}: quantisation {quant!r} gives {values[i]:g} to {ta.files[i]} "
            f"{ta.paths[i] or '(document)'}; idealism must be in [0, 1]", ta.source)


def ideal_set(ta: TopicAssessments, values: FloatArray, selection: str = "irb",
              quant: str = "") -> IdealSet:
    """The ideal units of a topic from per-unit idealism ``values`` (see module docstring).

    ``selection="irb"``: overlap-free by the greedy ideal recall-base rule of spec §4.2;
    ``"given"``: every unit with a value > 0, InexevalError if two of them nest."""
    _check_values(ta, values, quant)
    files = ta.files.tolist()
    paths = ta.paths.tolist()
    rows: list[int] = np.flatnonzero(values > 0.0).tolist()
    if selection == "irb":
        rows.sort(key=lambda i: (-values[i], -depth(paths[i])))
    chosen: dict[str, set[str]] = {}
    covered: dict[str, set[str]] = {}  # ancestors-or-self of the chosen units of each file
    keep: list[int] = []
    for i in rows:
        file, path = files[i], paths[i]
        mine = chosen.setdefault(file, set())
        under = covered.setdefault(file, set())
        lineage = [path, *ancestors(path), ""] if path else [""]
        clash = next((a for a in lineage if a in mine), None)
        if clash is None and path in under:
            clash = next(c for c in mine if c == path or path == "" or c.startswith(path + "/"))
        if clash is not None:
            if selection == "irb":
                continue
            raise InexevalError(
                f"topic {ta.topic}: ideal units {file} {clash or '(document)'} and {file} "
                f"{path or '(document)'} are nested; ideal elements must not overlap "
                "(Piwowarski and Dupret 2006, §3.1)", ta.source)
        mine.add(path)
        under.update(lineage)
        keep.append(i)
    keep.sort(key=lambda i: (-values[i], i))
    return IdealSet(tuple(Pointer(files[i], paths[i]) for i in keep),
                    np.array([values[i] for i in keep], dtype=np.float64))


# --- the shared per-topic computation -------------------------------------------------------

@dataclass(frozen=True)
class Level:
    """One satisfaction level ``j``: weight ``v_j - v_{j-1}``, ``t_j`` ideal units, and
    ``P(F_k < m)`` for the evaluated list (``below``) and the ideal list (``below_ideal``)."""

    weight: float
    t: int
    below: FloatArray
    below_ideal: FloatArray


def navigation_model(params: Mapping[str, Any], ctx: TopicContext) -> NavigationModel:
    """The model named by ``params["nav"]``; ``custom`` is ``ctx.options["navigation"]`` (a
    :class:`~inexeval.measures.navigation.CustomNavigation` or ``CallableNavigation``)."""
    nav = params["nav"]
    if nav == "classical":
        return ClassicalNavigation()
    if nav == "hierarchical":
        return HierarchicalNavigation()
    if nav == "t2i":
        if params["tolerance"] < 0:
            raise MeasureError("the t2i user needs tolerance=<characters> (there is no "
                               "official value)")
        return T2INavigation(params["tolerance"])
    model = ctx.options.get("navigation")
    if model is None:
        raise MeasureError("nav=custom needs a navigation model (option 'navigation')")
    return model  # type: ignore[no-any-return]


def _geometry(ta: TopicAssessments, ctx: TopicContext) -> Geometry:
    return ctx.cached(("geometry", id(ta)), lambda: Geometry(ctx.collection, ta))  # type: ignore[no-any-return]


def _restrict(reach: Reach, keep: npt.NDArray[np.bool_]) -> Reach:
    renumber = np.cumsum(keep) - 1
    mask = keep[reach.targets]
    return Reach(reach.ranks[mask], renumber[reach.targets[mask]], reach.probs[mask])


def _ideal_items(params: Mapping[str, Any], ctx: TopicContext, ta: TopicAssessments,
                 ideal: IdealSet) -> tuple[list[Item], list[int | None]]:
    if params["ideal_list"] == "sorted":
        if params["items"] != "document":
            return [(u,) for u in ideal.units], [None] * len(ideal.units)
        # Fetch & Browse: an item may hold every ideal unit of a document, so the ideal list
        # takes documents with the most idealism first (ML* is a minimum over all lists).
        groups: dict[str, list[int]] = {}
        for i, unit in enumerate(ideal.units):
            groups.setdefault(unit.file, []).append(i)
        ordered = sorted(groups.values(), key=lambda g: (-max(ideal.idealism[g]),
                                                          -float(ideal.idealism[g].sum())))
        return [tuple(ideal.units[i] for i in g) for g in ordered], [None] * len(ordered)
    given = ctx.options.get("ideal_run")
    if given is None:
        raise MeasureError("ideal_list=given needs an ideal run (option 'ideal_run')")
    topic_run = given.topics.get(ta.topic)
    if topic_run is None:
        return [], []
    return items_of(topic_run.ordered(), params["items"])


def levels(ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
           params: Mapping[str, Any]) -> list[Level]:
    """The satisfaction levels of a topic for a run (memoised per topic and settings)."""
    keys = ("quant", "ideal", "nav", "tolerance", "items", "approx", "ideal_list")
    key = ("eprum-levels", id(ta), *(params[k] for k in keys))

    def make() -> list[Level]:
        quant = params["quant"]
        ideal = ideal_set(ta, quantised(ta, ctx, quant), params["ideal"], quant)
        model = navigation_model(params, ctx)
        geometry = _geometry(ta, ctx)
        items, lines = items_of(run, params["items"])
        reach = model.reach(items, ideal.units, geometry, lines)
        ideal_items, ideal_lines = _ideal_items(params, ctx, ta, ideal)
        reach_ideal = model.reach(ideal_items, ideal.units, geometry, ideal_lines)
        found = []
        previous = 0.0
        for value in np.unique(ideal.idealism).tolist():
            keep = ideal.idealism >= value
            t = int(keep.sum())
            found.append(Level(
                value - previous, t,
                below_probabilities(_restrict(reach, keep), len(items), t, params["approx"]),
                below_probabilities(_restrict(reach_ideal, keep), len(ideal_items), t,
                                    params["approx"]),
            ))
            previous = value
        return found

    return ctx.cached(key, make)  # type: ignore[no-any-return]


def _combine(parts: list[tuple[float, float | None]], norm: str) -> Value:
    """Weighted sum over levels of their values; skipped levels (None) drop out, and with
    ``norm="max"`` the sum is divided by the weight of the levels that gave a value."""
    given = [(w, v) for w, v in parts if v is not None]
    if not given:
        return None
    total = sum(w * v for w, v in given)
    return total / sum(w for w, _ in given) if norm == "max" else total


def _recall_precision(level: Level, ideal_length: str) -> FloatArray:
    """Precision at each natural recall point ``m = 1..t``; NaN where unreachable."""
    inverse = expected_inverse_search_length(level.below)
    if ideal_length == "m":
        return np.arange(1, level.t + 1, dtype=np.float64) * inverse
    best = expected_ideal_search_length(level.below_ideal)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(best), np.nan, best * inverse)


def _recall_kernel(ideal_length: str, ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
                   params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    found = levels(ta, run, ctx, params)
    if not found:
        return [None] * len(cutoffs)
    curves = [_recall_precision(level, ideal_length) for level in found]
    out: list[Value] = []
    for cutoff in cutoffs:
        parts: list[tuple[float, float | None]] = []
        for level, curve in zip(found, curves):
            if cutoff is None:
                reached = curve[~np.isnan(curve)]
                parts.append((level.weight, float(reached.mean()) if len(reached) else None))
            else:
                m = math.ceil(_level(cutoff) * level.t)
                value = curve[m - 1]
                parts.append((level.weight, None if math.isnan(value) else float(value)))
        out.append(_combine(parts, params["levels_norm"]))
    return out


def _level(cutoff: float) -> Fraction:
    """The recall level as an exact fraction (spec §0.3): the nearest one with a denominator of
    at most 10^6, so that ``0.29`` is 29/100 and ``float(67/231)`` is 67/231."""
    level = Fraction(cutoff).limit_denominator(10**6)
    if not 0 < level <= 1:
        raise MeasureError(f"recall level {cutoff!r} is not in (0, 1]")
    return level


def _rank_kernel(ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
                 params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    found = levels(ta, run, ctx, params)
    if not found:
        return [None] * len(cutoffs)
    best = [expected_ideal_search_length(level.below_ideal) for level in found]
    out: list[Value] = []
    for k in cutoffs:
        parts: list[tuple[float, float | None]] = []
        for level, ideal_length in zip(found, best):
            if len(level.below) == 0:
                parts.append((level.weight, 0.0))
                continue
            below = np.append(level.below[min(k, len(level.below)) - 1], 1.0)
            discovered = below[1:] - below[:-1]  # P(F_k = f), f = 1..t
            # a count the ideal list cannot surely reach has no finite E[ML*]: those users are
            # left out of the expectation
            ok = np.isfinite(ideal_length)
            parts.append((level.weight, float(discovered[ok] @ ideal_length[ok]) / k))
        out.append(_combine(parts, params["levels_norm"]))
    return out


def _gr_kernel(scale: float, ta: TopicAssessments, run: TopicRun, ctx: TopicContext,
               params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    weights = quantised(ta, ctx, params["quant"])
    _check_values(ta, weights, params["quant"])
    relevant = np.flatnonzero(weights > 0.0)
    if len(relevant) == 0:
        return [None] * len(cutoffs)
    units = tuple(Pointer(ta.files[i], ta.paths[i]) for i in relevant.tolist())
    w = weights[relevant]
    items, lines = items_of(run, params["items"])
    reach = navigation_model(params, ctx).reach(items, units, _geometry(ta, ctx), lines)
    gain = np.zeros(len(items) + 1, dtype=np.float64)
    for k, x, before, after in seen_updates(reach):
        gain[k + 1] += w[x] * (after - before)
    expected = np.cumsum(gain)
    return [scale * float(expected[min(k, len(items))]) / float(w.sum()) for k in cutoffs]


# --- registration ----------------------------------------------------------------------------

_QUANT = Param("quant", str, "strict",
               "quantisation giving P(x in I) (EPRUM) or the weight of a relevant unit (GR)")
_NAV = Param("nav", str, "hierarchical", "navigation model (Piwowarski and Dupret 2006, §3.2, §7)",
             ("classical", "hierarchical", "t2i", "custom"))
_TOLERANCE = Param("tolerance", int, -1,
                   "T2I: characters of irrelevant text the user reads before giving up "
                   "(required for nav=t2i; no official value)")
_ITEMS = Param("items", str, "result",
               "a list item is one result, or the consecutive results of one document "
               "(Fetch & Browse)", ("result", "document"))
_COUNT = (
    Param("ideal", str, "irb", "ideal units: overlap-free selection or every unit "
          "with a value > 0 (nested ones are an error)", ("irb", "given")),
    Param("approx", str, "exact", "distribution of discovered units: exact Poisson-binomial or "
          "normal approximation from 10 uncertain units (Piwowarski and Dupret 2006, §5)", ("exact", "normal")),
    Param("ideal_list", str, "sorted", "ideal list: ideal units by decreasing idealism, or "
          "the run in option 'ideal_run'", ("sorted", "given")),
    Param("levels_norm", str, "max", "graded idealism: divide by the weight of the levels "
          "used (max) or not (none)", ("max", "none")),
)
_EPRUM_PARAMS = (_QUANT, _NAV, _TOLERANCE, _ITEMS, *_COUNT)

EPRUM = register(Family(
    name="EPRUM",
    description="EPRUM precision at recall level l (Piwowarski and Dupret 2006, eqs. 4-5); without a cut-off the "
    "average over natural recall points",
    kernel=partial(_recall_kernel, "best"),
    params=_EPRUM_PARAMS,
    cutoff=float,
    bracket_cutoff=True,
))

EPRUM_P = register(Family(
    name="EPRUM_P",
    description="EPRUM precision at rank k: E[ML* for the units discovered in k ranks] / k "
    "(Piwowarski and Dupret 2006, §8, inexeval's formula); P@k for the classical user",
    kernel=_rank_kernel,
    params=_EPRUM_PARAMS,
    cutoff=int,
    cutoff_required=True,
))

PRUM = register(Family(
    name="PRUM",
    description="PRUM precision at recall level l, m · E[A/ML] with m = ceil(l t); "
    "without a cut-off the average over natural recall points",
    kernel=partial(_recall_kernel, "m"),
    params=_EPRUM_PARAMS,
    cutoff=float,
    bracket_cutoff=True,
))

T2I = register(Family(
    name="T2I",
    description="tolerance to irrelevance: EPRUM with the T2I reader; precision at "
    "recall level l, or the average over natural recall points",
    kernel=lambda ta, run, ctx, params, cutoffs: _recall_kernel(
        "m", ta, run, ctx, {**params, "nav": "t2i"}, cutoffs),
    params=(_QUANT, _TOLERANCE, _ITEMS, *_COUNT),
    cutoff=float,
    bracket_cutoff=True,
))

_GR_PARAMS = (_QUANT, _NAV, _TOLERANCE, _ITEMS)

GR = register(Family(
    name="GR",
    description="generalised recall: 100 x expected share of the relevant units seen after k "
    "ranks (Lehtonen 2006, §7.3.3)",
    kernel=partial(_gr_kernel, 100.0),
    params=_GR_PARAMS,
    cutoff=int,
    cutoff_required=True,
))

ERR = register(Family(
    name="ERR",
    description="expected ratio of relevant units seen after k ranks (Hiemstra and Mihajlović 2005, eq. 15; GR / 100)",
    kernel=partial(_gr_kernel, 1.0),
    params=_GR_PARAMS,
    cutoff=int,
    cutoff_required=True,
))
