"""``inexeval compare`` and ``inexeval agree`` end to end, and the ``inexeval.compare`` API, on
real INEX data (the ipcs qrels with a real run, the INEX 2010 qrels) and small hand-made inputs."""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from tests.helpers import DATA, assessments, element_run, needs_shared

import inexeval
from inexeval.analysis.agreement import AGREEMENT_COLUMNS, ranking_agreement
from inexeval.analysis.compare import compare_results
from inexeval.cli import main
from inexeval.comparison import COLUMNS
from inexeval.errors import InexevalError, InexevalWarning
from inexeval.evaluation import evaluate
from inexeval.report.comparison import KAPPA_UNDEFINED
from inexeval.report.text import latex_escape

IPCS = DATA / "ipcs"
QRELS = IPCS / "INEX_Qrels.txt"
BERT = IPCS / "bert_inex_converted_1.run"
QRELS_2010 = DATA / "inex2010" / "inex2010.qrels"



def perturbed(source: Path, target: Path, tag: str, seed: int, keep: float = 0.7) -> Path:
    """A second run derived from a real one: a share of its lines dropped at random, a new
    run tag."""
    rng = random.Random(seed)
    lines = [line.replace("TREC2INEX", tag) for line in source.read_text().splitlines()
             if rng.random() < keep]
    target.write_text("\n".join(lines) + "\n")
    return target


def run_main(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def per_topic_aip(capsys: pytest.CaptureFixture[str], run: Path) -> dict[str, float]:
    code, out, _ = run_main(capsys, "eval", QRELS, run, "--task", "focused", "-c", "-q")
    assert code == 0
    values = {}
    for line in out.splitlines():
        measure, topic, value = line.split("\t")
        if measure == "AiP" and topic != "all":
            values[topic] = float(value)
    return values


@needs_shared
def test_compare_real_runs_equals_scipy_on_eval_per_topic_values(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = perturbed(BERT, tmp_path / "other.run", "other", seed=1)
    code, out, err = run_main(capsys, "compare", QRELS, BERT, other, "--task", "focused",
                              "-m", "MAiP", "--test", "t", "--test", "wilcoxon",
                              "--test", "sign", "--format", "csv", "-c")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == list(COLUMNS)
    base, run = per_topic_aip(capsys, BERT), per_topic_aip(capsys, other)
    assert set(base) == set(run)  # every assessed topic, -c
    topics = sorted(base)
    a = np.array([run[t] for t in topics])
    b = np.array([base[t] for t in topics])
    t_row, w_row, s_row = rows
    assert (t_row["run"], t_row["baseline"], int(t_row["n_topics"])) == ("other", "TREC2INEX",
                                                                        len(topics))
    # eval prints 4 decimals: the comparison's exact values agree to that precision
    assert float(t_row["mean"]) == pytest.approx(a.mean(), abs=1e-4)
    exact = {r.measure: r for r in inexeval.compare(str(QRELS), [str(BERT), str(other)],
                                                     ["MAiP"], task="focused",
                                                     complete=True).rows}
    assert float(t_row["p_value"]) == exact["MAiP"].p_value
    assert abs(float(t_row["p_value"]) - stats.ttest_rel(a, b).pvalue) < 1e-3
    d = a - b
    assert int(t_row["wins"]) == int(np.sum(d > 5e-5))
    assert int(t_row["wins"]) + int(t_row["ties"]) + int(t_row["losses"]) == len(topics)
    assert w_row["test"] == "wilcoxon" and s_row["test"] == "sign"


@needs_shared
def test_api_per_topic_values_are_evals_and_tests_are_scipys(tmp_path: Path) -> None:
    other = perturbed(BERT, tmp_path / "other.run", "other", seed=2)
    comparison = inexeval.compare(str(QRELS), [str(BERT), str(other)], ["iP[0.01]", "AiP"],
                                  task="focused", test=["t", "wilcoxon", "sign"], complete=True)
    assert comparison.measures == ["iP[0.01]", "MAiP"]
    assert comparison.baseline == "TREC2INEX"
    assert "paired over 120 topics; means over every assessed topic, a missing one scoring 0" \
        in comparison.header
    for row in comparison.rows:
        values = comparison.per_topic[row.measure]
        a = np.array([values["other"][t] for t in comparison.topics])
        b = np.array([values["TREC2INEX"][t] for t in comparison.topics])
        d = a - b
        assert row.n_topics == len(comparison.topics) == 120
        assert row.delta == pytest.approx(a.mean() - b.mean(), abs=1e-12)
        if row.test == "t":
            ref = stats.ttest_rel(a, b)
            assert row.p_value == pytest.approx(ref.pvalue, abs=1e-9)
            assert (row.ci_low, row.ci_high) == pytest.approx(tuple(ref.confidence_interval()),
                                                              abs=1e-9)
        elif row.test == "wilcoxon":
            nonzero = d[np.abs(d) >= 1e-12]
            assert row.p_value == pytest.approx(stats.wilcoxon(nonzero, method="asymptotic")
                                                .pvalue, abs=1e-9)
        else:
            wins, losses = int(np.sum(d >= 1e-12)), int(np.sum(d <= -1e-12))
            assert (row.wins, row.losses) == (wins, losses)
            assert row.p_value == pytest.approx(stats.binomtest(wins, wins + losses).pvalue,
                                                abs=1e-9)
        assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), abs=1e-12)
    # the means are eval -c's
    evaluated = evaluate(inexeval.load_assessments(QRELS), inexeval.load_run(BERT),
                         ["P@10"], complete=True)
    assert evaluated.topics_evaluated["TREC2INEX"] == comparison.topics


