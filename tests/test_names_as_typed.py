"""Issue 33's names as typed, in the commands that printed the registry's names (``AP`` for
``-m map``, ``IPrec@0.50`` for ``-m IPrec@0.5``): ``eval`` on sampled qrels, ``agree``,
``plot``, ``meta pool`` and ``meta reuse``; and ``print(x)`` of the notebook API's results
gives the terminal table."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import inexeval
from inexeval.cli import main

TYPED = ["-m", "map", "-m", "IPrec@0.5", "-m", "P_10"]


def _collection(folder: Path, runs: int = 3) -> tuple[str, list[str]]:
    """TREC qrels of 12 topics and ``runs`` runs of 30 documents each."""
    draw = random.Random(7)
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {draw.choice([0, 0, 1, 2])}\n"
                             for t in range(1, 13) for d in range(40)))
    paths = []
    for r in range(runs):
        path = folder / f"run{r}.txt"
        path.write_text("".join(f"{t} Q0 d{d} {i + 1} {100 - i} sys{r}\n"
                                for t in range(1, 13)
                                for i, d in enumerate(draw.sample(range(50), 30))))
        paths.append(str(path))
    return str(qrels), paths


def _first_column(text: str) -> set[str]:
    return {line.split()[0] for line in text.splitlines()
            if line.strip() and not line.startswith(("#", "measure"))}


def test_eval_on_sampled_qrels_prints_the_names_as_typed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "sampled.txt"
    qrels.write_text("1 0 d1 1 1\n1 0 d2 1 0\n1 0 d3 2 -1\n1 0 d4 2 1\n2 0 d1 1 1\n"
                     "2 0 d5 1 0\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 0.9 a\n1 Q0 d2 2 0.8 a\n1 Q0 d4 3 0.7 a\n2 Q0 d5 1 0.9 a\n"
                   "2 Q0 d1 2 0.5 a\n")
    assert main(["eval", str(qrels), str(run), *TYPED, "-m", "xinfAP"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["num_q", "map", "IPrec@0.5", "P_10",
                                                      "xinfAP"]
    assert lines[1] == "map\tall\t0.6667"


def test_agree_prints_the_names_as_typed(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _collection(tmp_path)
    assert main(["agree", qrels, *runs, *TYPED]) == 0
    assert _first_column(capsys.readouterr().out) == {"map", "IPrec@0.5"}
    assert main(["agree", qrels, *runs, "-m", "map", "--assessments-b", qrels]) == 0
    assert _first_column(capsys.readouterr().out) == {"map"}


def test_meta_pool_and_reuse_print_the_names_as_typed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _collection(tmp_path)
    assert main(["meta", "pool", qrels, *runs, "--depth", "30", "--depths", "5", *TYPED]) == 0
    assert _first_column(capsys.readouterr().out) == {"map", "IPrec@0.5", "P_10"}
    assert main(["meta", "reuse", qrels, *runs, "--depth", "30", *TYPED]) == 0
    out = capsys.readouterr().out
    assert _first_column(out) == {"map", "IPrec@0.5", "P_10"}
    # a TREC pool is of documents (the title said "(articles)")
    assert out.splitlines()[0].endswith("pooled to depth 30 (documents)")


def test_plot_labels_the_measures_as_typed(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    qrels, runs = _collection(tmp_path)
    study = inexeval.Experiment(qrels, runs, measures=["map", "P_10"])
    scatter = study.plot("scatter")
    assert (scatter.axes[0].get_xlabel(), scatter.axes[0].get_ylabel()) == ("map", "P_10")
    box = study.plot("box")
    assert box.axes[0].get_ylabel().startswith("map")
    per_topic = study.plot("per-topic")
    assert per_topic.axes[0].get_ylabel().startswith("map")


def test_print_shows_the_terminal_table(tmp_path: Path) -> None:
    qrels, runs = _collection(tmp_path, runs=2)
    results = inexeval.evaluate(qrels, runs, ["num_ret", "AP"])
    assert str(results).splitlines()[0].split() == ["run", "num_ret", "AP"]
    assert str(results).splitlines()[1].split()[:2] == ["sys0", "360"]
    study = inexeval.Experiment(qrels, runs, measures=["AP", "P@10"])
    evaluation = study.evaluate()
    assert str(evaluation).splitlines()[0].split() == ["run", "AP", "P@10"]
    assert evaluation.to_markdown().startswith("| run | AP | P@10 |")
    assert evaluation._repr_html_().startswith("<table>")
    comparison = study.compare()
    shown = str(comparison)
    assert shown.startswith("# t test against the baseline sys0")
    assert "sys0 (baseline)" in shown and len(repr(comparison)) < 500
    assert "| sys0 (baseline) |" in comparison.to_markdown()
    assert comparison._repr_html_().startswith("<pre>")


def test_meta_on_saved_scores_prints_the_names_as_typed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the scores matrix keeps the registry's names (AP, P@10); -m map prints map, as a study
    # on the runs does, and -m P.10 trec_eval's P_10
    qrels, runs = _collection(tmp_path)
    saved = str(tmp_path / "scores.tsv")
    assert main(["eval", "-q", qrels, *runs, *TYPED, "--format", "scores", "-o", saved]) == 0
    capsys.readouterr()
    assert main(["meta", "power", "--scores", saved, "-m", "map", "-m", "IPrec@0.5",
                 "-m", "P.10", "-m", "AP", "--replicates", "20"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()[-3:]] == ["map", "IPrec@0.5", "P_10"]
