"""``inexeval trec_eval`` on large and many runs (issue 23): a run is read and evaluated a group
of whole topics at a time, runs one after another, so that memory does not grow with the run
or with the number of runs; the parts, the worker processes and the whole reading give the same
values, the same errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import PEAK_OF_MAIN

from inexeval import trec_eval_runs
from inexeval.cli import main
from inexeval.errors import FormatError
from inexeval.formats import source
from inexeval.formats.trec_columns import (
    read_trec_eval_qrels,
    read_trec_eval_run,
    read_trec_eval_run_parts,
)
from inexeval.measures.trec_eval import evaluate, judgements

SUITE = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


def _run(path: Path, topics: int, first: int = 1000) -> None:
    """1,000 results for each of ``topics`` topics (``first``, ``first + 1``, ...), scores with
    ties, in rank order."""
    ranked = "".join(f"TTTT Q0 doc{r * 7 % 1000} {r + 1} {(1000 - r) // 3 * 0.25} big\n"
                     for r in range(1000))
    with open(path, "w") as out:
        out.writelines(ranked.replace("TTTT", str(first + t)) for t in range(topics))


def _peak(argv: list[str]) -> int:
    """Peak resident memory (KiB) of ``inexeval ARGV`` in a fresh process, which must succeed."""
    done = subprocess.run([sys.executable, "-c", PEAK_OF_MAIN, *argv], capture_output=True,
                          text=True, timeout=600, check=False)
    code, peak_kib = (int(v) for v in done.stderr.split()[-2:])
    assert code == 0, done.stderr
    return peak_kib


@pytest.mark.slow
def test_a_large_run_evaluates_in_the_memory_of_a_small_one(tmp_path: Path) -> None:
    """4 million lines (120 MB) within 50 MiB of 400,000 lines: the run is read and evaluated
    a part at a time (the whole run's columns alone would take some 200 MB)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{1000 + t} 0 doc{d * 13} {d % 3}\n" for t in range(0, 4000, 10)
                             for d in range(60)))
    big, small = tmp_path / "big", tmp_path / "small"
    _run(big, 4000)
    _run(small, 400)
    argv = ["trec_eval", "--jobs", "1", "-c", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10",
            "-m", "bpref", str(qrels)]
    small_peak = _peak([*argv, str(small)])
    peak = _peak([*argv, str(big)])
    assert peak < small_peak + (50 << 10), (peak >> 10, small_peak >> 10)


@pytest.mark.slow
def test_many_runs_in_the_memory_of_one(tmp_path: Path) -> None:
    """Eight runs of 200,000 lines one after another: about the peak of one. The margin, 20
    MiB, is the noise of the reading thread (whether the next part is read while one is
    evaluated: 71 to 84 MiB for one to sixteen runs, measured, flat beyond two); one run held
    after its evaluation (its columns alone some 5 MiB) would add 35 MiB over the eight."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{1000 + t} 0 doc{d * 13} {d % 3}\n" for t in range(200)
                             for d in range(60)))
    run = tmp_path / "run"
    _run(run, 200)
    argv = ["trec_eval", "--jobs", "1", "-m", "map", "-m", "P.10", str(qrels)]
    one = _peak([*argv, str(run)])
    eight = _peak([*argv, *[str(run)] * 8])
    assert eight < one + (20 << 10), (eight >> 10, one >> 10)


def _text(lines: list[tuple[str, str, float]]) -> str:
    return "".join(f"{t} Q0 {d} {i} {s} r{i}\n" for i, (t, d, s) in enumerate(lines))


def _collection(rng: np.random.Generator, topics: int, resume: bool = False) -> tuple[str, str]:
    qrels = "".join(f"{t} 0 d{d} {rng.choice([-1, 0, 0, 1, 2])}\n" for t in range(topics)
                    for d in rng.choice(300, 40, replace=False))
    lines = [(str(t), f"d{d}", float(rng.integers(0, 8)) / 2) for t in range(1, topics + 3)
             for d in rng.choice(300, int(rng.integers(0, 60)), replace=False)]
    if resume:  # a topic's lines again after others'
        lines.append(lines[0][:1] + ("dnew", 9.5))
    return qrels, _text(lines)


OPTIONS = [{}, {"complete": True}, {"max_docs": 5, "complete": True}, {"judged_only": True},
           {"relevance_level": 2, "complete": True}]


@pytest.mark.parametrize("options", OPTIONS)
def test_parts_give_the_values_of_the_whole_run(tmp_path: Path, options: dict[str, object],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A run read in parts of whole topics (blocks of 300 bytes, parts of 50 lines) is
    evaluated to the values and output of the run read whole."""
    qrels_text, run_text = _collection(np.random.default_rng(23), 30)
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    qrels = read_trec_eval_qrels(tmp_path / "q")
    whole = evaluate(qrels, read_trec_eval_run(tmp_path / "r"), ["all_trec"], **options)
    monkeypatch.setattr(source, "BLOCK", 300)
    parts = list(read_trec_eval_run_parts(tmp_path / "r", lines=50))
    assert len(parts) > 5
    assert [t for p in parts for t in p.topics.tolist()] == read_trec_eval_run(
        tmp_path / "r").topics.tolist()
    judged = judgements(qrels)
    streamed = evaluate(judged, iter(parts), ["all_trec"], **options)
    assert streamed.render(per_topic=True) == whole.render(per_topic=True)
    again = evaluate(judged, iter(parts), ["all_trec"], **options)  # the kept keys reused
    assert again.render(per_topic=True) == whole.render(per_topic=True)


