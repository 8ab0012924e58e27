"""The Python API people know: ir_measures' verbs and argument order, DataFrames and
pytrec_eval-style dicts as inputs, measure objects, Results as DataFrame and dict, progress
bars only on a terminal."""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

import ir_measures
import pandas as pd
import pytest

import inexeval
from inexeval import measures
from inexeval.errors import InexevalError, MeasureError
from inexeval.progress import progress, progress_callback
from tests.helpers import needs_shared


def _random(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for t in map(str, range(1, 6)):
        docs = [f"d{i}" for i in range(40)]
        qrels[t] = {d: rng.choice((0, 0, 1, 2)) for d in rng.sample(docs, 20)}
        run[t] = {d: rng.random() for d in rng.sample(docs, 25)}
    return qrels, run


def test_calc_aggregate_and_iter_calc_as_ir_measures() -> None:
    qrels, run = _random(5)
    wanted = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5, ir_measures.RR,
              ir_measures.R @ 10, ir_measures.Judged @ 10, ir_measures.Judged @ 100]
    theirs = {str(m): v for m, v in ir_measures.calc_aggregate(wanted, qrels, run).items()}
    ours = inexeval.calc_aggregate([measures.AP, measures.nDCG @ 10, "P@5", "RR", "R@10",
                                    "Judged@10", "Judged@100"], qrels, run)
    assert {str(m): v for m, v in ours.items()} == pytest.approx(theirs, abs=1e-12)
    per_topic = {(m.query_id, m.measure): m.value for m in inexeval.iter_calc(
        [measures.AP], qrels, run)}
    same_order = {(m.topic, m.measure): m.value for m in inexeval.iter_calc(
        qrels, run, ["map"])}
    assert per_topic == same_order and len(per_topic) == 5
    theirs_topics = {(m.query_id, "AP"): m.value for m in ir_measures.iter_calc(
        [ir_measures.AP], qrels, run)}
    assert per_topic == pytest.approx(theirs_topics, abs=1e-12)


def test_dataframes_with_ir_measures_columns() -> None:
    qrels, run = _random(9)
    qrels_frame = pd.DataFrame([(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
                               columns=["query_id", "doc_id", "relevance"])
    run_frame = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                             columns=["query_id", "doc_id", "score"])
    from_frames = inexeval.evaluate(qrels_frame, run_frame, ["AP", "bpref", "nDCG@5"])
    from_dicts = inexeval.evaluate(qrels, run, ["AP", "bpref", "nDCG@5"])
    assert from_frames.to_dict() == from_dicts.to_dict()
    with pytest.raises(InexevalError, match="no column relevance"):
        inexeval.evaluate(qrels_frame.drop(columns="relevance"), run_frame, ["AP"])


def test_passage_dataframes_run_the_focused_measures() -> None:
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0],
                          "offset": [10, 0], "length": [10, 5]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [2.0, 1.0],
                        "offset": [0, 10], "length": [10, 10]})
    values = inexeval.calc_aggregate([measures.iP @ 0.01, measures.MAiP, "passage2_AP"],
                                     qrels, run)
    # 10 irrelevant characters then the 10 relevant ones: precision 1/2 at full recall
    assert values[measures.iP @ 0.01] == pytest.approx(0.5)
    assert values[measures.MAiP] == pytest.approx(0.5)
    expected = sum(i / (10 + i) for i in range(1, 11)) / 10
    assert values[measures.passage2_AP] == pytest.approx(expected)


def test_measure_objects_print_as_their_names() -> None:
    assert str(measures.iP @ 0.01) == "iP[0.01]" and repr(measures.MAiP) == "MAiP"
    assert str(measures.P(quant="generalised") @ 10) == "P(quant=generalised)@10"
    assert str(getattr(measures, "R-Prec")) == "R-Prec" and str(measures.map) == "AP"
    assert measures.iP @ 0.01 == inexeval.parse_measure("iP[0.01]")
    with pytest.raises(MeasureError, match="needs a cut-off"):
        inexeval.calc_aggregate([measures.iP], {"1": {"a": 1}}, {"1": {"a": 1.0}})
    with pytest.raises(AttributeError):
        measures.NoSuchMeasure  # noqa: B018


def test_results_as_dataframe_and_dict() -> None:
    qrels, run = _random(2)
    results = inexeval.evaluate(qrels, [inexeval.as_run(run, "a"), inexeval.as_run(run, "b")],
                                ["AP", "num_rel"])
    frame = results.to_dataframe()
    assert list(frame.columns) == ["run", "topic", "measure", "value"]
    assert len(frame) == 2 * 5 * 2 and set(frame["run"]) == {"a", "b"}
    with_means = results.to_dataframe(means=True)
    assert set(with_means[with_means.topic == "all"].measure) == {"num_q", "AP", "num_rel"}
    as_dict = results.to_dict()
    assert as_dict["a"]["all"]["num_rel"] == sum(
        as_dict["a"][t]["num_rel"] or 0 for t in qrels)
    assert as_dict["b"]["3"]["AP"] == results.value("b", "3", "AP")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bars_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert list(progress(range(3), "x", 3)) == [0, 1, 2] and progress_callback("x") is None
    assert sys.stderr.getvalue() == ""
    pytest.importorskip("tqdm")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(progress(range(3), "evaluating", 3)) == [0, 1, 2]
    update = progress_callback("indexing")
    assert update is not None
    update(2, 2)
    assert "evaluating" in terminal.getvalue() and "indexing" in terminal.getvalue()


