"""trec_eval 10.0 as array operations over all topics at once: its measures, names, ``-m``
syntax, options and printed layout, for TREC qrels and document runs.

A run is ordered as trec_eval orders it (``form_res_rels.c``): by score descending, ties by
document id descending (C's ``strcmp``), cut at ``-M`` documents a topic; each retrieved
document gets its qrels level, ``-1`` if the qrels do not list it, ``-2`` if they list it with
a negative level (in the pool, not judged). Topics are evaluated in ``strcmp`` order of their
ids: those of the qrels that the run answers, or every topic of the qrels with ``-c`` (a topic
without results is scored, as trec_eval scores it, as a list of one document outside the pool,
its ``num_ret`` printed as 0).

Every topic's list is a row of a matrix (padded past its end), so that each measure is a few
numpy operations over all topics; sums run left to right along a row (``np.cumsum``), in the
order trec_eval adds, and logarithms come from :mod:`math` (the C library's), so the values are
trec_eval's to the last bit. The measures follow trec_eval's ``m_*.c`` files; references are
in their descriptions (:data:`DEFINITIONS`): Buckley and Voorhees (2004) for bpref, Yilmaz and
Aslam (2006) for infAP, Järvelin and Kekäläinen (2002) for nDCG, Moffat and Zobel (2008) for
rank-biased precision; ``G`` and ``binG`` are trec_eval's own experimental measures (Buckley,
2008: a document's gain over log2 of 2 + the ideal gain minus the gain so far).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from inexeval.errors import FormatError, MeasureError
from inexeval.formats.trec_columns import byte_ranges, interned, mixed_radix, ranges_union
from inexeval.measures.trec_eval_more import as_zscores

NONPOOL = -1
"""Level of a retrieved document that the qrels do not list (trec_eval's RELVALUE_NONPOOL)."""
UNJUDGED = -2
"""Level of a retrieved document listed with a negative level (RELVALUE_UNJUDGED)."""
PAD = -(1 << 40)
"""Level of the places past the end of a topic's list (never relevant, never counted)."""
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001

_T = TypeVar("_T")
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


# --- what trec_eval measures, and how each is named, averaged and printed ----------------------

@dataclass(frozen=True)
class Definition:
    """One trec_eval measure: ``kind`` of parameters (``none``; ``cutoffs`` (integers) and
    ``levels`` (floats), one value each, sorted; ``values``, a list of floats; ``pairs``,
    ``name=value`` items), their default, how the values are printed (``double``, ``long``,
    ``string``, ``runid``), whether a topic's value is printed (``-q``) and how ``all`` is
    formed (``mean``, ``sum``, ``gm`` the geometric mean, ``count`` of topics, or none)."""

    name: str
    kind: str = "none"
    default: tuple[float, ...] = ()
    printed: str = "double"
    per_topic: bool = True
    average: str | None = "mean"
    description: str = ""


_CUTS = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

DEFINITIONS: tuple[Definition, ...] = (
    Definition("runid", printed="runid", per_topic=False, average=None,
               description="the run id (of the run's last line)"),
    Definition("num_q", printed="long", per_topic=False, average="count",
               description="number of topics evaluated"),
    Definition("num_ret", printed="long", average="sum",
               description="number of documents retrieved"),
    Definition("num_rel", printed="long", average="sum",
               description="number of relevant documents (with -c, in all: every level > 0 "
               "of the qrels)"),
    Definition("num_rel_ret", printed="long", average="sum",
               description="number of relevant documents retrieved"),
    Definition("map", description="average precision (Buckley and Voorhees 2005)"),
    Definition("gm_map", per_topic=False, average="gm",
               description="geometric mean of average precision (floor 0.00001)"),
    Definition("Rprec", description="precision at rank R, R = number of relevant documents"),
    Definition("bpref", description="binary preference (Buckley and Voorhees 2004)"),
    Definition("recip_rank", description="reciprocal rank of the first relevant document"),
    Definition("iprec_at_recall", "levels", _RECALL_POINTS,
               description="interpolated precision at recall levels"),
    Definition("P", "cutoffs", _CUTS, description="precision at cut-offs"),
    Definition("relstring", "values", (10.0,), printed="string", average=None,
               description="relevance levels of the first N documents as a string"),
    Definition("recall", "cutoffs", _CUTS, description="recall at cut-offs"),
    Definition("infAP", description="inferred average precision (Yilmaz and Aslam 2006)"),
    Definition("gm_bpref", per_topic=False, average="gm",
               description="geometric mean of bpref (floor 0.00001)"),
    Definition("Rprec_mult", "levels", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
               description="precision at rank x*R"),
    Definition("utility", "values", (1.0, -1.0, 0.0, 0.0),
               description="a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret (-N)"),
    Definition("11pt_avg", "values", _RECALL_POINTS,
               description="mean interpolated precision at the recall levels"),
    Definition("binG", description="binary G: 1 / log2(2 + non-relevant documents above) for "
               "each relevant document, over R (trec_eval 2008)"),
    Definition("G", "pairs", description="normalised gain G (trec_eval 2008), gains "
               "level=gain"),
    Definition("dcg", "pairs", description="DCG over the whole list (Järvelin and Kekäläinen "
               "2002), gains level=gain, discount log2(rank + 1)"),
    Definition("ideal_dcg", "pairs", description="DCG of the ideal list, gains level=gain"),
    Definition("ndcg", "pairs", description="nDCG over the whole list (Järvelin and "
               "Kekäläinen 2002), gains level=gain"),
    Definition("ndcg_rel", "pairs", description="nDCG averaged over the relevant documents"),
    Definition("Rndcg", "pairs", description="nDCG averaged at the ranks where the ideal gain "
               "changes"),
    Definition("ndcg_cut", "cutoffs", _CUTS, description="nDCG at cut-offs, gains = levels"),
    Definition("map_cut", "cutoffs", _CUTS, description="average precision at cut-offs"),
    Definition("relative_P", "cutoffs", _CUTS, description="precision at k over min(k, R)"),
    Definition("success", "cutoffs", (1.0, 5.0, 10.0),
               description="1 if a relevant document is in the top k"),
    Definition("set_P", description="precision of the whole list"),
    Definition("set_relative_P", description="relevant retrieved / min(retrieved, R)"),
    Definition("set_recall", description="recall of the whole list"),
    Definition("set_map", description="set_P * set_recall"),
    Definition("set_F", "values", (1.0,), description="F measure of the whole list, beta"),
    Definition("num_nonrel_judged_ret", printed="long", average="sum",
               description="number of judged non-relevant documents retrieved"),
    Definition("yaap", description="yet another average precision: log((1 + S) / (1 + R - S)), "
               "S the sum of precisions at the relevant documents (Robertson 2012)"),
    Definition("rbp", "pairs", description="rank-biased precision (Moffat and Zobel 2008), "
               "p=0.9"),
    Definition("rbp_resid", "pairs", description="rank-biased precision's residual"),
    Definition("unj", "cutoffs", (5.0, 10.0, 20.0),
               description="share of the top k not judged"),
)
"""The ad hoc measures of trec_eval 10.0, in its table order (the order it prints them):
``measures.c``'s ``te_trec_measures``, without the preference and judgement-group ones."""

BY_NAME = {d.name: d for d in DEFINITIONS}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
                 "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                 "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
}
"""trec_eval's names for sets of measures (``-m official`` is its default)."""


@dataclass(frozen=True)
class Chosen:
    """A measure to compute, with its parameters: ``values`` (numbers, or ``pairs``) and the
    labels its values are printed under (``P_5``, ``iprec_at_recall_0.10``, ``ndcg_1=3``)."""

    definition: Definition
    values: tuple[float, ...]
    pairs: tuple[tuple[str, float], ...]
    labels: tuple[str, ...]


def knows(request: str) -> bool:
    """Whether ``request`` (``map``, ``P.5,10``, ``official``) names trec_eval's measures."""
    name = request.partition(".")[0]
    return all(n in BY_NAME for n in NICKNAMES.get(name, (name,)))


