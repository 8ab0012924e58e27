"""BioASQ task B phase A snippet measures, as BioASQ's own evaluator computes them
(BioASQ/Evaluation-Measures, ``flat/BioASQEvaluation``: ``evaluation.EvaluatorTask1b
-phaseA -e VERSION``, ``src/evaluation/{EvaluatorTask1b,QuestionAnswerEvaluator}.java``,
``src/data/Snippet.java``; Tsatsaronis et al. 2015, "An overview of the BIOASQ large-scale
biomedical semantic indexing and question answering competition", §3.2), quirks included:

* A snippet covers ``[begin, end]``, the end inclusive: its size is ``end - begin + 1``.
  Two snippets overlap when their sections match (the same begin and end sections, or the
  system's begin section ``0`` against the golden ``abstract``) and their offsets meet; the
  overlap is ``min(ends) - max(begins) + 1``.
* Overlapping snippets of one document string and the same sections are merged in each list
  (``concatenateSnippets``: for each i, for each j != i; after a merge the scan of j restarts at
  1, not 0, and the merged snippet may move when j < i), in place, and **twice** before the
  snippet measures: the evaluator scores every question once for documents and once for
  snippets on the same lists. With ``-e 9`` a golden question whose ``documents`` list is
  empty skips the first pass, so its snippets are merged once.
* ``bioasq_snippet_P``, ``_R``, ``_F1`` (``calculatePRForSnippets``): the overlap of every
  system snippet with every golden snippet whose document has the same last ``/``-part, over
  the system's sizes (P) and the golden sizes (R); F1 = 2PR / (P + R) when P or R is not 0;
  all 0 when the system gives no snippet.
* ``bioasq_snippet_MAP`` (``calculateAveragePrecisionSnippets``): the sum over ranks r of the
  precision of the first r system snippets (documents compared as whole strings here) times the
  relevance of the r-th, 1 when any golden snippet has the same document string whether or not
  they overlap (a stray ``;`` in ``relevanceSnippet``); divided by the number of golden
  snippets after merging (``-e 2``), by 10 (``-e 3``, ``-e 5``) or by the smaller of the two
  (``-e 8``, ``-e 9``).
* Questions: the golden questions the system answers (lists, even with no snippet); with ``-e
  9`` not those without golden snippets. A value the evaluator computes as NaN counts 0 in the
  means, as in its means. ``bioasq_snippet_GMAP`` is only a mean:
  ``exp(sum(log(AP + 0.00001)) / n)``, a NaN AP adding nothing to the sum but counting in n, and
  0 when the sum is 0 or NaN.

Sums of offsets are Java ``int`` arithmetic, as the evaluator's: sizes wrap around 2**32, an
``int`` plus an overlap (a ``double``) saturates at 2**31 - 1. Precision and recall can exceed
1 (a document written two ways: merged apart, compared as one id). Where the evaluator throws
(``concatenateSnippets`` reading past its list, on some snippets that cross sections backwards),
:func:`evaluate_bioasq` raises an error naming the file and the question.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError, MeasureError, shown
from inexeval.formats.bioasq import BioasqFile, BioasqQuestion, Snippet
from inexeval.measures.registry import Family, TopicContext, Value, register
from inexeval.results import ALL, Results, Row

VERSIONS = (2, 3, 5, 8, 9)
"""The evaluator's ``-e`` values: 2 for BioASQ 1-2, 3 for 3-4, 5 for 5-7, 8 for 8, 9 from 9."""
DEFAULT_VERSION = 8
EPSILON = 0.00001
"""The evaluator's ``epsilon`` of GMAP."""

MEASURES = ("bioasq_snippet_P", "bioasq_snippet_R", "bioasq_snippet_F1", "bioasq_snippet_MAP",
            "bioasq_snippet_GMAP")
"""In the evaluator's order (its ``MPrec``, ``MRec``, ``MF1``, ``MAP``, ``GMAP snippets``)."""

