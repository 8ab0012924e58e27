"""meta pool and meta reuse against their definitions: hand-built pools, hand-worked tau_AP,
the pools of `inexeval pool`, and the command line (issue 21)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from inexeval.cli import main
from inexeval.executor import Processes
from inexeval.formats.detect import load_assessments, load_run
from inexeval.formats.pool import read_pool
from inexeval.meta import pool as pool_module
from inexeval.meta.pool import (
    CodedRuns,
    Keys,
    Pooling,
    Power,
    Scoring,
    condensed_runs,
    judged_units,
    kendall_tau,
    left_out_units,
    pool_study,
    rmse,
    sampled_units,
    tau_ap,
    unit_keys,
    without_units,
)
from inexeval.meta.reuse import reuse_study, run_groups
from inexeval.model import Run
from inexeval.model.pool import Pool
from inexeval.model.run import make_topic_run
from tests.helpers import DATA, needs_shared

# Two topics of FOL qrels: relevant articles (rsize > 0, highlighted passages) and judged
# non-relevant ones (rsize 0). Article "e" of topic 1 is relevant and only run "solo" returns it.
QRELS = {
    "1": [("a", 60, "0:60"), ("b", 40, "10:40"), ("c", 0, ""), ("d", 0, ""), ("e", 80, "0:80"),
          ("f", 30, "20:30"), ("g", 0, "")],
    "2": [("a", 50, "0:50"), ("h", 0, ""), ("k", 70, "5:70"), ("m", 0, "")],
}
RUNS = {
    "grpA-one": {"1": ["a", "c", "b", "d"], "2": ["k", "h"]},
    "grpA-two": {"1": ["c", "a", "d", "b"], "2": ["h", "k", "a"]},
    "grpB-solo": {"1": ["e", "a", "c", "g"], "2": ["a", "m"]},
    "grpC-late": {"1": ["d", "c", "a", "f"], "2": ["m", "h", "k"]},
}


def _qrels_text(qrels: dict[str, list[tuple[str, int, str]]], skip: frozenset[tuple[str, str]]
                = frozenset()) -> str:
    lines = []
    for topic, judged in qrels.items():
        for file, rsize, passage in judged:
            if (topic, file) in skip:
                continue
            lines.append(f"{topic} Q0 {file} {rsize} 100" + (f" -1 {passage}" if rsize else ""))
    return "\n".join(lines) + "\n"


def _write_runs(folder: Path, runs: dict[str, dict[str, list[str]]]) -> list[Path]:
    paths = []
    for name, topics in runs.items():
        lines = [f"{topic} Q0 {file} {rank} {1 / rank:.4f} {name} 0 100"
                 for topic, files in topics.items() for rank, file in enumerate(files, 1)]
        path = folder / f"{name}.fol"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, list[Path]]:
    qrels = tmp_path / "qrels.fol"
    qrels.write_text(_qrels_text(QRELS))
    return qrels, _write_runs(tmp_path, RUNS)


def _load(inputs: tuple[Path, list[Path]]) -> tuple[object, list[object]]:
    qrels, runs = inputs
    return load_assessments(str(qrels)), [load_run(str(p)) for p in runs]


FOCUSED = Scoring(task="focused")


def pooled_units(pool: Pool, unit: str) -> dict[str, Keys]:
    """Per topic, the sorted keys of the units of a pool made by pool_runs."""
    return {topic: np.unique(unit_keys(tp.files, tp.paths, unit)) for topic, tp in pool.items()}


# ------------------------------------------------------------------ agreement measures


def test_tau_ap_by_hand() -> None:
    truth = np.array([4.0, 3.0, 2.0, 1.0])
    # the top two swapped: C = 0, 2, 3 over positions 2-4, 2/3 * (0 + 1 + 1) - 1 = 1/3
    assert tau_ap(truth, np.array([3.0, 4.0, 2.0, 1.0])) == pytest.approx(1 / 3)
    # the bottom two swapped: 2/3 * (1 + 1 + 2/3) - 1 = 7/9; Kendall's tau is 2/3 for both
    assert tau_ap(truth, np.array([4.0, 3.0, 1.0, 2.0])) == pytest.approx(7 / 9)
    assert kendall_tau(truth, np.array([3.0, 4.0, 2.0, 1.0])) == pytest.approx(2 / 3)
    assert tau_ap(truth, truth) == 1.0
    assert tau_ap(truth, -truth) == -1.0
    assert math.isnan(tau_ap(np.ones(3), np.arange(3.0)))
    assert math.isnan(tau_ap(np.arange(3.0), np.ones(3)))
    assert rmse(truth, truth + np.array([1.0, -1.0, 1.0, -1.0])) == 1.0


def test_kendall_tau_is_scipys_tau_b() -> None:
    from scipy.stats import kendalltau

    rng = np.random.default_rng(5)
    for _ in range(200):
        m = int(rng.integers(2, 60))
        truth = np.round(rng.random(m), 1)  # ties in both
        estimate = np.round(truth + rng.normal(0, 0.2, m), 1)
        expected = float(kendalltau(truth, estimate).statistic)
        assert kendall_tau(truth, estimate) == pytest.approx(expected, abs=1e-15, nan_ok=True)
    assert math.isnan(kendall_tau(np.ones(4), np.arange(4.0)))
    assert math.isnan(kendall_tau(np.array([1.0, np.nan]), np.array([2.0, 3.0])))
    assert kendall_tau(np.array([1.0, 2.0, np.nan]), np.array([1.0, 3.0, 0.0])) == 1.0


# ------------------------------------------------------------------ pools


def test_full_depth_gives_back_the_full_qrels(inputs: tuple[Path, list[Path]]) -> None:
    assessments, runs = _load(inputs)
    rows = pool_study(assessments, runs, FOCUSED, pooling=Pooling(depth=4), levels=[4, 9],
                      power=Power(replicates=50))
    assert rows and {r.level for r in rows} == {4, 9}
    for row in rows:
        assert row.rmse == 0.0
        assert row.kendall_tau == 1.0 or math.isnan(row.kendall_tau)
        assert row.tau_ap == 1.0 or math.isnan(row.tau_ap)
        assert row.judged == 11


def test_a_shallow_pool_unjudges_what_it_does_not_hold(inputs: tuple[Path, list[Path]]) -> None:
    assessments, runs = _load(inputs)
    full = pooled_units(Pooling(depth=4).pool(runs), "article")
    one = pooled_units(Pooling(depth=4).pool(runs, 1), "article")
    removed = left_out_units(full, one)
    assert removed["1"].tolist() == ["b", "f", "g"]  # rank 1 pools a, c, d, e
    assert removed["2"].tolist() == []  # rank 1 pools k, h, a, m: all of topic 2
    reduced = without_units(assessments, removed, "article")
    assert sorted(reduced["1"].files.tolist()) == ["a", "c", "d", "e"]
    assert set(reduced["1"].highlights) == {"a", "e"}
    [row] = [r for r in pool_study(assessments, runs, FOCUSED, pooling=Pooling(depth=4),
                                   levels=[1], power=None) if r.measure == "iP[0.01]"]
    assert row.judged == 8


def test_depth_pools_are_those_of_the_pool_command(inputs: tuple[Path, list[Path]],
                                                   tmp_path: Path) -> None:
    _, runs = _load(inputs)
    paths = inputs[1]
    pooled = {}
    for depth in (2, 4):
        out = tmp_path / f"pool{depth}.tsv"
        assert main(["pool", *map(str, paths), "--depth", str(depth), "-o", str(out)]) == 0
        pooled[depth] = {t: sorted(set(tp.files.tolist())) for t, tp in read_pool(out).items()}
    study = CodedRuns.of(runs, ["1", "2"], Pooling(depth=4)).pooled(level=2)
    assert {t: keys.tolist() for t, keys in study.items()} == pooled[2]
    # the qrels of level 2: the full qrels without the units of pool 4 that pool 2 lacks
    removed = left_out_units(pooled_units(Pooling(depth=4).pool(runs), "article"), study)
    expected = {t: sorted(set(pooled[4][t]) - set(pooled[2].get(t, []))) for t in pooled[4]}
    assert {t: k.tolist() for t, k in removed.items()} == expected


@pytest.mark.parametrize("long_name", [False, True])
def test_runs_are_coded_by_their_readers_codes_as_by_their_names(
        tmp_path: Path, long_name: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # names of several lengths (their packed integers do not sort as the names do), repeated
    # in a topic; a name over 8 bytes leaves the run without packed names. The names hashed
    # are the topic's distinct ones (packed names), or each run's (codes alone), not every
    # result's.
    names = {"r1": {"1": ["9", "10", "9", "ab", "10"], "2": ["b", "a"]},
             "r2": {"1": ["10", "ab", "z" * (12 if long_name else 1), "9"], "2": ["a", "a"]}}
    read = [load_run(str(p)) for p in _write_runs(tmp_path, names)]
    assert all((getattr(r.topics, "packed_names", None) is None) == long_name
               for r in read[1:])
    plain = [Run(r.name, r.kind, {t: make_topic_run(t, list(tr.files), ranks=list(tr.ranks))
                                  for t, tr in r.topics.items()}) for r in read]
    unpacked = [Run(r.name, r.kind, dict(r.topics.items())) for r in read]
    by_names = CodedRuns.of(plain, ["1", "2"], Pooling(articles=3))
    assert by_names.keys["1"].tolist() == ["10", "9", "ab", "z" * (12 if long_name else 1)]
    hashed: list[int] = []
    coded_names = pool_module._coded

    def counted(names: np.ndarray) -> tuple[Keys, np.ndarray]:
        hashed.append(len(names))
        return coded_names(names)

    monkeypatch.setattr(pool_module, "_coded", counted)
    for runs, sizes in ((read, [7, 3] if long_name else [4, 2]), (unpacked, [7, 3]),
                        ([read[0], plain[1]], [9, 4])):
        hashed.clear()
        coded = CodedRuns.of(runs, ["1", "2"], Pooling(articles=3))
        assert hashed == sizes
        for topic in ("1", "2"):
            assert coded.keys[topic].tolist() == by_names.keys[topic].tolist()
            assert [a.tolist() for a in coded.rounds[topic]] == [
                a.tolist() for a in by_names.rounds[topic]]


@needs_shared
@pytest.mark.parametrize("pooling, levels", [(Pooling(articles=200), (20, 60, 200)),
                                            (Pooling(depth=20), (1, 5, 20))])
def test_coded_pools_are_pool_runs_pools(pooling: Pooling, levels: tuple[int, ...]) -> None:
    qrels = load_assessments(str(DATA / "inex2010" / "inex2010.qrels"))
    runs = [load_run(str(DATA / "ipcs" / name)) for name in
            ("bert_inex_converted_1.run", "bert1_incontext.run", "bert1_bestincontext.run")]
    topics = [t for t in qrels if any(t in run for run in runs)][:12]
    assert len(topics) == 12
    coded = CodedRuns.of(runs, topics, pooling)
    for kept in ([0, 1, 2], [0, 2], [1]):
        for level in levels:
            by_strings = pooled_units(pooling.pool([runs[i] for i in kept], level, topics),
                                      "article")
            by_codes = coded.pooled(kept, level)
            assert {t: k.tolist() for t, k in by_codes.items() if len(k)} == {
                t: k.tolist() for t, k in by_strings.items()}


def test_condensed_runs_drop_the_unjudged(inputs: tuple[Path, list[Path]],
                                          tmp_path: Path) -> None:
    assessments, runs = _load(inputs)
    reduced = without_units(assessments, {"1": np.array(["c", "d"])}, "article")
    [condensed] = condensed_runs([runs[0]], reduced, "article")
    assert condensed["1"].files.tolist() == ["a", "b"]
    assert condensed["2"] is runs[0]["2"]
    (tmp_path / "hand").mkdir()
    by_hand = _write_runs(tmp_path / "hand", {"grpA-one": {"1": ["a", "b"], "2": ["k", "h"]}})
    assert (FOCUSED.scores(reduced, [condensed]).values.tolist()
            == FOCUSED.scores(reduced, [load_run(str(by_hand[0]))]).values.tolist())


def test_samples(inputs: tuple[Path, list[Path]]) -> None:
    assessments, _ = _load(inputs)
    judged = judged_units(assessments, "article")["1"]
    assert judged.keys.tolist() == ["a", "b", "c", "d", "e", "f", "g"]
    assert judged.relevant.tolist() == [True, True, False, False, True, True, False]
    rng = np.random.default_rng(1)
    assert len(sampled_units(judged, 1.0, "random", rng)) == 0
    for _ in range(20):
        gone = sampled_units(judged, 0.3, "random", rng)
        assert len(gone) == 7 - 2  # round(2.1) kept
        gone = sampled_units(judged, 0.1, "stratified", rng)
        kept = sorted(set(judged.keys.tolist()) - set(gone.tolist()))
        assert len(kept) == 1 and kept[0] in {"a", "b", "e", "f"}  # at least one relevant


def test_sampling_at_rate_one_changes_nothing_and_the_seed_decides(
        inputs: tuple[Path, list[Path]]) -> None:
    assessments, runs = _load(inputs)
    whole = pool_study(assessments, runs, FOCUSED, sample="random", rates=[1.0], power=None)
    assert all(r.rmse == 0.0 for r in whole)
    first = pool_study(assessments, runs, FOCUSED, sample="stratified", rates=[0.3, 0.6],
                       iterations=3, seed=5, power=None)
    again = pool_study(assessments, runs, FOCUSED, sample="stratified", rates=[0.3, 0.6],
                       iterations=3, seed=5, power=None, executor=Processes(2))
    assert repr(first) == repr(again)  # NaN included
    assert [(r.level, r.iteration) for r in first[:6]] == [(0.3, 1), (0.3, 2), (0.3, 3),
                                                          (0.6, 1), (0.6, 2), (0.6, 3)]


# ------------------------------------------------------------------ reuse


def test_a_run_without_unique_units_loses_nothing(inputs: tuple[Path, list[Path]]) -> None:
    assessments, runs = _load(inputs)
    reuse = reuse_study(assessments, runs, FOCUSED, Pooling(depth=4))
    one = [r for r in reuse.runs if r.left_out == "grpA-one"]
    assert one and all(r.score_without == r.score_full and r.difference == 0.0
                       and r.unique_relevant == 0 and r.rank_without == r.rank_full
                       for r in one)


def test_the_run_that_alone_found_a_document_loses_exactly_it(
        inputs: tuple[Path, list[Path]], tmp_path: Path) -> None:
    assessments, runs = _load(inputs)
    reuse = reuse_study(assessments, runs, FOCUSED, Pooling(depth=4))
    solo = {r.measure: r for r in reuse.runs if r.left_out == "grpB-solo"}
    assert {r.unique_relevant for r in solo.values()} == {1}  # e; g is not relevant
    without = tmp_path / "without-e.fol"
    without.write_text(_qrels_text(QRELS, frozenset({("1", "e"), ("1", "g")})))
    expected = FOCUSED.scores(load_assessments(str(without)), [runs[2]])
    for measure, row in solo.items():
        assert row.score_without == expected.mean(measure, "grpB-solo")
    assert solo["iP[0.00]"].difference > 0
    # late's f is its own too (at rank 4), but f is found by nobody else at depth 4
    late = {r.measure: r for r in reuse.runs if r.left_out == "grpC-late"}
    assert {r.unique_relevant for r in late.values()} == {1}


def test_groups_are_left_out_whole(inputs: tuple[Path, list[Path]]) -> None:
    assessments, runs = _load(inputs)
    groups = run_groups([r.name for r in runs], r"^(grp[A-Z])")
    assert groups == ["grpA", "grpA", "grpB", "grpC"]
    reuse = reuse_study(assessments, runs, FOCUSED, Pooling(depth=4), groups=groups)
    assert [r.left_out for r in reuse.runs][:4] == ["grpA", "grpA", "grpB", "grpC"]
    # group A alone found b (rank 3 of one, 4 of two) and k... k is also late's: only b
    a = [r for r in reuse.runs if r.left_out == "grpA"]
    assert {r.unique_relevant for r in a} == {1}
    assert [s.measure for s in reuse.summary] == list(dict.fromkeys(r.measure
                                                                   for r in reuse.runs))
    for s in reuse.summary:
        diffs = [r.difference for r in reuse.runs if r.measure == s.measure]
        assert s.max_drop == max(diffs)
        assert s.mean_drop == pytest.approx(sum(diffs) / len(diffs))
    again = reuse_study(assessments, runs, FOCUSED, Pooling(depth=4), groups=groups,
                        executor=Processes(2))
    assert repr(again) == repr(reuse)


# ------------------------------------------------------------------ runs per group
# --runs-per-group 1 --group '^(grp[A-Z])' pools grpA-one, grpB-solo and grpC-late, not grpA-two.
FIRST_OF_EACH = (0, 2, 3)


def test_the_pools_of_runs_per_group_are_those_of_the_pool_command(
        inputs: tuple[Path, list[Path]], tmp_path: Path) -> None:
    from inexeval.analysis.pooling import select_runs

    _, runs = _load(inputs)
    assert tuple(select_runs([r.name for r in runs], "^(grp[A-Z])", 1)) == FIRST_OF_EACH
    coded = CodedRuns.of(runs, ["1", "2"], Pooling(depth=4, pooled=FIRST_OF_EACH))
    for depth in (1, 2, 4):
        out = tmp_path / f"pool{depth}.tsv"
        assert main(["pool", *map(str, inputs[1]), "--depth", str(depth), "--runs-per-group",
                     "1", "--group", "^(grp[A-Z])", "-o", str(out)]) == 0
        expected = {t: sorted(set(tp.files.tolist())) for t, tp in read_pool(out).items()}
        assert {t: k.tolist() for t, k in coded.pooled(level=depth).items()} == expected
    # by hand: rank 1 of one, solo and late; grpA-two's c (topic 1) and h (topic 2) are not in
    assert {t: k.tolist() for t, k in coded.pooled(level=1).items()} == {
        "1": ["a", "d", "e"], "2": ["a", "k", "m"]}


def test_a_run_that_was_not_pooled_loses_nothing_and_the_pooled_one_loses_its_own(
        inputs: tuple[Path, list[Path]], tmp_path: Path) -> None:
    assessments, runs = _load(inputs)
    pooling = Pooling(depth=4, pooled=FIRST_OF_EACH)
    reuse = reuse_study(assessments, runs, FOCUSED, pooling)
    two = [r for r in reuse.runs if r.left_out == "grpA-two"]
    assert two and all(r.difference == 0.0 and r.unique_relevant == 0 for r in two)
    # grpA-two returns b too, but is not pooled: b (relevant) was judged for grpA-one alone
    one = {r.measure: r for r in reuse.runs if r.left_out == "grpA-one"}
    assert {r.unique_relevant for r in one.values()} == {1}
    without = tmp_path / "without-b.fol"
    without.write_text(_qrels_text(QRELS, frozenset({("1", "b")})))
    expected = FOCUSED.scores(load_assessments(str(without)), [runs[0]])
    for measure, row in one.items():
        assert row.score_without == expected.mean(measure, "grpA-one")
    # by hand, the share of its articles that are relevant: topic 1 a, c, b, d (a, b relevant),
    # topic 2 k, h (k): (2/4 + 1/2) / 2; without b (1/4 + 1/2) / 2
    assert (one["art_prec"].score_full, one["art_prec"].score_without) == (0.5, 0.375)
    assert one["MAiP"].difference > 0 and one["iP[0.01]"].difference == 0  # b is at rank 3
    # with every run pooled, grpA-two keeps b in the pool: grpA-one loses nothing
    every = reuse_study(assessments, runs, FOCUSED, Pooling(depth=4))
    assert {r.unique_relevant for r in every.runs if r.left_out == "grpA-one"} == {0}


def test_meta_pool_and_reuse_with_runs_per_group(inputs: tuple[Path, list[Path]],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = inputs
    common = [str(qrels), *map(str, runs), "--task", "focused", "--depth", "4",
              "--runs-per-group", "1", "--group", "^(grp[A-Z])", "--format", "json"]
    assert main(["meta", "pool", *common, "--depths", "1,4", "--power", "none"]) == 0
    levels = json.loads(capsys.readouterr().out)["levels"]
    # depth 1 of the pooled runs leaves b, c, f, g (topic 1) and h (topic 2) of the 11 unjudged;
    # with every run pooled it would leave b, f, g
    assert {lv["level"]: lv["judged"] for lv in levels} == {1: 6, 4: 11}
    assert all(lv["rmse"] == 0.0 for lv in levels if lv["level"] == 4)
    assert main(["meta", "reuse", *common]) == 0
    rows = json.loads(capsys.readouterr().out)["runs"]
    # group A left out: its pooled run grpA-one alone found b
    assert {r["unique_relevant"] for r in rows if r["left_out"] == "grpA"} == {1}
    assert main(["meta", "reuse", *common[:-2], "--digits", "2"]) == 0
    assert "from 1 run(s) per group" in capsys.readouterr().out


# ------------------------------------------------------------------ command line


def test_meta_pool_json_keys(inputs: tuple[Path, list[Path]], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = inputs
    out = tmp_path / "levels.json"
    assert main(["meta", "pool", str(qrels), *map(str, runs), "--task", "focused", "--depth",
                 "4", "--depths", "1,2,4", "--replicates", "20", "--format", "json", "-o",
                 str(out)]) == 0
    levels = json.loads(out.read_text())["levels"]
    assert list(levels[0]) == ["measure", "strategy", "level", "iteration", "judged",
                               "kendall_tau", "tau_ap", "rmse", "discriminative_power"]
    assert [lv["level"] for lv in levels[:3]] == [1, 2, 4]
    assert main(["meta", "pool", str(qrels), *map(str, runs), "--task", "focused",
                 "--sample", "random", "--rates", "0.5", "--iterations", "2",
                 "--power", "none"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("# smaller pools: 4 runs, 2 topics: assessed and answered by at "
                            "least one run")
    assert "random" in table


def test_meta_reuse_json_keys(inputs: tuple[Path, list[Path]],
                              capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = inputs
    assert main(["meta", "reuse", str(qrels), *map(str, runs), "--task", "focused", "--depth",
                 "4", "--group", "^(grp[A-Z])", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["study", "runs", "summary"]
    assert (data["study"]["topics"], data["study"]["rule"]) == (2, "any")
    assert list(data["runs"][0]) == ["measure", "left_out", "run", "score_full",
                                     "score_without", "difference", "rank_full",
                                     "rank_without", "unique_relevant"]
    assert list(data["summary"][0]) == ["measure", "mean_drop", "max_drop", "kendall_tau"]


def test_measures_given_with_m(inputs: tuple[Path, list[Path]],
                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = inputs
    assert main(["meta", "reuse", str(qrels), *map(str, runs), "-m", "iP@0.01", "-m",
                 "P(quant=strict)@2", "--depth", "4", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["measure"] for s in data["summary"]] == ["iP[0.01]", "P@2"]
    solo = [r for r in data["runs"] if r["run"] == "grpB-solo" and r["measure"] == "P@2"]
    assert solo[0]["score_full"] == 0.75 and solo[0]["score_without"] == 0.5  # e at rank 1


@pytest.mark.parametrize("study", [["pool", "--depths", "1,4", "--replicates", "20"],
                                   ["reuse"]])
def test_a_task_keeps_only_the_measures_of_m(inputs: tuple[Path, list[Path]],
                                             capsys: pytest.CaptureFixture[str],
                                             study: list[str]) -> None:
    """Issue 32, item 3: --task with -m (any spelling) studies the measures named, no other."""
    qrels, runs = inputs
    assert main(["meta", study[0], str(qrels), *map(str, runs), "--task", "focused", "-m",
                 "AiP", "-m", "iP[0.01]", "--depth", "4", *study[1:], "--format",
                 "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["levels"] if study[0] == "pool" else data["summary"]
    assert {row["measure"] for row in rows} == {"MAiP", "iP[0.01]"}


@needs_shared
def test_pool_studies_use_compare_s_topics(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32, item 1: meta pool and reuse on the topics assessed and answered by at least
    one run (60 of the 120 of INEX 2009's focused qrels), -c on every assessed one."""
    ipcs = DATA / "ipcs"
    inputs = [str(ipcs / "INEX_Qrels.txt"), str(ipcs / "bert1_bestincontext.run"),
              str(ipcs / "bert1_incontext.run"), "--task", "focused", "-m", "MAiP",
              "--articles", "500"]
    for rule, words in (([], "60 topics: assessed and answered by at least one run"),
                        (["-c"], "120 topics: every assessed topic (-c")):
        assert main(["meta", "reuse", *inputs, *rule]) == 0
        assert words in capsys.readouterr().out
        assert main(["meta", "pool", *inputs, *rule, "--article-counts", "50",
                     "--power", "none"]) == 0
        assert words in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["pool", "--depths", "1,2"], "--depths re-pools qrels pooled by depth"),
    (["pool", "--depth", "4"], "give the levels"),
    (["pool", "--depth", "4", "--depths", "0,2"], "depths"),
    (["pool", "--sample", "random"], "--sample and --rates go together"),
    (["pool", "--sample", "random", "--rates", "1.5"], "rates"),
    (["reuse"], "--depth K or --articles N"),
    (["reuse", "--depth", "4", "--group", "("], "not a regular expression"),
    (["reuse", "--depth", "4", "--group", "^x"], "does not match --group"),
    (["reuse", "--depth", "4", "--scheduler", "local:x"], "local:N"),
    (["reuse", "--depth", "4", "--inputs", "send"], "it goes with --scheduler"),
    (["reuse", "--depth", "4", "--plot", "figure.jpg"], "figure format"),
    (["reuse", "--depth", "4", "--runs-per-group", "1"], "--runs-per-group M needs --group"),
    (["pool", "--sample", "random", "--rates", "0.5", "--runs-per-group", "1", "--group", "x"],
     "give --depth K"),
    (["pool", "--depth", "4", "--depths", "1", "--group", "^(grp)"], "--group goes with"),
])
def test_bad_requests_are_one_line_and_exit_2(inputs: tuple[Path, list[Path]], argv: list[str],
                                              message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = inputs
    code = main(["meta", argv[0], str(qrels), *map(str, runs), "--task", "focused", *argv[1:]])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_element_qrels_judge_elements() -> None:
    from inexeval.meta.pool import pool_unit
    from tests.helpers import assessments, element_run

    def judged(e: int, s: int) -> dict[str, int]:
        return {"exhaustivity": e, "specificity": s}

    qrels = assessments("inex2003", {"1": [
        ("a", "/article[1]", judged(1, 1)), ("a", "/article[1]/sec[1]", judged(3, 3)),
        ("a", "/article[1]/sec[2]", judged(0, 0)), ("b", "/article[1]/sec[1]", judged(2, 3))]})
    runs = [element_run("one", {"1": [("a", "/article[1]/sec[1]"), ("a", "/article[1]")]}),
            element_run("two", {"1": [("a", "/article[1]"), ("a", "/article[1]/sec[2]")]}),
            element_run("solo", {"1": [("b", "/article[1]/sec[1]"), ("a", "/article[1]")]})]
    assert pool_unit(qrels, runs, 2) == "element"
    scoring = Scoring(("P(quant=strict)@2",))
    reuse = reuse_study(qrels, runs, scoring, Pooling(depth=2, unit="element"))
    rows = {r.run: r for r in reuse.runs}
    # solo alone found b's sec[1] (relevant, not strictly: P stays 0.5 → 0); a/article[1] is
    # everybody's; one alone found a's sec[1] (3,3: strictly relevant)
    assert rows["one"].unique_relevant == 1 and rows["solo"].unique_relevant == 1
    assert rows["two"].unique_relevant == 0
    assert (rows["one"].score_full, rows["one"].score_without) == (0.5, 0.0)
    assert rows["two"].score_without == rows["two"].score_full


def test_sampled_element_qrels_lose_elements() -> None:
    from tests.helpers import assessments, element_run

    qrels = assessments("inex2003", {"1": [
        ("a", f"/article[1]/sec[{i}]", {"exhaustivity": i % 2 * 2, "specificity": i % 2 * 3})
        for i in range(1, 11)]})
    runs = [element_run(name, {"1": [("a", f"/article[1]/sec[{i}]") for i in order]})
            for name, order in (("up", range(1, 11)), ("down", range(10, 0, -1)))]
    [row] = pool_study(qrels, runs, Scoring(("P(quant=strict)@5",)), sample="stratified",
                       rates=[0.4], power=None)
    assert row.judged == 4  # 2 of the 5 relevant sections, 2 of the 5 others: elements


def _trec_qrels_text(assessments: object) -> str:
    from inexeval.model import Assessments

    assert isinstance(assessments, Assessments)
    return "".join(f"{topic} 0 {file} {level}\n" for topic, a in assessments.items()
                   for file, level in zip(a.files.tolist(), a.dim("relevance").tolist()))


def test_units_not_sampled_stay_pooled_but_unjudged_for_infap(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32, item 8: qrels d1 1, d2 0, d3 1, d4 0, d5 1, run d2 d4 d1 d3 d5, d2 and d4 not
    sampled. Kept at level -1 (pooled, not judged) trec_eval's infAP is 0.8889 (Yilmaz and
    Aslam 2006: the non-relevant d2 and d4 not sampled, the precision above d1, d3 and d5 is
    estimated from the sampled documents above them); dropped from the qrels (never pooled)
    it is AP, 0.4778. A sampled study's qrels keep them; re-pooling to a depth still drops."""
    import pytrec_eval

    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n1 0 d4 0\n1 0 d5 1\n")
    run = tmp_path / "run"
    run.write_text("".join(f"1 Q0 {d} {i} {6 - i} r\n"
                           for i, d in enumerate(["d2", "d4", "d1", "d3", "d5"], 1)))
    assessments = load_assessments(qrels)
    reduced = without_units(assessments, {"1": np.array(["d2", "d4"])}, "article",
                            pooled=True)
    sampled = tmp_path / "sampled"
    sampled.write_text(_trec_qrels_text(reduced))
    assert sampled.read_text() == "1 0 d1 1\n1 0 d2 -1\n1 0 d3 1\n1 0 d4 -1\n1 0 d5 1\n"
    assert main(["trec_eval", "-m", "infAP", str(sampled), str(run)]) == 0
    assert capsys.readouterr().out.split() == ["infAP", "all", "0.8889"]
    reference = pytrec_eval.RelevanceEvaluator(
        {"1": {"d1": 1, "d2": -1, "d3": 1, "d4": -1, "d5": 1}}, {"infAP"}).evaluate(
        {"1": {"d2": 5.0, "d4": 4.0, "d1": 3.0, "d3": 2.0, "d5": 1.0}})
    assert reference["1"]["infAP"] == pytest.approx(0.8889, abs=5e-5)
    # the study's sample leaves them the same way: a seed that draws d1, d3, d5
    judged = judged_units(assessments, "article")["1"]
    for seed in range(100):
        gone = sampled_units(judged, 0.6, "random", np.random.default_rng(seed))
        if gone.tolist() == ["d2", "d4"]:
            break
    assert gone.tolist() == ["d2", "d4"]
    # the unjudged units are not judged: a second sample draws from d1, d3, d5 only
    again = judged_units(reduced, "article")["1"]
    assert again.keys.tolist() == ["d1", "d3", "d5"]
    [condensed] = condensed_runs([load_run(run)], reduced, "article")
    assert condensed["1"].files.tolist() == ["d1", "d3", "d5"]
    unpooled = without_units(assessments, {"1": np.array(["d2", "d4"])}, "article")
    assert _trec_qrels_text(unpooled) == "1 0 d1 1\n1 0 d3 1\n1 0 d5 1\n"


def test_a_sampled_study_scores_xinfap_with_the_units_not_sampled_in_the_universe(
        tmp_path: Path) -> None:
    """The study's sample of sampled qrels (``topic iter docno stratum rel``) leaves what it
    did not draw at -1, in its stratum: xinfAP on that file, written by hand, gives the study's
    RMSE."""
    from inexeval.executor import task_seeds

    lines = [(f"d{i}", "s1" if i <= 6 else "s2", i % 2) for i in range(1, 13)]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"1 0 {d} {s} {r}\n" for d, s, r in lines))
    runs = []
    for name, order in (("up", range(1, 13)), ("down", range(12, 0, -1)),
                        ("mixed", [2, 4, 1, 6, 3, 8, 5, 10, 7, 12, 9, 11])):
        path = tmp_path / name
        path.write_text("".join(f"1 Q0 d{d} {i} {20 - i} {name}\n"
                                for i, d in enumerate(order, 1)))
        runs.append(load_run(path))
    assessments = load_assessments(qrels)
    scoring = Scoring(("xinfAP",))
    [row] = pool_study(assessments, runs, scoring, sample="random", rates=[0.5], power=None,
                       seed=3)
    gone = sampled_units(judged_units(assessments, "article")["1"], 0.5, "random",
                         np.random.default_rng(task_seeds(3, 1)[0])).tolist()
    by_hand = tmp_path / "by_hand"
    by_hand.write_text("".join(f"1 0 {d} {s} {-1 if d in gone else r}\n" for d, s, r in lines))
    full = scoring.scores(assessments, runs).means()[:, 0]
    sampled = scoring.scores(load_assessments(by_hand), runs).means()[:, 0]
    assert row.judged == 6 and len(gone) == 6
    assert row.rmse == pytest.approx(rmse(full, sampled), abs=1e-12)


