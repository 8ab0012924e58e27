"""The eXtended Cumulated Gain family of INEX 2005-2006: xCG@k, nxCG@k, MAnxCG@k, ep@r, MAep.

Seed 000 §2.5 (eqs. 13-14, the result-list dependent relevance value), spec §4 (after Kazai and
Lalmas). A run's gain vector ``xG`` holds the relevance value ``rv`` of each result; the ideal
vector ``xI`` the quantised values of the ideal base in decreasing order; ``xCG``/``xCI`` are
their cumulative sums. Everything the sources leave open is a parameter (spec §12 Q1, Q2, Q5-Q7):

* ``quant``: the quantisation (spec §2.1; default ``strict``, the strict one of the assessments'
  scale, i.e. ``strict2005`` for INEX 2005-2008 files; ``gen2005`` and ``gen2006`` are graded);
  ``too_small_value``: exhaustivity given to '?' (default 0);
* ``alpha``: weight of already seen text in ``rv`` (default 1, the Focused setting that goes with
  the ideal recall base; 0 = overlap ignored, the Thorough setting);
* ``ideal_base``: ``irb`` (default, the ideal recall base) or ``frb`` (the full recall base);
  ``irb``: the conflict rule ``greedy`` (default) or ``strict-path`` (spec §4.2);
* ``cap_to_ideal``: the descendant-score normalisation of seed 000 §2.5 (default off);
* ``i_ideal``: ``rank`` (default) or ``linear`` rank of the ideal curve in effort-precision.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval import spans
from inexeval.collection.index import CollectionIndex
from inexeval.collection.paths import ancestors, depth
from inexeval.measures.common import QUANT, judged_positions, unit_interval
from inexeval.measures.ng import (
    RECALL_POINTS,
    UNKNOWN_SIZE,
    ResultGeometry,
    first_cover,
    interpolate_max,
    result_geometry,
)
from inexeval.measures.registry import Family, Param, TopicContext, Value, register
from inexeval.model.assessments import TopicAssessments
from inexeval.model.run import TopicRun
from inexeval.quantise import quantise

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_EPS = 1e-9


# ---------------------------------------------------------------------------------------------
# Recall bases


def quantised_values(ta: TopicAssessments, quant: str, too_small_value: float) -> FloatArray:
    """Quantised value of every judged unit under quantisation ``quant`` (spec §2.1)."""
    # elements judged only implicitly may lack rsize: their value is unknown, so 0 (not relevant)
    return np.nan_to_num(quantise(quant, ta, too_small_value=too_small_value))


def full_recall_base(values: FloatArray) -> IntArray:
    """Positions of the judged units with a quantised value above 0 (spec §4.2)."""
    return np.flatnonzero(values > 0).astype(np.int64)


def ideal_recall_base(ta: TopicAssessments, values: FloatArray, rule: str = "greedy") -> IntArray:
    """Positions of the ideal recall base: an overlap-free subset of the full recall base keeping
    on each relevant path the highest-valued element, the deeper one on ties (seed 000 §2.5).

    ``greedy`` (default, spec §4.2 [D]): take the full recall base by value descending, then depth
    descending, and keep each element that overlaps none kept before. ``strict-path``: keep ``c``
    iff its value beats every descendant's and is at least every ancestor's (equal-valued deeper
    elements win), which may leave a relevant path without an ideal element.
    """
    files = ta.files.tolist()
    paths = ta.paths.tolist()
    frb = full_recall_base(values).tolist()
    if rule == "greedy":
        order = sorted(frb, key=lambda i: (-values[i], -depth(paths[i]), i))
        kept: set[tuple[str, str]] = set()
        below: set[tuple[str, str]] = set()
        chosen: list[int] = []
        for i in order:
            key = (files[i], paths[i])
            if key in below or any((files[i], a) in kept for a in [paths[i], *ancestors(paths[i])]):
                continue
            kept.add(key)
            below.update((files[i], a) for a in ancestors(paths[i]))
            chosen.append(i)
        return np.array(sorted(chosen), dtype=np.int64)
    value_of = {(files[i], paths[i]): float(values[i]) for i in frb}
    best_below: dict[tuple[str, str], float] = {}
    for (file, path), v in value_of.items():
        for a in ancestors(path):
            if best_below.get((file, a), 0.0) < v:
                best_below[(file, a)] = v
    chosen = [
        i for i in frb
        if values[i] > best_below.get((files[i], paths[i]), 0.0)
        and all(values[i] >= value_of.get((files[i], a), 0.0) for a in ancestors(paths[i]))
    ]
    return np.array(chosen, dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Gain vectors


@dataclass(frozen=True)
class GainVectors:
    """``gain`` (xG, one value per result) and ``ideal`` (xI, decreasing) of one topic."""

    gain: FloatArray
    ideal: FloatArray


def gain_vectors(
    ta: TopicAssessments,
    run: TopicRun,
    ctx: TopicContext,
    *,
    quant: str = "strict",
    alpha: float = 1.0,
    ideal_base: str = "irb",
    irb: str = "greedy",
    cap_to_ideal: bool = False,
    too_small_value: float = 0.0,
    unknown_size: int = -1,
) -> GainVectors:
    """The run's gain vector and the ideal vector (spec §4.3-§4.4, seed 000 eq. 14).

    ``rv(c_i)`` is ``x`` when no text of ``c_i`` was retrieved before rank ``i``, ``(1-alpha) x``
    when all of it was, and otherwise ``alpha * sum_j rv(ch_j) |ch_j| / |c_i| + (1-alpha) x`` over
    the relevant children ``ch_j`` (the full-recall-base elements inside ``c_i`` with no other
    such element between them and ``c_i``), each valued by the same rules relative to the ranks
    before ``i``. The seed divides by ``|c_j|``; the parent's size ``|c_i|`` makes the term the
    size-weighted average it is meant to be (spec §11 E-S0-2). Text of ``c_i`` outside its
    children adds nothing when ``c_i`` is partially seen (spec §4.3 [D]).
    """
    values, irb_units = ctx.shared_cached(
        ("xcg recall base", id(ta), quant, too_small_value, irb),
        lambda: _recall_base(ta, quant, too_small_value, irb),
    )
    base = irb_units if ideal_base == "irb" else full_recall_base(values)
    ideal = np.sort(values[base])[::-1]
    if len(run) == 0:
        return GainVectors(np.zeros(0), ideal)
    judged = judged_positions(ta, run, ctx)
    x = np.where(judged >= 0, values[judged], 0.0)
    if alpha > 0:
        geometry = result_geometry(ta, run, ctx, unknown_size)
        layout = ctx.shared_cached(
            ("xcg layout", id(ta), id(geometry.collection), quant, too_small_value),
            lambda: _RecallBaseLayout(ta, geometry.collection, values),
        )
        gain = _relevance_values(run, geometry, first_cover(geometry, ctx), layout, x, alpha)
    else:
        gain = x.copy()
    if cap_to_ideal:
        gain = _cap(ta, run, values, irb_units, gain)
    return GainVectors(gain, ideal)


def _recall_base(
    ta: TopicAssessments, quant: str, too_small_value: float, irb: str
) -> tuple[FloatArray, IntArray]:
    values = quantised_values(ta, quant, too_small_value)
    return values, ideal_recall_base(ta, values, irb)


def _relevance_values(
    run: TopicRun,
    geometry: ResultGeometry,
    cover: spans.Cover,
    layout: _RecallBaseLayout,
    x: FloatArray,
    alpha: float,
) -> FloatArray:
    sizes = geometry.sizes
    unseen = np.bincount(cover.owner, weights=cover.ends - cover.starts, minlength=len(sizes))
    gain = x.copy()
    partial = np.flatnonzero((unseen > 0) & (unseen < sizes))
    gain[unseen == 0] *= 1.0 - alpha
    if len(partial) == 0:
        return gain
    seen = _SeenTimes(layout, geometry, cover)
    files = run.files.tolist()
    paths = run.paths.tolist()
    for i in partial.tolist():
        if run.offsets[i] >= 0:
            continue
        children = layout.children(files[i], paths[i])
        inner = sum(seen.value(ch, i, alpha) * layout.size[ch] for ch in children)
        gain[i] = alpha * inner / float(sizes[i]) + (1.0 - alpha) * x[i]
    return gain


class _RecallBaseLayout:
    """The full recall base of a topic placed in the collection index: each element's span and
    its relevant children (kept across runs)."""

    def __init__(self, ta: TopicAssessments, collection: CollectionIndex, values: FloatArray):
        self.values = values
        self.collection = collection
        files = ta.files.tolist()
        paths = ta.paths.tolist()
        self.position: dict[tuple[str, str], int] = {}
        self.frb_positions: dict[str, list[int]] = {}
        located: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        for unit in full_recall_base(values).tolist():
            document = collection.get(files[unit])
            position = -1 if document is None else document.find(paths[unit])
            if document is None or position < 0:
                continue
            self.position[(files[unit], paths[unit])] = unit
            self.frb_positions.setdefault(files[unit], []).append(position)
            located.append(unit)
            starts.append(int(document.start[position]))
            ends.append(int(document.end[position]))
        for positions in self.frb_positions.values():
            positions.sort()
        self.units = {unit: k for k, unit in enumerate(located)}
        self.key_of = {unit: key for key, unit in self.position.items()}
        self.files = [files[u] for u in located]
        self.starts = np.array(starts, dtype=np.int64)
        self.ends = np.array(ends, dtype=np.int64)
        self.size: dict[int, int] = dict(zip(located, (self.ends - self.starts).tolist()))
        self._children: dict[tuple[str, str], list[int]] = {}

    def children(self, file: str, path: str) -> list[int]:
        """Judged positions of the relevant children of element ``path`` of ``file``: the
        elements of the full recall base inside it with none of them in between."""
        key = (file, path)
        found = self._children.get(key)
        if found is not None:
            return found
        found = []
        document = self.collection.get(file)
        mine = -1 if document is None else document.find(path)
        if document is not None and mine >= 0:
            end = int(document.subtree_end[mine])
            positions = self.frb_positions.get(file, [])
            k = bisect.bisect_right(positions, mine)
            while k < len(positions) and positions[k] < end:
                found.append(self.position[(file, document.paths[positions[k]])])
                k = bisect.bisect_left(positions, int(document.subtree_end[positions[k]]))
        self._children[key] = found
        return found


class _SeenTimes:
    """For each element of the full recall base: the first rank at which some of its text was
    retrieved, and the rank by which all of it had been (a large number for never), from the
    ranked results' first-cover stretches (vectorised)."""

    def __init__(self, layout: _RecallBaseLayout, geometry: ResultGeometry, cover: spans.Cover):
        self.layout = layout
        never = np.iinfo(np.int64).max
        n = len(layout.files)
        self.first = np.full(n, never, dtype=np.int64)
        self.full = np.full(n, never, dtype=np.int64)
        if not len(cover.owner) or not n:
            return
        docs = np.array([geometry.codes.get(f, -1) for f in layout.files], dtype=np.int64)
        stride = int(max(cover.ends.max(), layout.ends.max())) + 1
        g_start = cover.docs * stride + cover.starts
        g_end = cover.docs * stride + cover.ends
        low = np.searchsorted(g_end, docs * stride + layout.starts, side="right")
        high = np.searchsorted(g_start, docs * stride + layout.ends, side="left")
        hit = np.flatnonzero((high > low) & (docs >= 0))
        if not len(hit):
            return
        bounds = np.empty(2 * len(hit), dtype=np.int64)
        bounds[0::2], bounds[1::2] = low[hit], high[hit]
        owners = np.append(cover.owner, 0)  # so that a range may end at the last stretch
        self.first[hit] = np.minimum.reduceat(owners, bounds)[0::2]
        covered = spans.covered_lengths(cover.starts, cover.ends, layout.starts[hit],
                                        layout.ends[hit], cover.docs, docs[hit])
        whole = covered == layout.ends[hit] - layout.starts[hit]
        self.full[hit[whole]] = np.maximum.reduceat(owners, bounds)[0::2][whole]

    def value(self, unit: int, rank: int, alpha: float) -> float:
        """``rv`` of a full-recall-base element relative to the results before ``rank``."""
        layout = self.layout
        k = layout.units[unit]
        x = float(layout.values[unit])
        if self.first[k] >= rank:
            return x
        if self.full[k] < rank:
            return (1.0 - alpha) * x
        inner = 0.0
        for child in layout.children(*layout.key_of[unit]):
            inner += self.value(child, rank, alpha) * layout.size[child]
        return alpha * inner / float(layout.size[unit]) + (1.0 - alpha) * x


