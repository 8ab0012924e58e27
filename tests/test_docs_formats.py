"""The example files of docs/reference/formats.md are what inexeval reads.

Each example input on the page is a fenced block under a ``<!-- format: NAME -->`` marker; here
it is written to a file as it stands and read by inexeval's own reader, the format detected from
the content being the one the page names (a TREC run also of the kind it names: elements or
documents). Every format the page must show has an example, and every fenced block other than a
``console`` block (whose commands tests/test_docs_examples.py runs and whose output it
compares: the outputs of ``pool``, ``eval -q`` and ``--format scores``) carries a marker, so no
example goes unchecked. The JSON export of judgements is also what inexeval writes: read and
written again, it is the same text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from inexeval.assess.export import json_text, read_json
from inexeval.formats.bioasq import read_bioasq
from inexeval.formats.chroma import read_chunking, read_corpus_file, read_questions, read_span_run
from inexeval.formats.detect import (
    detect_assessments_format,
    detect_run_format,
    detect_run_kind,
    load_assessments,
    load_run,
)
from inexeval.formats.probes import is_questions_csv, looks_like_bioasq
from inexeval.formats.scores import read_scores
from inexeval.formats.topics import read_topics
from inexeval.formats.trec_jg import read_qrels_jg
from inexeval.formats.trec_prefs import read_prefs
from inexeval.formats.trec_zscores import read_zscores
from inexeval.rag import EXAMPLE

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "formats.md"
FENCE = re.compile(r"(?:^<!-- format: (?P<name>[\w-]+) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```$",
                   flags=re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str | None, str, str]]:
    """(marker name or None, language, text) of each fenced block of the page."""
    text = PAGE.read_text(encoding="utf-8")
    return [(m["name"], m["lang"], m["body"]) for m in FENCE.finditer(text)]


def _corpora() -> dict[str, str]:
    corpus = EXAMPLE / "corpora"
    return {p.stem: read_corpus_file(corpus, p.stem, "test") for p in corpus.iterdir()}


def _assessments(fmt: str, scale: str) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        assert detect_assessments_format(path) == fmt
        assessments = load_assessments(path)
        assert assessments.scale == scale and len(assessments.topics) > 0
    return check


def _run(fmt: str, kind: str) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        assert detect_run_format(path) == fmt
        assert detect_run_kind(path) == kind
        assert len(load_run(path).topics) > 0
    return check


def _questions(path: Path) -> None:
    assert is_questions_csv(path)
    assert len(read_questions(path, EXAMPLE / "corpora")) > 0


def _span_run(path: Path) -> None:
    assert len(read_span_run(path, _corpora()).rankings) > 0


def _chunking(path: Path) -> None:
    assert len(read_chunking(path, _corpora())) > 0


def _bioasq(golden: bool) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        assert looks_like_bioasq(path)
        questions = read_bioasq(path).questions.values()
        assert questions and all(q.snippets and q.has_documents == golden for q in questions)
    return check


def _topics(path: Path) -> None:
    assert len(read_topics(path)) > 0


def _read_by(reader: Callable[[Path], object]) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        assert reader(path)
    return check


def _judgements(path: Path) -> None:
    judgements = read_json(path)
    assert judgements and json_text(judgements) == path.read_text(encoding="utf-8")


CHECKS: dict[str, Callable[[Path], None]] = {
    "inex2002": _assessments("inex", "inex2002"),
    "inex2003": _assessments("inex", "inex2003"),
    "inex2005": _assessments("inex", "inex2005"),
    "fol-qrels": _assessments("fol", "fol"),
    "trec-qrels": _assessments("trec", "trec"),
    "sampled-qrels": _assessments("sampled", "trec"),
    "genomics": _assessments("genomics", "fol"),
    "trec-prefs": _read_by(read_prefs),
    "trec-qrels-jg": _read_by(read_qrels_jg),
    "trec-zscores": _read_by(read_zscores),
    "topics": _topics,
    "xml-run": _run("xml", "element"),
    "element-run": _run("trec", "element"),
    "fol-run": _run("fol", "passage"),
    "document-run": _run("trec", "document"),
    "chroma-questions": _questions,
    "span-run-fol": _span_run,
    "span-run-jsonl": _span_run,
    "chunking": _chunking,
    "bioasq-golden": _bioasq(golden=True),
    "bioasq-system": _bioasq(golden=False),
    "judgements-json": _judgements,
}
"""Each format the page must show an example of, and how inexeval reads it."""


def test_every_format_has_a_checked_example() -> None:
    examples = _examples()
    assert {name for name, _, _ in examples if name} == set(CHECKS)
    unchecked = [body[:60] for name, lang, body in examples if name is None and lang != "console"]
    assert unchecked == []


@pytest.mark.parametrize(("number", "name", "body"),
                         [(i, n, b) for i, (n, _, b) in enumerate(_examples()) if n],
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(_examples()) if n])
def test_example_is_read_by_inexeval(number: int, name: str, body: str, tmp_path: Path) -> None:
    path = tmp_path / f"example-{number}"
    encoding = "latin-1" if name == "genomics" else "utf-8"
    path.write_text(body, encoding=encoding)
    CHECKS[name](path)


def test_scores_output_is_read_back(tmp_path: Path) -> None:
    """The scores file the page shows (printed by ``cat scores.tsv``) reads into the matrix its
    header names."""
    text = PAGE.read_text(encoding="utf-8")
    shown = text[text.index("$ cat scores.tsv\n") + len("$ cat scores.tsv\n"):]
    path = tmp_path / "scores.tsv"
    path.write_text(shown[:shown.index("```")], encoding="utf-8")
    scores = read_scores(path)
    assert scores.runs == ("bert1ctx", "TREC2INEX") or list(scores.runs) == ["bert1ctx",
                                                                             "TREC2INEX"]
    assert list(scores.topics) == ["2009001", "2009003"]
