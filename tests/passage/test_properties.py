"""Invariants of the character-based tasks (issue 5) and the -m families."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval.evaluation import evaluate
from inexeval.formats.fol import read_fol_qrels, read_fol_run
from inexeval.measures.focused import evaluate_task
from inexeval.measures.registry import parse_measure

from .conftest import same

article = st.lists(st.tuples(st.integers(0, 50), st.integers(1, 30)), min_size=1, max_size=4)
topic_qrels = st.lists(article, min_size=1, max_size=4)


def _write(folder: Path, judged: list[list[tuple[int, int]]], run_lines: list[str]) -> tuple[
        Path, Path]:
    lines = []
    for a, passages in enumerate(judged):
        spans = sorted({s: n for s, n in passages}.items())
        disjoint, end = [], -1
        for s, n in spans:
            if s >= end:
                disjoint.append((s, n))
                end = s + n
        size = sum(n for _, n in disjoint)
        lines.append(f"1 Q0 D{a} {size} 200 0 " + " ".join(f"{s}:{n}" for s, n in disjoint))
    (folder / "q.txt").write_text("\n".join(lines) + "\n")
    (folder / "r.run").write_text("".join(run_lines))
    return folder / "q.txt", folder / "r.run"


@settings(max_examples=40, deadline=None)
@given(topic_qrels)
def test_exactly_the_relevant_passages_give_precision_one(
        tmp_path_factory: pytest.TempPathFactory, judged: list[list[tuple[int, int]]]) -> None:
    folder = tmp_path_factory.mktemp("p")
    qrels_path, _ = _write(folder, judged, [])
    qrels = read_fol_qrels(qrels_path)
    run = [f"1 Q0 {f} 1 1 r {s} {e - s}\n" for f, spans in qrels["1"].highlights.items()
           for s, e in spans.tolist()]
    (folder / "r.run").write_text("".join(run))
    values = {r.measure: r.value for r in evaluate_task(qrels, [read_fol_run(folder / "r.run")],
                                                        "focused").rows}
    assert values["char_prec"] == 1.0 and values["char_rec"] == 1.0
    assert values["AiP"] == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(topic_qrels, st.lists(st.tuples(st.integers(0, 5), st.integers(0, 150), st.integers(1, 40)),
                             min_size=1, max_size=8))
def test_a_non_relevant_passage_at_the_end_never_raises_aip(
        tmp_path_factory: pytest.TempPathFactory, judged: list[list[tuple[int, int]]],
        returned: list[tuple[int, int, int]]) -> None:
    folder = tmp_path_factory.mktemp("p")
    lines = [f"1 Q0 D{a} 1 1 r {s} {n}\n" for a, s, n in returned]
    qrels_path, run_path = _write(folder, judged, lines)
    qrels = read_fol_qrels(qrels_path)
    before = evaluate_task(qrels, [read_fol_run(run_path)], "thorough").rows
    run_path.write_text("".join(lines) + "1 Q0 unjudged 1 1 r 0 10\n")
    after = evaluate_task(qrels, [read_fol_run(run_path)], "thorough").rows
    aip = {r.topic: r.value for r in before if r.measure == "AiP"}["1"]
    assert {r.topic: r.value for r in after if r.measure == "AiP"}["1"] <= aip  # type: ignore[operator]


def test_measure_families_agree_with_the_task(tmp_path: Path) -> None:
    assert str(parse_measure("iP@0.01")) == str(parse_measure("iP[0.01]")) == "iP[0.01]"
    assert str(parse_measure("gP@5")) == "gP[5]"
    (tmp_path / "q.txt").write_text("1 Q0 A 100 1000 100 500:60 100:40\n2 Q0 E 100 1000 0 0:100\n")
    (tmp_path / "r.run").write_text("1 Q0 A 1 1 r 100 29\n1 Q0 A 2 1 r 500 60\n"
                                    "2 Q0 E 1 1 r 0 29\n")
    qrels, run = read_fol_qrels(tmp_path / "q.txt"), read_fol_run(tmp_path / "r.run")
    official = evaluate_task(qrels, [run], "focused", per_topic=False)
    measured = evaluate(qrels, run, ["iP[0.01]", "MAiP", "char_prec", "art_f1"])
    for name, official_name in (("iP[0.01]", "iP[0.01]"), ("MAiP", "MAiP"),
                                ("char_prec", "char_prec"), ("art_f1", "art_f1")):
        assert same(measured.mean(name), official.mean(official_name))
    exact = evaluate(qrels, run, ["MAiP(exact_buckets=True)"]).mean("MAiP(exact_buckets=True)")
    assert exact is not None and exact > (official.mean("MAiP") or 0)
    context = evaluate(qrels, run, ["MAgP", "gP@1", "gR[50]"])
    official_ric = evaluate_task(qrels, [run], "relevant-in-context", per_topic=False)
    for name in ("MAgP", "gP[1]", "gR[50]"):
        assert same(context.mean(name), official_ric.mean(name))
