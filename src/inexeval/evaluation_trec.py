"""``inexeval eval`` of a TREC document run in a file on TREC qrels, all topics at once (issue
23).

The general path (:class:`~inexeval.evaluation.Evaluator`) reads the run into Python strings
(:func:`inexeval.formats.trec.read_trec_run`) and, a topic at a time, orders its results
(:meth:`~inexeval.model.TopicRun.ordered`), numbers them in the element table and drops repeats,
before the measures' kernels score it. Here the run is read with the same block reader and
checks (:class:`~inexeval.formats.lines.Table`: fields, ranks, scores, run id; the ids kept as
byte strings, never Python strings) a group of whole topics at a time, and each group is ranked
and looked up in the qrels at once by trec_eval's kernels
(:func:`inexeval.measures.trec_eval.ranked_lists`: score descending, ties by document id
descending, as :meth:`TopicRun.ordered` orders them), with "levels" that are each document's
position in its topic's assessments (the first judgement, -1 when not judged: what
:func:`inexeval.measures.common.judged_positions` gives). Each topic's kernels then get those
positions where ``judged_positions`` keeps them, so the measures' own code computes every value
and every number is the general path's, to the last bit, by construction.

:func:`usable` decides, in one place, when this is tried: every measure of a family in
:data:`FAMILIES` (whose kernels see a ranking only through ``judged_positions`` and the number
of results), TREC qrels, trec_eval's order (no ``order``), no limit, repeats dropped, no
collection, no options. :func:`evaluate_file` then gives up (None: the general path reads the
file again, and reports or warns as it always has) on anything unusual: a line the reader
refuses, a 7-column (element) run, a byte outside printable ASCII in the run, a document
retrieved twice for a topic (the general path drops it with a warning), a topic that resumes
after a group of others was scored, no assessed topic.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError, warn_unassessed
from inexeval.formats import source as sources
from inexeval.formats.lines import Table, decimal_values, eight_digits, word_view
from inexeval.formats.source import opened
from inexeval.formats.trec_columns import FieldBounds, TrecColumns, interned, padded_strings
from inexeval.measures.registry import TopicContext
from inexeval.measures.trec import SPECS
from inexeval.results import Results, Row
from inexeval.scores import topic_key

if TYPE_CHECKING:
    from inexeval.evaluation import Evaluator

Ints = npt.NDArray[np.int64]

FAMILIES = frozenset({"Judged", "P", *SPECS})
"""The measure families whose kernels read a ranking only through
:func:`~inexeval.measures.common.judged_positions` (or the TREC ranking made from it), the
number of results and the topic: every measure trec_eval's code computes and precision at k."""

_MOST_JUDGED = 30000
"""Most judgements of one topic (positions are held as trec_eval holds levels, in 16 bits)."""


class GiveUp(Exception):
    """The file goes the general way."""


def usable(evaluator: Evaluator) -> bool:
    """Whether document runs of ``evaluator`` may be evaluated by :func:`evaluate_file`."""
    return (evaluator.assessments.scale == "trec" and evaluator.order is None
            and evaluator.limit == 0 and not evaluator.keep_repeats
            and evaluator.collection is None and evaluator.num_docs is None
            and not evaluator.options and evaluator.topics is None
            and all(m.family.name in FAMILIES for m in evaluator.measures))


class _Sized:
    """A topic's results as the kernels of :data:`FAMILIES` see them besides their positions:
    their number."""

    def __init__(self, topic: str, size: int) -> None:
        self.topic = topic
        self.size = size

    def __len__(self) -> int:
        return self.size