def test_judged_counts_the_units_the_reduced_qrels_judge(tmp_path: Path) -> None:
    """Issue 32, item 10: A1 = d1 d2 d3, A2 = d4 d5 d6, B1 = d1 d7 d8 pooled to depth 2
    (d1 d2 d4 d5 d7), qrels without d5; at depth 1 the pool is d1, d4: the reduced qrels judge
    2 units (d5 was never judged, so leaving the pool takes nothing from the count)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d4 1\n1 0 d7 0\n")
    runs = []
    for name, docs in (("A1", "123"), ("A2", "456"), ("B1", "178")):
        path = tmp_path / name
        path.write_text("".join(f"1 Q0 d{d} {i} {9 - i} {name}\n" for i, d in enumerate(docs, 1)))
        runs.append(load_run(path))
    [row] = pool_study(load_assessments(qrels), runs, Scoring(("P@2",)),
                       pooling=Pooling(depth=2), levels=[1], power=None)
    assert row.judged == 2


def test_sampled_fol_qrels_keep_what_was_not_drawn_at_rsize_minus_one(tmp_path: Path) -> None:
    """Sampled FOL qrels (with strata) mark a unit not drawn rsize -1, without its passages:
    xinfAP reads it as pooled and not sampled, as on the file written so by hand."""
    lines = {"a": (60, "0:60"), "b": (40, "10:40"), "c": (0, ""), "d": (0, ""), "e": (80, "0:80")}

    def text(gone: set[str]) -> str:
        return "".join(f"1 Q0 {f} -1 100 s1\n" if f in gone else
                       f"1 Q0 {f} {r} 100" + (f" -1 {p}" if r else "") + " s1\n"
                       for f, (r, p) in lines.items())

    full, by_hand = tmp_path / "full.fol", tmp_path / "by_hand.fol"
    full.write_text(text(set()))
    by_hand.write_text(text({"b", "c"}))
    assessments = load_assessments(full)
    assert "stratum" in assessments["1"].dims
    reduced = without_units(assessments, {"1": np.array(["b", "c"])}, "article", pooled=True)
    expected = load_assessments(by_hand)["1"]
    assert reduced["1"].dim("rsize").tolist() == expected.dim("rsize").tolist() == [
        60, -1, -1, 0, 80]
    assert sorted(reduced["1"].highlights) == sorted(expected.highlights) == ["a", "e"]
    assert judged_units(reduced, "article")["1"].keys.tolist() == ["a", "d", "e"]
    run = tmp_path / "r.fol"
    run.write_text("".join(f"1 Q0 {f} {i} {1 / i:.4f} r 0 100\n"
                           for i, f in enumerate("cbaed", 1)))
    scoring = Scoring(("xinfAP",))
    assert (scoring.scores(reduced, [load_run(run)]).values.tolist()
            == scoring.scores(load_assessments(by_hand), [load_run(run)]).values.tolist())
