"""Between the files of a campaign and its store: what ``assess init`` reads and ``assess
export`` writes.

:func:`load_campaign` reads the topics, the pool and the pooled documents (their text and
element spans, so that the store needs no collection afterwards); a pooled document missing from
the collection, a pooled element missing from its document or a pooled topic missing from the
topic file is an error naming the pool file and line. :func:`export_campaign` picks the
judgements to export (one assessor per topic) and writes them with the exporters of
:mod:`inexeval.assess.export`.
"""

from __future__ import annotations

import io
import json
import re
import sys
import tempfile
import zipfile
from pathlib import Path

from inexeval.assess.documents import document_index, stored_document
from inexeval.assess.export import write_export
from inexeval.assess.export_rag import RAG_FORMATS, SPANS, write_rag_export
from inexeval.assess.model import Judgement
from inexeval.assess.plain import read_text_document, text_document
from inexeval.assess.sample import (
    SAMPLE_FORMATS,
    fol_sample_lines,
    nist_lines,
    unjudged_drawn,
    write_sample,
)
from inexeval.assess.store import Document, Store
from inexeval.collection.build import IndexedDocument, index_document, load_index
from inexeval.collection.index import CollectionIndex
from inexeval.errors import FormatError, InexevalError
from inexeval.formats.pool import read_pool
from inexeval.formats.questions import has_question_column, read_question_topics
from inexeval.formats.span_pool import read_span_pool
from inexeval.formats.topics import read_topics
from inexeval.model.pool import Pool
from inexeval.model.topic import Topic

PoolRow = tuple[str, str, str, int | None, int | None]


def load_campaign(collection: str | Path, topic_file: str | Path, pool_file: str | Path,
                  ) -> tuple[list[dict[str, str]], list[Document], list[PoolRow]]:
    """Topic rows (in topic-file order, only pooled topics), the pooled documents and the pool
    rows ``(topic, file, path, min_rank, runs)`` in pool order."""
    return campaign_rows(collection, topic_file, read_pool(pool_file), pool_file)


def campaign_rows(collection: str | Path, topic_file: str | Path, pool: Pool,
                  pool_file: str | Path) -> tuple[list[dict[str, str]], list[Document],
                                                  list[PoolRow]]:
    """:func:`load_campaign` for a pool read or made already (``pool_file`` names it in
    errors)."""
    topics = read_topic_file(topic_file)
    source = _Collection(collection)
    documents: dict[str, Document] = {}
    rows: list[PoolRow] = []
    for topic, units in pool.items():
        if topic not in topics:
            raise FormatError(f"topic {topic} is not in the topic file {topic_file}", pool_file,
                              int(units.lines[0]) or None)
        for unit, line in zip(units, units.lines):
            where = (pool_file, int(line) or None)
            if unit.file not in documents:
                documents[unit.file] = source.document(unit.file, *where)
            if unit.path and unit.path not in {p for p, _, _ in documents[unit.file].elements}:
                raise FormatError(f"element {unit.path} is not in document {unit.file}", *where)
            rows.append((topic, unit.file, unit.path, unit.min_rank, unit.runs))
    return _topic_rows(topics, set(pool)), list(documents.values()), rows


def _topic_rows(topics: dict[str, Topic], pooled: set[str]) -> list[dict[str, str]]:
    """The store's rows of the pooled topics, in topic-file order."""
    return [{"topic": t.topic_id, "query_type": t.query_type, "title": t.title,
             "castitle": t.castitle, "description": t.description, "narrative": t.narrative,
             "keywords": t.keywords} for t in topics.values() if t.topic_id in pooled]


def read_topic_file(topic_file: str | Path) -> dict[str, Topic]:
    """The topics of an INEX topic file or folder, or of a questions CSV (a question's id its
    row number, its text the title: :mod:`inexeval.formats.questions`)."""
    if has_question_column(topic_file):
        return read_question_topics(topic_file)
    return read_topics(topic_file)


def span_unit_name(doc: str, start: int, end: int) -> str:
    """The store's name of a pooled span: ``doc:start-end``."""
    return f"{doc}:{start}-{end}"


