"""``inexeval trec_eval -R qrels_jg``: trec_eval 10.0's own judgement-group test (its expected
output, line for line), numbers worked by hand, bad input, and (when the built trec_eval is at
hand, ``TREC_EVAL``) its printed output on random judgement groups and runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.measures.test_trec_eval import TREC_EVAL, _write

from inexeval.cli import main

SUITE = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


@pytest.mark.parametrize("qrels", ["qrels.123.gz", "qrels.comments.123.gz"])
def test_trec_eval_suite(qrels: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trec_eval", "-m", "qrels_jg", "-q", "-R", "qrels_jg", str(SUITE / qrels),
                 str(SUITE / "results.test")]) == 0
    assert capsys.readouterr().out == (SUITE / "out.test.qrels_jg").read_text(encoding="utf-8")


def test_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two assessors of topic 1: for group a, d1 and d2 are relevant (AP (1/1 + 2/3) / 2, P@2
    1/2), for group b only d3 (AP 1/2, P@2 1/2): the topic's values are their means."""
    qrels = _write(tmp_path / "qrels", "1 a d1 1\n1 a d2 1\n1 b d3 2\n1 b d1 0\n")
    run = _write(tmp_path / "run", "1 Q0 d1 1 3 r\n1 Q0 d3 2 2 r\n1 Q0 d2 3 1 r\n")
    assert main(["trec_eval", "-q", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.2",
                 str(qrels), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    ap = ((1 / 1 + 2 / 3) / 2 + 1 / 2) / 2
    assert lines[:2] == [f"map_avgjg             \t1\t{ap:6.4f}", "P_avgjg_2             \t1\t0.5000"]


@pytest.mark.parametrize("text, problem", [
    ("1 a d1 1\n1 a d1 0\n", "judges 'd1' twice"),
    ("1 a d1 x\n", "is not an integer"),
    ("1 a d1\n", "expected 4"),
])
def test_bad_qrels(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                   problem: str) -> None:
    qrels = _write(tmp_path / "qrels", text)
    run = _write(tmp_path / "run", "1 Q0 d1 1 3 r\n")
    assert main(["trec_eval", "-R", "qrels_jg", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert problem in err and f"{qrels}:" in err and len(err.strip().splitlines()) == 1


def test_a_document_in_two_groups_is_no_repeat(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels = _write(tmp_path / "qrels", "1 a d1 1\n1 b d1 0\n")
    run = _write(tmp_path / "run", "1 Q0 d1 1 3 r\n")
    assert main(["trec_eval", "-R", "qrels_jg", "-m", "map_avgjg", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == "map_avgjg             \tall\t0.5000\n"


def test_measures_of_other_formats_are_told(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trec_eval", "-m", "map_avgjg", str(SUITE / "qrels.test"),
                 str(SUITE / "results.test")]) == 2
    assert "-R qrels_jg" in capsys.readouterr().err
    assert main(["trec_eval", "-R", "qrels_jg", "-m", "map", str(SUITE / "qrels.test"),
                 str(SUITE / "results.test")]) == 2
    assert "not a judgement-group measure" in capsys.readouterr().err


@st.composite
def _judgements(draw: st.DrawFn) -> tuple[str, str]:
    topics = draw(st.lists(st.sampled_from(["1", "2", "10"]), min_size=1, max_size=3,
                           unique=True))
    documents = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
    qrels, run = [], []
    for topic in topics:
        for group in draw(st.lists(st.sampled_from(["0", "1", "x"]), min_size=1, max_size=3,
                                   unique=True)):
            judged = draw(st.lists(st.sampled_from(documents), min_size=1,
                                   max_size=len(documents), unique=True))
            levels = [draw(st.sampled_from([-1, 0, 0, 1, 1, 2])) for _ in judged]
            if max(levels) < 0:
                levels[0] = 0
            qrels += [f"{topic} {group} {d} {v}" for d, v in zip(judged, levels)]
        retrieved = draw(st.lists(st.sampled_from([*documents, "u"]), max_size=10, unique=True))
        run += [f"{topic} Q0 {d} {i} {draw(st.sampled_from([0.5, 1.0, 2.0]))} r"
                for i, d in enumerate(retrieved)]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@pytest.mark.skipif(TREC_EVAL is None, reason="optional reference absent: the trec_eval binary "
                    "(TREC_EVAL=path, or on the PATH)")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=_judgements(), options=st.sampled_from(
    [[], ["-c"], ["-l2"], ["-M3"], ["-J"], ["-c", "-J", "-M2"], ["-l0"],
     ["-mP_avgjg.1,3", "-mRprec_mult_avgjg.0.5,1,1.5", "-c"]]))
def test_against_trec_eval_binary(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  data: tuple[str, str], options: list[str]) -> None:
    qrels, run = data
    judged = {line.split()[0] for line in qrels.splitlines()}
    answered = {line.split()[0] for line in run.splitlines() if line}
    if not judged & answered or ("-c" not in options and judged - answered):
        return  # trec_eval 10.0 stops (exit 4) on a judged topic without results
    q = _write(tmp_path / "qrels", qrels)
    r = _write(tmp_path / "run", run)
    argv = ["-q", "-R", "qrels_jg", "-m", "qrels_jg", *options, str(q), str(r)]
    expected = subprocess.run([str(TREC_EVAL), *argv], capture_output=True, text=True,
                              check=True).stdout
    capsys.readouterr()
    assert main(["trec_eval", *argv]) == 0
    assert capsys.readouterr().out == expected