def _cap(
    ta: TopicAssessments, run: TopicRun, values: FloatArray, irb_units: IntArray, gain: FloatArray
) -> FloatArray:
    """Seed 000 §2.5: the gains of the results inside an ideal element (itself included) add up
    to at most that element's value; each result gets what is left, never below 0 (spec §4.3)."""
    files = ta.files.tolist()
    paths = ta.paths.tolist()
    ideal = {(files[u], paths[u]): float(values[u]) for u in irb_units.tolist()}
    left = dict(ideal)
    out = gain.copy()
    for i, (file, path) in enumerate(zip(run.files.tolist(), run.paths.tolist())):
        if not path:
            continue
        owner = next(((file, a) for a in [path, *ancestors(path)] if (file, a) in ideal), None)
        if owner is None:
            continue
        out[i] = min(out[i], max(left[owner], 0.0))
        left[owner] -= out[i]
    return out


# ---------------------------------------------------------------------------------------------
# Measures on the gain vectors


def cumulated(vectors: GainVectors, length: int) -> tuple[FloatArray, FloatArray]:
    """``xCG[1..length]`` and ``xCI[1..length]`` (frozen after the run's or the ideal's end)."""
    xcg = np.zeros(length)
    xci = np.zeros(length)
    if length == 0:
        return xcg, xci
    run_sums = np.cumsum(vectors.gain[:length])
    ideal_sums = np.cumsum(vectors.ideal[:length])
    xcg[: len(run_sums)] = run_sums
    xci[: len(ideal_sums)] = ideal_sums
    if len(run_sums) < length:
        xcg[len(run_sums):] = run_sums[-1] if len(run_sums) else 0.0
    if len(ideal_sums) < length:
        xci[len(ideal_sums):] = ideal_sums[-1] if len(ideal_sums) else 0.0
    return xcg, xci