def choose(requests: Iterable[str]) -> list[Chosen]:
    """The measures of trec_eval's ``-m`` arguments (``map``, ``P.5,10``, ``ndcg_cut.10``,
    ``iprec_at_recall..10,.5``, ``ndcg.1=3,2=9``, the nicknames ``official``, ``all_trec``,
    ``set``), in trec_eval's table order; none given is ``official``. A measure's parameters
    are those of its first ``-m`` that has any, as in trec_eval."""
    marked: set[str] = set()
    given: dict[str, str] = {}
    for request in list(requests) or ["official"]:
        name, dot, params = request.partition(".")
        if dot:
            if not params:
                raise MeasureError(f"improper measure in parameter {request!r}")
            given.setdefault(name, params)
        names = NICKNAMES.get(name, (name,))
        if any(n not in BY_NAME for n in names):
            raise MeasureError(f"illegal measure {request!r}{_suggestion(name)}")
        marked.update(names)
    return [choose_definition(d, given.get(d.name)) for d in DEFINITIONS if d.name in marked]


PREFERENCE_NAMES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp")
"""The preference measures' names (:mod:`inexeval.measures.trec_prefs` computes them; named
here, which that module imports, to tell a user who asks for one without ``-R prefs``)."""

_INEXEVAL_NAMES = {"AP": "map", "RR": "recip_rank", "R-Prec": "Rprec", "nDCG": "ndcg_cut.10",
                   "R": "recall", "Judged": "unj", "MAP": "map", "MRR": "recip_rank"}
"""inexeval's names of trec_eval's measures, to suggest trec_eval's."""


def _suggestion(name: str) -> str:
    """`` (did you mean ...?)`` for a name trec_eval does not know: trec_eval's name of an
    inexeval measure (``AP`` is ``map``), else the closest name by spelling."""
    import difflib

    if name in PREFERENCE_NAMES or name in ("prefs", "all_prefs"):
        return " (a preference measure: give -R prefs or -R qrels_prefs)"
    if name in ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "qrels_jg"):
        return " (a judgement-group measure: give -R qrels_jg)"

    family = name.split("@")[0]
    if family in _INEXEVAL_NAMES:

        return f" (did you mean {_INEXEVAL_NAMES[family]!r}?)"
    close = difflib.get_close_matches(name, [*BY_NAME, *NICKNAMES], n=1, cutoff=0.6)
    known = f"; known: {', '.join(BY_NAME)}; sets: {', '.join(NICKNAMES)}"
    return f" (did you mean {close[0]!r}?)" if close else f" (trec_eval's measures{known})"


def choose_definition(definition: Definition, text: str | None) -> Chosen:
    name, kind = definition.name, definition.kind
    if kind == "pairs":
        pairs = _pairs(name, text) if text is not None else ()
        return Chosen(definition, (), pairs, (f"{name}_{text}" if text else name,))
    if kind == "none" or text is None:
        values = definition.default
        if kind == "cutoffs":
            return Chosen(definition, values, (), tuple(f"{name}_{int(v)}" for v in values))
        if kind == "levels":
            return Chosen(definition, values, (), tuple(f"{name}_{v:3.2f}" for v in values))
        return Chosen(definition, values, (), (name,))
    items = text.split(",")
    if kind == "cutoffs":
        cutoffs = sorted(_atol(item) for item in items)
        if cutoffs[0] <= 0:
            raise MeasureError(f"{name}.{text}: a cut-off is not positive")
        if len(set(cutoffs)) < len(cutoffs):
            raise MeasureError(f"{name}.{text}: a cut-off is given twice")
        return Chosen(definition, tuple(float(c) for c in cutoffs), (),
                      tuple(f"{name}_{c}" for c in cutoffs))
    numbers = [_atof(item) for item in items]
    if kind == "levels":
        numbers.sort()
        if len(set(numbers)) < len(numbers):
            raise MeasureError(f"{name}.{text}: a cut-off is given twice")
        return Chosen(definition, tuple(numbers), (), tuple(f"{name}_{v:3.2f}" for v in numbers))
    if name == "utility" and len(numbers) != 4:
        raise MeasureError(f"utility.{text}: utility takes 4 coefficients")
    return Chosen(definition, tuple(numbers), (), (f"{name}_{text}",))


def chosen_measure(name: str, text: str | None = None) -> Chosen:
    """trec_eval's measure ``name`` with the parameters of its ``-m name.text`` (None: its
    defaults), as :func:`choose` makes it."""
    return choose_definition(BY_NAME[name], text)


def _pairs(name: str, text: str) -> tuple[tuple[str, float], ...]:
    pairs = []
    for item in text.split(","):
        key, equals, value = item.partition("=")
        if not equals or not key or "=" in value:
            raise MeasureError(f"{name}.{text}: malformed pair parameters (give name=value,...)")
        pairs.append((key, _atof(value)))
    return tuple(pairs)