def _generated_2010_runs(folder: Path, count: int) -> list[Path]:
    """Focused runs over the INEX 2010 qrels: per topic, the relevant passages of a random
    share of the judged articles, then other judged articles' first characters."""
    qrels = inexeval.load_assessments(QRELS_2010)
    paths = []
    for k in range(count):
        rng = random.Random(k)
        lines = []
        for topic, judged in qrels.items():
            if rng.random() < 0.1:
                continue  # a topic without results scores 0
            length = dict(zip(judged.files.tolist(), judged.dims["length"].tolist()))
            files = sorted(judged.documents)
            rng.shuffle(files)
            for rank, file in enumerate(files[:40], start=1):
                spans = judged.highlights.get(file)
                if spans is not None and len(spans) and rng.random() < 0.5 + 0.1 * k:
                    start, end = (int(x) for x in spans[0])
                else:
                    start, end = 0, min(200, int(length[file]))
                lines.append(f"{topic} Q0 {file} {rank} {100 - rank} gen{k} {start} {end - start}")
        path = folder / f"gen{k}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


@needs_shared
def test_inex2010_all_pairs_jobs_and_output_file(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    runs = _generated_2010_runs(tmp_path, 3)
    target = tmp_path / "pairs.json"
    common = ["compare", QRELS_2010, *runs, "--task", "focused", "-m", "iP[0.01]", "-m", "MAiP",
              "--all-pairs", "--test", "t", "--test", "tukey", "--correction", "holm",
              "--format", "json"]
    code, _, err = run_main(capsys, *common, "-o", target)
    assert code == 0, err
    rows = json.loads(target.read_text())
    assert [list(r) for r in rows] == [list(COLUMNS)] * 12  # 2 measures x 2 tests x 3 pairs
    assert [(r["run"], r["baseline"]) for r in rows[:3]] == [("gen0", "gen1"), ("gen0", "gen2"),
                                                             ("gen1", "gen2")]
    assert all(r["n_topics"] == 52 for r in rows)
    code, parallel, err = run_main(capsys, *common, "--jobs", "2")
    assert code == 0, err
    assert json.loads(parallel) == rows
    assert not list(tmp_path.glob(".pairs.json.*"))  # no temporary file left
    from statsmodels.stats.multitest import multipletests

    for measure in ("iP[0.01]", "MAiP"):
        t_rows = [r for r in rows if r["measure"] == measure and r["test"] == "t"]
        expected = multipletests([r["p_value"] for r in t_rows], method="holm")[1]
        assert [r["p_adjusted"] for r in t_rows] == pytest.approx(expected.tolist(), abs=1e-12)


@needs_shared
def test_a_run_compared_with_itself(tmp_path: Path) -> None:
    twin = tmp_path / "twin.run"
    twin.write_text(BERT.read_text().replace("TREC2INEX", "twin"))
    comparison = inexeval.compare(str(QRELS), [str(BERT), str(twin)], task="focused",
                                  test=["t", "wilcoxon", "sign", "randomised", "bootstrap"],
                                  correction="holm")
    assert len(comparison.rows) == 5 * 5
    for row in comparison.rows:
        assert (row.p_value, row.p_adjusted, row.delta, row.effect_size) == (1.0, 1.0, 0.0, 0.0)
        assert (row.ties, row.wins, row.losses) == (row.n_topics, 0, 0)


def _small() -> tuple[inexeval.model.Assessments, list[inexeval.model.Run]]:
    def e_s(e: int, s: int) -> dict[str, int]:
        return {"exhaustivity": e, "specificity": s}

    judged = assessments("inex2003", {
        "1": [("f", "/a[1]", e_s(3, 3)), ("g", "/a[1]", e_s(1, 1))],
        "2": [("f", "/a[1]", e_s(2, 2))],  # nothing strictly relevant: strict is undefined
        "3": [("h", "/a[1]", e_s(3, 3)), ("f", "/a[1]", e_s(3, 3))],
        "4": [("g", "/a[1]", e_s(3, 3))]})
    runs = [element_run("A", {"1": [("f", "/a[1]")], "2": [("f", "/a[1]")],
                              "3": [("h", "/a[1]")]}),
            element_run("B", {"1": [("g", "/a[1]"), ("f", "/a[1]")], "2": [("f", "/a[1]")],
                              "3": [("f", "/a[1]"), ("h", "/a[1]")], "4": [("g", "/a[1]")]}),
            element_run("C", {"3": [("h", "/a[1]")]})]
    return judged, runs


def test_undefined_topics_are_left_out_and_missing_topics_score_zero() -> None:
    judged, runs = _small()
    comparison = inexeval.compare(judged, runs, ["inex_eval(quant=strict)", "P@1"],
                                  baseline="B", num_docs=10)
    assert comparison.runs == ["B", "A", "C"]
    strict = {r.run: r for r in comparison.rows if r.measure == "inex_eval"}
    precision = {r.run: r for r in comparison.rows if r.measure == "P@1"}
    # inex_eval strict is undefined on topic 2 (nothing strictly relevant), P@1 is 0 there
    assert strict["A"].n_topics == 3 and precision["A"].n_topics == 4
    assert comparison.per_topic["inex_eval"]["A"]["2"] is None
    # topic 4: no results from A, scoring 0; B finds the one relevant element at rank 1
    assert comparison.per_topic["P@1"]["A"] == {"1": 1.0, "2": 0.0, "3": 1.0, "4": 0.0}
    assert comparison.per_topic["P@1"]["B"] == {"1": 0.0, "2": 0.0, "3": 1.0, "4": 1.0}
    assert comparison.per_topic["inex_eval"]["A"]["4"] == 0.0
    assert (precision["A"].wins, precision["A"].ties, precision["A"].losses) == (1, 2, 1)
    assert precision["A"].delta == 0.0 and precision["C"].delta == pytest.approx(-0.25)
    values = comparison.per_topic["inex_eval"]
    a = [values["A"][t] for t in ("1", "3", "4")]
    b = [values["B"][t] for t in ("1", "3", "4")]
    assert strict["A"].p_value == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=1e-12)
    assert comparison.means["inex_eval"]["C"] == pytest.approx(np.mean([0.0, values["C"]["3"], 0.0]))


