"""Quantisation functions: an assessment scale's values mapped to [0, 1] (spec §2.1).

Each function is registered by name for the assessment scales it understands and maps every
judged unit of a topic to one value, vectorised over the topic's arrays::

    quantise("generalised", topic_assessments)          # -> array of floats, one per unit

Functions take the named dimensions of the scale (``exhaustivity``, ``specificity``, ...), never
positional pairs (the seeds mix ``f(s, e)`` and ``(e, s)``, spec §11 E-S0-4). Users register their
own with :func:`register_quantisation`. Per-dimension quantisations for inex_eval_ng are given by
:func:`quantise_dimensions`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import MeasureError
from inexeval.model.assessments import COVERAGE_CODES, TopicAssessments

FloatArray = npt.NDArray[np.float64]
QuantFunction = Callable[..., FloatArray]


@dataclass(frozen=True)
class Quantisation:
    """A registered quantisation: its name, the scales it accepts and the vectorised function,
    called with the scale's dimensions as keyword arguments (plus any options)."""

    name: str
    scales: tuple[str, ...]
    function: QuantFunction
    description: str
    binary: bool


_QUANTISATIONS: dict[str, dict[str, Quantisation]] = {}
_ALIASES: dict[str, str] = {}


def register_quantisation(
    name: str,
    scales: tuple[str, ...],
    function: QuantFunction,
    description: str = "",
    *,
    binary: bool = False,
    aliases: tuple[str, ...] = (),
) -> Quantisation:
    """Register ``function`` as quantisation ``name`` for ``scales``.

    ``function`` receives the dimensions of the scale as keyword arguments (numpy arrays:
    ``relevance``/``coverage`` for inex2002, ``exhaustivity``/``specificity`` for inex2003,
    ``exhaustivity``/``specificity`` (= rsize/size) for inex2005, ``rsize``/``length`` for fol,
    ``relevance`` for trec) and must return one value in [0, 1] per unit.
    """
    q = Quantisation(name, scales, function, description, binary)
    by_scale = _QUANTISATIONS.setdefault(name, {})
    for scale in scales:
        by_scale[scale] = q
    for alias in aliases:
        _ALIASES[alias] = name
    return q


def names() -> list[str]:
    """Every registered quantisation name and alias."""
    return sorted([*_QUANTISATIONS, *_ALIASES], key=str.lower)


def get(name: str, scale: str | None = None) -> Quantisation:
    """The quantisation registered as ``name`` (or an alias) for ``scale`` (any scale if None);
    MeasureError with the nearest valid name otherwise."""
    key = _ALIASES.get(name, name)
    if key not in _QUANTISATIONS:
        close = difflib.get_close_matches(name, names(), n=1, cutoff=0.4)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise MeasureError(f"unknown quantisation {name!r}{hint}")
    by_scale = _QUANTISATIONS[key]
    if scale is None:
        return next(iter(by_scale.values()))
    if scale not in by_scale:
        raise MeasureError(
            f"quantisation {name!r} is for {' or '.join(by_scale)} assessments, not {scale}"
        )
    return by_scale[scale]


def is_binary(name: str, scale: str) -> bool:
    """True when quantisation ``name`` gives only 0 and 1 on ``scale``."""
    return get(name, scale).binary


def _arguments(ta: TopicAssessments) -> dict[str, npt.NDArray[Any]]:
    dims = dict(ta.dims)
    if ta.scale == "inex2005" and "specificity" not in dims:
        size = dims.get("size")
        rsize = dims.get("rsize")
        if size is not None and rsize is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                dims["specificity"] = np.where(size > 0, rsize / size, 0.0)
    return dims


def quantise(name: str, ta: TopicAssessments, **options: Any) -> FloatArray:
    """Quantised value of every judged unit of ``ta`` under quantisation ``name``."""
    try:
        q = get(name, ta.scale)
    except MeasureError as error:
        raise MeasureError(error.reason, ta.source) from None
    if len(ta) == 0:
        return np.zeros(0, dtype=np.float64)
    dims = _arguments(ta)
    return np.asarray(q.function(**dims, **options), dtype=np.float64)


def _table(pairs: Mapping[tuple[int, int], float]) -> QuantFunction:
    """A function of (exhaustivity, specificity) on 0..3 given by a table; absent pairs are 0."""
    grid = np.zeros((4, 4), dtype=np.float64)
    for (e, s), value in pairs.items():
        grid[e, s] = value

    def function(exhaustivity: FloatArray, specificity: FloatArray, **_: Any) -> FloatArray:
        e = np.clip(exhaustivity, 0, 3).astype(np.int64)
        s = np.clip(specificity, 0, 3).astype(np.int64)
        return grid[e, s]

    return function