_ATOL = re.compile(r"\s*([+-]?[0-9]+)")
_ATOF = re.compile(r"\s*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def _atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text`` (``23.4`` is 23, ``x`` is 0)."""
    match = _ATOL.match(text)
    return int(match.group(1)) if match else 0


def _atof(text: str) -> float:
    """C's ``atof`` for decimal numbers: the leading number of ``text`` (``x`` is 0)."""
    match = _ATOF.match(text)
    return float(match.group(1)) if match else 0.0


# --- the topics' lists as one matrix -----------------------------------------------------------

@dataclass
class Lists:
    """The evaluated topics' ranked lists seen through the qrels, one row a topic.

    ``levels[t, i]``: level of the document at rank ``i + 1`` (NONPOOL, UNJUDGED; PAD past the
    list's end); ``num_ret``; ``counts[t, v]``: documents of the topic judged at level ``v``
    (``v >= 0``), ``ideal[t]``: the topic's positive levels in decreasing order (0 past them);
    ``bogus``: the topic has no result (``-c``)."""

    topics: list[str]
    levels: Ints
    num_ret: Ints
    counts: Ints
    ideal: Ints
    bogus: npt.NDArray[np.bool_]
    relevance_level: int = 1
    num_docs: int = 0
    qrels_positive: int = 0
    """Judgements with a level above 0 in the whole qrels (``num_rel``'s ``all`` with -c)."""
    complete: bool = False
    _memo: dict[Any, Any] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return int(self.levels.shape[1])

    def memo(self, key: Any, make: Callable[[], _T]) -> _T:
        """``make()``, made once for these lists."""
        if key not in self._memo:
            self._memo[key] = make()
        made: _T = self._memo[key]
        return made

    @property
    def valid(self) -> npt.NDArray[np.bool_]:
        return self.memo("valid", lambda: np.arange(self.width) < self.num_ret[:, None])

    @property
    def relevant(self) -> npt.NDArray[np.bool_]:
        """Relevant places (level >= -l), as the ranked measures test them."""
        return self.memo("relevant", lambda: self.levels >= self.relevance_level)

    @property
    def found(self) -> Ints:
        """Relevant documents in the top i + 1 (``rel_so_far``)."""
        return self.memo("found", lambda: np.cumsum(self.relevant, axis=1))

    @property
    def num_rel(self) -> Ints:
        """Judged documents at level >= -l (trec_eval's num_rel: levels >= 0 only)."""
        return self.memo("num_rel",
                         lambda: self.counts[:, max(self.relevance_level, 0):].sum(axis=1))

    @property
    def num_rel_ret(self) -> Ints:
        """Judged relevant documents retrieved (levels >= max(-l, 0))."""
        return self.memo("num_rel_ret", lambda: np.count_nonzero(
            self.levels >= max(self.relevance_level, 0), axis=1))

    def at(self, matrix: npt.NDArray[Any], k: int | Ints) -> npt.NDArray[Any]:
        """``matrix``'s column at rank ``k`` (``k`` places, 0 if k == 0; the last past it)."""
        column = np.minimum(k, self.width) - 1
        rows = np.arange(len(self.topics))
        values = matrix[rows, np.maximum(column, 0)]
        return np.where(column >= 0, values, 0)


_DISCOUNTS: list[float] = []


def log2_table(n: int) -> Floats:
    """``log2(i)`` for i < n, from the C library (:func:`math.log2`), as trec_eval computes."""
    while len(_DISCOUNTS) < n:
        _DISCOUNTS.extend(math.log2(i) if i else -math.inf
                          for i in range(len(_DISCOUNTS), max(n, 2 * len(_DISCOUNTS))))
    return np.array(_DISCOUNTS[:n])


@dataclass
class Judgements:
    """TREC qrels (:class:`~inexeval.formats.trec_columns.TrecColumns`) made ready once for any
    number of runs: the judged topics in ``strcmp`` order, each judgement's topic code and
    level, ``counts[t, v]`` (documents of topic t judged at level v >= 0), ``ideal[t]`` (the
    topic's positive levels in decreasing order, 0 past them), ``positive`` (judgements above
    0), and the qrels keyed for the document ids of the runs seen so far
    (:func:`_document_keys`)."""

    columns: Any
    topics: npt.NDArray[np.bytes_]
    topic_of: Ints
    levels: Ints
    counts: Ints
    ideal: Ints
    positive: int
    keys: _Keys | None = None


def judgements(qrels: Any) -> Judgements:
    """The :class:`Judgements` of qrels read by
    :func:`~inexeval.formats.trec_columns.read_trec_eval_qrels` (given back if made already)."""
    if isinstance(qrels, Judgements):
        return qrels
    topics, topic_of = interned(qrels.topics)
    levels = qrels.values.astype(np.int64)
    t = len(topics)
    judged = levels >= 0
    top = int(levels.max(initial=0)) + 1
    counts = np.bincount(topic_of[judged] * top + levels[judged],
                         minlength=t * top).reshape(t, top).astype(np.int64)
    positive = levels > 0
    rows, values = topic_of[positive], levels[positive]
    order = np.lexsort((-values, rows))
    rows, values = rows[order], values[order]
    sizes = np.bincount(rows, minlength=t)
    ideal = np.zeros((t, max(int(sizes.max(initial=0)), 1)), dtype=np.int64)
    ideal[rows, np.arange(len(rows)) - (np.cumsum(sizes) - sizes)[rows]] = values
    return Judgements(qrels, topics, topic_of, levels, counts, ideal,
                      int(np.count_nonzero(positive)))


def lists(qrels: Any, run: Any, *, complete: bool = False, relevance_level: int = 1,
          max_docs: int | None = None, judged_only: bool = False, num_docs: int = 0,
          keep_repeats: bool = False, flat: bool = False) -> Any:
    """The :class:`Lists` of a run (:class:`~inexeval.formats.trec_columns.TrecColumns`) on
    qrels (the same, or their :class:`Judgements`), with trec_eval's options: ``complete``
    (-c), ``relevance_level`` (-l), ``max_docs`` (-M), ``judged_only`` (-J), ``num_docs``
    (-N); a document retrieved twice for a topic is an error, as in trec_eval, unless
    ``keep_repeats``. ``flat``: the lists as flat columns (:class:`_Ranked`), to be made
    matrices a group of topics at a time."""
    judged = judgements(qrels)
    ranked = ranked_lists(judged, run, relevance_level=relevance_level, max_docs=max_docs,
                     judged_only=judged_only, num_docs=num_docs, keep_repeats=keep_repeats)
    if complete:
        missing = np.ones(len(judged.topics), dtype=bool)
        missing[ranked.chosen] = False
        ranked = ranked.joined(_bogus(judged, np.flatnonzero(missing),
                                      relevance_level=relevance_level, max_docs=max_docs,
                                      judged_only=judged_only, num_docs=num_docs))
    if not len(ranked.chosen):
        raise FormatError("no topic has both results and judgements", run.source)
    return ranked if flat else ranked.lists(ranked.chosen)


@dataclass
class _Ranked:
    """The ranked lists of some topics as flat columns (the topic code and the level of each
    place, each topic's places together and in rank order), before they are made matrices:
    ``chosen`` the topics (codes, increasing), ``bogus`` those scored as trec_eval scores a
    topic without results (``-c``)."""

    judged: Judgements
    chosen: Ints
    bogus: Ints
    topic_codes: Ints
    levels: Ints
    relevance_level: int
    num_docs: int
    complete: bool = False

    def lists(self, topics: Ints) -> Lists:
        """The :class:`Lists` of some of the chosen topics (codes, in order)."""
        keep = np.isin(self.topic_codes, topics) if len(topics) < len(self.chosen) else None
        codes = self.topic_codes if keep is None else self.topic_codes[keep]
        levels = self.levels if keep is None else self.levels[keep]
        made = _matrices(self.judged, topics, self.bogus, codes, levels, self.relevance_level,
                         self.num_docs)
        made.complete = self.complete
        return made

    def joined(self, other: _Ranked) -> _Ranked:
        """These topics and ``other``'s (none in both) as one."""
        return _Ranked(self.judged, np.sort(np.concatenate([self.chosen, other.chosen])),
                       np.concatenate([self.bogus, other.bogus]),
                       np.concatenate([self.topic_codes, other.topic_codes]),
                       np.concatenate([self.levels, other.levels]), self.relevance_level,
                       self.num_docs, self.complete or other.complete)

    def groups(self) -> list[Ints]:
        """The chosen topics in groups whose lists differ little in length (each group's matrix
        at most about twice its places, plus 2^16), so that one long list does not make every
        topic's row as long; one group in the usual case."""
        sizes = np.bincount(self.topic_codes, minlength=len(self.judged.topics))[self.chosen]
        if len(self.chosen) * max(int(sizes.max(initial=0)), 1) <= 2 * len(self.levels) + 65536:
            return [self.chosen]
        order = np.argsort(-sizes, kind="stable")
        groups: list[Ints] = []
        start = 0
        for end in range(1, len(order) + 1):
            widest = max(int(sizes[order[start]]), 1)
            places = int(sizes[order[start:end]].sum())
            if end - start > 1 and (end - start) * widest > 2 * places + 65536:
                groups.append(np.sort(self.chosen[order[start:end - 1]]))
                start = end - 1
        groups.append(np.sort(self.chosen[order[start:]]))
        return groups


def ranked_lists(judged: Judgements, run: Any, *, relevance_level: int, max_docs: int | None,
            judged_only: bool, num_docs: int, keep_repeats: bool) -> _Ranked:
    """The ranked lists of the judged topics a run (or a part of one: whole topics) answers,
    ordered as trec_eval orders them (score descending, ties by document id descending), each
    place with its level in the qrels (NONPOOL, UNJUDGED), cut at ``max_docs`` places, only
    judged documents kept if ``judged_only``."""
    distinct, codes = interned(run.topics)
    at = np.minimum(np.searchsorted(judged.topics, distinct), len(judged.topics) - 1)
    topic = np.where(judged.topics[at] == distinct, at, -1)[codes]
    rows = np.flatnonzero(topic >= 0)
    everything = len(rows) == len(topic)
    if not everything:
        topic = topic[rows]
    answered = np.zeros(len(judged.topics), dtype=bool)
    answered[topic] = True  # a topic cut to no place by -M or -J still counts
    chosen = np.flatnonzero(answered)
    if not len(rows):
        return _Ranked(judged, chosen, chosen, topic, topic.copy(), relevance_level, num_docs)
    scores = run.values if everything else run.values[rows]
    documents = run.documents if everything else run.documents[rows]
    keyed, keys = _document_keys(judged, documents)
    ranking = _ranking(topic, scores, keys, keyed.size)
    if ranking is not None:
        topic, keys, rows = topic[ranking], keys[ranking], rows[ranking]
    if max_docs is not None:
        kept = _places(topic) < max_docs
        topic, keys, rows = topic[kept], keys[kept], rows[kept]
    combined = topic * keyed.size + keys
    levels, repeated = keyed.look_up(combined, repeats=not keep_repeats)
    if repeated:
        _refuse_repeated(run, rows, combined)
    if judged_only:
        judged_rows = levels >= 0
        topic, levels = topic[judged_rows], levels[judged_rows]
    return _Ranked(judged, chosen, chosen[:0], topic, levels, relevance_level, num_docs)


def _places(topic: Ints) -> Ints:
    """Each line's place in its topic's list (0 for the first; a topic's lines together)."""
    n = len(topic)
    starts = np.flatnonzero(np.concatenate(([True], topic[1:] != topic[:-1]))) if n else topic
    places: Ints = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))
    return places