def test_formats(capsys: pytest.CaptureFixture[str]) -> None:
    judged, runs = _small()
    results = evaluate(judged, runs, ["P(quant=generalised)@1", "P(quant=generalised)@2"],
                       complete=True)
    comparison = compare_results(results, ["P(quant=generalised)@1", "P(quant=generalised)@2"],
                                 tests=["t", "sign"], alpha=0.5)
    from inexeval.report.comparison import render_comparison

    table = render_comparison(comparison, "table", 3)
    assert table.startswith("# t, sign tests against the baseline A; paired over 4 topics; means "
                            "over every assessed topic")
    assert "A (baseline)" in table and "one mark per test, in the order t, sign" in table
    # B vs A at P@2: t p = 0.117, sign p = 0.25 (3 wins, 1 tie): both below alpha 0.5
    assert "0.688 ··" in table and "0.594 ▲▲" in table and "0.250 ▼·" in table
    markdown = render_comparison(comparison, "markdown")
    assert "| run | P(quant=generalised)@1 |" in markdown
    latex = comparison.to_latex()
    assert r"\toprule" in latex and r"\bottomrule" in latex and r"\textbf{" in latex
    assert r"P(quant=generalised)@1" in latex
    data = comparison.to_dict()
    assert data["baseline"] == "A" and data["tests"] == ["t", "sign"]
    assert list(data["rows"][0]) == list(COLUMNS)
    frame = comparison.to_dataframe()
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 2 * 2 * 2
    marks = [comparison.significant(r) for r in comparison.rows]
    assert all(m == (0 if r.p_adjusted >= 0.5 else (1 if r.delta > 0 else -1))
               for m, r in zip(marks, comparison.rows))