Ints = npt.NDArray[np.int64]

_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


@dataclass(frozen=True)
class QuestionScores:
    """One question's values as the evaluator holds them (NaN and infinities kept)."""

    precision: float
    recall: float
    f1: float
    average_precision: float


def _wrap(values: Any) -> Any:
    """Java ``int`` arithmetic: ``values`` (int64) wrapped around 2**32."""
    return (np.asarray(values, np.int64) - _INT_MIN) % 2**32 + _INT_MIN


def _int_plus_doubles(values: Ints) -> Ints:
    """The running values of ``int total = 0; total += (double) v`` over ``values``: each sum
    computed in doubles (exact here) and cast back to ``int``, which saturates."""
    running = np.cumsum(values)
    if not len(values) or (running.min() >= _INT_MIN and running.max() <= _INT_MAX):
        return running
    out = np.empty_like(running)
    total = 0
    for k, value in enumerate(values.tolist()):
        total = min(max(total + value, _INT_MIN), _INT_MAX)
        out[k] = total
    return out


def concatenate(snippets: list[Snippet]) -> None:
    """``concatenateSnippets``, in place (see the module docstring). Where a merge with an
    earlier snippet leaves ``i`` past the list's end, ``snippets[i]`` raises IndexError as
    Java's ``get(i)`` throws."""
    i = 0
    while i < len(snippets):
        j = 0
        while j < len(snippets):
            a, b = snippets[i], snippets[j]
            if (j != i and a.document == b.document and a.begin_section == b.begin_section
                    and a.end_section == b.end_section and not (a.begin > b.end
                                                                 or a.end < b.begin)):
                snippets[i] = Snippet(a.document, a.begin_section, a.end_section,
                                      min(a.begin, b.begin), max(a.end, b.end))
                del snippets[j]
                j = 0
            j += 1
        i += 1


def _document_id(document: str) -> str:
    """``getDocumentOnlyID``: the last part of Java's ``split("/")``, which drops trailing
    empty parts (``.../pubmed/123/`` is ``123``)."""
    return document.rstrip("/").rsplit("/", 1)[-1]


def _overlaps(system: list[Snippet], golden: list[Snippet]) -> Ints:
    """``system[i].overlap(golden[j])`` for every pair, in Java ``int`` arithmetic."""
    def column(snippets: list[Snippet], field: str) -> Ints:
        return np.array([getattr(s, field) for s in snippets], np.int64)

    if not system or not golden:
        return np.zeros((len(system), len(golden)), np.int64)
    sb, se = column(system, "begin")[:, None], column(system, "end")[:, None]
    gb, ge = column(golden, "begin")[None, :], column(golden, "end")[None, :]
    s_begin = np.array([s.begin_section for s in system], object)[:, None]
    s_end = np.array([s.end_section for s in system], object)[:, None]
    g_begin = np.array([g.begin_section for g in golden], object)[None, :]
    g_end = np.array([g.end_section for g in golden], object)[None, :]
    sections = (((s_begin == g_begin) & (s_end == g_end))
                | ((s_begin == "0") & (g_begin == "abstract"))).astype(bool)
    meet = ~((sb > ge) | (se < gb))
    return np.where(sections & meet, _wrap(np.minimum(se, ge) - np.maximum(sb, gb) + 1), 0)