def _bogus(judged: Judgements, topics: Ints, *, relevance_level: int, max_docs: int | None,
           judged_only: bool, num_docs: int) -> _Ranked:
    """The lists trec_eval scores for topics without results (``-c``): one document outside the
    pool (none if the options cut it: -M0, -J)."""
    listed = topics if (max_docs is None or max_docs > 0) and not judged_only else topics[:0]
    return _Ranked(judged, topics, topics, listed, np.full(len(listed), NONPOOL),
                   relevance_level, num_docs, complete=True)


def _ranking(topic: Ints, scores: Floats, keys: Ints, size: int) -> Ints | None:
    """The order of the lines by topic, score descending, document key descending (None: the
    order they have). A run usually lists each topic's lines together in decreasing scores:
    then only lines of equal scores move, sorted by one key (nearly in order already)."""
    n = len(topic)
    if n < 2:
        return None
    same = topic[1:] == topic[:-1]
    falling = scores[1:] <= scores[:-1]
    blocks = n - int(np.count_nonzero(same))
    if bool((falling | ~same).all()) and blocks == np.count_nonzero(np.bincount(topic)):
        tied = same & (scores[1:] == scores[:-1])
        if not tied.any():
            return None
        group = np.concatenate(([0], np.cumsum(~tied)))
        if int(group[-1]) < (1 << 62) // size:
            ranking: Ints = np.argsort(group * size + (size - 1 - keys), kind="stable")
            return ranking
        return np.lexsort((-keys, group))
    return np.lexsort((-keys, -scores, topic))


DENSE = 1 << 22
"""Most (topic, document key) pairs for which the qrels' levels are held as a table, looked up
without a search."""


@dataclass
class _Keys:
    """The qrels' judgements keyed by (topic code * ``size`` + document key) for one encoding of
    the document ids (:func:`_document_keys`): sorted with their levels (UNJUDGED for a
    negative level), or, when there are at most :data:`DENSE` pairs, as a table of levels."""

    low: npt.NDArray[np.uint8]
    high: npt.NDArray[np.uint8]
    radix: list[int] | None
    size: int
    sorted: Ints
    levels: Ints
    table: npt.NDArray[np.int16] | None = None

    def look_up(self, combined: Ints, repeats: bool) -> tuple[Ints, bool]:
        """The level of each (topic, document) key (NONPOOL if the qrels do not list it), and
        whether a key comes twice (looked for only if ``repeats``)."""
        if self.table is not None:
            levels = self.table[combined].astype(np.int64)
            if not repeats:
                return levels, False
            seen = np.zeros(len(self.table), dtype=bool)
            seen[combined] = True
            return levels, int(np.count_nonzero(seen)) < len(combined)
        order = np.argsort(combined)
        ordered = combined[order]
        repeated = repeats and bool((ordered[1:] == ordered[:-1]).any())
        at = np.minimum(np.searchsorted(self.sorted, ordered), len(self.sorted) - 1)
        levels = np.empty(len(combined), dtype=np.int64)
        levels[order] = np.where(self.sorted[at] == ordered, self.levels[at], NONPOOL)
        return levels, repeated


def _document_keys(judged: Judgements, documents: npt.NDArray[np.bytes_]) -> tuple[_Keys,
                                                                                   Ints]:
    """Document ids as integers in ``strcmp`` order, shared by the qrels and the run's lines:
    the qrels keyed (:class:`_Keys`) and the keys of ``documents``.

    The key reads the ids' bytes as digits of a mixed radix, each byte place from its least to
    its greatest value among the ids (places where all ids agree left out), so that ids of many
    bytes with a common shape (``doc001234``, ``clueweb09-en0000-00-00001``) make small whole
    numbers; the places and ranges of the qrels and the runs seen so far are kept, and the
    qrels' keys with them, until a run brings a byte outside them. When the keys would not fit
    in 63 bits, the ids are numbered by sorting them all (:func:`interned`)."""
    run_low, run_high = byte_ranges(documents)
    kept = judged.keys
    if kept is not None:
        low, high = ranges_union(run_low, run_high, kept.low, kept.high)
        if np.array_equal(low, kept.low) and np.array_equal(high, kept.high):
            return kept, mixed_radix(documents, low, kept.radix or [])
    topics = max(len(judged.topics), 1)
    q_low, q_high = byte_ranges(judged.columns.documents)
    for low, high in ([ranges_union(run_low, run_high, kept.low, kept.high)] if kept else []) + [
            ranges_union(run_low, run_high, q_low, q_high)]:
        radix = (high.astype(np.int64) - low + 1).tolist()
        size = 1
        for r in radix:
            size *= r
        if size * topics < 1 << 62:
            break
    else:
        return _numbered(judged, documents)
    keys = judged.topic_of * size + mixed_radix(judged.columns.documents, low, radix)
    levels = np.where(judged.levels < 0, UNJUDGED, judged.levels)
    if size * topics <= DENSE:
        table = np.full(size * topics, NONPOOL, dtype=np.int16)
        table[keys] = levels
        made = _Keys(low, high, radix, size, keys, levels, table)
    else:
        order = np.argsort(keys)
        made = _Keys(low, high, radix, size, keys[order], levels[order])
    judged.keys = made
    return made, mixed_radix(documents, low, radix)


def _numbered(judged: Judgements, documents: npt.NDArray[np.bytes_]) -> tuple[_Keys, Ints]:
    """:func:`_document_keys` for ids too varied for mixed-radix keys: their codes among the
    qrels' and the run's ids together (made again for every run)."""
    n = len(judged.levels)
    distinct, codes = interned(np.concatenate([judged.columns.documents, documents]))
    size = len(distinct)
    keys = judged.topic_of * size + codes[:n]
    order = np.argsort(keys)
    levels = judged.levels[order]
    empty = np.zeros(0, dtype=np.uint8)
    return _Keys(empty, empty, None, size, keys[order], np.where(levels < 0, UNJUDGED, levels)
                 ), codes[n:]


def _refuse_repeated(run: Any, rows: Ints, keys: Ints) -> None:
    """The error for the first line that repeats a (topic, document) of an earlier one among
    ``rows`` (the run's rows, ``keys`` their topic and document)."""
    order = np.argsort(keys, kind="stable")
    pair = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    first, second = rows[order[pair]], rows[order[pair + 1]]
    later = np.maximum(first, second)
    at = int(np.argmin(later))
    line = int(run.lines[later[at]])
    earlier = int(run.lines[min(first[at], second[at])])
    document = run.documents[later[at]].decode("utf-8")
    topic = run.topics[later[at]].decode("utf-8")
    raise FormatError(f"topic {topic!r} retrieves {document!r} twice (first at line "
                      f"{earlier}; trec_eval stops there; --keep-repeats keeps both)",
                      run.source, line)


def _matrices(judged: Judgements, chosen: Ints, bogus_topics: Ints, topic_codes: Ints,
              levels: Ints, relevance_level: int, num_docs: int) -> Lists:
    t = len(chosen)
    row_of = np.full(len(judged.topics), -1, dtype=np.int64)
    row_of[chosen] = np.arange(t)
    rows = row_of[topic_codes]
    num_ret = np.bincount(rows, minlength=t).astype(np.int64)
    width = max(int(num_ret.max(initial=0)), 1)
    if len(levels) == t * width and bool((rows[1:] >= rows[:-1]).all()):
        # every list as long, in row order (a run of 1,000 results a topic): the rows as they are
        matrix = levels.astype(np.int64).reshape(t, width)
    else:
        matrix = np.full((t, width), PAD, dtype=np.int64)
        matrix[rows, _places(rows)] = levels
    bogus = np.zeros(len(judged.topics), dtype=bool)
    bogus[bogus_topics] = True
    topics = [topic.decode("utf-8") for topic in judged.topics[chosen].tolist()]
    return Lists(topics, matrix, num_ret, judged.counts[chosen], judged.ideal[chosen],
                 bogus[chosen], relevance_level, num_docs, judged.positive)


# --- the measures ------------------------------------------------------------------------------

