"""Export highlighted evidence as the questions files of RAG evaluations (issue 34, ``assess
export --format chroma|bioasq``), so that a team builds its evaluation set in the browser.

The evidence of a topic is its ``done`` judgements' passages in the documents' own offsets: in
a span campaign (``assess init --pool`` of ``inexeval pool --unit span``) a unit's passages are
moved by the unit's start in its document; pieces of one document that overlap or touch are
merged. Each piece's text is the document's text at its offsets (for an XML document, its text
content as FOL qrels count it, not the file Chroma's reader would read: these formats are for
plain-text corpora, :mod:`inexeval.assess.plain`).

=========== ===============================================================================
format      what is written
=========== ===============================================================================
``chroma``  Chroma's questions CSV, ``question,references,corpus_id`` (read by ``inexeval
            eval QUESTIONS.csv RUN...``): one row per topic with evidence, in topic order, its
            title as the question, ``references`` a JSON list of ``{content, start_index,
            end_index}`` (end exclusive), ``corpus_id`` the document. A question's id is its
            row number: a topic without evidence, or with evidence in two documents (a Chroma
            question has one corpus), is left out with a note, and a note says when the rows'
            numbers are not the topics' ids.
``bioasq``  a BioASQ task B golden file (read by ``inexeval eval GOLD.json SYSTEM.json``):
            ``{"questions": [{"id", "body", "documents", "snippets"}]}``, every exported topic
            (one without evidence has empty ``documents`` and ``snippets``, as BioASQ's
            version 9 skips), each snippet ``{"document", "text", "offsetInBeginSection",
            "offsetInEndSection", "beginSection", "endSection"}`` with BioASQ's *inclusive*
            end offset. A plain text has no title nor abstract: every snippet is in the section
            ``abstract`` (begin and end), so its offsets are the document's. BioASQ compares
            documents by their last ``/``-part in precision and recall.
=========== ===============================================================================
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from inexeval.assess.model import Judgement
from inexeval.assess.store import Store
from inexeval.errors import InexevalError
from inexeval.model.pool import topic_order

SPANS = "spans"
"""The campaign setting of a span campaign: each judged unit's document and offset."""

RAG_FORMATS = ("chroma", "bioasq")
SHOWN_MOVES = 20
"""Renumbered questions listed in the note at most."""
SECTION = "abstract"
"""The BioASQ section of every snippet of a plain text."""


class Evidence(NamedTuple):
    """One highlighted piece: its document, ``[start, end)`` in the document and its text."""

    doc: str
    start: int
    end: int
    content: str


def evidence(judgements: Iterable[Judgement], texts: Mapping[str, str],
             spans: Mapping[str, tuple[str, int]]) -> dict[str, list[Evidence]]:
    """Each topic's evidence (see the module docstring) from its done judgements; ``texts``
    gives the stored text of each judged unit and ``spans`` a span unit's document and start
    (a unit not in it is a whole document)."""
    pieces: dict[str, list[Evidence]] = {}
    for j in judgements:
        if j.status != "done":
            continue
        own = pieces.setdefault(j.topic, [])
        doc, offset = spans.get(j.file, (j.file, 0))
        text = texts[j.file]
        own += [Evidence(doc, offset + s, offset + e, text[s:e]) for s, e in j.passages]
    merged: dict[str, list[Evidence]] = {}
    for topic in sorted(pieces, key=topic_order):
        out: list[Evidence] = []
        for piece in sorted(pieces[topic]):
            last = out[-1] if out else None
            if last is not None and last.doc == piece.doc and piece.start <= last.end:
                if piece.end > last.end:
                    last = Evidence(last.doc, last.start, piece.end,
                                    last.content + piece.content[last.end - piece.start:])
                out[-1] = last
            else:
                out.append(piece)
        merged[topic] = out
    return merged


