"""``gm_map`` and ``gm_bpref`` in ``compare``, ``meta`` and ``report``: their per-topic values
are logarithms, and the mean shown is trec_eval's (the exponential of the mean log), equal to
``inexeval trec_eval``'s ``all`` value; the measures are named as typed in ``meta`` and
``report``; every ``meta ... -o`` says what it wrote."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest

from inexeval.cli import main

TREC = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
QRELS = TREC / "qrels.test"


def run_main(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """trec_eval's own run and two runs made from it: its scores reordered, and one topic
    (302) left out (so that it scores log(0.00001) on it under -c)."""
    folder = tmp_path_factory.mktemp("runs")
    lines = [line.split() for line in (TREC / "results.test").read_text().splitlines()]
    b = [f"{t} Q0 {d} {r} {float(s) * ((i * 7919) % 13 + 1):.4f} runB"
         for i, (t, _, d, r, s, _) in enumerate(lines, 1)]
    c = [f"{t} Q0 {d} {r} {s} runC" for t, _, d, r, s, _ in lines if t != "302"]
    paths = [TREC / "results.test", folder / "runB", folder / "runC"]
    paths[1].write_text("\n".join(b) + "\n")
    paths[2].write_text("\n".join(c) + "\n")
    return paths


def trec_eval_all(capsys: pytest.CaptureFixture[str], run: Path, measure: str) -> float:
    code, out, _ = run_main(capsys, "trec_eval", "-c", "-m", measure, QRELS, run)
    assert code == 0
    [value] = [float(line.split()[2]) for line in out.splitlines()
               if line.split()[1] == "all"]
    return value


@pytest.mark.parametrize("measure", ["gm_map", "gm_bpref"])
def test_compare_shows_trec_eval_geometric_mean(capsys, runs, measure: str) -> None:
    expected = {name: trec_eval_all(capsys, run, measure)
                for name, run in zip(["STANDARD", "runB", "runC"], runs)}
    assert expected["runC"] < 0.01 < expected["runB"]  # the topic left out counts
    code, out, _ = run_main(capsys, "compare", QRELS, *runs, "-m", measure, "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["run"] for r in rows] == ["runB", "runC"]
    for row in rows:
        assert float(row["baseline_mean"]) == pytest.approx(expected["STANDARD"], abs=5e-5)
        assert float(row["mean"]) == pytest.approx(expected[row["run"]], abs=5e-5)
        assert float(row["delta"]) == pytest.approx(
            float(row["mean"]) - float(row["baseline_mean"]), abs=1e-12)
    code, out, _ = run_main(capsys, "compare", QRELS, *runs, "-m", measure)
    assert code == 0
    table = {line.split()[0]: line.split()[-1] for line in out.splitlines()[2:5]}
    assert table == {"STANDARD": f"{expected['STANDARD']:.4f}", "runB":
                     f"{expected['runB']:.4f}", "runC": f"{expected['runC']:.4f}"}
    assert f"{measure}: each run's mean is the geometric mean" in out
    assert "the tests, intervals and effect sizes are on the per-topic logarithms" in out


def test_compare_tests_run_on_the_logarithms(capsys, runs) -> None:
    """The t test's p-value is that of the per-topic logarithms: log(max(AP, 0.00001)) of the
    AP values trec_eval -q prints (it prints no per-topic gm_map)."""
    from scipy import stats

    def logs(run: Path) -> list[float]:
        code, out, _ = run_main(capsys, "trec_eval", "-q", "-c", "-m", "map", QRELS, run)
        assert code == 0
        return [math.log(max(float(line.split()[2]), 0.00001)) for line in out.splitlines()
                if line.split()[1] != "all"]

    code, out, _ = run_main(capsys, "compare", QRELS, runs[0], runs[2], "-m", "gm_map",
                            "--format", "csv")
    assert code == 0
    [row] = list(csv.DictReader(io.StringIO(out)))
    expected = stats.ttest_rel(logs(runs[2]), logs(runs[0])).pvalue
    assert len(logs(runs[0])) == 3
    assert float(row["p_value"]) == pytest.approx(expected, rel=1e-3)  # AP to 4 decimals


def test_meta_power_and_agree_geometric_means_and_names_as_typed(capsys, runs) -> None:
    expected = {name: trec_eval_all(capsys, run, "gm_map")
                for name, run in zip(["STANDARD", "runB", "runC"], runs)}
    code, out, _ = run_main(capsys, "meta", "power", QRELS, *runs, "-m", "map", "-m",
                            "gm_map", "-m", "P.10", "--replicates", "50", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert [s["measure"] for s in data["summary"]] == ["map", "gm_map", "P_10"]
    assert "gm_map: a run's mean, where one is shown, is the geometric mean" in (
        data["study"]["title"])
    for pair in data["pairs"]:
        if pair["measure"] == "gm_map":
            assert pair["mean_a"] == pytest.approx(expected[pair["run_a"]], abs=5e-5)
            assert pair["mean_b"] == pytest.approx(expected[pair["run_b"]], abs=5e-5)
    code, out, _ = run_main(capsys, "meta", "power", QRELS, *runs, "-m", "map",
                            "--replicates", "50")
    assert code == 0
    assert re.search(r"^map +STANDARD", out, re.MULTILINE) and not re.search(r"^AP ", out, re.MULTILINE)
    code, out, _ = run_main(capsys, "meta", "agree", QRELS, *runs, "-m", "map", "-m",
                            "gm_map", "--resamples", "20", "--format", "csv")
    assert code == 0
    [row] = list(csv.DictReader(io.StringIO(out)))
    assert (row["measure_a"], row["measure_b"]) == ("map", "gm_map")
    maps = [trec_eval_all(capsys, run, "map") for run in runs]
    gms = list(expected.values())
    mx, my = sum(maps) / 3, sum(gms) / 3
    slope = (sum((x - mx) * (y - my) for x, y in zip(maps, gms))
             / sum((x - mx) ** 2 for x in maps))
    assert float(row["slope"]) == pytest.approx(slope, abs=2e-3)  # trec_eval's 4 decimals


def test_report_geometric_means_and_names_as_typed(capsys, runs, tmp_path) -> None:
    expected = trec_eval_all(capsys, runs[2], "gm_map")
    target = tmp_path / "r.html"
    code, _, err = run_main(capsys, "report", QRELS, *runs, "-m", "map", "-m", "gm_map",
                            "-o", target)
    assert code == 0 and f"wrote {target}" in err
    page = target.read_text()
    assert "Evaluation report: map, gm_map" in page
    assert f">{expected:.4f}<" in page
    assert "on AP:" not in page and "on map:" in page
    assert not math.isnan(expected)


@pytest.mark.parametrize("study", [["power", "--replicates", "20"], ["agree", "--resamples", "5"],
                                   ["topics", "--min-diff", "0.1"]])
@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_meta_output_says_what_it_wrote(capsys, runs, tmp_path, study: list[str],
                                        suffix: str) -> None:
    target = tmp_path / f"out{suffix}"
    code, out, err = run_main(capsys, "meta", study[0], QRELS, *runs, "-m", "map", "-m",
                              "P.10", *study[1:], "-o", target)
    assert code == 0 and out == ""
    assert err.strip().splitlines()[-1] == (f"inexeval: wrote {target} "
                                           f"({target.stat().st_size:,} bytes)")


def test_meta_figure_says_what_it_wrote(capsys, runs, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "asl.svg"
    code, _, err = run_main(capsys, "meta", "power", QRELS, *runs, "-m", "map",
                            "--replicates", "20", "-o", target)
    assert code == 0
    assert err.strip().splitlines()[-1] == (f"inexeval: wrote {target} "
                                           f"({target.stat().st_size:,} bytes)")


@pytest.mark.parametrize("study", [
    ["pool", "--depth", "100", "--depths", "10,50"],
    ["reuse", "--depth", "100"],
    ["pooling"],
])
def test_meta_pool_studies_say_what_they_wrote(capsys, runs, tmp_path, study: list[str]) -> None:
    pytest.importorskip("matplotlib")
    target, figure = tmp_path / "out.txt", tmp_path / "out.svg"
    plot = ["--plot", figure] if study[0] != "pooling" else []
    code, out, err = run_main(capsys, "meta", study[0], QRELS, *runs, *study[1:], "-o", target,
                              *plot)
    assert code == 0 and out == ""
    said = [line for line in err.splitlines() if line.startswith("inexeval: wrote")]
    assert said == [f"inexeval: wrote {path} ({path.stat().st_size:,} bytes)"
                    for path in [target, *([figure] if plot else [])]]


def test_compare_and_meta_power_per_topic_values_are_trec_eval_s(capsys, runs) -> None:
    """compare's and meta power's per-topic values of infAP and P(rel=2)@10 are those of
    inexeval trec_eval -q (-l 2 for the level), topic by topic."""
    from inexeval import Experiment
    from inexeval.meta.power import power_study

    qrels = TREC / "qrels.rel_level"

    def per_topic(run: Path, *flags: str) -> dict[str, float]:
        code, out, _ = run_main(capsys, "trec_eval", "-q", "-c", *flags, qrels, run)
        assert code == 0
        return {line.split()[1]: float(line.split()[2]) for line in out.splitlines()
                if line.split()[1] != "all"}

    study = Experiment(str(qrels), [str(r) for r in runs], measures=["infAP", "P(rel=2)@10"])
    evaluation = study.evaluate("all")
    compared = study.compare(evaluation=evaluation)
    for run, name in zip(runs, compared.runs):
        expected = {"infAP": per_topic(run, "-m", "infAP"),
                    "P(rel=2)@10": per_topic(run, "-l", "2", "-m", "P.10")}
        for measure, values in expected.items():
            got = compared.per_topic[measure][name]
            assert set(got) == set(values)
            for topic, value in values.items():
                assert got[topic] == pytest.approx(value, abs=5e-5), (measure, name, topic)
    [power] = power_study(evaluation.scores.select(measures=["P(rel=2)@10"]), replicates=20)
    means = {name: sum(compared.per_topic["P(rel=2)@10"][name].values()) / 3
             for name in compared.runs}
    for i, (a, b) in enumerate(power.pairs):
        assert power.mean_a[i] == pytest.approx(means[power.runs[a]], abs=1e-12)
        assert power.mean_b[i] == pytest.approx(means[power.runs[b]], abs=1e-12)