def normalised_xcg(vectors: GainVectors, length: int) -> FloatArray:
    """``nxCG[k] = xCG[k] / xCI[k]`` for k = 1..length (spec §4.5; not clipped at 1)."""
    xcg, xci = cumulated(vectors, length)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(xci > 0, xcg / np.where(xci > 0, xci, 1.0), np.nan)


def effort_precision(
    vectors: GainVectors, i_ideal: str = "rank"
) -> tuple[FloatArray, FloatArray]:
    """Gain-recall and effort-precision at the natural points (the ranks with a gain above 0),
    spec §4.6: ``ep = i_ideal(g) / i_run(g)`` at ``g = xCG[i]``, ``gr = xCG[i] / xCI[n]``.

    ``i_ideal``: ``rank``, the smallest rank where the ideal curve reaches ``g``; ``linear``,
    interpolated between the ideal curve's integer ranks (``xCI[0] = 0``). A level above the
    total ideal gain is clipped to it (spec §4.6 [D]).
    """
    total = float(vectors.ideal.sum())
    points = np.flatnonzero(vectors.gain > 0)
    if total <= 0 or len(points) == 0:
        return np.zeros(0), np.zeros(0)
    level = np.cumsum(vectors.gain)[points]
    reach = np.minimum(level, total)
    ideal_sums = np.cumsum(vectors.ideal)
    rank = np.searchsorted(ideal_sums, reach - _EPS * max(1.0, total), side="left")
    rank = np.minimum(rank, len(ideal_sums) - 1)
    if i_ideal == "linear":
        before = np.where(rank > 0, ideal_sums[np.maximum(rank - 1, 0)], 0.0)
        step = ideal_sums[rank] - before
        ideal_rank = rank + np.clip((reach - before) / np.where(step > 0, step, 1.0), 0.0, 1.0)
    else:
        ideal_rank = (rank + 1).astype(np.float64)
    return level / total, ideal_rank / (points + 1)


