"""trec_eval 10.0's ``dcg``, ``ideal_dcg``, ``yaap``, ``-Z`` and ``-D`` in ``inexeval
trec_eval``: numbers worked by hand, errors, and (when the built trec_eval is at hand,
``TREC_EVAL``) its printed output on random qrels and runs. trec_eval's own ``-Z`` test
(``out.test.aqZ``) is one of the suite's fixtures in test_trec_eval.py."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.measures.test_trec_eval import TREC_EVAL, _collections, _files

from inexeval.cli import main
from inexeval.formats.trec import read_trec_eval_qrels, read_trec_eval_run
from inexeval.measures.trec_eval import choose, evaluate

SUITE = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


def _evaluated(tmp_path: Path, measures: list[str], **options: object) -> dict[str, float]:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n", encoding="utf-8")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d3 2 2 r\n1 Q0 d2 3 1 r\n", encoding="utf-8")
    results = evaluate(read_trec_eval_qrels(qrels), read_trec_eval_run(run), measures,
                       **options)  # type: ignore[arg-type]
    return {label: float(m.values[0, j]) for m in results.measures
            for j, label in enumerate(m.chosen.labels)}


def test_by_hand(tmp_path: Path) -> None:
    """Ranking d1 (level 2), d3 (0), d2 (1): DCG = 2/log2(2) + 0 + 1/log2(4) = 2.5, the ideal
    2/log2(2) + 1/log2(3); yaap: precisions 1/1 and 2/3 at the relevant documents, S = 5/3,
    log((1 + S) / (1 + 2 - S)) = log 2."""
    values = _evaluated(tmp_path, ["dcg", "ideal_dcg", "yaap", "ndcg"])
    assert values["dcg"] == 2.5
    assert values["ideal_dcg"] == pytest.approx(2 + 1 / math.log2(3), abs=1e-15)
    assert values["ndcg"] == pytest.approx(2.5 / (2 + 1 / math.log2(3)), abs=1e-15)
    assert values["yaap"] == pytest.approx(math.log(2), abs=1e-15)
    gains = _evaluated(tmp_path, ["dcg.1=3,2=0"])  # level 2 gains 0, level 1 gains 3
    assert gains == {"dcg_1=3,2=0": 3 / math.log2(4)}
    assert _evaluated(tmp_path, ["yaap"], relevance_level=2)["yaap"] == pytest.approx(
        math.log(2 / 1), abs=1e-15)  # only d1 relevant: S = 1, R = 1


def test_new_measures_are_not_in_all_trec() -> None:
    """As in trec_eval, ``all_trec`` leaves out dcg, ideal_dcg and yaap."""
    names = {c.definition.name for c in choose(["all_trec"])}
    assert not names & {"dcg", "ideal_dcg", "yaap"}
    assert [c.definition.name for c in choose(["yaap", "ideal_dcg", "dcg", "ndcg"])] == [
        "dcg", "ideal_dcg", "ndcg", "yaap"]  # trec_eval's table order


def test_zscores_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    zscores = tmp_path / "z"
    zscores.write_text("1 dcg 2 0.5\n1 yaap 0.5 0\n1 num_ret 3 0\n",
                       encoding="utf-8")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n", encoding="utf-8")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d3 2 2 r\n1 Q0 d2 3 1 r\n", encoding="utf-8")
    assert main(["trec_eval", "-q", "-Z", str(zscores), "-m", "dcg", "-m", "yaap", "-m",
                 "num_ret", "-m", "map", str(qrels), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "Znum_ret               \t1\t0.0000",  # sd 0, the value is the mean
        "Zmap                   \t1\t-1000000.0000",  # not in the file
        "Zdcg                   \t1\t1.0000",  # (2.5 - 2) / 0.5
        "Zyaap                  \t1\t-1000000.0000",  # sd 0 and another value
        "Znum_ret               \tall\t0.0000",
        "Zmap                   \tall\t-1000000.0000",
        "Zdcg                   \tall\t1.0000",
        "Zyaap                  \tall\t-1000000.0000"]


@pytest.mark.parametrize("text, problem", [
    ("1 map 0.2\n", "expected 4 fields"),
    ("1 map 0.2 0.1 extra\n", "expected 4 fields"),
    ("1 map abc 0.1\n", "the mean 'abc' is not a finite number"),
    ("1 map 0.2 nan\n", "the sd 'nan' is not a finite number"),
    ("1 map 0.2 0.1\n\n1 map 0.3 0.1\n", "given twice"),
    ("\n", "has no line"),
])
def test_bad_zscore_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                         problem: str) -> None:
    zscores = tmp_path / "z"
    zscores.write_text(text, encoding="utf-8")
    assert main(["trec_eval", "-Z", str(zscores), str(SUITE / "qrels.test"),
                 str(SUITE / "results.test")]) == 2
    err = capsys.readouterr().err
    assert problem in err and f"{zscores}" in err and len(err.strip().splitlines()) == 1


def test_debug_topic_evaluates_that_topic(capsys: pytest.CaptureFixture[str]) -> None:
    """``-D 0.302``: topic 302 alone (trec_eval's debug query), the level not used."""
    assert main(["trec_eval", "-D", "0.302", "-q", str(SUITE / "qrels.test"),
                 str(SUITE / "results.test")]) == 0
    out = capsys.readouterr().out
    whole = (SUITE / "out.test.aq").read_text(encoding="utf-8").splitlines()
    assert "num_q                 \tall\t1" in out
    topic_lines = [line for line in out.splitlines() if "\t302\t" in line]
    assert topic_lines and all(line in whole for line in topic_lines)
    assert {line.split("\t")[1] for line in out.splitlines()} == {"302", "all"}
    assert main(["trec_eval", "-D", "3", "-m", "map", str(SUITE / "qrels.test"),
                 str(SUITE / "results.test")]) == 0
    assert capsys.readouterr().out == "map                   \tall\t0.1785\n"
    assert main(["trec_eval", "-D", "x.302", str(SUITE / "qrels.test"),
                 str(SUITE / "results.test")]) == 2
    assert "debug level" in capsys.readouterr().err


@pytest.mark.skipif(TREC_EVAL is None, reason="optional reference absent: the trec_eval binary "
                    "(TREC_EVAL=path, or on the PATH)")
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=_collections(), options=st.sampled_from(
    [[], ["-c"], ["-l2"], ["-M3"], ["-J"], ["-c", "-J"], ["-l0", "-c", "-M1"],
     ["-mdcg.1=2.5,2=1"], ["-mideal_dcg.0=1,3=0.5", "-c"], ["-mdcg.2=-1", "-l2"]]),
    zscores=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_against_trec_eval_binary(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  data: tuple[list[tuple[str, str, int]],
                                              list[tuple[str, str, float]]],
                                  options: list[str], zscores: bool, seed: int) -> None:
    """dcg, ideal_dcg and yaap (with ndcg and map beside them), with and without a z-score
    file; one gain-taking measure with parameters a call (two make trec_eval 10.0 free the
    shared gains twice and abort)."""
    qrels, run = data
    if not run or not ({t for t, _, _ in qrels} & {t for t, _, _ in run}):
        return
    if "-c" not in options and {t for t, _, _ in qrels} - {t for t, _, _ in run}:
        return  # trec_eval 10.0 stops (exit 4) on a judged topic without results
    q, r = _files(tmp_path, qrels, run)
    with_params = any(o.startswith("-m") for o in options)
    measures = ["-m", "yaap", "-m", "map", "-m", "num_ret"]
    if not with_params:
        measures += ["-m", "dcg", "-m", "ideal_dcg", "-m", "ndcg"]
    argv = ["-q", *measures, *options]
    if zscores:
        # every topic and measure in the file: trec_eval's binary search reads past its table
        # for a name above them all
        import random

        draw = random.Random(seed)
        z = tmp_path / "zscores"
        labels = ["yaap", "map", "num_ret", "dcg", "ideal_dcg", "ndcg",
                  *(o[2:] .replace(".", "_", 1) for o in options if o.startswith("-m"))]
        z.write_text("".join(
            f"{t} {label} {draw.choice(['0', '0.5', '2', '-1.25'])} "
            f"{draw.choice(['0', '1', '0.25', '3'])}\n"
            for t in sorted({t for t, _, _ in qrels}) for label in labels), encoding="utf-8")
        argv += ["-Z", str(z)]
    argv += [str(q), str(r)]
    expected = subprocess.run([str(TREC_EVAL), *argv], capture_output=True, text=True,
                              check=True).stdout
    capsys.readouterr()
    assert main(["trec_eval", *argv]) == 0
    assert capsys.readouterr().out == expected