def _divide(numerator: Any, denominator: Any) -> Any:
    """Java's double division (x/0 is infinite, 0/0 NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.float64(numerator) / np.float64(denominator)


def _matches(system: list[str], golden: list[str]) -> npt.NDArray[np.bool_]:
    """``system[i].equals(golden[j])`` for every pair."""
    return np.array([[a == b for b in golden] for a in system], bool).reshape(len(system),
                                                                             len(golden))


def score_question(golden: list[Snippet], system: list[Snippet], version: int) -> QuestionScores:
    """One question's values on its (already merged) snippet lists."""
    if not system:  # nothing to add up: P, R, F1 and the sum of AP stay 0
        return QuestionScores(0.0, 0.0, 0.0, _normalised(0.0, len(golden), version))
    sizes = _wrap([s.end - s.begin + 1 for s in system])
    golden_size = int(_wrap(int(np.sum(_wrap([g.end - g.begin + 1 for g in golden])))))
    overlap = _overlaps(system, golden)
    same_id = _matches([_document_id(s.document) for s in system],
                       [_document_id(g.document) for g in golden])
    total = int(_int_plus_doubles(np.where(same_id, overlap, 0).ravel())[-1]) if golden else 0
    system_size = int(_wrap(int(np.sum(sizes))))
    precision = recall = f1 = 0.0
    if system_size != 0:
        precision = float(_divide(total, system_size))
    if golden_size != 0:
        recall = float(_divide(total, golden_size))
    if precision != 0 or recall != 0:
        f1 = float(_divide(2 * precision * recall, precision + recall))
    same = _matches([s.document for s in system], [g.document for g in golden])
    found = (_int_plus_doubles(np.where(same, overlap, 0).ravel()).reshape(same.shape)[:, -1]
             if golden else np.zeros(len(system), np.int64))
    precisions = _divide(found, _wrap(np.cumsum(sizes)))
    relevance = np.any(same, axis=1).astype(np.float64)
    with np.errstate(invalid="ignore"):  # an infinite precision times 0 is NaN, as in Java
        ap = float(np.cumsum(precisions * relevance)[-1])
    return QuestionScores(precision, recall, f1, _normalised(ap, len(golden), version))


def _normalised(ap: float, golden: int, version: int) -> float:
    """The sum of precisions over the version's denominator."""
    if version == 2:
        return float(_divide(ap, golden))
    if version in (3, 5):
        return ap / 10.0
    return float(_divide(ap, min(10.0, float(golden))))


class EvaluatorFailure(Exception):
    """BioASQ's evaluator throws on a question's snippets (``args[0]``: ``golden`` or
    ``system``, the list it was merging)."""


def _merge(snippets: list[Snippet], which: str) -> None:
    try:
        concatenate(snippets)
    except IndexError:  # Java's IndexOutOfBoundsException, where the evaluator stops
        raise EvaluatorFailure(which) from None


def evaluate_question(golden: BioasqQuestion, system: BioasqQuestion | None,
                      version: int) -> QuestionScores | None:
    """A golden question's values against the system's answer (None: not answered, scored as
    an empty list), or None where the evaluator leaves it out (``-e 9``, no golden snippet).
    The evaluator's two passes are made as it makes them (``-e 9``: the first only for a
    golden question with documents, the second only for one with snippets), so that it fails
    where it fails (:class:`EvaluatorFailure`)."""
    if system is None:  # nothing merged: the values are 0 (the AP 0/0 without golden snippets)
        if version == 9 and not golden.snippets:
            return None
        return score_question(list(golden.snippets), [], version)
    gold, answer = list(golden.snippets), list(system.snippets)
    first = version != 9 or golden.has_documents
    second = version != 9 or bool(gold)
    for _ in range(int(first) + int(second)):
        _merge(gold, "golden")
        _merge(answer, "system")
    return score_question(gold, answer, version) if second else None


def check_version(version: Any) -> int:
    if isinstance(version, bool) or version not in VERSIONS:
        raise MeasureError(f"BioASQ version {version!r} is not one of "
                           f"{', '.join(map(str, VERSIONS))}")
    return int(version)


def _java_mean(values: Sequence[float]) -> float:
    """The evaluator's mean: a NaN counts 0, the sum in order, over every question."""
    total = 0.0
    for value in values:
        if not math.isnan(value):
            total += value
    return float(_divide(total, len(values)))