@needs_shared
@pytest.mark.parametrize("extra, message", [
    (["--baseline", "nope"], "unknown baseline 'nope'"),
    (["--test", "z"], "unknown test z"),
    (["--correction", "sidak"], "unknown correction sidak"),
    (["--permutations", "0"], "argument --permutations: '0' is not at least 1"),
    (["--permutations", "9"], "--permutations not used by the t test"),
    (["--seed", "9", "--test", "sign"], "--seed not used by the sign test"),
    (["--all-pairs", "--baseline", "TREC2INEX"], "takes no baseline"),
    (["--test", "tukey"], "add --all-pairs"),
    (["--topics", "1,2"], "no assessed topic"),
])
def test_bad_input_is_one_line_and_exit_2(extra: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    other = perturbed(BERT, tmp_path / "other.run", "other", seed=3)
    code, out, err = run_main(capsys, "compare", QRELS, BERT, other, "--task", "focused", *extra)
    assert code == 2 and out == ""
    errors = [line for line in err.splitlines() if not line.startswith("inexeval: warning: ")]
    assert len(errors) == 1 and errors[0].startswith("inexeval: error: ") and message in errors[0]


@needs_shared
def test_bad_inputs_of_run_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(capsys, "compare", QRELS, BERT, "--task", "focused")
    assert code == 2 and "at least two runs, not 1" in err
    elsewhere, other = tmp_path / "elsewhere.run", tmp_path / "other.run"
    elsewhere.write_text("999 Q0 doc 1 1 x 0 10\n")
    other.write_text("998 Q0 doc 1 1 y 0 10\n")
    code, _, err = run_main(capsys, "compare", QRELS, elsewhere, other, "--task", "focused")
    assert code == 2 and "no topic of the run is assessed" in err
    code, _, err = run_main(capsys, "compare", QRELS, elsewhere, elsewhere, "--task", "focused")
    assert code == 2 and "given twice" in err
    judged, runs = _small()
    with pytest.raises(InexevalError, match="inex_eval has no per-topic values"), \
            pytest.warns(InexevalWarning, match="have no assessments and are ignored"):
        inexeval.compare(judged.select({"2"}), runs[:2], ["inex_eval(quant=strict)"], num_docs=9)
    code, _, err = run_main(capsys, "compare", QRELS, BERT, BERT, "--task", "focused", "-o", BERT)
    assert code == 2 and "would overwrite" in err


@needs_shared
def test_randomised_compare_is_reproducible_and_vectorised_over_runs(tmp_path: Path) -> None:
    runs = _generated_2010_runs(tmp_path, 4)
    qrels = inexeval.load_assessments(QRELS_2010)
    first = inexeval.compare(qrels, [inexeval.load_run(r) for r in runs], ["MAiP"],
                             task="focused", test=["randomised", "bootstrap"],
                             permutations=2000, seed=5)
    again = inexeval.compare(qrels, [inexeval.load_run(r) for r in runs], ["MAiP"],
                             task="focused", test=["randomised", "bootstrap"],
                             permutations=2000, seed=5)
    assert first.rows == again.rows
    from inexeval.analysis import significance

    for row in first.rows:
        values = first.per_topic["MAiP"]
        d = np.array([values[row.run][t] - values[row.baseline][t] for t in first.topics])
        alone = (significance.randomised(d, 2000, 5) if row.test == "randomised"
                 else significance.bootstrap(d, 2000, 5))
        assert (row.p_value, row.ci_low, row.ci_high) == (alone.p_value, alone.ci_low,
                                                          alone.ci_high)


@needs_shared
def test_agree_measures_on_real_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = _generated_2010_runs(tmp_path, 4)
    code, out, err = run_main(capsys, "agree", QRELS_2010, *runs, "--task", "focused",
                              "-m", "iP[0.01]", "-m", "MAiP", "-m", "iP[0.10]", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == list(AGREEMENT_COLUMNS)
    assert [(r["measure_a"], r["measure_b"]) for r in rows] == [
        ("iP[0.01]", "MAiP"), ("iP[0.01]", "iP[0.10]"), ("MAiP", "iP[0.10]")]
    comparison = inexeval.compare(str(QRELS_2010), [str(r) for r in runs],
                                  ["iP[0.01]", "MAiP"], task="focused")
    means = comparison.means
    names = comparison.runs
    expected = ranking_agreement([means["iP[0.01]"][r] for r in names],
                                 [means["MAiP"][r] for r in names])
    assert float(rows[0]["kendall_tau"]) == pytest.approx(expected.kendall_tau, abs=1e-12)
    assert float(rows[0]["tau_ap"]) == pytest.approx(expected.tau_ap, abs=1e-12)
    assert int(rows[0]["n_runs"]) == 4


@needs_shared
def test_agree_assessments_b_and_judgements(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    runs = _generated_2010_runs(tmp_path, 3)
    code, out, err = run_main(capsys, "agree", QRELS_2010, *runs, "--task", "focused", "-m",
                              "MAiP", "--assessments-b", QRELS_2010, "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert (row["measure_a"], row["measure_b"]) == ("MAiP [A]", "MAiP [B]")
    assert row["kendall_tau"] == 1.0 and row["tau_ap"] == 1.0 and row["swaps"] == 0
    code, out, err = run_main(capsys, "agree", "--judgements", QRELS_2010, QRELS_2010,
                              "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 53 and rows[-1]["topic"] == "all"
    assert all(float(r["kappa"]) == 1.0 and float(r["jaccard"]) == 1.0 for r in rows)
    assert int(rows[-1]["both"]) == 5471 and int(rows[-1]["articles"]) == 39031
    code, out, err = run_main(capsys, "agree", "--judgements", QRELS, QRELS_2010)
    assert code == 0, err
    assert out.splitlines()[-1].split()[0] == "all"
    code, _, err = run_main(capsys, "agree", "--judgements", QRELS, QRELS_2010, BERT)
    assert code == 2 and "takes no other" in err
    code, _, err = run_main(capsys, "agree", QRELS_2010, *runs, "--task", "focused", "-m", "MAiP")
    assert code == 2 and "at least two measures" in err


def test_measure_names_are_the_same_in_notes_rows_csv_and_json(
        capsys: pytest.CaptureFixture[str]) -> None:
    from inexeval.demo import ASSESSMENTS_2004, COLLECTION, RUNS

    # the default measures of 2003/2004 assessments include inex_eval(quant=strict), whose
    # canonical name (its default quantisation left out, as the rows print it) is inex_eval
    args = ["compare", ASSESSMENTS_2004, *RUNS, "--collection", COLLECTION]
    code, out, err = run_main(capsys, *args)
    assert code == 0, err
    note = next(line for line in err.splitlines() if "measures for" in line)
    announced = note.split("assessments: ", 1)[1].split(" (choose")[0].split(", ")
    header = next(line for line in out.splitlines() if line.startswith("run "))
    assert header.split()[1:] == announced
    assert "inex_eval" in announced and "inex_eval(quant=strict)" not in note
    code, out, err = run_main(capsys, *args, "--format", "csv")
    assert list(dict.fromkeys(r["measure"] for r in csv.DictReader(io.StringIO(out)))) == announced
    code, out, err = run_main(capsys, *args, "--format", "json")
    assert list(dict.fromkeys(r["measure"] for r in json.loads(out))) == announced


def test_compare_results_and_means_take_any_spelling_of_a_measure() -> None:
    from inexeval.demo import ASSESSMENTS_2004, RUNS

    with pytest.warns(InexevalWarning):
        results = evaluate(str(ASSESSMENTS_2004), [str(r) for r in RUNS],
                           ["inex_eval(quant=strict)", "P(quant=strict)@10"], complete=True)
    comparison = compare_results(results, ["inex_eval(quant=strict)", "P_10"])
    assert comparison.measures == ["inex_eval", "P@10"]
    assert {r.measure for r in comparison.rows} == {"inex_eval", "P@10"}
    run = results.runs()[0]
    assert results.mean("inex_eval(quant=strict)", run) == results.mean("inex_eval", run)
    assert (results.value(run, "91", "P(quant=strict)@10") == results.value(run, "91", "P@10")
            is not None)


@needs_shared
@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "csv"])
def test_agree_judgements_with_itself_prints_no_nan(capsys: pytest.CaptureFixture[str],
                                                    fmt: str) -> None:
    # the ipcs qrels list relevant articles only: every article is relevant for both, one
    # category, so kappa is 0/0 (statsmodels: nan), printed "undefined" with a note saying why
    code, out, err = run_main(capsys, "agree", "--judgements", QRELS, QRELS, "--format", fmt)
    assert code == 0, err
    assert ("kappa undefined" in out) == (fmt != "csv")
    cells = out.replace(KAPPA_UNDEFINED, "").replace(latex_escape(KAPPA_UNDEFINED), "")
    assert "nan" not in cells.lower() and "undefined" in cells
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert {r["kappa"] for r in rows} == {"undefined"} and rows[-1]["topic"] == "all"
        assert all(float(r["jaccard"]) == 1.0 for r in rows)
    # with relevant and non-relevant articles judged, identical assessments have kappa 1
    code, out, err = run_main(capsys, "agree", "--judgements", QRELS_2010, QRELS_2010,
                              "--format", fmt)
    assert code == 0, err
    assert "undefined" not in out and "NaN" not in out


def test_agree_on_element_judgements(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from inexeval.demo import ASSESSMENTS_2004

    changed = tmp_path / "b"
    changed.mkdir()
    for source in sorted(Path(ASSESSMENTS_2004).iterdir()):
        text = source.read_text()
        (changed / source.name).write_text(text.replace("exhaustiveness='3'",
                                                        "exhaustiveness='2'", 2))
    code, out, err = run_main(capsys, "agree", "--judgements", ASSESSMENTS_2004, changed,
                              "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    overall = rows[-1]
    assert overall["topic"] == "all"
    matrix = overall["confusion"]["exhaustivity"]["matrix"]
    categories = overall["confusion"]["exhaustivity"]["categories"]
    three, two = categories.index(3), categories.index(2)
    assert matrix[three][two] == 2 * (len(rows) - 1)  # two changed per topic file
    assert sum(map(sum, matrix)) == overall["exhaustivity_elements"]
    assert overall["exhaustivity_kappa"] < 1.0 and overall["specificity_kappa"] == 1.0
    # every judged article is relevant in both: kappa is undefined (null), agreement total
    assert overall["kappa"] is None and overall["both"] == overall["articles"]


def test_agree_on_highlighted_passages_with_the_collection(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    formats = Path(__file__).resolve().parents[1] / "data"
    given = formats / "formats" / "assessments-2005.xml"
    fewer = tmp_path / "b.xml"  # the second highlighted passage (6 characters) not highlighted
    fewer.write_text("".join(line for line in given.read_text().splitlines(keepends=True)
                             if 'start="/article[1]/bdy[1]/sec[2]/p[1]"' not in line))
    code, out, err = run_main(capsys, "agree", "--judgements", given, fewer, "--collection",
                              formats / "ieee_sample", "--format", "json")
    assert code == 0, err
    topic, overall = json.loads(out)
    assert (topic["chars_a"], topic["chars_b"], topic["chars_both"]) == (23, 17, 17)
    assert topic["precision"] == 1.0 and topic["recall"] == pytest.approx(17 / 23)
    assert topic["f1"] == pytest.approx(34 / 40) and topic["jaccard"] == pytest.approx(17 / 23)
    assert overall["exhaustivity_kappa"] == 1.0 and overall["exhaustivity_elements"] == 3


@needs_shared
def test_in_context_means_are_eval_c(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    in_context = IPCS / "bert1_incontext.run"
    fewer = tmp_path / "fewer.run"  # every fourth line dropped (whole articles stay grouped)
    fewer.write_text("".join(line for i, line in enumerate(in_context.read_text()
                                                          .splitlines(keepends=True))
                             if i % 4 != 3))
    code, out, err = run_main(capsys, "compare", QRELS, in_context, fewer, "--task",
                              "relevant-in-context", "--format", "json", "-c")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["measure"] for r in rows] == ["gP[5]", "gP[10]", "gP[25]", "gP[50]", "MAgP"]
    code, out, err = run_main(capsys, "eval", QRELS, in_context, fewer, "--task",
                              "relevant-in-context", "-c")
    assert code == 0, err
    printed = {(run, measure): float(value) for run, measure, topic, value in
               (line.split("\t") for line in out.splitlines()) if topic == "all"}
    # both runs are "bert1ctx": compare and eval alike name them "bert1ctx (file)"
    for row in rows:
        assert (row["run"], row["baseline"]) == ("bert1ctx (fewer.run)",
                                                 "bert1ctx (bert1_incontext.run)")
        assert row["mean"] == pytest.approx(printed[(row["run"], row["measure"])], abs=5e-5)
        assert row["baseline_mean"] == pytest.approx(printed[(row["baseline"], row["measure"])],
                                                     abs=5e-5)


@needs_shared
def test_without_measures_compare_takes_evals_defaults(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from inexeval.defaults import HEADLINE

    other = perturbed(BERT, tmp_path / "other.run", "other", seed=4)
    code, out, err = run_main(capsys, "compare", QRELS, BERT, other, "--format", "json")
    assert code == 0, err
    assert [r["measure"] for r in json.loads(out)] == HEADLINE["focused"]
    assert "measures for FOL qrels" in err


def test_the_compare_api_takes_a_collection_by_its_folder() -> None:
    """A collection named by its folder (or index file) is loaded, as ``eval`` and
    ``Evaluator`` load it: the same comparison as with the loaded index."""
    from inexeval import demo
    from inexeval.collection.build import load_collection

    runs = [str(demo.RUNS[0]), str(demo.RUNS[1])]
    by_name = inexeval.compare(str(demo.ASSESSMENTS_2005), runs, ["P@10", "overlap@10"],
                               collection=str(demo.COLLECTION))
    loaded = inexeval.compare(str(demo.ASSESSMENTS_2005), runs, ["P@10", "overlap@10"],
                              collection=load_collection(demo.COLLECTION))
    assert by_name.to_dict() == loaded.to_dict()


def test_the_wilcoxon_rule_is_chosen_and_named(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32, item 13: twelve TREC topics where P@1 differs by one on eleven and ties on
    one: compare's Wilcoxon p is scipy's default (every sign pattern of the 11 non-zero
    differences, all tied) unless --wilcoxon r (R's corrected normal approximation); the
    header and the API's JSON name the rule; --wilcoxon r without the test is an error."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 good {1}\n{t} 0 bad 0\n" for t in range(1, 13)))
    better = [t for t in range(1, 13) if t not in (1, 2)]  # a wins 9, loses 2, ties topic 12
    a = tmp_path / "a"
    a.write_text("".join(f"{t} Q0 {'good' if t in better[:-1] or t == 12 else 'bad'} 1 1 a\n"
                         for t in range(1, 13)))
    b = tmp_path / "b"
    b.write_text("".join(f"{t} Q0 {'bad' if t in better[:-1] else 'good'} 1 1 b\n"
                         for t in range(1, 13)))
    d = np.array([-1.0] * 2 + [1.0] * 9 + [0.0])
    common = ["compare", qrels, a, b, "-m", "P@1", "-c", "--test", "wilcoxon"]
    code, out, _ = run_main(capsys, *common, "--format", "csv")
    assert code == 0
    row = next(csv.DictReader(io.StringIO(out)))
    assert float(row["p_value"]) == pytest.approx(stats.wilcoxon(d).pvalue, abs=1e-12)
    code, out, _ = run_main(capsys, *common, "--wilcoxon", "r", "--format", "csv")
    row = next(csv.DictReader(io.StringIO(out)))
    # R: 11 tied |d| of mid-rank 6, V = 2 * 6 = 12 (the smaller sum), mean 33, variance
    # 11*12*23/24 - (11^3 - 11)/48 = 126.5 - 27.5 = 99, |z| = (21 - 0.5) / sqrt(99)
    assert float(row["p_value"]) == pytest.approx(
        math.erfc(20.5 / math.sqrt(99) / math.sqrt(2)), abs=1e-12)
    code, out, _ = run_main(capsys, *common, "--wilcoxon", "r")
    assert code == 0 and "R's wilcox.test defaults" in out.splitlines()[0]
    code, out, _ = run_main(capsys, *common)
    assert "scipy.stats.wilcoxon's default rule" in out.splitlines()[0]
    compared = inexeval.compare(str(qrels), [str(a), str(b)], "P@1", test="wilcoxon",
                                wilcoxon="r", complete=True)
    assert compared.to_dict()["wilcoxon"] == "r" and "R's wilcox.test" in compared.header
    code, _, err = run_main(capsys, "compare", qrels, a, b, "-m", "P@1", "--wilcoxon", "r")
    assert code == 2 and "--wilcoxon r is the rule of the Wilcoxon test" in err