def mean_average_effort_precision(
    vectors: GainVectors, *, interpolated: bool = False, i_ideal: str = "rank"
) -> float:
    """MAep of one topic (spec §4.6): non-interpolated, the sum of ep at the natural points over
    the size of the ideal base; interpolated, the mean over x = 0.01..1.00 of
    ``max{ep : gr >= x}``."""
    recall, precision = effort_precision(vectors, i_ideal)
    if interpolated:
        return float(interpolate_max(recall, precision, RECALL_POINTS).mean())
    return float(precision.sum()) / len(vectors.ideal)


XCG_PARAMS = (
    QUANT,
    Param("alpha", float, 1.0, "weight of already seen text in rv: 0 ignores overlap "
          "(Thorough), 1 gives seen text no value (Focused)", check=unit_interval),
    Param("ideal_base", str, "irb", "ideal vector from the ideal (irb) or full (frb) recall "
          "base", ("irb", "frb")),
    Param("irb", str, "greedy", "conflict rule of the ideal recall base", ("greedy",
          "strict-path")),
    Param("cap_to_ideal", bool, False, "results inside an ideal element gain at most its "
          "value in all (Hiemstra and Mihajlović 2005, §2.5)"),
    Param("too_small_value", float, 0.0, "exhaustivity of '?' (too small) in 2005 "
          "quantisations", (0.0, 0.5, 1.0)),
    UNKNOWN_SIZE,
)
I_IDEAL = Param("i_ideal", str, "rank", "rank of the ideal curve at a gain level: smallest "
                "integer rank or linear interpolation", ("rank", "linear"))