@needs_shared
def test_runs_sharing_a_run_id_are_named_by_file_in_the_api(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from inexeval.formats.detect import load_assessments, load_run
    from inexeval.measures.focused import evaluate_task
    from tests.helpers import DATA

    qrels = load_assessments(DATA / "ipcs" / "INEX_Qrels.txt")
    lines = (DATA / "ipcs" / "bert_inex_converted_1.run").read_text().splitlines(keepends=True)
    for folder, keep in (("a", 2), ("b", 3)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bert.run").write_text("".join(lines[::keep]))
    runs = [load_run(tmp_path / folder / "bert.run") for folder in ("a", "b")]
    expected = ["TREC2INEX (a/bert.run)", "TREC2INEX (b/bert.run)"]
    results = inexeval.evaluate(qrels, runs, ["MAiP"])
    assert results.runs() == expected
    assert results.mean("MAiP", expected[0]) != results.mean("MAiP", expected[1])
    assert evaluate_task(qrels, runs, "focused").runs() == expected


def test_a_notebook_s_view_of_the_api() -> None:
    """``inexeval.__version__``, ``dir(inexeval)`` the public API, a ``Results`` repr that says
    what it holds in a few words (not its rows), an unknown run a KeyError naming the runs."""
    import inexeval
    from inexeval.version import package_version

    suite = Path(__file__).resolve().parent / "data" / "trec_eval"
    assert inexeval.__version__ == package_version()
    public = [name for name in dir(inexeval) if not name.startswith("_")]
    assert public == sorted(inexeval.__all__)
    assert "__version__" in dir(inexeval)
    results = inexeval.evaluate(str(suite / "qrels.test"), str(suite / "results.test"),
                                ["AP", "P@10", "infAP"])
    shown = repr(results)
    assert len(shown) < 500 and "1 run × 3 topics × 3 measures" in shown and "STANDARD" in shown
    with pytest.raises(KeyError, match="no run 'other': the runs are STANDARD"):
        results.mean("AP", "other")
    with pytest.raises(KeyError, match="the runs are STANDARD"):
        results.value("other", "301", "AP")


def test_runs_as_a_dict_of_dataframes_are_named_by_their_keys() -> None:
    suite = Path(__file__).resolve().parent / "data" / "trec_eval"
    lines = [line.split() for line in (suite / "results.test").read_text().splitlines()]
    frame = pd.DataFrame({"query_id": [f[0] for f in lines], "doc_id": [f[2] for f in lines],
                          "score": [float(f[4]) for f in lines]})
    study = inexeval.Experiment(str(suite / "qrels.test"),
                                {"sys1": frame, "sys2": frame.assign(score=-frame.score)},
                                measures=["AP"])
    evaluation = study.evaluate()
    assert list(evaluation.scores.runs) == ["sys1", "sys2"]
    assert evaluation["sys1"]["AP"] == pytest.approx(inexeval.calc_aggregate(
        ["AP"], str(suite / "qrels.test"), str(suite / "results.test"))[measures.AP], rel=1e-12)
    with pytest.raises(KeyError, match="no run 'sys3': the runs are sys1, sys2"):
        evaluation["sys3"]
    frame = evaluation.to_dataframe(means=True)
    means = frame[frame.topic == "all"]
    assert means.set_index("run").value.to_dict() == {"sys1": evaluation["sys1"]["AP"],
                                                     "sys2": evaluation["sys2"]["AP"]}
    assert len(frame) == len(evaluation.to_dataframe()) + 2
    shown = repr(study.compare())
    assert len(shown) < 200 and shown.startswith("Comparison(2 runs × 3 topics × 1 measures")


def test_results_as_the_table_a_paper_shows() -> None:
    """to_markdown and _repr_html_: runs × measures of the means (trec_eval's numbers for the
    suite's run, out.test: map 0.1785, P_10 0.3000, num_ret 1500)."""
    suite = Path(__file__).resolve().parent / "data" / "trec_eval"
    results = inexeval.evaluate(str(suite / "qrels.test"), str(suite / "results.test"),
                                ["num_ret", "map", "P@10"])
    assert results.to_markdown() == ("| run | num_ret | AP | P@10 |\n|:--|--:|--:|--:|\n"
                                     "| STANDARD | 1500 | 0.1785 | 0.3000 |\n")
    html = results._repr_html_()
    assert html.startswith("<table>") and "<td>STANDARD</td><td>1500</td><td>0.1785</td>" in html


def test_results_look_a_run_up_by_its_name_or_file() -> None:
    suite = Path(__file__).resolve().parent / "data" / "trec_eval"
    run = str(suite / "results.test")
    results = inexeval.evaluate(str(suite / "qrels.test"), run, ["AP"])
    assert results.mean("AP", run) == results.mean("AP", "STANDARD") == results.mean("map",
                                                                                      run)
    assert results.value(run, "301", "AP") == results.value("STANDARD", "301", "AP")
    with pytest.raises(KeyError, match=r"the runs are STANDARD \(files .*results.test\)"):
        results.mean("AP", "other.run")