def test_a_resumed_topic_is_read_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    qrels_text, run_text = _collection(np.random.default_rng(5), 30, resume=True)
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    whole = evaluate(read_trec_eval_qrels(tmp_path / "q"), read_trec_eval_run(tmp_path / "r"),
                     ["all_trec"])
    monkeypatch.setattr(trec_eval_runs, "BLOCK", 300)
    monkeypatch.setattr(trec_eval_runs, "PART_LINES", 50)
    read_whole = []
    monkeypatch.setattr(trec_eval_runs, "read_trec_eval_run",
                        lambda path: read_whole.append(path) or read_trec_eval_run(path))
    assert main(["trec_eval", "-q", "-m", "all_trec", str(tmp_path / "q"),
                 str(tmp_path / "r")]) == 0
    assert capsys.readouterr().out == whole.render(per_topic=True)
    assert read_whole == [str(tmp_path / "r")]  # the parts stopped at the resumed topic


def test_an_error_of_reading_comes_before_a_repeated_document(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """As trec_eval reads the whole run before it evaluates: a repeated document in the first
    part, a bad score in the last one: the bad score is told; without it, the repeat."""
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    lines = "1 Q0 a 1 2 x\n1 Q0 a 2 1 x\n" + "".join(f"2 Q0 d{i} 1 1 x\n" for i in range(200))
    (tmp_path / "r").write_text(lines + "2 Q0 z 1 nan x\n")
    monkeypatch.setattr(source, "BLOCK", 300)
    qrels = read_trec_eval_qrels(tmp_path / "q")
    with pytest.raises(FormatError, match="score 'nan'"):
        evaluate(qrels, read_trec_eval_run_parts(tmp_path / "r", lines=20), ["map"])
    (tmp_path / "r").write_text(lines)
    with pytest.raises(FormatError, match="retrieves 'a' twice") as error:
        evaluate(qrels, read_trec_eval_run_parts(tmp_path / "r", lines=20), ["map"])
    assert error.value.line == 2


def test_worker_processes_print_what_one_process_prints(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """Several runs in two processes: the same output, in the order given (a run from
    standard input, which is read in this process, among them)."""
    runs = []
    for seed in range(4):
        qrels_text, run_text = _collection(np.random.default_rng(seed), 12)
        (tmp_path / f"r{seed}").write_text(run_text)
        runs.append(str(tmp_path / f"r{seed}"))
    (tmp_path / "q").write_text(qrels_text)
    argv = ["trec_eval", "-q", "-c", "-m", "all_trec", str(tmp_path / "q"), *runs]
    assert main([*argv, "--jobs", "1"]) == 0
    one = capsys.readouterr().out
    assert main([*argv, "--jobs", "2"]) == 0
    assert capsys.readouterr().out == one
    assert one.count("runid") == 4


def test_an_error_in_a_worker_is_told_as_in_one_process(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    (tmp_path / "q").write_text((SUITE / "qrels.test").read_text())
    good, bad = str(SUITE / "results.test"), tmp_path / "bad"
    topic = (SUITE / "qrels.test").read_text().split()[0]
    bad.write_text(f"{topic} Q0 a 1 1 x\n{topic} Q0 a 2 0.5 x\n")
    outputs = []
    for jobs in ("1", "2"):
        assert main(["trec_eval", "--jobs", jobs, str(tmp_path / "q"), good, str(bad),
                     good]) == 2
        outputs.append(capsys.readouterr())
    assert outputs[0].out == outputs[1].out == (SUITE / "out.test").read_text()
    assert outputs[0].err == outputs[1].err
    assert "retrieves 'a' twice" in outputs[0].err and outputs[0].err.count("\n") == 1
