"""Issue 32, items 1, 4 and 5: every study on the topics ``compare`` uses (assessed and
answered by at least one run; ``-c`` every assessed topic; ``--topics`` a selection), stated in
its header, JSON and figure; the same study from saved scores; a measure in any spelling; an
option the study would ignore refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from inexeval.cli import main
from inexeval.formats.scores import read_scores, write_scores
from inexeval.meta import study_scores
from inexeval.meta.power import power_study
from inexeval.scores import Scores
from tests.helpers import DATA as SHARED_DATA
from tests.helpers import needs_shared

DATA = SHARED_DATA / "ipcs"
QRELS = str(DATA / "INEX_Qrels.txt")
RUNS = [str(DATA / name) for name in ("bert1_bestincontext.run", "bert1_incontext.run",
                                      "bert_inex_converted_1.run")]
FOCUSED = [QRELS, *RUNS, "--task", "focused"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@needs_shared
def test_topic_set_size_on_the_answered_topics(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's numbers: 120 assessed topics, 60 answered; 56 topics needed (V_E 0.0085) on
    the answered ones, 37 (V_E 0.0056) on every assessed one (-c)."""
    design = ["meta", "topics", *FOCUSED, "-m", "MAiP", "--min-diff", "0.05"]
    data = run_json(capsys, *design, "--format", "json")
    assert (data["design"][0]["topics"], round(data["design"][0]["variance"], 4)) == (56, 0.0085)
    assert (data["study"]["topics"], data["study"]["rule"]) == (60, "any")
    complete = run_json(capsys, *design, "-c", "--format", "json")
    assert (complete["design"][0]["topics"], round(complete["design"][0]["variance"], 4)) == (
        37, 0.0056)
    assert (complete["study"]["topics"], complete["study"]["rule"]) == (120, "all")
    assert main(design) == 0
    assert "60 topics: assessed and answered by at least one run" in capsys.readouterr().out


@needs_shared
def test_power_topics_as_compare(capsys: pytest.CaptureFixture[str]) -> None:
    """meta power's difference required: 0.0358 on compare's 60 topics (0.0219 with -c), and
    compare's t test on the same topics."""
    power = ["meta", "power", *FOCUSED, "-m", "MAiP", "--format", "json"]
    found = run_json(capsys, *power)
    assert round(found["summary"][0]["difference_required"], 4) == 0.0358
    assert round(run_json(capsys, *power, "-c")["summary"][0]["difference_required"],
                 4) == 0.0219
    compared = run_json(capsys, "compare", *FOCUSED, "-m", "MAiP", "--format", "json")
    assert {row["n_topics"] for row in compared} == {p["n_topics"] for p in found["pairs"]}
    chosen = "2009001,2009003,2009004,2009006,2009002"
    selected = run_json(capsys, *power, "--topics", chosen)
    assert {p["n_topics"] for p in selected["pairs"]} == {4}  # 2009002: no run answers it
    assert {p["n_topics"] for p in run_json(capsys, *power, "--topics", chosen,
                                            "-c")["pairs"]} == {5}


STUDIES = [["power", "--replicates", "200"], ["swap", "--subsets", "40"],
           ["topics", "--min-diff", "0.05", "--systems", "3", "--ci-width", "0.1"],
           ["agree", "--resamples", "50"]]


@needs_shared
@pytest.mark.parametrize("complete", [[], ["-c"]])
@pytest.mark.parametrize("study", STUDIES)
def test_saved_scores_give_the_same_study(tmp_path, capsys: pytest.CaptureFixture[str],
                                          study: list[str], complete: list[str]) -> None:
    """Every study from `eval -q --format scores` equals the study on the qrels and runs:
    same topics, same values, same names (eval saves AiP, the study names it MAiP)."""
    saved = tmp_path / "s.scores"
    measures = ["-m", "MAiP", "-m", "iP[0.01]"]
    assert main(["eval", "-q", *complete, *FOCUSED, "--format", "scores", "-o",
                 str(saved)]) == 0
    capsys.readouterr()
    direct = run_json(capsys, "meta", *study, *FOCUSED, *measures, *complete, "--format",
                      "json")
    again = run_json(capsys, "meta", *study, "--scores", str(saved), *measures, *complete,
                     "--format", "json")
    assert direct == again
    assert direct["study"]["topics"] == (120 if complete else 60)


@needs_shared
def test_eval_c_saves_which_topics_each_run_answered(tmp_path) -> None:
    saved = tmp_path / "s.scores"
    assert main(["eval", "-q", "-c", *FOCUSED, "-m", "AiP", "--format", "scores", "-o",
                 str(saved)]) == 0
    scores = read_scores(saved)
    assert len(scores.topics) == 120 and int(scores.answered.any(axis=0).sum()) == 60
    assert len(study_scores(scores, complete=False).topics) == 60
    assert len(study_scores(scores, complete=True).topics) == 120


