"""Assessments and runs from what Python users already have: paths, pandas DataFrames with
ir_measures' columns, and pytrec_eval's nested dicts.

* Qrels: :class:`~inexeval.model.Assessments`; a path (any format :func:`load_assessments`
  reads); a DataFrame with ``query_id, doc_id, relevance`` (TREC document qrels), plus ``offset,
  length`` for passage qrels (a row with relevance > 0 is a relevant passage; FOL qrels);
  a dict ``{query_id: {doc_id: relevance}}`` (TREC document qrels).
* Runs: :class:`~inexeval.model.Run`; a path; a DataFrame with ``query_id, doc_id, score``
  (a document run), plus ``offset, length`` for a passage run; a dict
  ``{query_id: {doc_id: score}}`` (a document run). Rows keep their order as the file order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from inexeval.errors import InexevalError, shown
from inexeval.formats.lines import MAX_DIGITS
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run


def _columns(frame: Any, needed: Iterable[str], what: str) -> list[dict[str, Any]]:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise InexevalError(f"{what} DataFrame has no column {', '.join(missing)} (it has "
                            f"{', '.join(map(str, frame.columns))})")
    records: list[dict[str, Any]] = frame.to_dict("records")
    return records


def _where(row: Mapping[str, Any]) -> str:
    return f"query {shown(str(row.get('query_id')))}, document {shown(str(row.get('doc_id')))}"


def _whole(value: Any, what: str, row: Mapping[str, Any], least: int | None = None) -> int:
    """An integer value of a DataFrame or dict (an integral float such as pandas gives is one),
    of at most :data:`~inexeval.formats.lines.MAX_DIGITS` digits and at least ``least``."""
    number = value
    if isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value.strip()):
        number = int(value)
    integral = (not isinstance(number, bool)
                and isinstance(number, (int, float, np.integer, np.floating))
                and math.isfinite(number) and number == int(number))
    if not integral:
        raise InexevalError(f"{_where(row)}: {what} {shown(str(value))} is not an integer")
    if abs(int(number)) >= 10**MAX_DIGITS:
        raise InexevalError(f"{_where(row)}: {what} {shown(str(value))} is too large")
    if least is not None and int(number) < least:
        raise InexevalError(f"{_where(row)}: {what} {int(number)} is below {least}")
    return int(number)


def _score(value: Any, row: Mapping[str, Any]) -> float:
    """A finite score (a number or a string that reads as one)."""
    readable = not isinstance(value, bool)
    try:
        number = float(value) if readable else math.nan
    except (TypeError, ValueError):
        readable, number = False, math.nan
    if not readable:
        raise InexevalError(f"{_where(row)}: score {shown(str(value))} is not a number")
    if not math.isfinite(number):
        raise InexevalError(f"{_where(row)}: score {shown(str(value))} is not a finite number")
    return number


def _docs(docs: Any, query: Any) -> Mapping[Any, Any]:
    if not isinstance(docs, Mapping):
        raise TypeError(f"query {shown(str(query))}: a dict {{doc_id: value}} is expected, not "
                        f"{type(docs).__name__}")
    return docs


def is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "to_dict")


def as_assessments(qrels: Any) -> Assessments:
    """Assessments from a path, a pandas DataFrame (``query_id, doc_id, relevance``, plus
    ``offset, length`` for passages) or a dict ``{query_id: {doc_id: relevance}}``."""
    if isinstance(qrels, Assessments):
        return qrels
    if isinstance(qrels, (str, Path)):
        from inexeval.formats.detect import load_assessments

        return load_assessments(qrels)
    if is_frame(qrels):
        if "offset" in qrels.columns or "length" in qrels.columns:
            return _passage_qrels(_columns(qrels, ("query_id", "doc_id", "relevance", "offset",
                                                   "length"), "qrels"))
        rows = _columns(qrels, ("query_id", "doc_id", "relevance"), "qrels")
        nested: dict[str, dict[str, int]] = {}
        for row in rows:
            nested.setdefault(str(row["query_id"]), {})[str(row["doc_id"])] = _whole(
                row["relevance"], "relevance", row)
        return _document_qrels(nested)
    if isinstance(qrels, Mapping):
        return _document_qrels({str(q): {str(d): _whole(r, "relevance", {"query_id": q,
                                                                           "doc_id": d})
                                         for d, r in _docs(docs, q).items()}
                                for q, docs in qrels.items()})
    raise TypeError(f"cannot read qrels from a {type(qrels).__name__} (give a path, a "
                    "DataFrame or a dict {query_id: {doc_id: relevance}})")


def _document_qrels(nested: Mapping[str, Mapping[str, int]]) -> Assessments:
    return Assessments({q: build_topic(q, "trec", [(d, "", {"relevance": r})
                                                   for d, r in docs.items()],
                                       dim_types={"relevance": int})
                        for q, docs in nested.items()}, "trec")


def _passage_qrels(rows: list[dict[str, Any]]) -> Assessments:
    from inexeval.formats.genomics import passage_topic

    spans: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for row in rows:
        documents = spans.setdefault(str(row["query_id"]), {})
        passages = documents.setdefault(str(row["doc_id"]), [])
        if _whole(row["relevance"], "relevance", row) > 0:
            offset = _whole(row["offset"], "offset", row, least=0)
            passages.append((offset, offset + _whole(row["length"], "length", row, least=0)))
    return Assessments({t: passage_topic(t, documents) for t, documents in spans.items()}, "fol")


def as_run(run: Any, name: str = "run") -> Run:
    """A run from a path, a pandas DataFrame (``query_id, doc_id, score``, plus ``offset,
    length`` for passages) or a dict ``{query_id: {doc_id: score}}``; ``name`` names a run
    built from a DataFrame or dict."""
    if isinstance(run, Run):
        return run
    if isinstance(run, (str, Path)):
        from inexeval.formats.detect import load_run

        return load_run(run)
    if is_frame(run):
        passages = "offset" in run.columns or "length" in run.columns
        rows = _columns(run, ("query_id", "doc_id", "score", *(("offset", "length") if passages
                                                               else ())), "run")
        grouped: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            grouped.setdefault(str(row["query_id"]), []).append(row)
        return Run(name, "passage" if passages else "document", {
            q: make_topic_run(q, [str(r["doc_id"]) for r in items],
                              rsv=[_score(r["score"], r) for r in items],
                              offsets=[_whole(r["offset"], "offset", r, least=0)
                                       for r in items] if passages else None,
                              lengths=[_whole(r["length"], "length", r, least=1)
                                       for r in items] if passages else None)
            for q, items in grouped.items()})
    if isinstance(run, Mapping):
        return Run(name, "document", {
            str(q): make_topic_run(str(q), [str(d) for d in _docs(docs, q)],
                                   rsv=[_score(v, {"query_id": q, "doc_id": d})
                                        for d, v in docs.items()])
            for q, docs in run.items()})
    raise TypeError(f"cannot read a run from a {type(run).__name__} (give a path, a "
                    "DataFrame or a dict {query_id: {doc_id: score}})")
