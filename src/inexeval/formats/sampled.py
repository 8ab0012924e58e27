"""Sampled judgements: NIST's sampled qrels and the sampled pool file.

Sampled qrels, five columns as NIST's ``sample_eval.pl`` reads them::

    topic iter docno stratum rel

``stratum`` names the sampling stratum (any token) the document was drawn from and ``rel`` is
its relevance level, ``-1`` for a pooled document that was not sampled (so not judged). They
read into TREC assessments (scale ``trec``) with a ``stratum`` dimension beside ``relevance``:
every TREC measure reads them (a ``-1`` is a level below 1), the inferred measures of
:mod:`inexeval.measures.sampled` need the stratum. A duplicated ``(topic, docno)``, a wrong
number of columns or a relevance that is not an integer is a
:class:`~inexeval.errors.FormatError` naming file and line.

A sampled pool (``inexeval pool --sample ...``): the pool file's five tab-separated columns
(:mod:`inexeval.formats.pool`) and three more, the unit's ``stratum``, its inclusion
``probability`` and ``sampled`` (1 for a unit drawn to be judged, 0 for one that was not). Every
unit of the strata is listed, drawn or not: the estimators count the units of each stratum, and
a unit not drawn becomes a ``-1`` line of the sampled qrels.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from inexeval.errors import FormatError, shown
from inexeval.formats.lines import MAX_DIGITS
from inexeval.formats.source import Source, opened
from inexeval.model.assessments import Assessments, TopicAssessments, build_topic

if TYPE_CHECKING:
    from inexeval.analysis.pooling import SampledPool

COLUMNS = ("topic", "iter", "docno", "stratum", "rel")


def is_sampled_line(fields: list[str]) -> bool:
    """Whether the fields of a qrels line look like sampled qrels rather than five-column FOL
    qrels (``topic Q0 article rsize length``): five fields, and an iteration other than ``Q0``
    or a negative relevance."""
    return len(fields) == 5 and (fields[1] != "Q0" or fields[4].startswith("-"))


def read_sampled_qrels(path: str | Path | Source) -> Assessments:
    """Read sampled qrels (see the module docstring)."""
    records: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    seen: dict[tuple[str, str], int] = {}
    with opened(path) as source:
        name = source.name
        for line, text in source.lines():
            fields = text.split()
            if len(fields) != len(COLUMNS):
                raise FormatError(f"{len(fields)} columns: expected 5 ({' '.join(COLUMNS)})",
                                  name, line)
            topic, _, document, stratum, grade = fields
            body = grade[1:] if grade[:1] in "+-" else grade
            if not (body.isascii() and body.isdigit()) or len(body) > MAX_DIGITS:
                raise FormatError(f"rel {shown(grade)} is not an integer", name, line)
            if (topic, document) in seen:
                raise FormatError(f"topic {shown(topic)} lists {shown(document)} twice (first "
                                  f"at line {seen[(topic, document)]})", name, line)
            seen[(topic, document)] = line
            records.setdefault(topic, []).append(
                (document, "", {"relevance": int(grade), "stratum": stratum}))
    if not records:
        raise FormatError("the qrels have no judgement line", name)
    topics: dict[str, TopicAssessments] = {
        topic: build_topic(topic, "trec", rows, dim_types={"relevance": int, "stratum": str},
                           source=name)
        for topic, rows in records.items()
    }
    return Assessments(topics=topics, scale="trec", source=name)


def sampled_qrels_lines(assessments: Assessments) -> Iterable[str]:
    """The lines of sampled qrels (with their ``\\n``): assessments with a ``stratum``
    dimension, topics and documents in their order."""
    for topic, ta in assessments.items():
        levels = ta.dim("relevance")
        strata = ta.dim("stratum")
        for file, level, stratum in zip(ta.files, levels, strata):
            yield f"{topic} 0 {file} {stratum} {int(level)}\n"


def write_sampled_qrels(assessments: Assessments, out: IO[str]) -> None:
    """Write sampled qrels to an open text file."""
    out.writelines(sampled_qrels_lines(assessments))


def sampled_pool_lines(sample: SampledPool) -> Iterable[str]:
    """The lines of a sampled pool (see the module docstring), topics and units in order."""
    for topic, tp in sample.pool.items():
        for i, unit in enumerate(tp):
            yield (f"{topic}\t{unit.file}\t{unit.path}\t{unit.min_rank}\t{unit.runs}\t"
                   f"{sample.strata[topic][i]}\t{sample.probabilities[topic][i]!r}\t"
                   f"{int(sample.drawn[topic][i])}\n")


SAMPLE_FIELDS = ("stratum", "probability", "sampled")


def read_sampled_pool(path: str | Path) -> SampledPool:
    """Read a sampled pool (see the module docstring): the pool's five fields checked as
    :func:`inexeval.formats.pool.read_pool` checks them, a non-empty stratum, a probability in
    (0, 1] and ``sampled`` 0 or 1; a wrong field is a :class:`~inexeval.errors.FormatError`
    naming file and line."""
    from inexeval.analysis.pooling import SampledPool
    from inexeval.formats.pool import FIELDS, add_pooled_unit
    from inexeval.model.pool import Pool, make_topic_pool, topic_order

    units: dict[str, list[tuple[str, str, int, int]]] = {}
    lines: dict[str, list[int]] = {}
    seen: set[tuple[str, str, str]] = set()
    strata: dict[str, list[str]] = {}
    probabilities: dict[str, list[float]] = {}
    drawn: dict[str, list[bool]] = {}
    expected = len(FIELDS) + len(SAMPLE_FIELDS)
    with opened(path) as source:
        name = source.name
        for number, line in source.lines():
            fields = line.split("\t")
            if len(fields) != expected:
                raise FormatError(f"{len(fields)} tab-separated fields, expected {expected}: "
                                  f"{' '.join((*FIELDS, *SAMPLE_FIELDS))}", name, number)
            add_pooled_unit("\t".join(fields[:len(FIELDS)]), number, name, units, lines, seen)
            topic = fields[0].strip()
            stratum, probability, sampled = (f.strip() for f in fields[len(FIELDS):])
            if not stratum or any(c.isspace() for c in stratum):
                raise FormatError(f"stratum {shown(stratum)} is empty or holds blank space",
                                  name, number)
            try:
                value = float(probability)
            except ValueError:
                value = float("nan")
            if not 0.0 < value <= 1.0:
                raise FormatError(f"probability {shown(probability)} is not in (0, 1]", name,
                                  number)
            if sampled not in ("0", "1"):
                raise FormatError(f"sampled {shown(sampled)} is not 0 or 1", name, number)
            strata.setdefault(topic, []).append(stratum)
            probabilities.setdefault(topic, []).append(value)
            drawn.setdefault(topic, []).append(sampled == "1")
    if not units:
        raise FormatError("the sampled pool has no unit line", name)
    topics = {t: make_topic_pool(t, units[t], lines[t]) for t in sorted(units, key=topic_order)}
    return SampledPool(Pool(topics, source=name), strata, probabilities, drawn)


def simulated_sampled_qrels_lines(sample: SampledPool, qrels: Assessments) -> Iterable[str]:
    """Sampled qrels of ``sample`` as finished ``qrels`` would fill them: a drawn unit gets its
    level (TREC qrels; FOL qrels: 1 for an article with relevant characters, else 0; 0 when
    the qrels do not judge it), a unit not drawn -1. Topics the qrels do not judge are left
    out."""
    for topic, tp in sample.pool.items():
        ta = qrels.get(topic)
        if ta is None:
            continue
        found = ta.lookup(tp.files, tp.paths)
        if ta.scale == "trec":
            levels = np.where(found >= 0, ta.dim("relevance")[np.maximum(found, 0)], 0)
        else:
            rsize = ta.dim("rsize").astype(np.float64)
            levels = np.where(found >= 0, rsize[np.maximum(found, 0)] > 0, 0).astype(np.int64)
        for i, file in enumerate(tp.files.tolist()):
            level = int(levels[i]) if sample.drawn[topic][i] else -1
            yield f"{topic} 0 {file} {sample.strata[topic][i]} {level}\n"