def small_scores(rule: str) -> Scores:
    values = np.array([[0.1, 0.5, 0.0, 0.3], [0.2, 0.3, 0.0, 0.4], [0.4, 0.2, 0.0, 0.1]])
    answered = np.array([[True, True, False, True], [True, False, False, True],
                         [True, True, False, True]])
    return Scores(("a", "b", "c"), ("1", "2", "3", "4"), ("AP",), values[:, :, None],
                  answered, rule)


def test_api_uses_the_same_rule() -> None:
    """power_study on scores under rule any (or answered) leaves out topic 3, which no run
    answered; under all it keeps it; -c on scores without it is an error."""
    assert power_study(small_scores("any"), replicates=50)[0].n_topics == 3
    assert power_study(small_scores("answered"), replicates=50)[0].n_topics == 3
    assert power_study(small_scores("all"), replicates=50)[0].n_topics == 4
    assert study_scores(small_scores("all"), complete=False).topics == ("1", "2", "4")
    with pytest.raises(Exception, match="eval -q -c"):
        study_scores(small_scores("answered"), complete=True)


@pytest.fixture
def saved(tmp_path) -> str:
    path = tmp_path / "s.scores"
    rng = np.random.default_rng(3)
    values = rng.random((3, 12, 3))
    scores = Scores(("a", "b", "c"), tuple(str(t) for t in range(1, 13)),
                    ("AiP", "AP", "P@10"), values, np.ones((3, 12), dtype=bool), "answered")
    with open(path, "w") as handle:
        write_scores(scores, handle)
    return str(path)


# any spelling finds the measure, printed as typed (issue 33; trec_eval's P.10 as P_10), an
# official task's mean under its mean name
@pytest.mark.parametrize(("spelling", "measure"), [
    ("MAiP", "MAiP"), ("AiP", "MAiP"), ("map", "map"), ("AP", "AP"), ("P_10", "P_10"),
    ("P.10", "P_10"), ("P@10", "P@10")])
def test_every_spelling_of_a_measure(saved, capsys, spelling: str, measure: str) -> None:
    data = run_json(capsys, "meta", "power", "--scores", saved, "-m", spelling,
                    "--replicates", "20", "--format", "json")
    assert {row["measure"] for row in data["summary"]} == {measure}


@pytest.mark.parametrize("given", [["--seed", "7"], ["--replicates", "500"],
                                   ["--seed", "42"]])
def test_replicate_matrix_refuses_what_it_decides(saved, tmp_path, capsys,
                                                  given: list[str]) -> None:
    matrix = tmp_path / "r.txt"
    np.savetxt(matrix, np.random.default_rng(1).integers(0, 12, size=(30, 12)), fmt="%d")
    assert main(["meta", "power", "--scores", saved, "--replicate-matrix", str(matrix),
                 *given]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and given[0] in err and "--replicate-matrix" in err
    assert main(["meta", "power", "--scores", saved, "--replicate-matrix", str(matrix)]) == 0


@pytest.mark.parametrize("option", [["--seed", "3"], ["--block", "10"],
                                    ["--scheduler", "local:2"]])
def test_a_design_that_draws_nothing_takes_no_seed(saved, capsys, option: list[str]) -> None:
    assert main(["meta", "topics", "--scores", saved, "--min-diff", "0.05", *option]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and option[0] in err


def test_figure_states_the_topics_and_parameters(saved, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "power.svg"
    assert main(["meta", "power", "--scores", saved, "--replicates", "40", "-o",
                 str(out)]) == 0
    text = out.read_text()
    for words in ("12 topics:", "assessed and answered", "B = 40", "seed 42"):
        assert words in text


@needs_shared
def test_demo_data_are_the_ipcs_files(tmp_path, capsys) -> None:
    """`inexeval demo --data DIR` writes the shipped (gzip) qrels and runs as they are, with
    their licence; --digits, for the tables, is refused beside it."""
    assert main(["demo", "--data", str(tmp_path / "ipcs")]) == 0
    assert "wrote 5 files" in capsys.readouterr().out
    for name in ("INEX_Qrels.txt", "bert1_bestincontext.run", "bert1_incontext.run",
                 "bert_inex_converted_1.run", "LICENSE"):
        assert (tmp_path / "ipcs" / name).read_bytes() == (DATA / name).read_bytes()
    assert main(["demo", "--data", str(tmp_path / "x"), "--digits", "2"]) == 2
    assert "--digits" in capsys.readouterr().err