def _judgements(evaluator: Evaluator) -> Any:
    """The assessments as trec_eval's :class:`~inexeval.measures.trec_eval.Judgements` whose
    levels are the judgements' positions in their topics (made once per evaluator), or None
    when they cannot be (an empty topic, ids with bytes outside printable ASCII, a topic of
    more than :data:`_MOST_JUDGED` judgements)."""
    if "columns judgements" in evaluator.shared:
        return evaluator.shared["columns judgements"]
    from inexeval.measures.trec_eval import Judgements

    made = None
    topics = list(evaluator.assessments)
    sizes = [len(evaluator.assessments[t]) for t in topics]
    files = [f for t in topics for f in evaluator.assessments[t].files.tolist()]
    if topics and min(sizes) > 0 and max(sizes) < _MOST_JUDGED and _printable([*files, *topics]):
        column = np.repeat(np.array(topics, dtype=bytes), sizes)
        documents = np.array(files, dtype=bytes)
        positions = np.concatenate([np.arange(n, dtype=np.int64) for n in sizes])
        columns = TrecColumns(column, documents, positions, np.arange(len(positions)), "",
                              str(evaluator.assessments.source or ""))
        distinct, topic_of = interned(column)
        empty = np.zeros((len(distinct), 1), dtype=np.int64)
        made = Judgements(columns, distinct, topic_of, positions, empty, empty, 0)
        # a document judged twice for a topic: its first judgement (judged_positions' choice)
        keys = topic_of * (len(documents) + 1) + interned(documents)[1]
        keys = np.sort(keys)
        if bool((keys[1:] == keys[:-1]).any()):  # (np.unique would import numpy.ma)
            made = None
    evaluator.shared["columns judgements"] = made
    return made


def _printable(ids: list[Any]) -> bool:
    """Whether every id is a non-empty string of printable ASCII without blanks (as byte
    strings they compare and sort as the strings do)."""
    try:
        joined = "\n".join(ids)
    except TypeError:  # not all strings
        return False
    if not joined.isascii() or "\n\n" in f"\n{joined}\n":  # an empty id
        return False
    raw = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    return bool(((raw > 32) & (raw < 127) | (raw == 10)).all())


def evaluate_file(evaluator: Evaluator, path: str, topics: set[str] | None
                  ) -> tuple[Results, list[str]] | None:
    """The results of the TREC document run in the file ``path`` (``topics``: only these) as
    ``evaluator.evaluate`` gives them, and the assessed topics it answers in the order they
    first come; None when it goes the general way (see the module). The warning about topics
    without assessments is given as the general path gives it."""
    if path == "-" or not Path(path).is_file():
        return None
    judged = _judgements(evaluator)
    if judged is None:
        return None
    try:
        return _evaluate(evaluator, judged, path, topics)
    except (GiveUp, InexevalError):
        return None


def _evaluate(evaluator: Evaluator, judged: Any, path: str, chosen: set[str] | None
              ) -> tuple[Results, list[str]]:
    from inexeval.measures.trec_eval import ranked_lists

    assessments = evaluator.assessments
    groups, names = evaluator._groups()
    rows: dict[str, list[Row]] = {}
    order: list[str] = []  # the run's topics (chosen) in the order they first come
    name = ""
    for part in screened_parts(path, chosen, assessments, order):
        name = name or part.run_id
        if not len(part):
            continue
        ranked = ranked_lists(judged, part, relevance_level=1, max_docs=None, judged_only=False,
                         num_docs=0, keep_repeats=False)
        topic_codes, positions = ranked.topic_codes, ranked.levels
        if not len(topic_codes):
            continue
        starts = np.flatnonzero(np.concatenate(([True], topic_codes[1:] != topic_codes[:-1])))
        ends = np.append(starts[1:], len(topic_codes))
        for start, end in zip(starts.tolist(), ends.tolist()):
            topic = judged.topics[topic_codes[start]].decode()
            ta = assessments[topic]
            context = TopicContext(None, None, {}, shared=evaluator.shared)
            context.memo[("judged", id(ta))] = positions[start:end]
            sized: Any = _Sized(topic, end - start)
            rows[topic] = list(evaluator._values(name, topic, sized, context, groups, names))
    answered = answered_topics(order, assessments, path)
    present = set(answered)
    evaluated = sorted((t for t in assessments if evaluator.complete or t in present),
                       key=topic_key)
    missing = [t for t in evaluated if t not in present]
    if missing:
        from inexeval.model import Run

        outline = Run(name=name, kind="document", topics={}, source=path)
        for row in evaluator._topic_rows(outline, missing):
            rows.setdefault(row.topic, []).append(row)
    results = Results(aggregates={str(m): m.family.aggregate for m in evaluator.measures})
    results.topics_evaluated[name] = evaluated
    results.extend([row for t in evaluated for row in rows[t]])
    return results, answered