def span_campaign_rows(collection: str | Path, topic_file: str | Path, pool_file: str | Path,
                       ) -> tuple[list[dict[str, str]], list[Document], list[PoolRow], str]:
    """:func:`load_campaign` for a span pool (:mod:`inexeval.formats.span_pool`): each pooled
    span is a unit judged on its own, a stored document holding the span's text (named by
    :func:`span_unit_name`); the last item is the :data:`SPANS` setting, a JSON object giving
    each unit its document and start offset, so that the export writes the document's
    offsets."""
    topics = read_topic_file(topic_file)
    source = _Collection(collection)
    texts: dict[str, str] = {}
    documents: dict[str, Document] = {}
    origin: dict[str, list[str | int]] = {}
    rows: list[PoolRow] = []
    for span, line in read_span_pool(pool_file):
        if span.qid not in topics:
            raise FormatError(f"question {span.qid} is not in the topic file {topic_file}",
                              pool_file, line)
        if span.doc not in texts:
            texts[span.doc] = source.document(span.doc, pool_file, line).text
        text = texts[span.doc]
        if span.end > len(text):
            raise FormatError(f"span [{span.start}, {span.end}) ends beyond the "
                              f"{len(text)} characters of document {span.doc}", pool_file, line)
        unit = span_unit_name(span.doc, span.start, span.end)
        if unit not in documents:
            documents[unit] = text_document(unit, text[span.start:span.end])
            origin[unit] = [span.doc, span.start]
        rows.append((span.qid, unit, "", span.min_rank, span.runs))
    return (_topic_rows(topics, {row[0] for row in rows}), list(documents.values()), rows,
            json.dumps(origin, ensure_ascii=False))


class _Collection:
    """The documents of a collection folder, or of the folder a saved index was built from."""

    def __init__(self, path: str | Path):
        path = Path(path)
        self.index: CollectionIndex | None = None
        if path.is_dir():
            self.folder = path
        elif path.is_file():
            self.index = load_index(path)
            root = self.index.meta.get("root")
            if not root or not Path(root).is_dir():
                raise InexevalError(f"the index was built from {root or 'an unknown folder'}, "
                                    "which is not available: give the collection folder",
                                    path)
            self.folder = Path(root)
        else:
            raise InexevalError("no such collection folder or index file", path)
        self.name = str(path)

    def document(self, name: str, pool_file: str | Path, line: int | None) -> Document:
        """The XML document ``name`` (``{name}.xml``), else, in a folder, the plain-text one
        (:mod:`inexeval.assess.plain`: ``{name}.md``, ``{name}.txt``...)."""
        xml = self.folder / f"{name}.xml"
        if self.index is None and not xml.is_file():
            return read_text_document(self.folder, name, str(pool_file), line)
        missing = (self.index is not None and name not in self.index) or not xml.is_file()
        if missing or ".." in Path(name).parts or Path(name).is_absolute():
            raise FormatError(f"document {name} is not in the collection {self.name}",
                              pool_file, line)
        # a symbolic link may point anywhere: what is read must lie inside the folder
        if self.folder.resolve() not in xml.resolve().parents:
            raise FormatError(f"document {name} is a link out of the collection {self.name}",
                              pool_file, line)
        index = self.index[name] if self.index is not None else index_document(name, xml)
        if not isinstance(index, IndexedDocument):
            raise InexevalError("the index holds no text-node spans: rebuild it with "
                                "inexeval index", self.name)
        return stored_document(name, xml, index)


DEFAULT_FORMAT = {"passages": "fol", "highlight": "fol", "2002": "inex2002", "2003": "inex2003"}
FILE_FORMATS = ("fol", "json", "sampled", "chroma", "bioasq")
"""The export formats of one file (the others write one file per topic into a folder)."""


class NothingToExport(InexevalError):
    """An export that would hold nothing (every topic left out, no judgement done): nothing is
    written, and the reason is the message (the command exits 2, the web export is 409)."""


def export_campaign(store_url: str | Path, output: str | Path, fmt: str | None,
                    assessor: str | None, partial: bool = False) -> list[str]:
    """:func:`export_store` for the store at ``store_url`` (never written over); ``output``
    ``-`` is standard output (the formats of one file)."""
    store = Store.open(store_url)
    try:
        if str(output) != "-":
            return export_store(store, output, fmt, assessor, *store_files(store_url),
                                partial=partial)
        fmt = fmt or DEFAULT_FORMAT[store.mode()]
        if fmt not in FILE_FORMATS:
            raise InexevalError(f"the {fmt} format is one file per topic: name a folder, not "
                                "standard output", "-o")
        with tempfile.TemporaryDirectory() as folder:
            target = Path(folder) / "export"
            notes = export_store(store, target, fmt, assessor, partial=partial,
                                 shown="standard output")
            sys.stdout.flush()
            sys.stdout.buffer.write(target.read_bytes())
            sys.stdout.buffer.flush()
            return notes
    finally:
        store.close()