def _vectors(
    ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any]
) -> GainVectors:
    settings = {p.name: params[p.name] for p in XCG_PARAMS}
    key = ("xcg-gains", tuple(sorted(settings.items())))
    vectors: GainVectors = ctx.cached(key, lambda: gain_vectors(ta, run, ctx, **settings))
    return vectors


def _kernel(compute: Any) -> Any:
    """A registry kernel from ``compute(vectors, params, cutoffs)``; a topic whose ideal gain is
    0 (nothing relevant under the quantisation) is undefined and left out of the mean (§9.1)."""

    def kernel(
        ta: TopicAssessments, run: TopicRun, ctx: TopicContext, params: Mapping[str, Any],
        cutoffs: Sequence[Any],
    ) -> list[Value]:
        vectors = _vectors(ta, run, ctx, params)
        if not vectors.ideal.sum() > 0:
            return [None] * len(cutoffs)
        return list(compute(vectors, params, cutoffs))

    return kernel


def _xcg(vectors: GainVectors, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    xcg, _ = cumulated(vectors, max(int(k) for k in cutoffs))
    return [float(xcg[int(k) - 1]) for k in cutoffs]


def _nxcg(vectors: GainVectors, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    curve = normalised_xcg(vectors, max(int(k) for k in cutoffs))
    return [float(curve[int(k) - 1]) for k in cutoffs]


def _manxcg(vectors: GainVectors, params: Mapping[str, Any],
            cutoffs: Sequence[Any]) -> list[Value]:
    lengths = [1500 if k is None else int(k) for k in cutoffs]
    curve = normalised_xcg(vectors, max(lengths))
    return [float(curve[:k].mean()) for k in lengths]


def _ep(vectors: GainVectors, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    recall, precision = effort_precision(vectors, params["i_ideal"])
    return [float(v) for v in interpolate_max(recall, precision, [float(r) for r in cutoffs])]


def _maep(vectors: GainVectors, params: Mapping[str, Any], cutoffs: Sequence[Any]) -> list[Value]:
    value = mean_average_effort_precision(
        vectors, interpolated=params["interpolated"], i_ideal=params["i_ideal"]
    )
    return [value] * len(cutoffs)


_WHERE = "Hiemstra and Mihajlović 2005, eqs. 13-14"

_SCALES = ("inex2002", "inex2003", "inex2005")

register(Family(
    name="xCG", kernel=_kernel(_xcg), params=XCG_PARAMS, scales=_SCALES, cutoff=int, cutoff_required=True,
    description=f"extended cumulated gain xCG[k], the sum of rv over the first k results ({_WHERE})",
))
register(Family(
    name="nxCG", kernel=_kernel(_nxcg), params=XCG_PARAMS, scales=_SCALES, cutoff=int, cutoff_required=True,
    description=f"normalised xCG[k] = xCG[k] / xCI[k] (INEX 2005-2006 official; {_WHERE})",
))
register(Family(
    name="MAnxCG", kernel=_kernel(_manxcg), params=XCG_PARAMS, scales=_SCALES, cutoff=int,
    description=f"mean of nxCG[1..K], K = 1500 without cut-off ({_WHERE})",
))
register(Family(
    name="ep", kernel=_kernel(_ep), params=(*XCG_PARAMS, I_IDEAL), cutoff=float, scales=_SCALES,
    cutoff_required=True,
    description=f"interpolated effort-precision at gain-recall r, max{{ep : gr >= r}} ({_WHERE})",
))
register(Family(
    name="MAep", kernel=_kernel(_maep), scales=_SCALES,
    params=(*XCG_PARAMS, I_IDEAL, Param("interpolated", bool, False, "mean of interpolated ep "
            "over gr = 0.01..1.00 instead of the sum of ep at the natural points over the size "
            "of the ideal base")),
    description=f"mean average effort-precision (INEX 2005-2006 official; {_WHERE})",
))