def _ratio(numerator: Any, denominator: Any) -> Floats:
    """numerator / denominator where the denominator is not 0, else 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / np.where(denominator != 0, denominator, 1),
                        0.0)


def _row_sums(terms: Floats) -> Floats:
    """Each row's sum, added left to right as trec_eval adds (``np.cumsum``, not pairwise)."""
    return np.cumsum(terms, axis=1)[:, -1] if terms.shape[1] else np.zeros(len(terms))


def _ap_terms(ls: Lists) -> Floats:
    return ls.memo("ap terms", lambda: np.where(
        ls.relevant, ls.found / (np.arange(ls.width) + 1.0), 0.0))


def _average_precision(ls: Lists) -> Floats:
    total = _row_sums(_ap_terms(ls))
    return np.where(ls.found[:, -1] > 0, _ratio(total, ls.num_rel), 0.0)


def _map(ls: Lists, chosen: Chosen) -> Floats:
    return _average_precision(ls)[:, None]


def _map_cut(ls: Lists, chosen: Chosen) -> Floats:
    sums = np.cumsum(_ap_terms(ls), axis=1)
    return np.stack([_ratio(ls.at(sums, int(k)), ls.num_rel) for k in chosen.values], axis=1)


def _geometric(values: Floats) -> Floats:
    return np.array([[math.log(max(v, MIN_GEO_MEAN))] for v in values.tolist()]).reshape(-1, 1)


def _gm_map(ls: Lists, chosen: Chosen) -> Floats:
    return _geometric(_average_precision(ls))


def _r_precision(ls: Lists, chosen: Chosen) -> Floats:
    k = np.minimum(ls.num_ret, ls.num_rel)
    return np.where(k > 0, _ratio(ls.at(ls.found, k), ls.num_rel), 0.0)[:, None]


def _judged_relevant(ls: Lists) -> npt.NDArray[np.bool_]:
    """Relevant as bpref and infAP see it (judged, not below -l)."""
    return ls.levels >= max(ls.relevance_level, 0)


def _judged_nonrelevant(ls: Lists) -> npt.NDArray[np.bool_]:
    return (ls.levels >= 0) & (ls.levels < ls.relevance_level)