def screened_parts(path: str, chosen: Container[str] | None, assessed: Container[str],
                   order: list[str], **reading: Any) -> Iterator[TrecColumns]:
    """The run's parts (:func:`checked_parts`, with its ``reading`` options) cut to the ``chosen`` topics (None: all), the
    topics kept added to ``order`` as they first come; gives up on a document retrieved twice
    for a topic among the lines that are not scored (those of topics not ``assessed``: the
    reader drops the repeat with a warning; ``ranked_lists`` looks for repeats only among the
    lines it scores)."""
    for part in checked_parts(path, **reading):
        distinct, codes = interned(part.topics)
        first = np.full(len(distinct), len(codes))
        np.minimum.at(first, codes, np.arange(len(codes)))
        names_of = [t.decode() for t in distinct.tolist()]
        listed = [names_of[i] for i in np.argsort(first, kind="stable").tolist()]
        kept = [t for t in listed if chosen is None or t in chosen]
        wanted_codes = np.array([chosen is None or t in chosen for t in names_of])
        scored = (wanted_codes & np.array([t in assessed for t in names_of]))[codes]
        if not scored.all():
            others = np.flatnonzero(~scored)
            pairs = set(zip(part.topics[others].tolist(), part.documents[others].tolist()))
            if len(pairs) < len(others):
                raise GiveUp
        if len(kept) < len(listed):
            wanted = wanted_codes[codes]
            part = TrecColumns(part.topics[wanted], part.documents[wanted],
                               part.values[wanted], part.lines[wanted], part.run_id,
                               part.source)
        order += kept
        yield part


def answered_topics(order: list[str], assessed: Container[str], path: str) -> list[str]:
    """The assessed topics of a run's topics (``order``, as :func:`screened_parts` lists them),
    after the general path's warning about the others; gives up where the general path
    reports the run (no assessed topic) or reads it whole (a topic resumes)."""
    answered = [t for t in order if t in assessed]
    if not answered or len(set(order)) < len(order):
        raise GiveUp
    warn_unassessed([t for t in order if t not in assessed], path)
    return answered


def checked_parts(path: str, lines: int = sources.PART_LINES, block: int | None = None
                  ) -> Iterator[TrecColumns]:
    """The run's lines in groups of whole topics (at least ``lines`` lines, but the last; the
    file read ``block`` bytes at a time, None: :data:`~inexeval.formats.source.BLOCK`), read
    and checked as :func:`inexeval.formats.trec.read_trec_run` reads them, ids as byte
    strings; the run id the first line's. Gives up on a 7-column run, text after the run id,
    a byte outside printable ASCII and a topic that comes back after its group was given."""
    from inexeval.formats.trec_columns import run_width

    columns = 0
    held: list[TrecColumns] = []
    count = 0
    given: set[bytes] = set()
    run_id = ""
    with opened(path) as source:
        name = source.name
        opening = source.head()
        for first, text in source.blocks(block):
            if not columns:
                columns, text_after = run_width(text, first, name, opening)
                if text_after:
                    raise GiveUp
            if not columns:
                continue
            if columns != 6:
                raise GiveUp
            # the blocks hold no control byte but the six blanks and no CR (Source.blocks):
            # a byte outside printable ASCII, tab and LF is one of these
            if not text.isascii() or any(b in text for b in (b"\x0b", b"\x0c", b"\x7f")):
                raise GiveUp
            read = _common_layout(text, first) or _any_layout(text, first, name, columns)
            if read is None:
                continue
            topics, documents, scores, numbers, first_id = read
            run_id = run_id or first_id
            if given and not given.isdisjoint(interned(topics)[0].tolist()):
                raise GiveUp
            held.append(TrecColumns(topics, documents, scores, numbers, run_id, name))
            count += len(topics)
            last = topics[-1]
            if count < lines or bool((topics == last).all()):
                continue
            whole = _joined(held, run_id, name)
            cut = len(whole) - int(np.count_nonzero(
                np.cumsum((whole.topics != last)[::-1]) == 0))
            head = whole.topics[:cut]
            if bool((head == last).any()):
                raise GiveUp  # the last topic resumes after others
            given.update(interned(head)[0].tolist())
            yield _rows(whole, slice(0, cut))
            held = [_rows(whole, slice(cut, None))]
            count = len(whole) - cut
    if not held and not given:
        raise GiveUp
    if held:
        yield _joined(held, run_id, name)