def export_store(store: Store, output: str | Path, fmt: str | None, assessor: str | None,
                 *inputs: str | None, partial: bool = False, shown: str | None = None
                 ) -> list[str]:
    """Export the judgements of ``assessor`` (``adjudicated``: the adjudicated judgements) or,
    without one, of each topic's first-assigned assessor, in ``fmt`` (default: the mode's own
    format) to ``output``. A topic not complete (an article of its pool not done by that
    assessor) is left out unless ``partial`` or the format is ``json``
    (:func:`inexeval.assess.organiser.export_plan`).
    Returns notes for the user: the assessor used for each topic, the topics left out and why,
    the topics that have other assessors, and last what was written (to ``shown``, the output's
    name for the user, default ``output``). :class:`NothingToExport` says why when nothing
    would be written."""
    from inexeval.assess.organiser import export_plan
    from inexeval.assess.store import ADJUDICATED

    mode = store.mode()
    spans = store.setting(SPANS) is not None
    fmt = fmt or ("chroma" if spans else DEFAULT_FORMAT[mode])
    sampled = store.setting("sample") is not None
    adaptive = store.setting("strategy") is not None
    if fmt == "sampled" and not sampled:
        raise InexevalError("--format sampled exports a sampled campaign (assess init --sample)")
    if spans and fmt not in (*RAG_FORMATS, "json"):
        raise InexevalError("a span campaign's units are spans, not documents: export chroma, "
                            "bioasq (the documents' offsets) or json")
    if fmt in RAG_FORMATS and mode not in ("passages", "highlight"):
        raise InexevalError(f"--format {fmt} exports highlighted passages: this campaign's "
                            f"{mode} mode has none")
    if mode == "passages" and fmt == "inex2005":
        raise InexevalError("the inex2005 format holds exhaustivity, which passages mode does "
                            "not ask: export fol or json")
    if assessor is not None and assessor != ADJUDICATED and store.user(assessor) is None:
        raise InexevalError(f"no user {assessor!r} in the store")
    notes: list[str] = []
    chosen: list[Judgement] = []
    used: list[str] = []
    left_out: list[str] = []
    exported: list[str] = []
    whose: dict[str, str] = {}  # the assessor exported for each topic (not adaptive)
    # the json format keeps every judgement given, whatever its status (a backup)
    keep_all = partial or fmt == "json"
    if adaptive and assessor is None:
        # each article served is judged by the assessor it was served to; a topic is complete
        # when every article served is done
        for topic in store.topic_ids():
            own = {(j.file, j.assessor): j for j in store.judgements(topic)}
            served = store.served(topic)
            waiting = [key for key in served if key not in own or own[key].status != "done"]
            unserved = [key for key, j in own.items()
                        if j.status == "done" and key not in set(served)]
            if unserved:
                notes.append(f"topic {topic}: judgements of articles never served to their "
                             f"assessor left out: {_articles(unserved)}")
            if waiting and not keep_all:
                left_out.append(f"{topic} (not complete: {len(waiting)} of {len(served)} "
                                f"articles served not done: {_articles(waiting)}; --partial "
                                "exports them)")
                continue
            if waiting and fmt != "json":
                notes.append(f"topic {topic}: articles served and not done left out: "
                             f"{_articles(waiting)}")
            chosen.extend(own[key] for key in served if key in own)
            exported.append(topic)
    else:
        for topic, name, reason in export_plan(store, assessor, keep_all):
            if reason is not None:
                if assessor is None or name is not None or reason == "not adjudicated":
                    left_out.append(f"{topic} ({reason})")
                continue
            assert name is not None
            chosen.extend(store.judgements(topic, name))
            used.append(f"{topic}: {name}")
            whose[topic] = name
            exported.append(topic)
    if assessor is None and not adaptive:
        others = [f"{t['topic']} ({', '.join(t['assessors'][1:])})"
                  for t in store.topics_overview() if len(t["assessors"]) > 1]
        if others:
            notes.append("exported each topic's first-assigned assessor; these topics have "
                         f"others (export them with --assessor): {'; '.join(others)}")
    if used:
        notes.append(f"assessor used per topic: {'; '.join(used)}")
    if left_out:
        notes.append(f"topics left out: {'; '.join(left_out)}")
    flagged = [n for n in store.notes() if n["topic"] in exported
               and (assessor is None or n["assessor"] == assessor)]
    if flagged:
        notes.append("assessors' notes: " + "; ".join(
            f"{n['topic']} {n['file']} ({n['assessor']}: "
            + ": ".join(" / ".join(" ".join(line.split()) for line in str(part).splitlines()
                                   if line.strip())
                        for part in (n["flag"], n["comment"]) if part) + ")"
            for n in flagged))
    if not any(fmt == "json" or j.status == "done" for j in chosen):
        why = (f"topics left out: {'; '.join(left_out)}" if left_out else
               "no judgement in the store" if fmt == "json" else
               f"{assessor} has done no article" if assessor else "no article is done")
        if left_out and exported and fmt != "json":
            # the topics kept (--partial) are empty too: said, not left for the topics left
            # out to seem the only reason
            why += "; no article is done in topic " + ", ".join(
                f"{topic} ({whose[topic]})" if topic in whose else topic for topic in exported)
        raise NothingToExport(f"nothing to export ({why}); nothing written")
    shown = str(output) if shown is None else shown
    if fmt in RAG_FORMATS:
        return notes + write_rag_export(store, exported, chosen, fmt, output, *inputs)
    collection = CollectionIndex({
        file: document_index(store.document(file))
        for file in dict.fromkeys(j.file for j in chosen)}) if fmt != "json" else None
    if sampled and fmt in SAMPLE_FORMATS:
        return notes + _export_sample(store, exported, chosen, collection, fmt, output,
                                      shown, *inputs)
    written = write_export(chosen, collection, fmt, output, *inputs)
    notes.append(f"{written} {'judgements' if fmt == 'json' else 'documents'} written to "
                 f"{shown} ({fmt})")
    return notes


