"""The TREC Genomics 2007 passage gold standard (Hersh et al. 2007, "TREC 2007 Genomics Track
Overview"), read as passage qrels.

A line is ``topic<TAB>pmid<TAB>offset<TAB>length<TAB>aspects``, text in Latin-1, the aspects
separated by ``|`` (the track's scoring script, trecgen2007_score.py, reads it so). Every line is
a relevant gold passage ``[offset, offset + length)`` of the document ``pmid``; documents not in
the file are not relevant.

The result is :class:`~inexeval.model.Assessments` of scale ``fol``, so that the focused
measures run on it: one record per document (first appearance order) with ``rsize`` = the
number of characters of the union of its gold passages, ``highlights`` = that union as sorted,
disjoint spans, no best entry point (``bep`` -1), and ``length`` = :data:`UNKNOWN_LENGTH` (the
gold standard gives no document lengths). ``aspects`` keeps each document's gold passages in file
order with their aspects, for the Genomics aspect measures (:mod:`inexeval.measures.genomics`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from inexeval.errors import FormatError, shown
from inexeval.formats.lines import MAX_DIGITS
from inexeval.formats.source import Source, opened
from inexeval.model.assessments import Assessments, TopicAssessments, build_topic
from inexeval.spans import merge

UNKNOWN_LENGTH = 2**62
"""Document length recorded for Genomics documents: unknown, so no passage ends beyond it."""


def read_genomics_gold(path: str | Path | Source) -> Assessments:
    """Read the TREC Genomics 2007 gold standard (see the module docstring)."""
    passages: dict[str, dict[str, list[tuple[int, int, tuple[str, ...]]]]] = {}
    with opened(path) as source:
        name = source.name
        for number, line in source.lines(encoding="latin-1"):
            fields = [f.strip() for f in line.split("\t")]
            if len(fields) != 5:
                raise FormatError(f"{len(fields)} tab-separated fields: expected 5 (topic pmid "
                                  "offset length aspects)", name, number)
            topic, pmid, offset, length, aspects = fields
            if not topic or not pmid:
                raise FormatError("empty topic or pmid", name, number)
            start, size = (_integer(value, what, name, number)
                           for value, what in ((offset, "offset"), (length, "length")))
            documents = passages.setdefault(topic, {})
            documents.setdefault(pmid, []).append(
                (start, start + size, tuple(a.strip() for a in aspects.split("|"))))
    if not passages:
        raise FormatError("the gold standard has no passage line", name)
    topics = {}
    for topic, documents in passages.items():
        spans = {pmid: [(s, e) for s, e, _ in gold] for pmid, gold in documents.items()}
        topics[topic] = replace(passage_topic(topic, spans, name),
                                aspects={p: tuple(g) for p, g in documents.items()})
    return Assessments(topics, "fol", name)


def passage_topic(topic: str, passages: dict[str, list[tuple[int, int]]],
                  source: str | None = None) -> TopicAssessments:
    """FOL-scale assessments of one topic from its relevant passages ``(start, end)`` per
    document (a document with none is judged not relevant): ``rsize`` and ``highlights`` from
    the union of the passages, no best entry point, :data:`UNKNOWN_LENGTH`."""
    records: list[tuple[str, str, dict[str, Any]]] = []
    highlights = {}
    for document, spans in passages.items():
        bounds = np.array(spans, dtype=np.int64).reshape(-1, 2)
        _, starts, ends = merge(bounds[:, 0], bounds[:, 1])
        if len(starts):
            highlights[document] = np.stack([starts, ends], axis=1)
        records.append((document, "", {"rsize": int(np.sum(ends - starts)),
                                       "length": UNKNOWN_LENGTH, "bep": -1}))
    return build_topic(topic, "fol", records, dim_types={"rsize": int, "length": int, "bep": int},
                       highlights=highlights, source=source)


def _integer(value: str, what: str, path: str | Path, line: int) -> int:
    """A non-negative integer of ASCII digits (``int`` would read ``²`` or ``٢``), at most
    :data:`~inexeval.formats.lines.MAX_DIGITS` of them."""
    if not (value.isascii() and value.isdigit()):
        raise FormatError(f"{what} {shown(value)} is not a non-negative integer", path, line)
    if len(value) > MAX_DIGITS:
        raise FormatError(f"{what} {shown(value)} is too large", path, line)
    return int(value)