_Read = tuple[npt.NDArray[np.bytes_], npt.NDArray[np.bytes_], npt.NDArray[np.float64],
              npt.NDArray[np.int64], str]


def _common_layout(text: bytes, first: int) -> _Read | None:
    """The topics, documents, scores, line numbers and first run id of a block of run lines
    in the common layout (six fields a line, one blank between them, ranks of at most 8
    digits), found as trec_eval's reader finds them
    (:meth:`~inexeval.formats.trec_columns.FieldBounds.of`); None for any other block, which
    :func:`_any_layout` reads (and tells the line eval's reader refuses)."""
    raw = np.frombuffer(text, dtype=np.uint8)
    fields = FieldBounds.of(raw, first, 6)
    if fields is None or fields.starts is not None or fields.counts is not None:
        return None
    words = word_view(text)
    widths = fields.end(3) - fields.start(3)
    if int(widths.max(initial=0)) > 8:
        return None
    if not bool(eight_digits(words[fields.end(3)].astype(np.uint64), widths)[1].all()):
        return None  # a rank that is no plain non-negative integer
    scores, unread = decimal_values(raw, words, fields.start(4), fields.end(4))
    if unread.any() or not bool(np.isfinite(scores).all()):
        raise GiveUp
    little = words.view("<u8")
    topics = padded_strings(little, fields.start(0), fields.end(0))
    documents = padded_strings(little, fields.start(2), fields.end(2))
    first_id = text[int(fields.start(5)[0]):int(fields.end(5)[0])].decode("utf-8")
    return topics, documents, scores, fields.numbers, first_id


def _any_layout(text: bytes, first: int, name: str, columns: int) -> _Read | None:
    """:func:`_common_layout`'s columns of a block in any layout eval's run reader takes (an
    error naming the line it refuses)."""
    from inexeval.formats.trec_columns import RUN_LINE

    table = Table(text, first, name, columns, RUN_LINE)
    if not len(table):
        return None
    _, scores, unread = table.ranks_and_scores()
    if unread.any():
        raise GiveUp
    words = table.little_words()
    topics = padded_strings(words, table.starts[:, 0], table.ends[:, 0])
    documents = padded_strings(words, table.starts[:, 2], table.ends[:, 2])
    return topics, documents, scores, table.numbers, table.field(0, 5).decode("utf-8")


def _rows(columns: TrecColumns, rows: slice) -> TrecColumns:
    return TrecColumns(columns.topics[rows], columns.documents[rows], columns.values[rows],
                       columns.lines[rows], columns.run_id, columns.source)


def _joined(parts: list[TrecColumns], run_id: str, name: str) -> TrecColumns:
    if len(parts) == 1:
        return parts[0]
    width = max(p.topics.dtype.itemsize for p in parts)
    doc_width = max(p.documents.dtype.itemsize for p in parts)
    return TrecColumns(np.concatenate([p.topics.astype(f"S{width}") for p in parts]),
                       np.concatenate([p.documents.astype(f"S{doc_width}") for p in parts]),
                       np.concatenate([p.values for p in parts]),
                       np.concatenate([p.lines for p in parts]), run_id, name)
