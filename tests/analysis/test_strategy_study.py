"""The pooling study (meta pooling): a case worked on paper, the same numbers on one process,
forked processes and a Dask cluster, and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from inexeval.analysis.strategies import StrategyOptions
from inexeval.analysis.strategy_study import curves_json, parse_strategies, strategy_study
from inexeval.cli import main
from inexeval.errors import InexevalError
from inexeval.executor import DaskExecutor, Processes
from inexeval.formats.detect import load_assessments, load_run


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture
def campaign(tmp_path: Path) -> tuple[Path, list[Path]]:
    """r1 = a b c d, r2 = e a f g; a, c, e relevant, b, f not, d, g unjudged."""
    qrels = _write(tmp_path, "qrels", "1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 e 2\n1 0 f 0\n")
    runs = [_write(tmp_path, f"{name}.txt", "".join(f"1 Q0 {d} {i} {9 - i} {name}\n"
                                                    for i, d in enumerate(docs, 1)))
            for name, docs in (("r1", "abcd"), ("r2", "eafg"))]
    return qrels, runs


def test_a_study_worked_on_paper(campaign: tuple[Path, list[Path]]) -> None:
    qrels_path, run_paths = campaign
    qrels, runs = load_assessments(qrels_path), [load_run(p) for p in run_paths]
    points = strategy_study(runs, qrels, parse_strategies("depth,mtf"), [2, 3, 10], depth=3)
    by = {(p.strategy, p.budget): p for p in points}
    # full AP: r1 (1/1 + 2/3) / 3 = 5/9, r2 (1 + 2/2) / 3 = 2/3
    # depth, 2 judged (a, e; both relevant): r1 1/2, r2 (1 + 1) / 2 = 1
    two = by[("depth", 2)]
    assert (two.topic_count, two.judged, two.relevant_found) == (1, 2, 2)
    assert two.kendall_tau == pytest.approx(1.0)
    assert two.rmse == pytest.approx(math.sqrt(((5 / 9 - 1 / 2) ** 2 + (2 / 3 - 1) ** 2) / 2))
    # the whole depth-3 pool (a b c e f): 5 judged, 3 found, the full APs
    whole = by[("depth", 10)]
    assert (whole.judged, whole.relevant_found, whole.rmse) == (5, 3, pytest.approx(0.0))
    # mtf, 3 judged: r1 gives a (relevant), b (not); r2 gives e: found a, e
    mtf = by[("mtf", 3)]
    assert (mtf.judged, mtf.relevant_found) == (3, 2)
    assert [(p.strategy, p.budget) for p in points] == [
        ("depth", 2), ("depth", 3), ("depth", 10), ("mtf", 2), ("mtf", 3), ("mtf", 10)]


def _bigger(tmp_path: Path) -> tuple[Path, list[Path]]:
    g = np.random.default_rng(2)
    qrels = "".join(f"{t} 0 D{i} {int(g.random() < 0.2)}\n" for t in (1, 2, 3)
                    for i in range(120))
    runs = [_write(tmp_path, f"run{r}.txt", "".join(
        f"{t} Q0 D{i} {k + 1} {100 - k} run{r}\n" for t in (1, 2, 3)
        for k, i in enumerate(g.permutation(150)[:60]))) for r in range(6)]
    return _write(tmp_path, "qrels", qrels), runs


def test_the_same_curves_serially_forked_and_on_dask(tmp_path: Path) -> None:
    qrels_path, run_paths = _bigger(tmp_path)
    qrels, runs = load_assessments(qrels_path), [load_run(p) for p in run_paths]
    strategies = parse_strategies("depth,take:rbp,mtf,bandit,bandit:ucb,bandit:random,hedge")
    options = StrategyOptions(seed=5)

    def study(executor: object = None) -> str:
        points = strategy_study(runs, qrels, strategies, [5, 20, 200], depth=20, options=options,
                                executor=executor)  # type: ignore[arg-type]
        return json.dumps(curves_json(points))

    serial = study()
    assert study(Processes(2)) == serial
    with DaskExecutor("local:2") as cluster:
        assert study(cluster) == serial
    curves = json.loads(serial)["curves"]
    assert {c["topic_count"] for c in curves} == {3}
    # an unlimited budget judges the whole pool, so every strategy ends where depth ends
    last = [c for c in curves if c["budget"] == 200]
    assert len({(c["judged"], c["relevant_found"], c["rmse"]) for c in last}) == 1


def test_meta_pooling_on_the_command_line(campaign: tuple[Path, list[Path]], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = campaign
    out = tmp_path / "curves.json"
    assert main(["meta", "pooling", str(qrels), *map(str, runs), "--strategies", "depth",
                 "--budgets", "2,10", "--depth", "3", "--format", "json", "-o", str(out)]) == 0
    curves = json.loads(out.read_text())["curves"]
    assert [(c["strategy"], c["budget"], c["judged"], c["relevant_found"]) for c in curves] == [
        ("depth", 2, 2, 2), ("depth", 10, 5, 3)]
    assert set(curves[0]) == {"strategy", "budget", "topic_count", "judged", "relevant_found",
                              "kendall_tau", "rmse"}
    assert main(["meta", "pooling", str(qrels), *map(str, runs), "--budgets", "2",
                 "--depth", "3"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].split("\t")[:3] == ["strategy", "budget", "topic_count"]
    assert [line.split("\t")[0] for line in text[1:]] == ["depth", "take", "mtf", "bandit",
                                                          "hedge"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--strategies", "depth,nope"], "unknown strategy 'nope'"),
    (["--strategies", "mtf:ucb"], "mtf takes no variant"),
    (["--strategies", "bandit:x"], "bandit takes one of"),
    (["--budgets", "1,x"], "is not a comma-separated list"),
    (["--budgets", "0"], "--budgets must be whole numbers of at least 1"),
])
def test_bad_meta_pooling_requests(campaign: tuple[Path, list[Path]], extra: list[str],
                                   message: str, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = campaign
    assert main(["meta", "pooling", str(qrels), *map(str, runs), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("inexeval: error:") and err.count("\n") == 1


def test_one_run_is_not_a_study(campaign: tuple[Path, list[Path]]) -> None:
    qrels, runs = campaign
    with pytest.raises(InexevalError, match="at least two"):
        strategy_study([load_run(runs[0])], load_assessments(qrels),
                       parse_strategies("depth"), [1])


@pytest.mark.parametrize(("fusion", "taken"), [("combsum", "AB"), ("combmnz", "BD")])
def test_take_fuses_the_runs_scores_as_pool_does(tmp_path: Path, fusion: str, taken: str
                                                 ) -> None:
    """Issue 32, item 7: r1 dA 10, dB 9.9, dC 1.0, dD 0.9; r2 dE 5, dC 1.0, dF 0.95, dG 0;
    r3 dH 3, dD 2.9, dB 2.8, dI 0, depth 4, budget 2. Min-max normalised (Lee 1997): r1 dA 1,
    dB 9/9.1, dC 0.1/9.1, dD 0; r2 dE 1, dC 0.2, dF 0.19, dG 0; r3 dH 1, dD 2.9/3, dB 2.8/3,
    dI 0. combsum: dB 1.92, then dA, dE, dH 1 (dA first in depth order), dD 0.97: {dA, dB}.
    combmnz doubles dB (3.84), dD (1.93) and dC (0.42): {dB, dD}. By the ranks instead (as the
    simulation fused them) both took dB and dC. The units taken are the relevant ones: the
    simulation finds both, as ``pool --strategy take`` pools them."""
    runs = {"r1": [("dA", 10), ("dB", 9.9), ("dC", 1.0), ("dD", 0.9)],
            "r2": [("dE", 5), ("dC", 1.0), ("dF", 0.95), ("dG", 0)],
            "r3": [("dH", 3), ("dD", 2.9), ("dB", 2.8), ("dI", 0)]}
    paths = [_write(tmp_path, f"{name}.txt", "".join(f"1 Q0 {d} {i} {s} {name}\n"
                                                     for i, (d, s) in enumerate(docs, 1)))
             for name, docs in runs.items()]
    qrels = _write(tmp_path, "qrels",
                   "".join(f"1 0 d{x} {int(x in taken)}\n" for x in "ABCDEFGHI"))
    pool = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, paths), "--depth", "4", "--strategy", "take", "--fusion",
                 fusion, "--budget", "2", "-o", str(pool)]) == 0
    assert {line.split("\t")[1] for line in pool.read_text().splitlines()} == {
        f"d{x}" for x in taken}
    points = strategy_study([load_run(p) for p in paths], load_assessments(qrels),
                            parse_strategies(f"take:{fusion}"), [2], depth=4)
    assert (points[0].judged, points[0].relevant_found) == (2, 2)