_RELEVANT_PAIRS = [(e, s) for e in (1, 2, 3) for s in (1, 2, 3)]

# INEX 2003/2004, (e, s) in {0..3}^2 -- spec §2.1, seed 000 eqs. 3-11 and 16.
register_quantisation("strict", ("inex2003",), _table({(3, 3): 1.0}),
                      "1 iff e = 3 and s = 3 (Hiemstra and Mihajlović 2005, eq. 3)", binary=True, aliases=("Strict4",))
register_quantisation(
    "generalised", ("inex2003",),
    _table({(3, 3): 1.0, (3, 2): 0.75, (3, 1): 0.75, (2, 3): 0.75, (2, 2): 0.5, (2, 1): 0.5,
            (1, 3): 0.5, (1, 2): 0.25, (1, 1): 0.25}),
    "graded credit for less exhaustive or specific elements (Hiemstra and Mihajlović 2005, eq. 4)",
    aliases=("Gen4", "generalized"),
)
register_quantisation(
    "sog", ("inex2003",),
    _table({(3, 3): 1.0, (3, 2): 0.75, (3, 1): 0.25, (2, 3): 0.9, (2, 2): 0.5, (2, 1): 0.1,
            (1, 3): 0.75, (1, 2): 0.25, (1, 1): 0.1}),
    "specificity-oriented generalised (Kazai et al. 2004; Hiemstra and Mihajlović 2005, eq. 5)",
)
register_quantisation("e3s321", ("inex2003",), _table({(3, 3): 1.0, (3, 2): 1.0, (3, 1): 1.0}),
                      "1 iff e = 3 (exhaustivity-oriented)", binary=True, aliases=("exhaustive",))
register_quantisation("e3s32", ("inex2003",), _table({(3, 3): 1.0, (3, 2): 1.0}),
                      "1 iff e = 3 and s in {2, 3}", binary=True)
register_quantisation("s3e321", ("inex2003",), _table({(3, 3): 1.0, (2, 3): 1.0, (1, 3): 1.0}),
                      "1 iff s = 3 (specificity-oriented)", binary=True, aliases=("specific",))
register_quantisation("s3e32", ("inex2003",), _table({(3, 3): 1.0, (2, 3): 1.0}),
                      "1 iff s = 3 and e in {2, 3}", binary=True)
register_quantisation(
    "liberal", ("inex2003",),
    _table({pair: 1.0 for pair in _RELEVANT_PAIRS if pair != (1, 1)}),
    "1 iff e in {2, 3} or s in {2, 3} (Hiemstra and Mihajlović 2005, eq. 16)", binary=True,
)
register_quantisation("anyrel", ("inex2003",), _table({pair: 1.0 for pair in _RELEVANT_PAIRS}),
                      "1 for every relevant (e, s) pair", binary=True)

# INEX 2002, (relevance, coverage) -- seed 003 §5.2, spec §2.1.
_N, _S, _L, _E = (COVERAGE_CODES[c] for c in "NSLE")
_GEN2002 = np.zeros((4, 4), dtype=np.float64)
for (_rel, _cov), _value in {(3, _E): 1.0, (3, _L): 0.75, (2, _E): 0.75, (2, _L): 0.5,
                             (2, _S): 0.5, (1, _E): 0.5, (1, _L): 0.25, (1, _S): 0.25}.items():
    _GEN2002[_rel, _cov] = _value


def _strict2002(relevance: FloatArray, coverage: FloatArray, **_: Any) -> FloatArray:
    return np.asarray((relevance == 3) & (coverage == _E), dtype=np.float64)


def _generalised2002(relevance: FloatArray, coverage: FloatArray, **_: Any) -> FloatArray:
    return _GEN2002[np.clip(relevance, 0, 3).astype(np.int64), np.clip(coverage, 0, 3).astype(np.int64)]


register_quantisation("strict2002", ("inex2002",), _strict2002,
                      "1 iff relevance 3 and coverage E (Gövert and Kazai 2002, §5.2)", binary=True)
register_quantisation("generalised2002", ("inex2002",), _generalised2002,
                      "graded relevance x coverage credit (Gövert and Kazai 2002, §5.2)")
# "strict" and "generalised" name each year's official pair, so P(quant=strict)@10 works on any.
register_quantisation("strict", ("inex2002",), _strict2002, "same as strict2002", binary=True)
register_quantisation("generalised", ("inex2002",), _generalised2002,
                      "same as generalised2002")


