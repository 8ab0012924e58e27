"""The organiser's view of a campaign (issue 22): every topic with its assessors and progress,
the agreement of each pair of assessors, the relevant rate of each assessor over time, and
which topics an export takes.

Agreement is computed by :func:`inexeval.analysis.agreement.judgement_agreement`, the function
of ``inexeval agree --judgements``, on the assessments an export would write: in the passages
and highlight modes they are built as :func:`inexeval.formats.fol.read_fol_qrels` reads the FOL
lines of :func:`inexeval.assess.export.fol_lines` (one record per done article, its highlighted
passages), in the 2002 and 2003 modes they are written by the exporter and read back by the
reader. While a topic is being assessed only the articles both assessors have marked done
count; once both are done with a topic, these are the numbers of ``inexeval agree
--judgements`` on the two assessors' exports.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from inexeval.analysis.agreement import JUDGEMENT_COLUMNS, TopicAgreement, judgement_agreement
from inexeval.assess.export import done_by_topic
from inexeval.assess.model import Judgement
from inexeval.assess.store import ADJUDICATED, Store
from inexeval.errors import InexevalError
from inexeval.model import Assessments
from inexeval.model.assessments import build_topic

HOUR = 3600.0


def overview(store: Store) -> dict[str, Any]:
    """What ``/admin`` shows: ``topics`` (every topic, with per assessor its progress, and
    whether an export would take it), ``assessors`` (time and documents per hour, from
    :meth:`~inexeval.assess.store.Store.stats`) and ``users`` (who may be assigned)."""
    stats = store.stats()
    progress = {(row["topic"], row["assessor"]): row for row in stats["topics"]}
    done = store.done_counts()
    topics = []
    for topic in store.topics_overview():
        rows = [progress[(topic["topic"], name)] for name in topic["assessors"]]
        files = store.pool_files(topic["topic"])
        topics.append({**topic, "progress": rows, "first_file": files[0] if files else None,
                       "complete": [row["assessor"] for row in rows
                                    if row["pool"] and row["done"] == row["pool"]],
                       "adjudicated": done.get((topic["topic"], ADJUDICATED), 0)})
    return {"topics": topics, "assessors": stats["assessors"], "users": store.assessor_names()}


# -- export ------------------------------------------------------------------------------------

def export_plan(store: Store, assessor: str | None, partial: bool
                ) -> list[tuple[str, str | None, str | None]]:
    """Per topic in topic order, ``(topic, the assessor whose judgements an export takes, why
    the topic is left out)``: each topic's first-assigned assessor, or ``assessor`` (the
    adjudicated judgements for :data:`~inexeval.assess.store.ADJUDICATED`). A topic is left out
    when it has no such assessor, or when not every article of its pool is done and
    ``partial`` is false (the reason counts them); the assessor is None then but for an
    incomplete topic."""
    plan: list[tuple[str, str | None, str | None]] = []
    done = store.done_counts()
    for topic in store.topics_overview():
        name = topic["topic"]
        chosen = assessor if assessor is not None else next(iter(topic["assessors"]), None)
        if chosen is None:
            plan.append((name, None, "no assessor assigned"))
            continue
        if chosen != ADJUDICATED and chosen not in topic["assessors"]:
            plan.append((name, None, f"not assigned to {chosen}"))
            continue
        count = done.get((name, chosen), 0)
        if chosen == ADJUDICATED and not count:
            plan.append((name, None, "not adjudicated"))
        elif count < topic["pool"] and not partial:
            reason = (f"not complete: {chosen} has done {count} of {topic['pool']} articles "
                      "(--partial exports them)")
            plan.append((name, chosen, reason))
        else:
            plan.append((name, chosen, None))
    return plan


# -- agreement ---------------------------------------------------------------------------------

FOL_MODES = ("passages", "highlight")


def fol_assessments(judgements: Iterable[Judgement], lengths: Mapping[str, int],
                    source: str) -> Assessments:
    """The done judgements as :func:`inexeval.formats.fol.read_fol_qrels` reads their
    :func:`inexeval.assess.export.fol_lines`: per topic one record per article (``rsize``,
    ``length``, ``bep``, -1 for none and for a non-relevant article), the highlighted passages
    of each relevant article and its best entry point."""
    topics = {}
    for topic, judged in done_by_topic(judgements).items():
        records: list[tuple[str, str, dict[str, Any]]] = []
        highlights = {}
        entry_points = {}
        for j in judged:
            rsize = sum(end - start for start, end in j.passages)
            bep = -1 if j.best_entry_point is None or not j.passages else j.best_entry_point
            records.append((j.file, "", {"rsize": rsize, "length": lengths[j.file], "bep": bep}))
            if j.passages:
                highlights[j.file] = np.array(j.passages, dtype=np.int64).reshape(-1, 2)
                entry_points[j.file] = bep
        topics[topic] = build_topic(topic, "fol", records,
                                    dim_types={"rsize": int, "length": int, "bep": int},
                                    highlights=highlights, best_entry_points=entry_points,
                                    source=source)
    return Assessments(topics, "fol", source)


def _element_assessments(store: Store, judgements: Sequence[Judgement], mode: str,
                         source: str) -> Assessments:
    """2002/2003 judgements written by the exporter and read back, as ``agree --judgements``
    reads an export."""
    from inexeval.assess.documents import document_index
    from inexeval.assess.export import write_export
    from inexeval.collection.index import CollectionIndex
    from inexeval.formats.detect import load_assessments

    fmt = f"inex{mode}"
    collection = CollectionIndex({file: document_index(store.document(file))
                                  for file in dict.fromkeys(j.file for j in judgements)})
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / source
        write_export(judgements, collection, fmt, target)
        return load_assessments(target, fmt)


def pair_agreement(store: Store, mode: str, first: Sequence[Judgement],
                   second: Sequence[Judgement], lengths: Mapping[str, int]
                   ) -> list[TopicAgreement]:
    """:func:`judgement_agreement` of two assessors' judgements (``first`` is A) over the
    articles both have done, per topic both have done one of, then ``all``; empty when
    there is none."""
    done_a = {(j.topic, j.file) for j in first if j.status == "done"}
    done_b = {(j.topic, j.file) for j in second if j.status == "done"}
    shared = done_a & done_b
    if not shared:
        return []
    a = [j for j in first if (j.topic, j.file) in shared]
    b = [j for j in second if (j.topic, j.file) in shared]
    if mode in FOL_MODES:
        return judgement_agreement(fol_assessments(a, lengths, "A"),
                                   fol_assessments(b, lengths, "B"))
    return judgement_agreement(_element_assessments(store, a, mode, "A"),
                               _element_assessments(store, b, mode, "B"))


def _row(item: TopicAgreement, a: str, b: str) -> dict[str, Any]:
    row: dict[str, Any] = {"assessor_a": a, "assessor_b": b}
    for name, value in zip(JUDGEMENT_COLUMNS, item):
        row[name] = None if isinstance(value, float) and math.isnan(value) else value
    return row


def agreement(store: Store) -> dict[str, Any]:
    """Per pair of assessors of a topic (in assignment order, the first as A), the agreement
    on each topic they share (``topics``: the columns of ``agree --judgements`` plus
    ``assessor_a``, ``assessor_b``; ``articles`` counts the articles both have done) and over
    all of them (``pairs``, topic ``all``). NaN values (an undefined kappa) are None."""
    mode = store.mode()
    by_assessor: dict[str, list[Judgement]] = {}
    for j in store.judgements():
        by_assessor.setdefault(j.assessor, []).append(j)
    lengths = store.document_lengths()
    pairs: dict[tuple[str, str], set[str]] = {}
    for topic in store.topics_overview():
        for a, b in combinations(topic["assessors"], 2):
            pairs.setdefault((a, b), set()).add(topic["topic"])
    topic_rows: list[dict[str, Any]] = []
    pair_rows: list[dict[str, Any]] = []
    for (a, b), shared in pairs.items():
        rows = pair_agreement(store, mode,
                              [j for j in by_assessor.get(a, []) if j.topic in shared],
                              [j for j in by_assessor.get(b, []) if j.topic in shared], lengths)
        if not rows:
            continue
        topic_rows.extend(_row(item, a, b) for item in rows[:-1])
        pair_rows.append(_row(rows[-1], a, b))
    order = {t: i for i, t in enumerate(store.topic_ids())}
    topic_rows.sort(key=lambda r: (order[r["topic"]], r["assessor_a"], r["assessor_b"]))
    return {"columns": ["assessor_a", "assessor_b", *JUDGEMENT_COLUMNS],
            "topics": topic_rows, "pairs": pair_rows}


def self_agreement(store: Store) -> dict[str, Any]:
    """Per assessor, the agreement of their second judgement of each repeated article (the
    unannounced repeats of ``assess init --duplicates``, :mod:`inexeval.assess.repeats`) with
    their first: :func:`pair_agreement` with the first pass as A and the repeat as B, over the
    repeated articles both passes of which are done. ``topics`` per topic, ``assessors`` over
    all of the assessor's topics (topic ``all``), each row with ``assessor`` and ``repeats``
    (the repeats drawn; ``articles`` counts those done twice); an assessor with repeats but
    none done twice has an ``all`` row of 0 articles and None values. Empty when the campaign has no repeats."""
    drawn = store.repeats()
    if not drawn:
        return {"columns": ["assessor", "repeats", *JUDGEMENT_COLUMNS], "topics": [],
                "assessors": []}
    mode = store.mode()
    lengths = store.document_lengths()
    seconds: dict[str, list[Judgement]] = {}
    for _, j in drawn:
        seconds.setdefault(j.assessor, []).append(j)
    topic_rows: list[dict[str, Any]] = []
    assessor_rows: list[dict[str, Any]] = []
    for name in sorted(seconds):
        repeated = {(j.topic, j.file) for j in seconds[name]}
        first = [j for j in store.judgements(assessor=name) if (j.topic, j.file) in repeated]
        per_topic: dict[str, int] = {}
        for j in seconds[name]:
            per_topic[j.topic] = per_topic.get(j.topic, 0) + 1
        rows = pair_agreement(store, mode, first, seconds[name], lengths)
        for item in rows[:-1]:
            topic_rows.append({"assessor": name, "repeats": per_topic[item.topic],
                               **_row(item, name, name)})
        if rows:
            assessor_rows.append({"assessor": name, "repeats": len(seconds[name]),
                                  **_row(rows[-1], name, name)})
        else:
            assessor_rows.append({"assessor": name, "repeats": len(seconds[name]),
                                  "assessor_a": name, "assessor_b": name,
                                  **dict.fromkeys(JUDGEMENT_COLUMNS), "topic": "all",
                                  "articles": 0})
    return {"columns": ["assessor", "repeats", *JUDGEMENT_COLUMNS], "topics": topic_rows,
            "assessors": assessor_rows}


# -- drift -------------------------------------------------------------------------------------

def drift(store: Store) -> list[dict[str, Any]]:
    """Per assessor (by name), the relevant rate per hour of assessing: hour k holds the
    articles the assessor marked done between k and k + 1 hours after their first save (an
    article marked done twice in one hour counted once, as last marked); ``points`` are
    ``(hour, relevant rate, articles)`` for the hours with an article done."""
    first: dict[str, float] = {}
    hours: dict[str, dict[int, dict[tuple[str, str], bool]]] = {}
    for assessor, at, topic, file, after in store.save_log():
        start = first.setdefault(assessor, at)
        if after.status != "done":
            continue
        hour = int((at - start) // HOUR)
        hours.setdefault(assessor, {}).setdefault(hour, {})[(topic, file)] = after.relevant
    series = []
    for assessor in sorted(hours):
        points = [(hour, sum(done.values()) / len(done), len(done))
                  for hour, done in sorted(hours[assessor].items())]
        series.append({"assessor": assessor, "points": points})
    return series


PALETTE = ("#1f5fa8", "#b3541e", "#2e7d32", "#7b1fa2", "#a0182d", "#00695c", "#5d4037")


def drift_plot(series: Sequence[Mapping[str, Any]], width: int = 640, height: int = 220,
               margin: int = 40) -> dict[str, Any]:
    """The shapes of the drift plot for the template's inline SVG (no script): per assessor a
    colour, the polyline's points and a marker per hour; the axes' ticks."""
    last = max((p[0] for s in series for p in s["points"]), default=0)
    span = max(last, 1)
    inner_w, inner_h = width - 2 * margin, height - 2 * margin

    def x(hour: float) -> float:
        return round(margin + inner_w * hour / span, 1)

    def y(rate: float) -> float:
        return round(height - margin - inner_h * rate, 1)

    lines = []
    for k, entry in enumerate(series):
        marks = [{"x": x(h), "y": y(rate), "label": f"{entry['assessor']}, hour {h + 1}: "
                  f"{rate:.0%} relevant of {n}"} for h, rate, n in entry["points"]]
        lines.append({"assessor": entry["assessor"], "colour": PALETTE[k % len(PALETTE)],
                      "points": " ".join(f"{m['x']},{m['y']}" for m in marks), "marks": marks})
    step = max(1, math.ceil(span / 10))
    return {"width": width, "height": height, "left": margin, "right": width - margin,
            "top": margin, "bottom": height - margin, "lines": lines,
            "x_ticks": [{"x": x(h), "label": str(h + 1)} for h in range(0, span + 1, step)],
            "y_ticks": [{"y": y(r), "label": f"{r:.0%}"} for r in (0.0, 0.25, 0.5, 0.75, 1.0)]}


def check_threshold(text: str | None, default: float) -> float:
    """A character-F1 threshold from a query parameter: a number from 0 to 1."""
    if text is None or text == "":
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:
        raise InexevalError(f"threshold {text[:20]!r}: a number from 0 to 1 is required")
    return value