def chroma_rows(topics: list[str], titles: Mapping[str, str],
                found: Mapping[str, list[Evidence]]) -> tuple[list[list[str]], list[str]]:
    """The questions CSV rows (header first) and the notes: topics left out, and the topic
    of each row when a row's number is not its topic's id."""
    rows = [["question", "references", "corpus_id"]]
    empty: list[str] = []
    several: list[str] = []
    written: list[str] = []
    for topic in topics:
        pieces = found.get(topic, [])
        docs = list(dict.fromkeys(p.doc for p in pieces))
        if not docs:
            empty.append(topic)
            continue
        if len(docs) > 1:
            several.append(f"{topic} ({', '.join(docs)})")
            continue
        references = [{"content": p.content, "start_index": p.start, "end_index": p.end}
                      for p in pieces]
        rows.append([titles[topic], json.dumps(references), docs[0]])
        written.append(topic)
    notes = []
    if empty:
        notes.append(f"left out of the chroma CSV, no evidence highlighted: {' '.join(empty)}")
    if several:
        notes.append("left out of the chroma CSV, evidence in several documents (a Chroma "
                     f"question has one corpus; --format bioasq keeps them): {'; '.join(several)}")
    moved = [f"{row}={topic}" for row, topic in enumerate(written) if str(row) != topic]
    if moved:
        more = f" (and {len(moved) - SHOWN_MOVES} more)" if len(moved) > SHOWN_MOVES else ""
        notes.append("a question's id is its row number in the CSV; these differ from their "
                     f"topics' (question=topic): {' '.join(moved[:SHOWN_MOVES])}{more}")
    return rows, notes


def bioasq_golden(topics: list[str], titles: Mapping[str, str],
                  found: Mapping[str, list[Evidence]]) -> dict[str, object]:
    """The BioASQ golden file (see the module docstring) as a JSON object."""
    questions = []
    for topic in topics:
        pieces = found.get(topic, [])
        questions.append({
            "id": topic, "body": titles[topic],
            "documents": list(dict.fromkeys(p.doc for p in pieces)),
            "snippets": [{"document": p.doc, "text": p.content, "offsetInBeginSection": p.start,
                          "offsetInEndSection": p.end - 1, "beginSection": SECTION,
                          "endSection": SECTION} for p in pieces]})
    return {"questions": questions}


def span_origins(store: Store) -> dict[str, tuple[str, int]]:
    """A span campaign's units: their document and start (empty for other campaigns)."""
    setting = store.setting(SPANS)
    if setting is None:
        return {}
    return {unit: (str(doc), int(start)) for unit, (doc, start) in json.loads(setting).items()}


def write_rag_export(store: Store, topics: list[str], judgements: list[Judgement], fmt: str,
                     output: str | Path, *inputs: str | None) -> list[str]:
    """Write the ``topics``' evidence from ``judgements`` as ``fmt`` (``chroma`` or
    ``bioasq``) to ``output`` (atomically); returns the notes, what was written last."""
    from inexeval.outputs import atomic_output, check_output

    if store.mode() not in ("passages", "highlight"):
        raise InexevalError(f"--format {fmt} exports highlighted passages: this campaign's "
                            f"{store.mode()} mode has none")
    highlighted = dict.fromkeys(j.file for j in judgements if j.status == "done" and j.passages)
    texts = {file: store.document(file).text for file in highlighted}
    found = evidence((j for j in judgements if j.file in texts), texts, span_origins(store))
    ordered = sorted(topics, key=topic_order)
    titles = {t: str(store.topic(t)["title"]) for t in ordered}
    target = check_output(output, *inputs)
    if fmt == "chroma":
        rows, notes = chroma_rows(ordered, titles, found)
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        with atomic_output(target) as out:
            out.write(buffer.getvalue())
        return [*notes, f"{len(rows) - 1} questions written to {output} (chroma)"]
    golden = bioasq_golden(ordered, titles, found)
    with atomic_output(target) as out:
        out.write(json.dumps(golden, ensure_ascii=False, indent=1) + "\n")
    return [f"{len(ordered)} questions written to {output} (bioasq)"]
