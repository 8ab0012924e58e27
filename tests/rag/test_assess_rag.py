"""The assessment app on a RAG corpus (issue 34): plain-text and Markdown documents, questions
CSVs as topics, span pools judged span by span, and the chroma and bioasq exports, by hand."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import warnings
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inexeval.assess.plain import text_document
from inexeval.assess.store import Store
from inexeval.cli import main
from inexeval.formats.bioasq import read_bioasq
from inexeval.formats.chroma import read_questions
from inexeval.formats.questions import read_question_topics
from inexeval.rag import EXAMPLE

pytest.importorskip("starlette")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.assess.conftest import Client, add_users, app_of

MARKDOWN = "# Notes\n\nFirst <b>paragraph</b>,\nstill first.  \n\n\n  Second & last.\n"


def test_a_plain_text_by_hand() -> None:
    document = text_document("notes", MARKDOWN)
    # '# Notes' 0-7, a blank line, 'First <b>paragraph</b>,' 9-32 and 'still first.' 33-45,
    # two spaces and two blank lines 45-50, two spaces, 'Second & last.' 52-66, '\n'
    assert document.elements == (("/article[1]", 0, 67), ("/article[1]/p[1]", 0, 7),
                                 ("/article[1]/p[2]", 9, 45), ("/article[1]/p[3]", 52, 66))
    assert [MARKDOWN[s:e] for _, s, e in document.elements[1:]] == [
        "# Notes", "First <b>paragraph</b>,\nstill first.", "Second & last."]
    assert document.text_nodes == ((1, 0, 7), (0, 7, 9), (2, 9, 45), (0, 45, 52), (3, 52, 66),
                                   (0, 66, 67))


@given(st.text(alphabet="ab \n\t", max_size=40))
def test_text_nodes_tile_the_text_and_paragraphs_hold_no_blank_line(text: str) -> None:
    document = text_document("d", text)
    assert "".join(text[s:e] for _, s, e in document.text_nodes) == text
    assert [s for _, s, _ in document.text_nodes] == sorted(s for _, s, _ in document.text_nodes)
    for _, start, end in document.elements[1:]:
        paragraph = text[start:end]
        assert paragraph == paragraph.strip() and paragraph
        assert all(line.strip() for line in paragraph.split("\n"))


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "notes.md").write_text(MARKDOWN, encoding="utf-8")
    (corpus / "sub" / "plain.txt").write_text("Ünïcode \U0001F600 text: offsets in code points.",
                                              encoding="utf-8")
    return corpus


def test_whole_markdown_documents_judged_in_highlight_mode(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path)
    questions = tmp_path / "q.csv"
    questions.write_text("question,corpus_id\nWhat is first?,notes\nWhich offsets?,plain\n")
    pool = tmp_path / "pool.tsv"
    pool.write_text("0\tnotes\t\t1\t1\n1\tsub/plain\t\t1\t1\n")
    store = str(tmp_path / "s.db")
    assert main(["assess", "init", store, "--collection", str(corpus), "--topics",
                 str(questions), "--pool", str(pool), "--mode", "highlight"]) == 0
    add_users(store, {"alice": ["0", "1"]})
    with TestClient(app_of(store)) as http:
        alice = Client(http, "alice")
        url = "/api/topics/0/docs/notes"
        content = alice.get(url + "/content").json()
        # markup is text: the JSON carries the document as it is, the page writes text nodes
        assert content["text"] == MARKDOWN
        assert [e["path"] for e in content["elements"]] == [
            "/article[1]", "/article[1]/p[1]", "/article[1]/p[2]", "/article[1]/p[3]"]
        holding = alice.post(url + "/check", {"passages": [[18, 27]]}).json()["holding"]
        assert holding == ["/article[1]", "/article[1]/p[2]"]
        saved = alice.put(url, {"version": 0, "status": "done", "passages": [[18, 27]],
                                "best_entry_point": 18,
                                "exhaustivity": {p: "2" for p in holding}})
        assert saved.status_code == 200, saved.text
        plain = "/api/topics/1/docs/sub/plain"
        # the emoji is one character: 'offsets in code points.' is [16, 39)
        assert alice.get(plain + "/content").json()["text"][8] == "\U0001F600"
        assert alice.put(plain, {"version": 0, "status": "done", "passages": [[16, 39]],
                                 "best_entry_point": 16, "exhaustivity": {
                                     "/article[1]": "2", "/article[1]/p[1]": "2"}}
                         ).status_code == 200
    capsys.readouterr()
    qrels = tmp_path / "qrels.fol"
    assert main(["assess", "export", store, "-o", str(qrels)]) == 0
    assert qrels.read_text().splitlines() == ["0 Q0 notes 9 67 18 18:9",
                                              "1 Q0 sub/plain 23 39 16 16:23"]
    exported = tmp_path / "judged.csv"
    assert main(["assess", "export", store, "--format", "chroma", "-o", str(exported)]) == 0
    rows = list(csv.reader(io.StringIO(exported.read_text(encoding="utf-8"))))
    assert rows[1] == ["What is first?", json.dumps(
        [{"content": "paragraph", "start_index": 18, "end_index": 27}]), "notes"]
    assert json.loads(rows[2][1])[0]["content"] == "offsets in code points."
    assert rows[2][2] == "sub/plain"


def _span_store(tmp_path: Path, pool_text: str, mode: str = "passages") -> tuple[str, Path]:
    corpus = _corpus(tmp_path)
    questions = tmp_path / "q.csv"
    questions.write_text("question\nq zero\nq one\nq two\n")
    pool = tmp_path / "pool.tsv"
    pool.write_text(pool_text)
    store = str(tmp_path / "s.db")
    assert main(["assess", "init", store, "--collection", str(corpus), "--topics",
                 str(questions), "--pool", str(pool), "--mode", mode]) == 0
    with Store.open(store) as opened:
        pooled = opened.topic_ids()
    add_users(store, {"alice": pooled})
    return store, corpus


def _done(store: str, topic: str, file: str, passages: list[tuple[int, int]]) -> None:
    with Store.open(store) as opened:
        opened.save(topic, file, "alice", 0, lambda j: dataclasses.replace(
            j, status="done", passages=tuple(passages),
            best_entry_point=passages[0][0] if passages else None))


def test_span_units_exported_in_the_documents_offsets(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # question 0: two overlapping units of notes (a pool made by hand) and one of plain;
    # question 1: nothing found; question 2: evidence in two documents
    store, _ = _span_store(tmp_path, "0\tnotes\t9\t30\t1\t1\n0\tnotes\t20\t43\t2\t1\n"
                                     "1\tnotes\t0\t7\t1\t1\n"
                                     "2\tnotes\t0\t7\t1\t1\n2\tsub/plain\t0\t10\t1\t1\n")
    _done(store, "0", "notes:9-30", [(6, 21)])        # notes [15, 30)
    _done(store, "0", "notes:20-43", [(5, 23)])       # notes [25, 43): merged with [15, 30)
    _done(store, "1", "notes:0-7", [])
    _done(store, "2", "notes:0-7", [(0, 7)])
    _done(store, "2", "sub/plain:0-10", [(0, 5)])
    capsys.readouterr()
    exported = tmp_path / "judged.csv"
    assert main(["assess", "export", store, "-o", str(exported)]) == 0  # chroma by default
    err = capsys.readouterr().err
    assert "left out of the chroma CSV, no evidence highlighted: 1" in err
    assert "evidence in several documents (a Chroma question has one corpus; --format " \
           "bioasq keeps them): 2 (notes, sub/plain)" in err
    rows = list(csv.reader(io.StringIO(exported.read_text(encoding="utf-8"))))
    assert rows == [["question", "references", "corpus_id"], ["q zero", json.dumps(
        [{"content": MARKDOWN[15:43], "start_index": 15, "end_index": 43}]), "notes"]]
    (question,) = read_questions(exported, tmp_path / "corpus").questions
    assert question.excerpts.tolist() == [[15, 43]]

    golden = tmp_path / "golden.json"
    assert main(["assess", "export", store, "--format", "bioasq", "-o", str(golden)]) == 0
    read = read_bioasq(golden)
    assert list(read) == ["0", "1", "2"]
    assert read.questions["1"].snippets == () and not read.questions["1"].has_documents
    assert [(s.document, s.begin, s.end) for s in read.questions["2"].snippets] == [
        ("notes", 0, 6), ("sub/plain", 0, 4)]
    assert json.loads(golden.read_text())["questions"][2]["documents"] == ["notes", "sub/plain"]

    capsys.readouterr()
    assert main(["assess", "export", store, "--format", "fol", "-o",
                 str(tmp_path / "x.fol")]) == 2
    assert "a span campaign's units are spans, not documents: export chroma, bioasq" in \
        capsys.readouterr().err


def test_rows_renumbered_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = _span_store(tmp_path, "0\tnotes\t0\t7\t1\t1\n2\tnotes\t9\t43\t1\t1\n")
    _done(store, "0", "notes:0-7", [])
    _done(store, "2", "notes:9-43", [(0, 5)])
    capsys.readouterr()
    assert main(["assess", "export", store, "-o", str(tmp_path / "j.csv")]) == 0
    assert "a question's id is its row number in the CSV; these differ from their topics' " \
           "(question=topic): 0=2\n" in capsys.readouterr().err


def test_graded_modes_have_no_evidence(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = _span_store(tmp_path, "0\tnotes\t0\t7\t1\t1\n", mode="2002")
    capsys.readouterr()
    assert main(["assess", "export", store, "--format", "bioasq", "-o",
                 str(tmp_path / "g.json")]) == 2
    assert "--format bioasq exports highlighted passages: this campaign's 2002 mode has none" \
        in capsys.readouterr().err


def test_chroma_questions_as_topics() -> None:
    topics = read_question_topics(EXAMPLE / "questions_df.csv")
    questions = read_questions(EXAMPLE / "questions_df.csv")
    assert list(topics) == questions.ids()
    assert [t.title for t in topics.values()] == [q.text for q in questions.questions]


@pytest.mark.parametrize(("pool", "expected"), [
    ("0\tnotes\tx\t7\t1\t1\n", "pool.tsv:1: start 'x' is not a whole number"),
    ("0\tnotes\t7\t7\t1\t1\n", "pool.tsv:1: span [7, 7) is empty or ends before it starts"),
    ("0\tnotes\t0\t7\t0\t1\n", "pool.tsv:1: min_rank '0' is not a positive integer"),
    ("0\tnotes\t0\t7\t1\t1\n0\tnotes\t0\t7\t2\t1\n",
     "pool.tsv:2: question 0 lists notes [0, 7) twice"),
    ("0\t\t0\t7\t1\t1\n", "pool.tsv:1: empty doc"),
    ("0\tnotes\t0\t7\t1\t1\n0\tnotes\t7\t1\t1\n",
     "pool.tsv:2: 5 tab-separated fields, expected 6"),
    ("0\tnotes\t60\t68\t1\t1\n",
     "pool.tsv:1: span [60, 68) ends beyond the 67 characters of document notes"),
    ("0\tnone\t0\t7\t1\t1\n", "pool.tsv:1: document none is not in the collection"),
    ("0\t../notes\t0\t7\t1\t1\n", "pool.tsv:1: document ../notes is not in the collection"),
    ("9\tnotes\t0\t7\t1\t1\n", "pool.tsv:1: question 9 is not in the topic file"),
])
def test_malformed_span_pools(tmp_path: Path, capsys: pytest.CaptureFixture[str], pool: str,
                              expected: str) -> None:
    corpus = _corpus(tmp_path)
    questions = tmp_path / "q.csv"
    questions.write_text("question\nq zero\n")
    (tmp_path / "pool.tsv").write_text(pool)
    store = tmp_path / "s.db"
    code = main(["assess", "init", str(store), "--collection", str(corpus), "--topics",
                 str(questions), "--pool", str(tmp_path / "pool.tsv")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and expected in err, err
    assert not store.exists()


@pytest.mark.parametrize(("text", "expected"), [
    ("question\nfine\n\n", "q.csv:3: question 1 is empty"),
    ("question\n", "q.csv: no question"),
    ("question\n\xff\n", "q.csv: not UTF-8"),
])
def test_malformed_question_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  text: str, expected: str) -> None:
    corpus = _corpus(tmp_path)
    questions = tmp_path / "q.csv"
    questions.write_bytes(text.encode("latin-1"))
    (tmp_path / "pool.tsv").write_text("0\tnotes\t0\t7\t1\t1\n")
    code = main(["assess", "init", str(tmp_path / "s.db"), "--collection", str(corpus),
                 "--topics", str(questions), "--pool", str(tmp_path / "pool.tsv")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and expected in err, err


def test_two_files_of_one_name_are_ambiguous(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "notes.txt").write_text("other")
    questions = tmp_path / "q.csv"
    questions.write_text("question\nq\n")
    (tmp_path / "pool.tsv").write_text("0\tnotes\t0\t3\t1\t1\n")
    code = main(["assess", "init", str(tmp_path / "s.db"), "--collection", str(corpus),
                 "--topics", str(questions), "--pool", str(tmp_path / "pool.tsv")])
    err = capsys.readouterr().err
    assert code == 2 and "pool.tsv:1: document notes: corpus 'notes' is ambiguous" in err, err


def test_a_link_out_of_the_corpus_is_refused(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path)
    (tmp_path / "secret.md").write_text("not to be served")
    (corpus / "leak.md").symlink_to(tmp_path / "secret.md")
    questions = tmp_path / "q.csv"
    questions.write_text("question\nq\n")
    (tmp_path / "pool.tsv").write_text("0\tleak\t0\t3\t1\t1\n")
    code = main(["assess", "init", str(tmp_path / "s.db"), "--collection", str(corpus),
                 "--topics", str(questions), "--pool", str(tmp_path / "pool.tsv")])
    err = capsys.readouterr().err
    assert code == 2 and "pool.tsv:1: document leak: leak.md links out of the collection" in err


def test_evidence_and_rows_by_hand() -> None:
    from inexeval.assess.export_rag import Evidence, chroma_rows, evidence
    from inexeval.assess.model import Judgement

    texts = {"d:10-20": "abcdefghij", "d:18-30": "ijklmnopqrst", "e": "whole"}
    spans = {"d:10-20": ("d", 10), "d:18-30": ("d", 18)}
    judged = [Judgement("3", "d:10-20", "a", "done", ((2, 4), (7, 10))),
              Judgement("3", "d:18-30", "a", "done", ((0, 3),)),     # d [18, 21): merged
              Judgement("3", "e", "a", "in-progress", ((0, 5),)),     # not done: no evidence
              Judgement("10", "e", "a", "done", ((1, 3),))]
    found = evidence(judged, texts, spans)
    assert list(found) == ["3", "10"]
    assert found["3"] == [Evidence("d", 12, 14, "cd"), Evidence("d", 17, 21, "hijk")]
    assert found["10"] == [Evidence("e", 1, 3, "ho")]
    topics = [str(t) for t in range(25)]
    many = {t: [Evidence("e", 0, 1, "w")] for t in topics[1:]}
    rows, notes = chroma_rows(topics, {t: f"q{t}" for t in topics}, many)
    assert rows[1] == ["q1", '[{"content": "w", "start_index": 0, "end_index": 1}]', "e"]
    assert notes == ["left out of the chroma CSV, no evidence highlighted: 0",
                     "a question's id is its row number in the CSV; these differ from their "
                     "topics' (question=topic): "
                     + " ".join(f"{t - 1}={t}" for t in range(1, 21)) + " (and 4 more)"]


@given(st.lists(st.tuples(st.sampled_from("de"), st.integers(0, 30), st.integers(1, 15),
                          st.lists(st.tuples(st.integers(0, 15), st.integers(1, 6)),
                                   max_size=3)), max_size=6))
def test_evidence_is_the_union_of_the_highlighted_characters(
        units: list[tuple[str, int, int, list[tuple[int, int]]]]) -> None:
    from inexeval.assess.export_rag import evidence
    from inexeval.assess.model import Judgement, merge_passages

    corpus = {"d": "".join(chr(65 + i % 26) for i in range(50)), "e": "x" * 20 + "y" * 30}
    texts, spans, judged = {}, {}, []
    expected: set[tuple[str, int]] = set()
    for number, (doc, start, length, highlights) in enumerate(units):
        name = f"{doc}:{number}"
        texts[name], spans[name] = corpus[doc][start:start + length], (doc, start)
        passages = merge_passages([(s, min(s + n, length)) for s, n in highlights if s < length])
        judged.append(Judgement("1", name, "a", "done", passages))
        expected |= {(doc, start + i) for s, e in passages for i in range(s, e)}
    pieces = evidence(judged, texts, spans).get("1", [])
    assert {(p.doc, i) for p in pieces for i in range(p.start, p.end)} == expected
    assert all(p.content == corpus[p.doc][p.start:p.end] for p in pieces)
    assert all(a.doc != b.doc or a.end < b.start for a, b in pairwise(pieces))
