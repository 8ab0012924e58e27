"""The element-to-passage bridge, round-tripped on the demo collection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from inexeval import demo
from inexeval.cli import main
from inexeval.collection.build import build_index
from inexeval.convert import element_run_to_passages, highlights_to_fol
from inexeval.formats.detect import load_assessments, load_run
from inexeval.formats.fol import read_fol_qrels, read_fol_run, write_fol_qrels, write_fol_run
from inexeval.measures.focused import evaluate_task
from inexeval.model import Run
from inexeval.model.run import make_topic_run


@pytest.fixture(scope="module")
def collection():  # type: ignore[no-untyped-def]
    return build_index(demo.COLLECTION)


def test_assessments_round_trip(collection, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = load_assessments(demo.ASSESSMENTS_2005)
    qrels = highlights_to_fol(source, collection)
    write_fol_qrels(qrels, tmp_path / "q.txt")
    back = read_fol_qrels(tmp_path / "q.txt")
    assert set(back) == set(source)
    for topic, ta in source.items():
        article = {f: r for f, p, r in zip(ta.files, ta.paths, ta.dim("rsize"))
                   if p == "/article[1]"}
        got = back[topic]
        assert dict(zip(got.files, got.dim("rsize"))) == article
        for file, spans in got.highlights.items():
            assert np.array_equal(spans, qrels[topic].highlights[file])
            assert int(got.dim("length")[list(got.files).index(file)]) == collection[file].length


def test_run_round_trip_and_character_counts(collection, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = load_run(demo.RUNS[1])
    passages = element_run_to_passages(run, collection)
    write_fol_run(passages, tmp_path / "r.txt")
    back = read_fol_run(tmp_path / "r.txt")
    qrels = highlights_to_fol(load_assessments(demo.ASSESSMENTS_2005), collection)
    for topic, results in run.items():
        spans = [collection.span(f, p) for f, p in zip(results.files, results.paths)]
        assert back[topic].offsets.tolist() == [s[0] for s in spans]
        assert (back[topic].offsets + back[topic].lengths).tolist() == [s[1] for s in spans]
    results = evaluate_task(qrels, [back], "focused")
    for topic, ta in qrels.items():
        relevant = 0
        for f, start, length in zip(back[topic].files, back[topic].offsets,
                                    back[topic].lengths):
            for a, b in ta.highlights.get(f, np.zeros((0, 2), dtype=np.int64)).tolist():
                relevant += max(0, min(b, start + length) - max(a, start))
        assert results.value(back.name, topic, "rel_ret_size") == relevant


def test_unknown_element_becomes_non_existent_passage(collection) -> None:  # type: ignore[no-untyped-def]
    run = Run("r", "element", {"1": make_topic_run(
        "1", ["co/2000/r7000", "nowhere"], paths=["/article[1]/bdy[1]", "/article[1]"])})
    with pytest.warns(UserWarning, match="non-existent"):
        converted = element_run_to_passages(run, collection)
    assert converted["1"].missing.tolist() == [False, True]
    assert converted.kind == "passage"


def test_convert_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.fol"
    assert main(["convert", "run", str(demo.RUNS[0]), "--collection", str(demo.COLLECTION),
                 "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == sum(len(t) for t in load_run(demo.RUNS[0]).values())
    assert main(["convert", "assessments", str(demo.ASSESSMENTS_2004), "--collection",
                 str(demo.COLLECTION), "-o", str(tmp_path / "q")]) == 2
    assert "2005" in capsys.readouterr().err