def export_download(store: Store, fmt: str | None, assessor: str | None,
                    partial: bool = False) -> tuple[str, bytes, list[str]]:
    """The file name, bytes and notes of an export for a download: the qrels file, or a zip of
    the per-topic files of the XML formats (:func:`export_store`; the notes never name a
    temporary file). The name says the campaign, whose judgements and the format
    (:func:`download_name`).
    Through the serving process's own store: never a second one on the same file (finding 10
    of issue 25, see :func:`inexeval.assess.store._check_sqlite_file`)."""
    fmt = fmt or DEFAULT_FORMAT[store.mode()]
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "export"
        single = fmt in FILE_FORMATS
        name = download_name(store, fmt, assessor, ".json" if fmt in ("json", "bioasq") else
                             ".csv" if fmt == "chroma" else ".txt" if single else ".zip")
        notes = export_store(store, target, fmt, assessor, partial=partial, shown=name)
        if target.is_file():
            return name, target.read_bytes(), notes
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in sorted(target.iterdir()):
                archive.write(file, f"{name.removesuffix('.zip')}/{file.name}")
        return name, buffer.getvalue(), notes


def download_name(store: Store, fmt: str, assessor: str | None, suffix: str) -> str:
    """``CAMPAIGN-WHOSE-FORMAT.SUFFIX``: the store's file name without its extension (a
    database server: the database's name), the assessor (``first-assessors`` without one), the
    format; characters other than ASCII letters, digits, ``.``, ``_`` and ``-`` become ``_``."""
    import sqlalchemy as sa

    campaign = (sa.engine.make_url(store.url).database or "campaign") if not store_files(
        store.url) else Path(store.url).stem
    parts = [campaign, assessor or "first-assessors", fmt]
    return "-".join(re.sub(r"[^A-Za-z0-9._-]", "_", part)[:60] for part in parts) + suffix


def _articles(keys: list[tuple[str, str]], most: int = 20) -> str:
    """``file (assessor)`` of the first ``most`` keys, and how many more."""
    shown = ", ".join(f"{file} ({assessor})" for file, assessor in keys[:most])
    return shown + (f" and {len(keys) - most} more" if len(keys) > most else "")


def store_files(store_url: str | Path) -> list[str]:
    """The store's files (never to be written over: the database, its write-ahead log, its
    shared memory and rollback journal, the lock file of its serving processes), none for a
    database server."""
    text = str(store_url)
    if text.startswith(("postgresql", "postgres://")):
        return []
    return [text, *(f"{text}{suffix}" for suffix in ("-wal", "-shm", "-journal", "-writers"))]


def _export_sample(store: Store, topics: list[str], chosen: list[Judgement],
                   collection: CollectionIndex | None, fmt: str, output: str | Path,
                   shown: str, *inputs: str | None) -> list[str]:
    """The sampled qrels of a sampled campaign's ``topics`` (:mod:`inexeval.assess.sample`)."""
    samples = {topic: store.sample(topic) for topic in topics}
    judged = {(j.topic, j.file): j for j in chosen if j.status == "done"}
    if fmt == "sampled":
        lines = nist_lines(samples, judged)
    else:
        assert collection is not None
        lines = fol_sample_lines(samples, judged, collection)
    written = write_sample(lines, output, *inputs)
    notes = []
    waiting = unjudged_drawn(samples, judged)
    if waiting:
        notes.append(f"{waiting} drawn article(s) not judged yet: written as not sampled (-1)")
    notes.append(f"{written} sampled articles written to {shown} ({fmt}, with strata)")
    return notes
