"""Export of judgements (assess/export.py): every format read back by the readers that
``inexeval eval`` uses, to exactly what was saved; and through the real command line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from inexeval import load_assessments
from inexeval.assess.export import (
    _TextNodes,
    done_by_topic,
    fol_lines,
    json_text,
    read_json,
    write_export,
)
from inexeval.assess.model import Judgement
from inexeval.cli import main
from inexeval.collection.build import build_index
from inexeval.collection.implicit import resolve_passages
from inexeval.collection.index import CollectionIndex
from inexeval.errors import InexevalError

DOCUMENTS = {
    # d1: 10 + 5 + 6 + 5 + 11 + 7 + 16 characters; é is one, the emoji one code point
    "d1": "<article><fm><ti>Caf&#233; title</ti></fm><bdy><sec><st>Intro</st>"
          "<p>First <it>mixed</it> text here.</p><p>Second \U0001F600 para.</p></sec>"
          "<sec><p>Third paragraph.</p></sec></bdy></article>",
    "sub/d2": "<article><bdy><p>Only one paragraph of text.</p></bdy></article>",
    "d3": "<article><fm><ti>Irrelevant</ti></fm><bdy><p>Nothing to see here.</p></bdy>"
          "</article>",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("collection")
    for name, text in DOCUMENTS.items():
        (root / f"{name}.xml").parent.mkdir(parents=True, exist_ok=True)
        (root / f"{name}.xml").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def collection(folder: Path) -> CollectionIndex:
    return build_index(folder)


def _holding(collection: CollectionIndex, file: str,
             passages: tuple[tuple[int, int], ...]) -> list[str]:
    """The elements of ``file`` holding highlighted text."""
    doc = collection[file]
    return [p for i, p in enumerate(doc.paths)
            if any(min(e, int(doc.end[i])) > max(s, int(doc.start[i])) for s, e in passages)]


def _highlight_judgements(collection: CollectionIndex) -> list[Judgement]:
    doc = collection["d1"]
    p1 = doc.span("/article[1]/bdy[1]/sec[1]/p[1]")
    p3 = doc.span("/article[1]/bdy[1]/sec[2]/p[1]")
    assert p1 is not None and p3 is not None
    # from inside "First" across <it> into the next paragraph, and all of "Third paragraph."
    across = ((p1[0] + 2, p1[1] + 9), p3)
    exhaustivity = {p: "?" if p.endswith("it[1]") else ("1" if p.endswith("sec[1]") else "2")
                    for p in _holding(collection, "d1", across)}
    whole = ((0, collection["sub/d2"].length),)
    return [
        Judgement("2", "d1", "ann", "done", across, p1[0] + 4, exhaustivity),
        Judgement("2", "d3", "ann", "done"),
        Judgement("2", "sub/d2", "ann", "in-progress", whole),
        Judgement("10", "sub/d2", "ann", "done", whole, None,
                  {p: "2" for p in _holding(collection, "sub/d2", whole)}),
        Judgement("10", "d1", "ann", "unseen"),
    ]


def test_fol_lines_as_the_official_qrels(collection: CollectionIndex) -> None:
    judgements = _highlight_judgements(collection)
    (s1, e1), (s2, e2) = judgements[0].passages
    bep, d1, d2, d3 = (judgements[0].best_entry_point, collection["d1"].length,
                       collection["sub/d2"].length, collection["d3"].length)
    assert list(fol_lines(judgements, collection)) == [
        f"2 Q0 d1 {e1 - s1 + e2 - s2} {d1} {bep} {s1}:{e1 - s1} {s2}:{e2 - s2}\n",
        f"2 Q0 d3 0 {d3}\n",  # judged non-relevant: rsize 0, the length, nothing else
        f"10 Q0 sub/d2 {d2} {d2} -1 0:{d2}\n",  # no best entry point given
    ]
    assert list(done_by_topic(judgements)) == ["2", "10"]


def test_fol_reads_back_exactly(collection: CollectionIndex, tmp_path: Path) -> None:
    judgements = _highlight_judgements(collection)
    target = tmp_path / "qrels.txt"
    assert write_export(judgements, collection, "fol", target) == 3
    read = load_assessments(target)
    assert read.scale == "fol" and list(read) == ["2", "10"]
    for j in judgements:
        if j.status != "done":
            assert j.file not in read[j.topic].documents
            continue
        ta = read[j.topic]
        i = ta.index[(j.file, "")]
        assert int(ta.dim("length")[i]) == collection[j.file].length
        assert int(ta.dim("rsize")[i]) == sum(e - s for s, e in j.passages)
        spans = ta.highlights.get(j.file, np.zeros((0, 2), dtype=np.int64))
        assert [tuple(r) for r in spans.tolist()] == list(j.passages)
        bep = ta.best_entry_points.get(j.file)
        assert (None if bep in (None, -1) else bep) == (j.best_entry_point if j.passages
                                                        else None)


def test_inex2005_reads_back_exactly(collection: CollectionIndex, tmp_path: Path) -> None:
    judgements = _highlight_judgements(collection)
    target = tmp_path / "assessments"
    assert write_export(judgements, collection, "inex2005", target) == 3
    assert sorted(p.name for p in target.iterdir()) == ["topic-10.xml", "topic-2.xml"]
    read = load_assessments(target)
    assert read.scale == "inex2005"
    for j in judgements:
        ta = resolve_passages(read[j.topic], collection)
        if j.status != "done" or not j.passages:
            assert j.file not in ta.documents
            continue
        assert [tuple(r) for r in ta.highlights[j.file].tolist()] == list(j.passages)
        assert ta.best_entry_points.get(j.file) == j.best_entry_point
        got = {p: v for f, p, v in zip(ta.files, ta.paths, ta.dim("exhaustivity")) if f == j.file}
        assert got == {p: {"?": -1, "1": 1, "2": 2}[v] for p, v in j.exhaustivity.items()}
        doc = collection[j.file]
        for f, p, size, rsize in zip(ta.files, ta.paths, ta.dim("size"), ta.dim("rsize")):
            if f == j.file:
                start, end = doc.span(p) or (0, 0)
                inside = sum(max(0, min(e, end) - max(s, start)) for s, e in j.passages)
                assert (size, rsize) == (end - start, inside)
    assert b'<file name="d3"/>' in (target / "topic-2.xml").read_bytes()


@pytest.mark.parametrize(("scale", "values", "dims"), [
    ("inex2002", {"/article[1]/bdy[1]/sec[1]/p[2]": "3E", "/article[1]/bdy[1]/sec[1]": "2L",
                  "/article[1]/fm[1]/ti[1]": "0N"},
     lambda v: (int(v[0]), "NSLE".index(v[1]))),
    ("inex2003", {"/article[1]/bdy[1]/sec[1]/p[2]": "E3S3", "/article[1]/bdy[1]/sec[1]": "E2S1",
                  "/article[1]/fm[1]/ti[1]": "E0S0"},
     lambda v: (int(v[1]), int(v[3]))),
])
def test_2002_2003_read_back_exactly(collection: CollectionIndex, tmp_path: Path, scale: str,
                                     values: dict[str, str], dims: object) -> None:
    judgements = [Judgement("7", "d1", "bob", "done", values=values),
                  Judgement("7", "d3", "bob", "done")]
    write_export(judgements, collection, scale, tmp_path / "out")
    ta = load_assessments(tmp_path / "out")["7"]
    names = ("relevance", "coverage") if scale == "inex2002" else ("exhaustivity", "specificity")
    got = {(f, p): (int(ta.dim(names[0])[i]), int(ta.dim(names[1])[i]))
           for i, (f, p) in enumerate(zip(ta.files, ta.paths))}
    expected = {("d1", p): dims(v) for p, v in values.items()}  # type: ignore[operator]
    expected[("d3", "/article[1]")] = (0, 0)  # non-relevant: the root judged 0N / E0S0
    assert got == expected
    assert list(ta.paths[:3]) == ["/article[1]/fm[1]/ti[1]", "/article[1]/bdy[1]/sec[1]",
                                  "/article[1]/bdy[1]/sec[1]/p[2]"]  # document order


def test_json_round_trip(collection: CollectionIndex, tmp_path: Path) -> None:
    judgements = [replace(j, version=3, seconds=12.5, updated="2026-11-24T05:00:00Z")
                  for j in _highlight_judgements(collection)]
    judgements.append(Judgement("7", "d1", "bob", "done", values={"/article[1]": "E2S2"}))
    write_export(judgements, None, "json", tmp_path / "j.json")
    back = read_json(tmp_path / "j.json")
    assert sorted(back, key=repr) == sorted(judgements, key=repr)
    assert json.loads(json_text(judgements))["format"] == "inexeval-judgements-1"


def test_every_offset_round_trips_through_an_xpointer(collection: CollectionIndex) -> None:
    from inexeval.model.assessments import build_topic

    doc = collection["d1"]
    nodes = _TextNodes(doc, "d1")
    pairs = [(s, e) for s in range(doc.length) for e in range(s + 1, doc.length + 1, 3)]
    ta = replace(build_topic("1", "inex2005", []), passages={
        "d1": tuple((nodes.pointer(s, False), nodes.pointer(e, True)) for s, e in pairs)})
    resolved = resolve_passages(ta, collection, merge=False)
    assert sorted(map(tuple, resolved.highlights["d1"].tolist())) == sorted(pairs)
    assert nodes.pointer(doc.length, False).endswith(".16")  # the end of "Third paragraph."
    with pytest.raises(InexevalError, match="outside the text"):
        nodes.pointer(doc.length + 1, True)


def test_inconsistent_judgements_are_errors(collection: CollectionIndex, tmp_path: Path) -> None:
    cases = [
        ([Judgement("1", "d1", "a", "done"), Judgement("1", "d1", "b", "done")], "fol",
         "judged by both a and b"),
        ([Judgement("1", "nope", "a", "done")], "fol", "not in the collection"),
        ([Judgement("1", "d1", "a", "done", values={"/article[1]": "3E"})], "fol",
         "has 2002/2003 values"),
        ([Judgement("1", "d1", "a", "done", ((0, 3),))], "inex2002", "is highlighting"),
        ([Judgement("1", "d1", "a", "done", values={"/article[1]": "E3S3"})], "inex2002",
         "not on the 2002 scale"),
        ([Judgement("1", "d1", "a", "done", values={"/article[9]": "3E"})], "inex2002",
         "not in document d1"),
        ([Judgement("1", "d1", "a", "done", ((0, 3),), None,
                    {"/article[1]/bdy[1]": "2"})], "inex2005", "no highlighted text"),
        ([Judgement("1", "d1", "a", "done", (), None, {"/article[1]": "2"})], "fol",
         "nothing highlighted"),
        ([Judgement("1", "d1", "a", "done", ((0, 3), (3, 5)))], "fol", "apart from it"),
        ([Judgement("1", "d1", "a", "done", ((4, 6), (0, 3)))], "fol", "apart from it"),
        ([Judgement("1", "d1", "a", "done", ((-1, 3),))], "inex2005", "not inside"),
        ([Judgement("1", "d1", "a", "done", ((60, 68),))], "fol", "length 67"),
        ([Judgement("1", "d1", "a", "done")], "xml", "unknown export format"),
        ([Judgement("1", "d1", "a", "done")], "inex2005", "needs the collection"),
    ]
    for judgements, fmt, message in cases:
        with pytest.raises(InexevalError, match=message):
            write_export(judgements, None if message == "needs the collection" else collection,
                         fmt, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_exports_evaluate_through_the_command_line(collection: CollectionIndex, folder: Path,
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    judgements = _highlight_judgements(collection)
    write_export(judgements, collection, "fol", tmp_path / "qrels.txt")
    write_export(judgements, collection, "inex2005", tmp_path / "xml")
    run = tmp_path / "perfect.fol"  # exactly the highlighted passages: precision 1 everywhere
    run.write_text("".join(f"{j.topic} Q0 {j.file} {r} {10 - r} perfect {s} {e - s}\n"
                           for j in judgements if j.status == "done"
                           for r, (s, e) in enumerate(j.passages, 1)))
    assert main(["eval", str(tmp_path / "qrels.txt"), str(run), "--task", "focused", "-q"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert {(m, t, v) for m, t, v in lines if m == "MAiP"} == {("MAiP", "all", "1.0000")}
    assert {t for m, t, _ in lines if m == "AiP"} == {"2", "10"}
    assert main(["eval", str(tmp_path / "xml"), str(run), "--collection", str(folder),
                 "-m", "HiXEval_P", "-m", "HiXEval_R", "-q"]) == 0
    values = {(m, t): v for m, t, v in (line.split("\t") for line
                                         in capsys.readouterr().out.splitlines())}
    assert values[("HiXEval_P", "all")] == values[("HiXEval_R", "all")] == "1.0000"