def _bpref_values(ls: Lists) -> Floats:
    num_rel = ls.num_rel
    num_nonrel = ls.counts[:, :max(ls.relevance_level, 0)].sum(axis=1)
    above = np.cumsum(_judged_nonrelevant(ls), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = (np.minimum(above, num_rel[:, None]).astype(np.float64)
                   / np.minimum(num_nonrel, num_rel)[:, None].astype(np.float64))
    terms = np.where(_judged_relevant(ls), np.where(above > 0, 1.0 - penalty, 1.0), 0.0)
    total = _row_sums(terms)
    return np.where(num_rel > 0, _ratio(total, num_rel), total)


def _bpref(ls: Lists, chosen: Chosen) -> Floats:
    return _bpref_values(ls)[:, None]


def _gm_bpref(ls: Lists, chosen: Chosen) -> Floats:
    return _geometric(_bpref_values(ls))


def _recip_rank(ls: Lists, chosen: Chosen) -> Floats:
    hit = ls.relevant.any(axis=1)
    first = np.argmax(ls.relevant, axis=1)
    return np.where(hit, 1.0 / (first + 1.0), 0.0)[:, None]


def _interpolated(ls: Lists) -> Floats:
    """Interpolated precision at each rank: the best precision at this rank or below."""
    def make() -> Floats:
        precision = np.where(ls.valid, ls.found / (np.arange(ls.width) + 1.0), -np.inf)
        best: Floats = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
        return best
    return ls.memo("interpolated", make)


def _recall_points(ls: Lists, points: Sequence[float]) -> list[list[float]]:
    """trec_eval's interpolated precision at the recall points (``m_iprec_at_recall.c``, also
    ``m_11pt_avg.c``), per topic, in the order the points are given: a point asks for the
    ``lround(point * R)``-th relevant document; the walk over the points goes from the last
    one down, as trec_eval's, so that points given out of order read as they do there."""
    best = _interpolated(ls)
    out = []
    found_rows, num_rel = ls.relevant, ls.num_rel.tolist()
    relevant_ret = ls.found[:, -1].tolist()
    with np.errstate(divide="ignore", invalid="ignore"):
        last = (ls.found[:, -1] / ls.num_ret.astype(np.float64)).tolist()
    for t in range(len(ls.topics)):
        wanted = [_lround(p * num_rel[t]) for p in points]
        values = [0.0] * len(points)
        got = relevant_ret[t]
        current = len(points) - 1
        while current >= 0 and wanted[current] > got:
            current -= 1
        if got:
            places = np.flatnonzero(found_rows[t])
            interpolated = best[t, places].tolist()
            for rank in range(got, 0, -1):
                while current >= 0 and wanted[current] == rank:
                    values[current] = interpolated[rank - 1]
                    current -= 1
            final = interpolated[0]
        else:
            final = last[t]
        while current >= 0:
            values[current] = final
            current -= 1
        out.append(values)
    return out


def _lround(value: float) -> int:
    """C's ``lround``: to the nearest integer, halves away from zero."""
    whole = math.floor(value)
    return whole + 1 if value - whole >= 0.5 else whole


def _iprec_at_recall(ls: Lists, chosen: Chosen) -> Floats:
    return np.array(_recall_points(ls, chosen.values),
                    dtype=np.float64).reshape(len(ls.topics), -1)


def _eleven_point(ls: Lists, chosen: Chosen) -> Floats:
    sums = []
    for values in _recall_points(ls, chosen.values):
        total = 0.0
        for value in reversed(values):  # trec_eval adds from the last point down
            total += value
        sums.append(total / len(chosen.values))
    return np.array(sums).reshape(-1, 1)


def _precision(ls: Lists, chosen: Chosen) -> Floats:
    return np.stack([ls.at(ls.found, int(k)) / k for k in chosen.values], axis=1)


def _recall(ls: Lists, chosen: Chosen) -> Floats:
    return np.stack([_ratio(ls.at(ls.found, int(k)), ls.num_rel) for k in chosen.values],
                    axis=1)


def _relative_precision(ls: Lists, chosen: Chosen) -> Floats:
    return np.stack([_ratio(ls.at(ls.found, int(k)), np.minimum(int(k), ls.num_rel))
                     for k in chosen.values], axis=1)


def _success(ls: Lists, chosen: Chosen) -> Floats:
    return np.stack([(ls.at(ls.found, int(k)) > 0).astype(np.float64)
                     for k in chosen.values], axis=1)


def _unjudged(ls: Lists, chosen: Chosen) -> Floats:
    unjudged = np.cumsum((ls.levels < 0) & ls.valid, axis=1)
    return np.stack([ls.at(unjudged, int(k)) / k for k in chosen.values], axis=1)


def _r_precision_mult(ls: Lists, chosen: Chosen) -> Floats:
    columns = []
    for x in chosen.values:
        k = (x * ls.num_rel.astype(np.float64) + 0.9).astype(np.int64)  # C's (long) cast
        columns.append(_ratio(ls.at(ls.found, k), k))
    return np.stack(columns, axis=1)


def _inferred_ap(ls: Lists, chosen: Chosen) -> Floats:
    relevant = _judged_relevant(ls)
    found = np.cumsum(relevant, axis=1)
    nonrel = np.cumsum(_judged_nonrelevant(ls), axis=1)
    unjudged = np.cumsum(ls.levels == UNJUDGED, axis=1)
    j = np.arange(ls.width, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        before = found - 1
        terms = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((before + nonrel + unjudged) / j) * (
            (before + INFAP_EPSILON) / ((before + nonrel) + 2 * INFAP_EPSILON))
    terms = np.where(relevant, terms, 0.0)
    terms[:, 0] = np.where(relevant[:, 0], 1.0, 0.0)
    total = _row_sums(terms)
    return np.where(ls.num_rel > 0, _ratio(total, ls.num_rel), total)[:, None]


def _binary_g(ls: Lists, chosen: Chosen) -> Floats:
    table = log2_table(ls.width + 3)
    rank = np.arange(ls.width)
    place = np.where(ls.relevant, 3 + rank - ls.found, 2)
    terms = np.where(ls.relevant, 1.0 / table[place], 0.0)
    total = _row_sums(terms)
    return np.where(ls.found[:, -1] > 0, _ratio(total, ls.num_rel), 0.0)[:, None]


def _utility(ls: Lists, chosen: Chosen) -> Floats:
    a, b, c, d = chosen.values
    rel_ret, ret, rel = ls.num_rel_ret, ls.num_ret, ls.num_rel
    value: Floats = (a * rel_ret + b * (ret - rel_ret) + c * (rel - rel_ret)
                     + d * (ls.num_docs + rel_ret - ret - rel))
    return value[:, None]


def _set_precision(ls: Lists, chosen: Chosen) -> Floats:
    return _ratio(ls.num_rel_ret, ls.num_ret)[:, None]


def _set_recall(ls: Lists, chosen: Chosen) -> Floats:
    return _ratio(ls.num_rel_ret, ls.num_rel)[:, None]


def _set_map(ls: Lists, chosen: Chosen) -> Floats:
    rr = ls.num_rel_ret.astype(np.float64)
    return _ratio(rr * rr, ls.num_ret.astype(np.float64) * ls.num_rel.astype(np.float64))[:, None]


def _set_relative_precision(ls: Lists, chosen: Chosen) -> Floats:
    both = (ls.num_ret > 0) & (ls.num_rel > 0)
    return np.where(both, _ratio(ls.num_rel_ret, np.minimum(ls.num_ret, ls.num_rel)),
                    0.0)[:, None]


def _set_f(ls: Lists, chosen: Chosen) -> Floats:
    x = chosen.values[0]
    p = _ratio(ls.num_rel_ret, ls.num_ret)
    r = _ratio(ls.num_rel_ret, ls.num_rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (x + 1.0) * p * r / (x * p + r)
    return np.where(ls.num_rel_ret > 0, f, 0.0)[:, None]


def _counts(what: str) -> Callable[[Lists, Chosen], Floats]:
    def count(ls: Lists, chosen: Chosen) -> Floats:
        if what == "num_ret":
            values = ls.num_ret
        elif what == "num_rel":
            values = ls.num_rel
        elif what == "num_rel_ret":
            values = ls.num_rel_ret
        else:
            outside = np.count_nonzero(ls.levels == NONPOOL, axis=1)
            unjudged = np.count_nonzero(ls.levels == UNJUDGED, axis=1)
            values = ls.num_ret - outside - unjudged - ls.num_rel_ret
        return values.astype(np.float64)[:, None]
    return count


def _nothing(ls: Lists, chosen: Chosen) -> Floats:
    return np.zeros((len(ls.topics), 1))


def _ndcg_cut(ls: Lists, chosen: Chosen) -> Floats:
    table = log2_table(max(ls.width, ls.ideal.shape[1]) + 2)
    # the sums only as deep as the deepest cut-off (a prefix sum is the same however far it goes)
    deepest = max(min(max((int(k) for k in chosen.values), default=ls.width), ls.width), 1)
    levels = ls.levels[:, :deepest]
    gains = np.where(levels > 0, levels, 0).astype(np.float64)
    dcg = np.cumsum(np.where(gains > 0, gains / table[2:deepest + 2], 0.0), axis=1)
    ideal = ls.ideal.astype(np.float64)
    idcg = np.cumsum(np.where(ideal > 0, ideal / table[2:ideal.shape[1] + 2], 0.0), axis=1)
    columns = []
    for k in chosen.values:
        top = ls.at(dcg, int(k))
        column = min(int(k), idcg.shape[1]) - 1
        best = idcg[:, column]
        columns.append(np.where(best > 0, _ratio(top, best), top))
    return np.stack(columns, axis=1)


# Gains of the nDCG family (m_ndcg.c and its kin, gain_init.c): each level of the topic's qrels
# gains its own value unless a level=gain pair says otherwise; the ideal list takes the levels
# by decreasing gain, as many times as the topic judges them, while the gain is positive.

@dataclass(frozen=True)
class _Gains:
    levels: list[int]
    gains: list[float]
    counts: list[int]

    def of(self, level: int) -> float:
        for known, gain in zip(self.levels, self.gains):
            if known == level:
                return gain
        return 0.0


def _gains(ls: Lists, chosen: Chosen, t: int) -> _Gains:
    counts = ls.counts[t].tolist()
    num_levels = max((v + 1 for v, c in enumerate(counts) if c), default=0)
    entries: list[list[Any]] = []
    for key, gain in chosen.pairs:
        if re.fullmatch(r"[+-]?[0-9]+", key):
            entries.append([int(key), gain, 0])
    for level in range(num_levels):
        for entry in entries:
            if entry[0] == level:
                entry[2] = counts[level]
                break
        else:
            entries.append([level, float(level), counts[level]])
    entries.sort(key=cmp_to_key(_by_gain))
    return _Gains([e[0] for e in entries], [e[1] for e in entries], [e[2] for e in entries])


def _by_gain(a: list[Any], b: list[Any]) -> int:
    """gain_init.c's order: C's (int) of the gains' difference (4.5 and 4 are equal)."""
    return int(a[1] - b[1])


def _ideal_gains(gains: _Gains) -> list[float]:
    """The ideal list's gains as trec_eval walks the levels (by decreasing gain): a level the
    topic does not judge is passed over, the walk stops at the first judged level whose gain is
    not positive (or at once if the highest gain is not)."""
    out: list[float] = []
    if not gains.gains or gains.gains[-1] <= 0.0:
        return out
    for gain, count in zip(reversed(gains.gains), reversed(gains.counts)):
        if count == 0:
            continue
        if gain <= 0.0:
            break
        out += [gain] * count
    return out


def _per_topic(kernel: Callable[[Lists, Chosen, int, list[int]], float]
               ) -> Callable[[Lists, Chosen], Floats]:
    def measure(ls: Lists, chosen: Chosen) -> Floats:
        levels = ls.levels.tolist()
        return np.array([kernel(ls, chosen, t, levels[t][:int(ls.num_ret[t])])
                         for t in range(len(ls.topics))]).reshape(-1, 1)
    return measure


def _dcgs(ls: Lists, chosen: Chosen, t: int, levels: list[int]) -> tuple[float, float]:
    """A topic's DCG and ideal DCG (``m_ndcg.c``, which computes ``dcg``, ``ideal_dcg`` and
    ``ndcg`` alike: gains as :func:`_gains`, discount log2(rank + 1))."""
    gains = _gains(ls, chosen, t)
    table = log2_table(max(len(levels), 1) + 2).tolist()
    dcg = 0.0
    for i, level in enumerate(levels):
        gain = gains.of(level)
        if gain != 0:
            dcg += gain / table[i + 2]
    ideal = _ideal_gains(gains)
    table = log2_table(len(ideal) + 2).tolist()
    idcg = 0.0
    for i, gain in enumerate(ideal):
        idcg += gain / table[i + 2]
    return dcg, idcg


@_per_topic
def _ndcg(ls: Lists, chosen: Chosen, t: int, levels: list[int]) -> float:
    dcg, idcg = _dcgs(ls, chosen, t, levels)
    return dcg / idcg if idcg > 0.0 else 0.0


@_per_topic
def _dcg(ls: Lists, chosen: Chosen, t: int, levels: list[int]) -> float:
    return _dcgs(ls, chosen, t, levels)[0]


@_per_topic
def _ideal_dcg(ls: Lists, chosen: Chosen, t: int, levels: list[int]) -> float:
    return _dcgs(ls, chosen, t, levels)[1]


@_per_topic
def _ndcg_rel(ls: Lists, chosen: Chosen, t: int, levels: list[int]) -> float:
    gains = _gains(ls, chosen, t)
    ideal = _ideal_gains(gains)
    table = log2_table(max(len(levels), len(ideal)) + 2).tolist()
    dcg = idcg = total = 0.0
    found = 0
    for i, level in enumerate(levels):
        gain = gains.of(level)
        if gain != 0:
            dcg += gain / table[i + 2]
        if i < len(ideal):
            idcg += ideal[i] / table[i + 2]
        if gain > 0:
            total += dcg / idcg if idcg else math.copysign(math.inf, dcg) if dcg else math.nan
            found += 1
    for i in range(len(levels), len(ideal)):
        idcg += ideal[i] / table[i + 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        total += float(np.float64(len(ideal) - found) * np.float64(dcg) / np.float64(idcg))
    return total / len(ideal) if total > 0.0 else 0.0


@_per_topic
def _rndcg(ls: Lists, chosen: Chosen, t: int, levels: list[int]) -> float:
    if ls.num_rel[t] == 0:
        return 0.0
    gains = _gains(ls, chosen, t)
    table = log2_table(len(levels) + len(_ideal_gains(gains)) + 3).tolist()
    cur = len(gains.gains) - 1
    ideal_gain = gains.gains[cur] if cur >= 0 else 0.0
    old = ideal_gain
    changes = 0
    dcg = idcg = total = 0.0
    at_level = 0
    i = 0

    def advance() -> None:
        nonlocal at_level, cur, ideal_gain
        at_level += 1
        while cur >= 0 and at_level > gains.counts[cur]:
            at_level = 1
            cur -= 1
            ideal_gain = gains.gains[cur] if cur >= 0 else 0.0

    while i < len(levels) and ideal_gain > 0.0:
        gain = gains.of(levels[i])
        advance()
        if old != ideal_gain:
            if idcg > 0.0:
                total += dcg / idcg
                changes += 1
            old = ideal_gain
        if gain != 0:
            dcg += gain / table[i + 2]
        if ideal_gain > 0.0:
            idcg += ideal_gain / table[i + 2]
        i += 1
    if i < len(levels):
        while i < len(levels):
            gain = gains.of(levels[i])
            if gain != 0:
                dcg += gain / table[i + 2]
            i += 1
        if idcg > 0.0:
            total += dcg / idcg
            changes += 1
    while ideal_gain > 0.0:
        advance()
        if old != ideal_gain:
            if idcg > 0.0:
                total += dcg / idcg
                changes += 1
            old = ideal_gain
        if ideal_gain > 0.0:
            idcg += ideal_gain / table[i + 2]
        i += 1
    return total / changes if changes else -math.nan  # C's 0.0 / 0


@_per_topic
def _g(ls: Lists, chosen: Chosen, t: int, levels: list[int]) -> float:
    gains = _gains(ls, chosen, t)
    ideal = _ideal_gains(gains)
    results = ideal_sum = cost = value = 0.0
    for i, level in enumerate(levels):
        gain = gains.of(level)
        results += gain
        ideal_gain = ideal[i] if i < len(ideal) else 0.0
        if ideal_gain > 0.0:
            ideal_sum += ideal_gain
        cost += max(ideal_gain, 1.0)
        if gain != 0:
            value += gain / math.log2(2 + cost - results)
    for i in range(len(levels), len(ideal)):
        ideal_sum += ideal[i]
    return value / ideal_sum if ideal_sum > 0.0 else 0.0


def _rbp_parameters(ls: Lists, chosen: Chosen) -> tuple[float, Floats]:
    """The persistence p and each place's gain (``m_rbp.c``: gains scaled into [0, 1] when
    one is outside)."""
    p = 0.9
    for key, value in chosen.pairs:
        if key == "p":
            p = value
    gain_rows = []
    for t in range(len(ls.topics)):
        gains = _gains(ls, chosen, t)
        low, high = min(gains.gains, default=0.0), max(gains.gains, default=0.0)
        scaled = ([(g - low) / (high - low) for g in gains.gains] if low < 0 or high > 1
                  else gains.gains)
        lookup = dict(zip(gains.levels, scaled))
        row = ls.levels[t]
        keys, where = np.unique(row, return_inverse=True)
        gain_rows.append(np.array([lookup.get(k, 0.0) for k in keys.tolist()])[where])
    return p, np.array(gain_rows).reshape(len(ls.topics), ls.width)


def _powers(p: float, n: int) -> Floats:
    """1, p, p*p, ... multiplied one at a time, as trec_eval does."""
    factors = np.full(n, p)
    factors[0] = 1.0
    return np.cumprod(factors)


def _rbp(ls: Lists, chosen: Chosen) -> Floats:
    p, gains = _rbp_parameters(ls, chosen)
    powers = _powers(p, ls.width)
    terms = np.where(ls.valid & (gains != 0), gains * powers, 0.0)
    return ((1.0 - p) * _row_sums(terms))[:, None]


def _rbp_resid(ls: Lists, chosen: Chosen) -> Floats:
    p = 0.9
    for key, value in chosen.pairs:
        if key == "p":
            p = value
    powers = _powers(p, ls.width + 1)
    unjudged = ls.valid & (ls.levels < 0)
    total = _row_sums(np.where(unjudged, powers[:-1], 0.0))
    residual = powers[ls.num_ret] + (1 - p) * total
    return np.where(unjudged.any(axis=1), residual, 0.0)[:, None]


def _relstring(ls: Lists, chosen: Chosen) -> list[str]:
    length = int(chosen.values[0])
    out = []
    for t, row in enumerate(ls.levels.tolist()):
        n = max(min(length, int(ls.num_ret[t])), 0)
        out.append("".join(
            str(v) if 0 <= v <= 9 else ">" if v > 9 else "-" if v == NONPOOL else
            "." if v == UNJUDGED else "<" for v in row[:n]))
    return out



def yaap(ls: Lists, chosen: Chosen) -> Floats:
    """Robertson's "yet another average precision" (S. Robertson, "On smoothing average
    precision", ECIR 2012, LNCS 7224, pp. 158-169; ``m_yaap.c``): with S the sum, over the
    relevant documents retrieved, of the precision at each, ``log((1 + S) / (1 + R - S))``, R
    the number of relevant documents, S added left to right as trec_eval adds; monotonic with
    average precision on one topic and finite where AP is 0 or 1."""

    total = _row_sums(_ap_terms(ls))
    values = [math.log((1.0 + s) / (1.0 + r - s))
              for s, r in zip(total.tolist(), ls.num_rel.tolist())]
    return np.array(values, dtype=np.float64).reshape(-1, 1)


KERNELS: dict[str, Callable[[Lists, Chosen], Floats]] = {
    "runid": _nothing, "num_q": _nothing,
    "num_ret": _counts("num_ret"), "num_rel": _counts("num_rel"),
    "num_rel_ret": _counts("num_rel_ret"), "map": _map, "gm_map": _gm_map,
    "Rprec": _r_precision, "bpref": _bpref, "recip_rank": _recip_rank,
    "iprec_at_recall": _iprec_at_recall, "P": _precision, "recall": _recall,
    "infAP": _inferred_ap, "gm_bpref": _gm_bpref, "Rprec_mult": _r_precision_mult,
    "utility": _utility, "11pt_avg": _eleven_point, "binG": _binary_g, "G": _g,
    "dcg": _dcg, "ideal_dcg": _ideal_dcg, "ndcg": _ndcg, "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg, "ndcg_cut": _ndcg_cut,

    "map_cut": _map_cut, "relative_P": _relative_precision, "success": _success,
    "set_P": _set_precision, "set_relative_P": _set_relative_precision,
    "set_recall": _set_recall, "set_map": _set_map, "set_F": _set_f,
    "num_nonrel_judged_ret": _counts("num_nonrel_judged_ret"), "rbp": _rbp,
    "rbp_resid": _rbp_resid, "yaap": yaap,
    "unj": _unjudged,
}


# --- a whole evaluation, printed as trec_eval prints it ----------------------------------------

@dataclass
class Evaluated:
    """One measure's values: ``values[t, j]`` for topic t and label j (``strings`` for
    relstring), and ``overall[j]``, the ``all`` line."""

    chosen: Chosen
    values: Floats
    overall: list[float]
    strings: list[str] | None = None


@dataclass
class TrecEvalResults:
    """A run evaluated as trec_eval evaluates it."""

    topics: list[str]
    run_id: str
    measures: list[Evaluated]
    zscores: bool = False
    """The values are z-scores (``-Z``): printed ``Z`` + name, every number as ``%6.4f``."""

    def render(self, per_topic: bool = False, summary: bool = True,
               runid_first: bool = False) -> str:
        """trec_eval's output: with ``per_topic`` (-q) every topic's lines first, topic by
        topic; then, unless not ``summary`` (-n), the ``all`` lines; each line
        ``%-22s\\t%s\\t%6.4f`` (counts as integers, the run id and relstring as text).
        ``runid_first``: the ``runid`` line opens the output (and is not repeated), whatever
        the measures (to tell several runs apart)."""
        lines: list[str] = [f"{'runid':<22}\tall\t{self.run_id}"] if runid_first else []
        z = "Z" if self.zscores else ""
        if per_topic:
            for t, topic in enumerate(self.topics):
                for m in self.measures:
                    d = m.chosen.definition
                    if not d.per_topic:
                        continue
                    if m.strings is not None:
                        lines.append(f"{m.chosen.labels[0]:<22}\t{topic}\t'{m.strings[t]}'")
                        continue
                    printed = "double" if z else d.printed
                    for j, label in enumerate(m.chosen.labels):
                        lines.append(f"{z}{label:<22}\t{topic}\t"
                                     f"{_printed(float(m.values[t, j]), printed)}")
        if summary:
            for m in self.measures:
                d = m.chosen.definition
                if d.printed == "runid":
                    if not runid_first:
                        lines.append(f"{'runid':<22}\tall\t{self.run_id}")
                elif d.average is not None:
                    printed = "double" if z else d.printed
                    for label, value in zip(m.chosen.labels, m.overall):
                        lines.append(f"{z}{label:<22}\tall\t{_printed(value, printed)}")
        return "".join(line + "\n" for line in lines)


def _printed(value: float, printed: str) -> str:
    if printed == "long":
        return str(int(value))
    if math.isnan(value):  # glibc's printf of the NaN that 0.0 / 0.0 gives
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def evaluate(qrels: Any, run: Any, measures: Iterable[str] | Sequence[Chosen] = (), *,
             complete: bool = False,
             relevance_level: int = 1, max_docs: int | None = None, judged_only: bool = False,
             num_docs: int = 0, keep_repeats: bool = False,
             zscores: Mapping[str, Mapping[str, tuple[float, float]]] | None = None
             ) -> TrecEvalResults:
    """Evaluate a run on qrels as trec_eval 10.0 does, with its ``-m`` arguments
    (``measures``) and options (see :func:`lists`). The run is its columns
    (:func:`~inexeval.formats.trec_columns.read_trec_eval_run`) or its parts, each of whole
    topics (:func:`~inexeval.formats.trec_columns.read_trec_eval_run_parts`: only one part is
    held at a time); the qrels their columns
    (:func:`~inexeval.formats.trec_columns.read_trec_eval_qrels`) or, for many runs, their
    :class:`Judgements`. ``zscores`` (``-Z``,
    :func:`~inexeval.formats.trec_zscores.read_zscores`): each topic's values as z-scores
    (:func:`~inexeval.measures.trec_eval_more.as_zscores`) before they are averaged.
    ``measures`` may be :class:`Chosen` measures (``inexeval eval``'s: each computed as given,
    in that order, none merged with another of its name)."""
    given = list(measures)
    made = [m for m in given if isinstance(m, Chosen)]
    chosen = made if given and len(made) == len(given) else choose(map(str, given))
    judged = judgements(qrels)
    options: dict[str, Any] = {"relevance_level": relevance_level, "max_docs": max_docs,
                               "judged_only": judged_only, "num_docs": num_docs}
    groups: list[Ints] = []
    parts: list[tuple[Lists, list[tuple[Floats, list[str] | None]]]] = []
    answered = np.zeros(len(judged.topics), dtype=bool)
    failure: FormatError | None = None
    run_id = source = ""
    for part in [run] if hasattr(run, "topics") else run:
        run_id, source = part.run_id, part.source
        if failure is not None:
            continue  # trec_eval reads the whole run first: an error of reading comes first
        try:
            ranked = ranked_lists(judged, part, keep_repeats=keep_repeats, **options)
        except FormatError as error:
            failure = error
            continue
        answered[ranked.chosen] = True
        if len(ranked.chosen):
            for group in ranked.groups():
                groups.append(group)
                parts.append(_values(ranked.lists(group), chosen))
    if failure is not None:
        raise failure
    if complete and not answered.all():
        ranked = _bogus(judged, np.flatnonzero(~answered), **options)
        for group in ranked.groups():
            groups.append(group)
            parts.append(_values(ranked.lists(group), chosen))
    if not parts:
        raise FormatError("no topic has both results and judgements", source)
    # back to the topics' order
    order = np.argsort(np.concatenate(groups), kind="stable")
    ls = parts[0][0] if len(groups) == 1 else _joined([p[0] for p in parts], order)
    ls.complete = complete
    evaluated = []
    for j, c in enumerate(chosen):
        if c.definition.printed == "string":
            strings = [text for p in parts for text in p[1][j][1] or []]
            evaluated.append(Evaluated(c, np.zeros((len(ls.topics), 0)), [],
                                       [strings[i] for i in order.tolist()]))
            continue
        values = np.concatenate([p[1][j][0] for p in parts])[order]
        if zscores is not None:
            values = as_zscores(ls.topics, c.labels, values, zscores)
        evaluated.append(Evaluated(c, values, overall_values(ls, c.definition, values)))
    return TrecEvalResults(ls.topics, run_id, evaluated, zscores is not None)


def _values(ls: Lists, chosen: list[Chosen]) -> tuple[Lists, list[tuple[Floats,
                                                                       list[str] | None]]]:
    """Each measure's values on the lists (relstring's strings), after trec_eval's reset of a
    topic without results."""
    out: list[tuple[Floats, list[str] | None]] = []
    for c in chosen:
        if c.definition.printed == "string":
            strings = _relstring(ls, c)
            if c.labels[0] == "relstring":
                strings = ["" if bogus else text for bogus, text in zip(ls.bogus, strings)]
            out.append((np.zeros((len(ls.topics), 0)), strings))
            continue
        values = KERNELS[c.definition.name](ls, c)
        cleared = np.array([label in _CLEARED or label.startswith("unj") for label in c.labels])
        values[np.ix_(ls.bogus, cleared)] = 0.0
        out.append((values, None))
    return ls, out


def measure_values(ls: Lists, chosen: Chosen) -> Floats:
    """One measure's values on the lists (``values[t, j]``: topic t, label j), a topic without
    results reset as trec_eval resets it (not relstring)."""
    return _values(ls, [chosen])[1][0][0]


def _joined(parts: list[Lists], order: Ints) -> Lists:
    """What :func:`overall_values` reads of the groups' lists, joined in the topics' order."""
    first = parts[0]
    topics = [t for p in parts for t in p.topics]
    empty = np.zeros((len(topics), 1), dtype=np.int64)
    return Lists([topics[i] for i in order.tolist()], empty, empty[:, 0], empty, empty,
                 np.concatenate([p.bogus for p in parts])[order], first.relevance_level,
                 first.num_docs, first.qrels_positive, first.complete)


_CLEARED = ("num_ret", "utility", "rbp_resid")
"""Values trec_eval sets to 0 for a topic without results (-c) after scoring its one-document
list; it tells them by their printed name, so ``utility_2,-1,0,0``, ``rbp_resid_p=0.8`` and
``relstring_20`` keep the one document's values (the names starting ``unj`` all are reset)."""


def overall_values(ls: Lists, d: Definition, values: Floats) -> list[float]:
    """The ``all`` values: the topics' values added in topic order and divided by the number
    of topics (trec_eval's ``te_calc_avg_meas_s``), summed, or the geometric mean."""
    n = len(ls.topics)
    if d.average is None:
        return []
    if d.average == "count":
        return [float(n)]
    if d.name == "num_rel" and ls.complete:  # m_num_rel.c counts every level > 0 of the qrels
        return [float(ls.qrels_positive)]
    totals = np.cumsum(values, axis=0)[-1] if n else np.zeros(values.shape[1])
    if d.average == "sum":
        return [float(v) for v in totals]
    if d.average == "gm":
        return [math.exp(float(v) / n) for v in totals]
    return [float(v) / n for v in totals]
