"""meta repro against the repro_eval package on the same runs: KTU and RBO per topic, RMSE,
nRMSE, p-values, ER and delta RI on the same per-topic scores; the command end to end."""

import json
import warnings

import numpy as np
import pytest

from inexeval.cli import main
from inexeval.formats.detect import load_run
from inexeval.formats.scores import read_scores
from inexeval.meta.repro import ktu, ranked_items, rbo_lists, repro_study

with warnings.catch_warnings():  # repro_eval imports from scipy.stats.stats (deprecated)
    warnings.simplefilter("ignore", DeprecationWarning)
    repro_eval = pytest.importorskip("repro_eval")
    from repro_eval.measure import document_order, effectiveness, overall_effects
    from repro_eval.measure import statistics as repro_statistics
    from repro_eval.util import load_run as repro_load_run


def write_runs(folder, seed: int = 1) -> tuple[str, list[str]]:
    rng = np.random.default_rng(seed)
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{d:03d} {int(rng.random() < 0.3)}\n"
                             for t in range(1, 6) for d in range(40)))
    paths = []
    for name in ("origA", "origB", "repA", "repB"):
        lines = []
        for t in range(1, 6):
            docs = rng.choice(40, size=int(rng.integers(15, 30)), replace=False)
            scores = np.sort(rng.random(len(docs)))[::-1]
            lines += [f"{t} Q0 d{d:03d} {r + 1} {s:.6f} {name}\n"
                      for r, (d, s) in enumerate(zip(docs, scores))]
        path = folder / f"{name}.run"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def test_rankings_agree_with_repro_eval(tmp_path) -> None:
    _, paths = write_runs(tmp_path)
    for original, reproduced in ((paths[0], paths[2]), (paths[1], paths[3])):
        theirs_a, theirs_b = repro_load_run(original), repro_load_run(reproduced)
        expected_rbo = document_order.RBO(theirs_a, theirs_b, p=0.95, depth=1000, pbar=False,
                                          per_topic=True)
        a, b = load_run(original), load_run(reproduced)
        for topic in theirs_a:
            first = ranked_items(a[topic], "trec_eval")
            second = ranked_items(b[topic], "trec_eval")
            # repro_eval's scipy call refuses lists of different lengths: both cut to the shorter
            size = min(len(first), len(second))
            cut = document_order.KTU({topic: dict(list(theirs_a[topic].items())[:size])},
                                     {topic: dict(list(theirs_b[topic].items())[:size])},
                                     per_topic=True)
            assert ktu(first, second) == pytest.approx(cut[topic], abs=1e-12)
            assert rbo_lists(first, second) == pytest.approx(expected_rbo[topic], abs=1e-12)


def test_scores_measures_agree_with_repro_eval(tmp_path) -> None:
    qrels, paths = write_runs(tmp_path, seed=2)
    saved = tmp_path / "s.scores"
    assert main(["eval", "-q", "-c", qrels, *paths, "-m", "P@10", "-m", "AP", "--format",
                 "scores", "-o", str(saved)]) == 0
    scores = read_scores(saved)
    runs = [load_run(p) for p in paths]
    tables = repro_study(scores, runs[:2], runs[2:], order="trec_eval")

    def nested(run: str) -> dict:
        return {t: {m: float(scores.values[scores.runs.index(run), j, k])
                    for k, m in enumerate(scores.measures)}
                for j, t in enumerate(scores.topics)}

    o_a, o_b, r_a, r_b = (nested(name) for name in ("origA", "origB", "repA", "repB"))
    rmse = effectiveness.RMSE(o_a, r_a)
    nrmse = effectiveness.nRMSE(o_a, r_a)
    paired = repro_statistics.ttest(o_a, r_a, rpd=True)
    unpaired = repro_statistics.ttest(o_a, r_a, rpd=False)
    er = overall_effects.ER(o_b, o_a, r_b, r_a)
    dri = overall_effects.DRI(o_b, o_a, r_b, r_a)
    for row in tables["runs"]:
        if row["original"] != "origA":
            continue
        m = row["measure"]
        assert row["rmse"] == pytest.approx(rmse[m], abs=1e-12)
        assert row["nrmse"] == pytest.approx(nrmse[m], abs=1e-12)
        assert row["p_paired"] == pytest.approx(paired[m], abs=1e-12)
        assert row["p_unpaired"] == pytest.approx(unpaired[m], abs=1e-12)
    for row in tables["effects"]:
        assert row["er"] == pytest.approx(er[row["measure"]], abs=1e-12)
        assert row["delta_ri"] == pytest.approx(dri[row["measure"]], abs=1e-12)


def test_command_writes_the_issue_keys(tmp_path, capsys) -> None:
    qrels, paths = write_runs(tmp_path, seed=3)
    assert main(["meta", "repro", qrels, "--original", *paths[:2], "--reproduced",
                 *paths[2:], "-m", "AP", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"per_topic", "runs", "effects"}
    assert {"measure", "original", "reproduced", "topic", "ktu", "rbo"} <= set(
        data["per_topic"][0])
    assert {"measure", "original", "reproduced", "rmse", "nrmse", "p_paired",
            "p_unpaired"} <= set(data["runs"][0])
    assert {"measure", "er", "delta_ri"} <= set(data["effects"][0])
    assert main(["meta", "repro", qrels, "--original", *paths[:2], "--reproduced",
                 paths[2]]) == 2
    assert "give one reproduction per original run" in capsys.readouterr().err