# INEX 2005/2006, e in {?(-1), 1, 2}, s = rsize/size -- spec §2.1 [R][U].
def _exhaustivity2005(exhaustivity: FloatArray, too_small_value: float) -> FloatArray:
    if too_small_value not in (0, 0.5, 1):
        raise MeasureError(f"too_small_value must be 0, 0.5 or 1, not {too_small_value!r}")
    return np.where(exhaustivity < 0, too_small_value, exhaustivity)


def _strict2005(exhaustivity: FloatArray, specificity: FloatArray, **_: Any) -> FloatArray:
    return np.asarray((exhaustivity == 2) & (specificity >= 1.0), dtype=np.float64)


def _gen2005(exhaustivity: FloatArray, specificity: FloatArray, too_small_value: float = 0,
             **_: Any) -> FloatArray:
    return _exhaustivity2005(exhaustivity, too_small_value) * specificity


def _gen2005_norm(exhaustivity: FloatArray, specificity: FloatArray, too_small_value: float = 0,
                  **_: Any) -> FloatArray:
    return _exhaustivity2005(exhaustivity, too_small_value) / 2.0 * specificity


def _gen2006(specificity: FloatArray, **_: Any) -> FloatArray:
    return np.asarray(specificity, dtype=np.float64)


register_quantisation("strict2005", ("inex2005",), _strict2005,
                      "1 iff e = 2 and s = 1 (INEX 2005's strict)", binary=True,
                      aliases=("Strict5",))
register_quantisation("gen2005", ("inex2005",), _gen2005,
                      "e * s, e in {0, 1, 2}, '?' = too_small_value (INEX 2005's generalised)",
                      aliases=("Gen5",))
register_quantisation("gen2005_norm", ("inex2005",), _gen2005_norm,
                      "(e / 2) * s, rank-equivalent to gen2005, in [0, 1]")
register_quantisation("gen2006", ("inex2005",), _gen2006,
                      "s = rsize / size (INEX 2006: specificity alone)")
register_quantisation("strict", ("inex2005",), _strict2005, "same as strict2005", binary=True)
register_quantisation("generalised", ("inex2005",), _gen2005_norm,
                      "same as gen2005_norm")


# Document-level scales: FOL qrels (relevant iff rsize > 0) and TREC qrels (relevant iff rel > 0).
def _fol_binary(rsize: FloatArray, **_: Any) -> FloatArray:
    return (rsize > 0).astype(np.float64)


def _trec_binary(relevance: FloatArray, min_rel: int = 1, **_: Any) -> FloatArray:
    return (relevance >= min_rel).astype(np.float64)


register_quantisation("binary", ("fol",), _fol_binary,
                      "1 iff rsize > 0 (a passage: iff it holds highlighted text)", binary=True)
register_quantisation("binary", ("trec",), _trec_binary, "1 iff relevance >= min_rel (default 1)",
                      binary=True)
register_quantisation("strict", ("fol",), _fol_binary,
                      "1 iff rsize > 0 (a passage: iff it holds highlighted text)",
                      binary=True)
register_quantisation("strict", ("trec",), _trec_binary, "1 iff relevance >= 1",
                      binary=True)


# inex_eval_ng per-dimension quantisations -- seed 000 §2.3, spec §2.1.
def quantise_dimensions(name: str, ta: TopicAssessments) -> tuple[FloatArray, FloatArray]:
    """``(e', s')`` of every unit for inex_eval_ng: ``strict`` (1 iff the value is 3) or
    ``generalised`` (value / 3), on INEX 2003/2004 assessments."""
    if ta.scale != "inex2003":
        raise MeasureError(
            f"inex_eval_ng quantisations are for inex2003 assessments, not {ta.scale}", ta.source
        )
    e = ta.dim("exhaustivity")
    s = ta.dim("specificity")
    if name in ("strict", "Strict4"):
        return (e == 3).astype(np.float64), (s == 3).astype(np.float64)
    if name in ("generalised", "generalized", "Gen4"):
        return e / 3.0, s / 3.0
    raise MeasureError(f"inex_eval_ng quantisation must be strict or generalised, not {name!r}")


def describe() -> list[tuple[str, str, str]]:
    """``(name, scale, description)`` of every registered quantisation, for listings."""
    return [(name, scale, q.description) for name, by_scale in sorted(_QUANTISATIONS.items())
            for scale, q in by_scale.items()]
