"""Saved scores read back: the lossless format exactly, eval -q's layouts as printed."""

import math
from pathlib import Path

import numpy as np
import pytest

import inexeval
from inexeval.cli import main
from inexeval.errors import FormatError
from inexeval.formats.scores import read_scores, save_scores, write_scores
from inexeval.scores import Scores
from tests.helpers import DATA as SHARED_DATA
from tests.helpers import needs_shared

DATA = str(SHARED_DATA / "ipcs")
HEAD = ("#inexeval-scores\t1\n#rule\tall\n#topics\t1\n#runs\tr\n#measures\tM\n"
        "run\ttopic\tmeasure\tvalue\tanswered\n")


def test_lossless_round_trip(tmp_path) -> None:
    values = np.array([[[0.1 + 0.2, math.nan], [1 / 3, 0.0]],
                       [[2 / 7, 1e-17], [0.0, 0.5]]])
    answered = np.array([[True, False], [True, True]])
    scores = Scores(("run A", "b"), ("2", "10"), ("MAiP", "iP[0.01]"), values, answered, "all")
    path = tmp_path / "s.scores"
    with open(path, "w") as handle:
        write_scores(scores, handle)
    back = read_scores(path)
    save_scores(scores, tmp_path / "again.scores")
    assert (tmp_path / "again.scores").read_text() == path.read_text()
    assert inexeval.read_scores(path).runs == scores.runs
    assert (back.runs, back.topics, back.measures, back.rule) == (
        scores.runs, scores.topics, scores.measures, "all")
    assert np.array_equal(back.values, values, equal_nan=True)
    assert (back.answered == answered).all()


@pytest.mark.parametrize("fmt", ["trec", "csv", "json", "scores"])
@needs_shared
def test_eval_outputs_read_back(tmp_path, capsys, fmt: str) -> None:
    runs = [f"{DATA}/bert_inex_converted_1.run", f"{DATA}/bert1_incontext.run"]
    args = ["eval", "-q", "-c", f"{DATA}/INEX_Qrels.txt", *runs, "-m", "MAiP", "-m",
            "iP[0.01]", "--format", fmt]
    path = tmp_path / f"out.{fmt}"
    if fmt == "scores":
        assert main([*args, "-o", str(path)]) == 0
    else:
        assert main(args) == 0
        path.write_text(capsys.readouterr().out)
    scores = read_scores(path)
    assert scores.runs == ("TREC2INEX", "bert1ctx") and scores.rule == "all"
    assert scores.measures == ("MAiP", "iP[0.01]") and len(scores.topics) == 120
    assert main(["eval", "-c", f"{DATA}/INEX_Qrels.txt", *runs, "-m", "MAiP",
                 "--format", "json", "--digits", "17"]) == 0
    import json

    means = {r["run"]: r["value"] for r in json.loads(capsys.readouterr().out)
             if r["measure"] == "MAiP"}
    tolerance = 0 if fmt == "scores" else 5e-5
    for run, mean in means.items():
        assert abs(scores.mean("MAiP", run) - mean) <= tolerance + 1e-15


@pytest.mark.parametrize(("text", "message"), [
    ("r\tMAiP\t1\t0.5\nr\tMAiP\t1\tx\n", r":2: 'x' is not a number"),
    ("r\tMAiP\t1\t0.5\nr\tMAiP\t1\t0.4\n", r":2: a second value for r, topic 1, MAiP"),
    ("r MAiP\n", r":1: 2 fields"),
    ("run,topic,measure,value\nr,1,M\n", r":2: 3 fields"),
    ('[{"run": "r", "topic": "1"}]', r"item 0 is not an object"),
    ("#inexeval-scores\t2\n", r":1: scores format version '2' is not 1"),
    (HEAD, r"no value for r, topic 1, M"),
    (HEAD + "r\t2\tM\t0.5\t1\n", r":7: topic '2' is not in"),
])
def test_bad_scores_name_file_and_line(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "bad"
    path.write_text(text)
    with pytest.raises(FormatError, match=message):
        read_scores(path)


def test_every_format_is_written_by_o_and_said(tmp_path, capsys) -> None:
    """eval -o FILE writes what eval prints (every format), and says so on stderr."""
    suite = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
    argv = ["eval", str(suite / "qrels.test"), str(suite / "results.test"), "-m", "map"]
    for fmt in ("trec", "csv", "json", "table", "trec_eval", "scores"):
        per_topic = [] if fmt == "table" else ["-q"]
        assert main([*argv, "--format", fmt, *per_topic]) == 0
        printed = capsys.readouterr().out
        out = tmp_path / f"out.{fmt}"
        assert main([*argv, "--format", fmt, *per_topic, "-o", str(out)]) == 0
        captured = capsys.readouterr()
        assert captured.out == "" and f"inexeval: wrote {out} (" in captured.err
        if fmt != "scores":  # (scores: standard output is the same matrix)
            assert out.read_text() == printed
    assert main([*argv, "-o", str(suite / "qrels.test")]) == 2