def _gmap(values: Sequence[float]) -> float:
    """``GMapSnippets``."""
    total = 0.0
    for value in values:
        if not math.isnan(value):
            with np.errstate(divide="ignore", invalid="ignore"):
                total += float(np.log(np.float64(value) + EPSILON))
    if math.isnan(total) or total == 0:
        return 0.0
    return float(np.exp(_divide(total, len(values))))


def evaluate_bioasq(golden: BioasqFile, system: BioasqFile, measures: Sequence[str],
                    version: int = DEFAULT_VERSION, run: str = "run",
                    complete: bool = False) -> Results:
    """The ``measures`` (of :data:`MEASURES`) of one system file: a row per question kept
    (golden file order; NaN shown as the 0 it counts in the means), and the evaluator's own
    means as the ``all`` rows. ``complete``: every golden question is kept, one the system does
    not answer scored as an empty list (0); by default it is left out, as the evaluator does."""
    version = check_version(version)
    unknown = [m for m in measures if m not in MEASURES]
    if unknown:
        raise MeasureError(f"not a BioASQ snippet measure: {', '.join(unknown)}")
    kept: list[tuple[str, QuestionScores]] = []
    for qid, question in golden.questions.items():
        answer = system.questions.get(qid)
        if answer is None and not complete:
            continue
        try:
            scores = evaluate_question(question, answer, version)
        except EvaluatorFailure as failure:
            which = failure.args[0]
            raise InexevalError(
                f"question {shown(qid)}: BioASQ's evaluator stops on its {which} snippets "
                "(IndexOutOfBoundsException in concatenateSnippets: a snippet merged with an "
                "earlier one moves, and the scan reads past the list's end; snippets that cross "
                "sections with their end offset before their begin offset do this), so it has no "
                "value", golden.source if which == "golden" else system.source) from None
        if scores is not None:
            kept.append((qid, scores))
    columns: dict[str, list[float]] = {
        "bioasq_snippet_P": [s.precision for _, s in kept],
        "bioasq_snippet_R": [s.recall for _, s in kept],
        "bioasq_snippet_F1": [s.f1 for _, s in kept],
        "bioasq_snippet_MAP": [s.average_precision for _, s in kept],
    }
    results = Results(aggregates={m: "mean" for m in measures})
    results.topics_evaluated[run] = [qid for qid, _ in kept]
    for measure in measures:
        if measure == "bioasq_snippet_GMAP":
            results.aggregates[measure] = "none"
            mean = _gmap(columns["bioasq_snippet_MAP"])
        else:
            values = columns[measure]
            results.rows.extend(Row(run, qid, measure, 0.0 if math.isnan(v) else v)
                                for (qid, _), v in zip(kept, values))
            mean = _java_mean(values)
        results.overall.append(Row(run, ALL, measure, mean))
    return results


def _kernel(ta: Any, run: Any, ctx: TopicContext, params: Mapping[str, Any],
            cutoffs: Sequence[Any]) -> list[Value]:
    raise MeasureError("the BioASQ snippet measures evaluate BioASQ golden and system JSON "
                       "files: inexeval eval GOLD.json SYSTEM.json -m bioasq_snippet_MAP")


_SOURCE = "BioASQ task B phase A, EvaluatorTask1b"
for _name, _what in (
        ("bioasq_snippet_P", "snippet precision: overlapping characters over the system's"),
        ("bioasq_snippet_R", "snippet recall: overlapping characters over the golden ones"),
        ("bioasq_snippet_F1", "harmonic mean of bioasq_snippet_P and bioasq_snippet_R"),
        ("bioasq_snippet_MAP", ("snippet average precision, normalised as --bioasq-version "
                                "says (2: golden snippets, 3 and 5: 10, 8 and 9: the smaller)")),
        ("bioasq_snippet_GMAP", "geometric mean of the snippet average precisions (all only)")):
    register(Family(_name, f"{_what}; merged and compared as BioASQ's evaluator does "
                    f"({_SOURCE})", _kernel, scales=("bioasq",)))
