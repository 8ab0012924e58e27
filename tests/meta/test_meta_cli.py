"""inexeval meta end to end, as a user types it: the issue's JSON keys, saved scores, the
figures, processes, and bad input as one line and exit code 2."""

import json

import numpy as np
import pytest

from inexeval.cli import main
from inexeval.formats.scores import read_scores, write_scores
from tests.helpers import DATA as SHARED_DATA
from tests.helpers import needs_shared
from tests.meta.test_power import make_scores

DATA = str(SHARED_DATA / "ipcs")
RUNS = [f"{DATA}/bert_inex_converted_1.run", f"{DATA}/bert1_incontext.run",
        f"{DATA}/bert1_bestincontext.run"]


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "s.scores"
    with open(path, "w") as handle:
        write_scores(make_scores(runs=6, topics=20, measures=2, grid=0.05), handle)
    return str(path)


def run_json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@needs_shared
def test_power_from_assessments_and_runs(capsys) -> None:
    data = run_json(capsys, "meta", "power", f"{DATA}/INEX_Qrels.txt", *RUNS, "-m", "MAiP",
                    "--replicates", "200", "--format", "json")
    assert [sorted(r) for r in data["pairs"][:1]] == [sorted(
        ["measure", "run_a", "run_b", "n_topics", "mean_a", "mean_b", "delta", "asl"])]
    assert sorted(data["summary"][0]) == sorted(
        ["measure", "method", "replicates", "alpha", "pairs", "significant",
         "discriminative_power", "difference_required"])
    assert data["pairs"][0]["n_topics"] == 60  # compare's topics: answered by some run
    assert data["study"]["topics"] == 60 and data["study"]["rule"] == "any"
    assert main(["meta", "power", f"{DATA}/INEX_Qrels.txt", *RUNS, "-m", "MAiP",
                 "--replicates", "200", "-c"]) == 0
    assert "120 topics: every assessed topic (-c" in capsys.readouterr().out


@needs_shared
def test_saved_scores_give_the_same_study(tmp_path, capsys) -> None:
    saved = tmp_path / "s.scores"
    assert main(["eval", "-q", "-c", f"{DATA}/INEX_Qrels.txt", *RUNS, "-m", "MAiP", "-m",
                 "iP[0.01]", "--format", "scores", "-o", str(saved)]) == 0
    direct = run_json(capsys, "meta", "power", f"{DATA}/INEX_Qrels.txt", *RUNS, "-m", "MAiP",
                      "--replicates", "300", "--format", "json")
    again = run_json(capsys, "meta", "power", "--scores", str(saved), "-m", "MAiP",
                     "--replicates", "300", "--format", "json")
    assert direct == again


@pytest.mark.parametrize("study", [["power", "--method", "randomised-tukey"], ["swap"],
                                   ["agree", "--resamples", "100"]])
def test_processes_and_blocks_change_no_byte(saved, capsys, study: list[str]) -> None:
    small = ["--subsets", "60"] if study == ["swap"] else ["--replicates", "150"] if (
        study[0] == "power") else []
    one = run_json(capsys, "meta", *study, "--scores", saved, *small, "--format", "json")
    two = run_json(capsys, "meta", *study, "--scores", saved, *small, "--format", "json",
                   "--jobs", "2", "--block", "7")
    assert one == two


def test_swap_topics_agree_keys(saved, capsys) -> None:
    swap = run_json(capsys, "meta", "swap", "--scores", saved, "--subsets", "50", "--format",
                    "json")
    assert sorted(swap["rates"][0]) == sorted(["measure", "topics", "bin_low", "bin_high",
                                               "comparisons", "swaps", "swap_rate"])
    assert sorted(swap["summary"][0]) == ["measure", "min_difference", "note", "topics"]
    topics = run_json(capsys, "meta", "topics", "--scores", saved, "--min-diff", "0.05",
                      "--systems", "6", "--min-range", "0.1", "--ci-width", "0.1",
                      "--n-topics", "40", "--format", "json")
    assert [r["test"] for r in topics["design"]] == ["t", "anova", "ci"] * 2
    assert sorted(topics["power"][0]) == ["measure", "min_diff", "power", "test", "topics"]
    agree = run_json(capsys, "meta", "agree", "--scores", saved, "--resamples", "50",
                     "--format", "json")
    assert {"tau_a", "tau_ap_a", "tau_ap_b", "rbo", "kendall_tau_ci_low",
            "rbo_ci_high"} <= set(agree["agreement"][0])
    assert main(["meta", "swap", "--scores", saved, "--subsets", "50", "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith(
        "measure,topics,bin_low,bin_high,comparisons,swaps,swap_rate\n")


@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
def test_figures(saved, tmp_path, suffix: str) -> None:
    for study, extra in (("power", ["--replicates", "100"]), ("swap", ["--subsets", "30"]),
                         ("topics", ["--min-diff", "0.1"])):
        out = tmp_path / f"{study}.{suffix}"
        assert main(["meta", study, "--scores", saved, *extra, "-o", str(out)]) == 0
        assert out.stat().st_size > 1000


@needs_shared
def test_replicate_matrix_file(saved, tmp_path, capsys) -> None:
    n = len(read_scores(saved).topics)
    matrix = tmp_path / "r.txt"
    np.savetxt(matrix, np.random.default_rng(42).integers(0, n, size=(100, n)), fmt="%d")
    given = run_json(capsys, "meta", "power", "--scores", saved, "--replicate-matrix",
                     str(matrix), "--format", "json")
    drawn = run_json(capsys, "meta", "power", "--scores", saved, "--replicates", "100",
                     "--format", "json")
    assert "replicate matrix" in given.pop("study")["title"]
    assert "seed 42" in drawn.pop("study")["title"]
    assert given == drawn


@pytest.mark.parametrize(("argv", "message"), [
    (["meta"], "give a study"),
    (["meta", "power"], "give ASSESSMENTS and at least two RUNs, or --scores FILE"),
    (["meta", "power", "--scores", "SAVED", f"{DATA}/INEX_Qrels.txt"], "not both"),
    (["meta", "power", "--scores", "SAVED", "-m", "nDCG"], "no measure nDCG in the scores"),
    (["meta", "topics", "--scores", "SAVED"], "give a design"),
    (["meta", "power", "--scores", "SAVED", "--replicate-matrix", "SAVED"],
     "SAVED:1: a replicate has 2 topic indices"),
    (["meta", "power", "--scores", "SAVED", "--method", "randomised-tukey",
      "-o", "SAVED"], "would overwrite"),
])
def test_bad_requests(saved, capsys, argv: list[str], message: str) -> None:
    argv = [saved if a == "SAVED" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message.replace("SAVED", saved) in err and err.count("\n") == 1


def test_a_study_run_builds_its_own_options_alone(capsys) -> None:
    from inexeval.cli import parser

    argv = ["meta", "pool", "q", "r1", "r2", "--articles", "5", "--article-counts", "1,2",
            "--power", "none", "--jobs", "2"]
    alone, every = parser(argv), parser()
    assert vars(alone.parse_args(argv)) == vars(every.parse_args(argv))
    with pytest.raises(SystemExit):  # another study's option is not built (nor its module)
        alone.parse_args(["meta", "power", "--method", "bootstrap"])
    assert main(["meta", "pools", "q", "r"]) == 2  # a wrong name is told the choices
    assert "choose from 'power'" in capsys.readouterr().err
