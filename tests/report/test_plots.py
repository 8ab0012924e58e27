"""``inexeval plot`` and the matplotlib figures: the data drawn are the measure code's values
(checked on the axes' artists, not on pixels), the formats follow the suffix, and without
matplotlib the command says what to install."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import DATA, needs_shared

from inexeval import load_assessments, load_run
from inexeval.cli import main
from inexeval.measures.curves import evaluate_curve, natural_curve, series, task_measure
from inexeval.measures.focused import evaluate_task
from inexeval.scores import describe_rule

pytest.importorskip("matplotlib")

IPCS = DATA / "ipcs"
QRELS = str(IPCS / "INEX_Qrels.txt")
RUNS = [str(IPCS / name) for name in ("bert_inex_converted_1.run", "bert1_incontext.run",
                                      "bert1_bestincontext.run")]


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every figure the command saves (the Figure object, to inspect its artists)."""
    from matplotlib.figure import Figure

    figures: list[object] = []
    save = Figure.savefig

    def keep(self: Figure, *args: object, **kwargs: object) -> None:
        figures.append(self)
        save(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return figures


@needs_shared
def test_curve_lines_are_the_official_ircl_prn(tmp_path: Path, captured: list[object]) -> None:
    out = tmp_path / "curve.png"
    assert main(["plot", "--task", "focused", QRELS, *RUNS[:2], "-o", str(out)]) == 0
    assert out.read_bytes().startswith(b"\x89PNG")
    (ax,) = captured[0].axes  # type: ignore[attr-defined]
    lines = {line.get_label(): line for line in ax.get_lines()}
    official = evaluate_task(load_assessments(QRELS), [load_run(r) for r in RUNS[:2]], "focused",
                             per_topic=False)
    assert set(lines) == {"TREC2INEX", "bert1ctx"}
    for name, line in lines.items():
        x, y = line.get_data()
        np.testing.assert_allclose(x, [b / 100 for b in range(101)])
        np.testing.assert_allclose(y, [official.mean(f"ircl_prn.{b / 100:.2f}", name)
                                       for b in range(101)], rtol=0, atol=1e-12)
    assert ax.get_xlabel() == "recall"


@needs_shared
def test_topic_curve_of_an_in_context_task(tmp_path: Path, captured: list[object]) -> None:
    out = tmp_path / "gp.svg"
    assert main(["plot", "--task", "relevant-in-context", "--topic", "2009001", "--ranks", "25",
                 QRELS, RUNS[1], "-o", str(out)]) == 0
    text = out.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    (line,) = captured[0].axes[0].get_lines()  # type: ignore[attr-defined]
    x, y = line.get_data()
    assert list(x) == list(range(1, 26))
    official = evaluate_task(load_assessments(QRELS), [load_run(RUNS[1])], "relevant-in-context")
    for k in (1, 2, 3, 5, 10, 25):
        assert y[k - 1] == pytest.approx(official.value("bert1ctx", "2009001", f"gP[{k}]"),
                                         abs=1e-15)


@needs_shared
def test_per_topic_bars_are_sorted_differences(tmp_path: Path, captured: list[object]) -> None:
    out = tmp_path / "differences.pdf"
    assert main(["plot", "--task", "focused", "--kind", "per-topic", "--baseline", "bert1ctx",
                 "-c", QRELS, *RUNS, "-o", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    axes = captured[0].axes  # type: ignore[attr-defined]
    assert len(axes) == 2
    assessments = load_assessments(QRELS)
    official = evaluate_task(assessments, [load_run(r) for r in RUNS], "focused", complete=True)
    for ax, run in zip(axes, ("TREC2INEX", "bert1bic")):
        heights = [bar.get_height() for bar in ax.patches]
        topics = [tick.get_text() for tick in ax.get_xticklabels()]
        assert heights == sorted(heights, reverse=True)
        assert sorted(topics) == sorted(assessments)
        for topic, height in zip(topics, heights):
            expected = (official.value(run, topic, "AiP")
                        - official.value("bert1ctx", topic, "AiP"))
            assert height == pytest.approx(expected, abs=1e-12)
        assert ax.get_ylabel() == f"MAiP: {run} − bert1ctx"


@needs_shared
def test_box_and_scatter(tmp_path: Path, captured: list[object]) -> None:
    assert main(["plot", "--task", "focused", "--kind", "box", "-c", QRELS, *RUNS,
                 "-o", str(tmp_path / "box.png")]) == 0
    assert main(["plot", "--task", "focused", "--kind", "scatter", "-m", "MAiP", "-m",
                 "iP[0.01]", "-c", QRELS, *RUNS, "-o", str(tmp_path / "scatter.png")]) == 0
    box, scatter = (fig.axes[0] for fig in captured)  # type: ignore[attr-defined]
    assert [t.get_text() for t in box.get_xticklabels()] == ["TREC2INEX", "bert1ctx",
                                                             "bert1bic"]
    official = evaluate_task(load_assessments(QRELS), [load_run(r) for r in RUNS], "focused",
                             complete=True)
    points = scatter.collections[0].get_offsets()
    for (a, b), run in zip(points, ("TREC2INEX", "bert1ctx", "bert1bic")):
        assert a == pytest.approx(official.mean("MAiP", run), abs=1e-12)
        assert b == pytest.approx(official.mean("iP[0.01]", run), abs=1e-12)
    from scipy import stats

    tau = stats.kendalltau(points[:, 0], points[:, 1]).statistic
    assert scatter.get_title().splitlines()[0].endswith(f"tau = {tau:.3f}")
    fit = stats.linregress(points[:, 0], points[:, 1])
    (line,) = scatter.get_lines()
    x, y = line.get_data()
    np.testing.assert_allclose(y, fit.slope * np.asarray(x) + fit.intercept)


def test_curve_of_a_measure_follows_eval_options(tmp_path: Path, captured: list[object]) -> None:
    """Without --task the curve is the -m measure's, evaluated as eval evaluates it."""
    from inexeval.demo import ASSESSMENTS_2005, COLLECTION
    from inexeval.demo import RUNS as DEMO_RUNS

    assert main(["plot", "-m", "MAnxCG(quant=gen2005)", "--ranks", "10", str(ASSESSMENTS_2005),
                 str(DEMO_RUNS[1]), "--collection", str(COLLECTION),
                 "-o", str(tmp_path / "nxcg.png")]) == 0
    (line,) = captured[0].axes[0].get_lines()  # type: ignore[attr-defined]
    assert captured[0].axes[0].get_xlabel() == "rank k"  # type: ignore[attr-defined]
    done = evaluate_curve_for_demo()
    np.testing.assert_allclose(line.get_data()[1], done, rtol=0, atol=1e-15)


def evaluate_curve_for_demo() -> np.ndarray:
    from inexeval import load_collection
    from inexeval.demo import ASSESSMENTS_2005, COLLECTION
    from inexeval.demo import RUNS as DEMO_RUNS
    from inexeval.evaluation import Evaluator, with_implicit

    collection = load_collection(str(COLLECTION))
    assessments = with_implicit(load_assessments(str(ASSESSMENTS_2005)), collection=collection)
    run = load_run(str(DEMO_RUNS[1]))
    names = [f"nxCG(quant=gen2005)@{k}" for k in range(1, 11)]
    results = Evaluator(names, assessments, collection=collection).evaluate([run])
    return np.array([results.mean(n, run.name) for n in names])


@needs_shared
def test_series_helper_matches_what_is_drawn() -> None:
    spec = natural_curve(task_measure("thorough"))
    assessments = load_assessments(QRELS)
    run = load_run(RUNS[0])
    results = evaluate_curve(spec, assessments, [run], official=True)
    official = evaluate_task(assessments, [run], "thorough", per_topic=False)
    np.testing.assert_allclose(series(results, spec, run.name),
                               [official.mean(f"ircl_prn.{x:.2f}", run.name) for x in spec.x],
                               rtol=0, atol=1e-12)


@needs_shared
@pytest.mark.parametrize("argv, message", [
    (["-o", "x.jpg"], "cannot tell the figure format from the suffix 'jpg'"),
    (["--kind", "box", "--topic", "2009001", "-o", "x.png"], "--topic goes with --kind curve"),
    (["-m", "MAiP", "-o", "x.png"], "with --task the curve is the task's"),
    (["--kind", "per-topic", "--baseline", "nope", "-o", "x.png"], "unknown baseline 'nope'"),
    (["--kind", "scatter", "-m", "MAiP", "-o", "x.png"], "give two -m, not 1"),
    (["--topic", "nope", "-o", "x.png"], "topic nope has no assessments"),
])
def test_bad_requests_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                   message: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["plot", "--task", "focused", QRELS, *RUNS[:2], *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("inexeval: error: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@needs_shared
def test_a_curve_of_a_measure_without_one(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", "-m", "art_prec", QRELS, RUNS[0], "-o", str(tmp_path / "x.png")]) == 2
    assert "art_prec has no curve" in capsys.readouterr().err


@needs_shared
def test_without_matplotlib_plot_says_what_to_install(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["plot", "--task", "focused", QRELS, RUNS[0], "-o", str(tmp_path / "x.png")]) == 2
    assert capsys.readouterr().err == (
        "inexeval: error: plot needs matplotlib: pip install 'inexeval[plot]'\n")
    assert list(tmp_path.iterdir()) == []


@needs_shared
def test_svg_and_pdf_outputs_are_reproducible(tmp_path: Path) -> None:
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        for out in (first, second):
            assert main(["plot", "--task", "focused", QRELS, RUNS[0], "-o", str(out)]) == 0
        assert first.read_bytes() == second.read_bytes()


def test_twenty_runs_get_twenty_styles() -> None:
    from inexeval.report.plots import DISTINCT, run_style

    styles = [run_style(i) for i in range(DISTINCT)]
    assert DISTINCT == 20 and len({s["color"] for s in styles}) == 20
    assert len({tuple(s.values()) for s in styles}) == 20
    for before, after in itertools.pairwise(styles):
        assert all(before[key] != after[key] for key in ("color", "linestyle", "marker"))
    # beyond twenty, a repeated colour comes with another line style
    assert run_style(20)["color"] == styles[0]["color"]
    assert run_style(20)["linestyle"] != styles[0]["linestyle"]


def _copies(tmp_path: Path, n: int) -> list[str]:
    lines = Path(RUNS[0]).read_text().splitlines(keepends=True)
    paths = []
    for i in range(n):
        path = tmp_path / f"copy{i}.run"
        path.write_text("".join(line.replace("TREC2INEX", f"system{i}") for k, line
                                in enumerate(lines) if k % (i + 2)))
        paths.append(str(path))
    return paths


@needs_shared
def test_curves_of_many_runs_differ_and_say_the_rule(tmp_path: Path,
                                                     captured: list[object]) -> None:
    runs = _copies(tmp_path, 12)
    assert main(["plot", "--task", "focused", QRELS, *runs, "-o", str(tmp_path / "c.png")]) == 0
    ax = captured[0].axes[0]  # type: ignore[attr-defined]
    lines = ax.get_lines()
    assert len(lines) == 12
    assert len({(line.get_color(), line.get_linestyle(), line.get_marker())
                for line in lines}) == 12
    assert len({line.get_color() for line in lines}) == 12
    title = ax.get_title().splitlines()
    assert title[0] == "iP[x], x = 0.00-1.00, mean over topics"
    assert title[1] == describe_rule("any", 60)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [f"system{i}"
                                                                   for i in range(12)]
    assert main(["plot", "--task", "focused", "-c", QRELS, RUNS[0],
                 "-o", str(tmp_path / "c.png")]) == 0
    assert captured[1].axes[0].get_title().splitlines()[1].startswith(  # type: ignore[attr-defined]
        "120 topics; means over every assessed topic, a missing one scoring 0")


@needs_shared
def test_a_p_at_k_curve_is_titled_as_such(tmp_path: Path, captured: list[object]) -> None:
    assert main(["plot", "-m", "P(quant=strict)@10", "--ranks", "20", QRELS, *RUNS[:2],
                 "-o", str(tmp_path / "p.png")]) == 0
    assert main(["plot", "--task", "relevant-in-context", "--topic", "2009001", QRELS, RUNS[1],
                 "-o", str(tmp_path / "g.png")]) == 0
    p_at_k, gp = (fig.axes[0] for fig in captured)  # type: ignore[attr-defined]
    assert p_at_k.get_title().splitlines()[0] == "P@k, k = 1-20, mean over topics"
    assert gp.get_title() == "gP[r], r = 1-50, topic 2009001"  # one topic: no rule


@needs_shared
def test_per_topic_bars_share_one_scale(tmp_path: Path, captured: list[object]) -> None:
    assert main(["plot", "--task", "focused", "--kind", "per-topic", QRELS, *RUNS,
                 "-o", str(tmp_path / "d.png")]) == 0
    axes = captured[0].axes  # type: ignore[attr-defined]
    reach = max(abs(bar.get_height()) for ax in axes for bar in ax.patches)
    assert {ax.get_ylim() for ax in axes} == {(-reach * 1.05, reach * 1.05)}
    assert all(describe_rule("any", 60) in " ".join(ax.get_title().splitlines()) for ax in axes)
    assert axes[1].get_title().startswith("bert1bic against TREC2INEX: 0 wins, 1 tie, 59 losses")


def test_one_win_is_a_win() -> None:
    from inexeval.report import plots

    _, (ax,) = plots.figure()
    plots.per_topic_differences(ax, {"1": 0.5, "2": 0.0, "3": -0.25}, run="a", baseline="b",
                                measure="P@5")
    assert ax.get_title() == "a against b: 1 win, 1 tie, 1 loss"
    assert ax.get_ylim() == (-0.5 * 1.05, 0.5 * 1.05)


@needs_shared
def test_scatter_numbers_do_not_overlap(tmp_path: Path, captured: list[object]) -> None:
    runs = [*RUNS, *_copies(tmp_path, 9)]
    assert main(["plot", "--task", "focused", "--kind", "scatter", "-m", "MAiP", "-m",
                 "iP[0.01]", QRELS, *runs, "-o", str(tmp_path / "s.png")]) == 0
    fig = captured[0]
    ax = fig.axes[0]  # type: ignore[attr-defined]
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    assert names == ["TREC2INEX", "bert1ctx", "bert1bic", *(f"system{i}" for i in range(9))]
    labels = [child for child in ax.texts if child.get_text().isdigit()]
    assert [label.get_text() for label in labels] == [str(i) for i in range(1, 13)]
    fig.draw_without_rendering()  # type: ignore[attr-defined]
    from matplotlib.text import Text

    boxes = [Text.get_window_extent(label) for label in labels]  # the text, not its leader line
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b)
    points = ax.transData.transform(ax.collections[0].get_offsets())
    for box in boxes:
        assert not any(box.contains(x, y) for x, y in points)


@needs_shared
def test_box_plot_has_a_title_and_a_legend(tmp_path: Path, captured: list[object]) -> None:
    assert main(["plot", "--task", "focused", "--kind", "box", QRELS, *RUNS,
                 "-o", str(tmp_path / "b.png")]) == 0
    ax = captured[0].axes[0]  # type: ignore[attr-defined]
    title = ax.get_title().splitlines()
    assert title[0] == "MAiP per topic, one box per run"
    assert " ".join(title[1:]) == describe_rule("any", 60)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["median", "mean"]


def test_an_unknown_baseline_lists_each_run_with_its_file(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """The runs are named by their run-id, which need not be their file's name: the error
    gives both, so the user can give either."""
    pytest.importorskip("matplotlib")
    suite = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
    other = tmp_path / "second.run"
    other.write_text((suite / "results.test").read_text().replace("STANDARD", "tuned"))
    code = main([str(a) for a in ("plot", suite / "qrels.test", suite / "results.test", other,
                                  "-m", "map", "--kind", "per-topic", "--baseline", "results",
                                  "-o", tmp_path / "x.png")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert (f"unknown baseline 'results': give a run's name or file (the runs are STANDARD "
            f"(file {suite / 'results.test'}), tuned (file {other}))") in err


@pytest.mark.parametrize("line, expected", [
    ("301 Q0 d1\n", "cannot tell the run format of a 3-column line"),
    ("301 Q0 d1 1 1.0\n", "cannot tell the run format of a 5-column line"),
])
def test_an_unknown_run_line_names_its_columns(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str], line: str,
                                              expected: str) -> None:
    run = tmp_path / "bad.run"
    run.write_text(line)
    suite = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
    assert main(["eval", str(suite / "qrels.test"), str(run)]) == 2
    assert f"bad.run:1: {expected}" in capsys.readouterr().err


def test_an_unknown_qrels_line_of_8_columns(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "q8"
    qrels.write_text("301 0 d1 x y z w v\n")
    suite = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
    assert main(["eval", str(qrels), str(suite / "results.test")]) == 2
    assert ("q8:1: cannot tell the assessment format of an 8-column line"
            in capsys.readouterr().err)


@pytest.mark.parametrize("count, words", [(3, "a 3-column line"), (8, "an 8-column line"),
                                          (11, "an 11-column line"), (18, "an 18-column line"),
                                          (80, "an 80-column line"), (1, "a 1-column line"),
                                          (12, "a 12-column line"), (100, "a 100-column line"),
                                          (11000, "an 11000-column line")])
def test_the_article_of_a_column_count(count: int, words: str) -> None:
    from inexeval.formats.detect import column_line

    assert column_line(count) == words
