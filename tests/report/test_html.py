"""The HTML report: what it shows is the comparison's and the measure code's numbers, every
input string is escaped, nothing outside the file is referenced, and ``compare --format html``
is the same page as ``report``."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import DATA, needs_shared

from inexeval import load_assessments, load_run
from inexeval.cli import main
from inexeval.experiment import compare
from inexeval.measures.focused import evaluate_task
from inexeval.report import html, svg

IPCS = DATA / "ipcs"
QRELS = str(IPCS / "INEX_Qrels.txt")
RUNS = [str(IPCS / name) for name in ("bert_inex_converted_1.run", "bert1_incontext.run",
                                      "bert1_bestincontext.run")]


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(text: str) -> _Elements:
    parser = _Elements()
    parser.feed(text)
    return parser


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", "--task", "focused", "-c", QRELS, *RUNS, "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


@needs_shared
def test_curves_drawn_are_the_official_curves_over_every_topic(report: str) -> None:
    official = evaluate_task(load_assessments(QRELS), [load_run(r) for r in RUNS], "focused",
                             complete=True, per_topic=False)
    lines = [a for tag, a in parse(report).tags if tag == "polyline"]
    assert [a["data-run"] for a in lines] == ["TREC2INEX", "bert1ctx", "bert1bic"]
    for attrs in lines:
        x = [float(v) for v in str(attrs["data-x"]).split()]
        y = [float(v) for v in str(attrs["data-y"]).split()]
        assert x == [b / 100 for b in range(101)]
        np.testing.assert_allclose(y, [official.mean(f"ircl_prn.{v:.2f}", attrs["data-run"])
                                       for v in x], rtol=0, atol=1e-12)


def test_polyline_points_are_the_values_on_the_axes() -> None:
    chart = svg.line_chart([0.0, 0.5, 1.0], {"a": [0.4, math.nan, 0.1]}, x_label="x",
                           y_label="y")
    (attrs,) = [a for tag, a in parse(chart).tags if tag == "polyline"]
    points = [tuple(map(float, p.split(","))) for p in str(attrs["points"]).split()]
    assert len(points) == 2, "a NaN point is left out"
    frame = svg._Frame((0.0, 1.0), (0.0, 0.4))
    assert points[0] == pytest.approx((frame.x(0.0), frame.y(0.4)), abs=0.01)
    assert points[1] == pytest.approx((frame.x(1.0), frame.y(0.1)), abs=0.01)
    assert attrs["data-y"] == "0.4 nan 0.1"


@needs_shared
def test_comparison_tables_and_differences_are_the_comparison(report: str) -> None:
    comparison = compare(QRELS, RUNS, task="focused", complete=True)
    page = parse(report)
    bars = [a for tag, a in page.tags if tag == "rect" and a.get("class") == "bar"]
    measure = "MAiP"
    for run in ("bert1ctx", "bert1bic"):
        expected = {t: v - comparison.per_topic[measure]["TREC2INEX"][t]
                    for t, v in comparison.per_topic[measure][run].items()}
        drawn = bars[:len(expected)]
        bars = bars[len(expected):]
        assert {a["data-topic"]: float(str(a["data-value"])) for a in drawn} == pytest.approx(
            expected, abs=1e-15)
        values = [float(str(a["data-value"])) for a in drawn]
        assert values == sorted(values, reverse=True)
    text = "".join(page.text)
    for row in comparison.rows:
        assert f"{row.p_value:.4f}" in text
    assert comparison.header in text
    assert "t test" in text, "the test used is named in the legend"
    cells = [a for tag, a in page.tags if tag == "td" and "data-value" in a]
    assert len(cells) > 120 * 3


@needs_shared
def test_markers_follow_significance(report: str) -> None:
    comparison = compare(QRELS, RUNS, task="focused", complete=True)
    means_table = report[report.index('<table class="means">'):]
    means_table = means_table[:means_table.index("</table>")]
    rows = re.findall(r"<tr[^>]*><td>(.*?)</td>(.*?)</tr>", means_table)
    by_run = {re.sub(r"<.*", "", name).strip(): re.findall(r"<td[^>]*>(.*?)</td>", cells)
              for name, cells in rows}
    assert next(iter(by_run)) == "TREC2INEX"
    for row in comparison.rows:
        cell = by_run[row.run][comparison.measures.index(row.measure)]
        sign = comparison.significant(row)
        assert (html.BETTER in cell) == (sign > 0) and (html.WORSE in cell) == (sign < 0)
    assert any(html.BETTER in c for cells in by_run.values() for c in cells)


def test_every_input_string_is_escaped(tmp_path: Path) -> None:
    hostile = '<img src=x onerror="alert(1)">&amp;"\''
    page = html.Page(
        title=hostile, command=f"inexeval report {hostile}", version="1", subtitle=hostile,
        header=hostile, runs=[hostile, "b"], measures=[hostile, "m2"], baseline="b",
        legend=hostile, means={hostile: {hostile: 0.5, "b": 0.25}, "m2": {hostile: 1.0, "b": 0.0}},
        marks={(hostile, hostile): html.BETTER},
        rows=[{"measure": hostile, "test": "t", "run": hostile, "baseline": "b"}],
        per_topic={hostile: {hostile: {hostile: 0.5}, "b": {hostile: 0.25}}},
        differences={hostile: {hostile: {hostile: 0.25}}},
        curves=[html.Curve(hostile, [0.0, 1.0], {hostile: [1.0, 0.5]}, hostile, hostile)],
        agreement={(hostile, "m2"): 1.0}, inputs=[(hostile, hostile, 1)], main=hostile)
    text = html.render(page)
    assert "<img" not in text and 'onerror="' not in text
    assert text.count("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;") > 10
    tags = {tag for tag, _ in parse(text).tags}
    assert "img" not in tags


@needs_shared
def test_nothing_outside_the_file_is_referenced(report: str) -> None:
    for tag, attrs in parse(report).tags:
        for name, value in attrs.items():
            if name in ("src", "href", "action", "srcset", "poster", "data"):
                raise AssertionError(f"{tag} {name}={value}")
            if name == "xmlns":
                assert value == "http://www.w3.org/2000/svg"
    assert "url(" not in report and "@import" not in report
    assert "default-src 'none'" in report


@needs_shared
def test_compare_html_is_the_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764201600")  # the same date, whatever the clock
    common = ["--task", "focused", "--test", "sign", QRELS, *RUNS[:2]]
    assert main(["report", *common, "-o", str(tmp_path / "report.html")]) == 0
    assert main(["compare", "--format", "html", *common, "-o", str(tmp_path / "compare.html")]) == 0

    def without_command(path: Path) -> str:
        return re.sub(r"<pre><code>.*?</code></pre>", "", path.read_text(), flags=re.DOTALL)

    report_text = without_command(tmp_path / "report.html")
    assert report_text == without_command(tmp_path / "compare.html")
    assert "sign test" in report_text
    assert "inexeval compare --format html --task focused --test sign" in (
        tmp_path / "compare.html").read_text()


@needs_shared
@pytest.mark.parametrize("argv, message", [
    ([], "a report is a file: give -o FILE"),
    (["-o", "r.html", "--format", "csv"], "a report is HTML"),
    (["-o", "r.html", "--baseline", "nope"], "unknown baseline 'nope'"),
    (["-o", "r.html", "--test", "nope"], "unknown test nope"),
])
def test_bad_requests_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                   message: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--task", "focused", QRELS, *RUNS[:2], *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("inexeval: error: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@needs_shared
def test_report_never_overwrites_an_input(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run.txt"
    run.write_bytes(Path(RUNS[1]).read_bytes())
    before = run.read_bytes()
    assert main(["report", "--task", "focused", QRELS, RUNS[0], str(run), "-o", str(run)]) == 2
    assert "overwrite" in capsys.readouterr().err and run.read_bytes() == before


def test_element_measures_report_has_their_curves(tmp_path: Path) -> None:
    from inexeval.demo import ASSESSMENTS_2004, COLLECTION
    from inexeval.demo import RUNS as DEMO_RUNS

    out = tmp_path / "r.html"
    assert main(["report", str(ASSESSMENTS_2004), *map(str, DEMO_RUNS), "--collection",
                 str(COLLECTION), "-m", "inex_eval(quant=generalised)", "-m", "P@10",
                 "-m", "overlap@10", "--ranks", "20", "-o", str(out)]) == 0
    figures = [a for tag, a in parse(out.read_text()).tags if tag == "figure"
               and a.get("class") == "curve"]
    assert [f["data-title"].split(":")[0] for f in figures] == [  # type: ignore[union-attr]
        "inex_eval(quant=generalised)", "P@10"]
    assert "Measure agreement" in out.read_text()


def test_nice_ticks_cover_the_range() -> None:
    assert svg.nice_ticks(0.0, 0.2011) == [0.0, 0.05, 0.1, 0.15, 0.2, 0.25]
    assert svg.nice_ticks(-0.3, 0.3, 6) == [-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3]
    assert svg.nice_ticks(1.0, 101.0) == [0.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0]


@needs_shared
def test_warnings_about_the_inputs_are_shown_once(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "extra.run"
    lines = Path(RUNS[1]).read_text().splitlines(keepends=True)
    run.write_text("".join(lines) + lines[0].replace("2009001", "1999999", 1))
    assert main(["report", "--task", "focused", QRELS, RUNS[0], str(run),
                 "-o", str(tmp_path / "r.html")]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "1999999" in line]
    assert len(warned) == 1 and "not in the qrels" in warned[0]


@needs_shared
def test_all_pairs_report_has_no_baseline_markers(tmp_path: Path) -> None:
    out = tmp_path / "pairs.html"
    assert main(["report", "--all-pairs", "--test", "tukey", "--task", "focused", QRELS, *RUNS,
                 "-o", str(out)]) == 0
    text = out.read_text()
    means_table = text[text.index('<table class="means">'):]
    means_table = means_table[:means_table.index("</table>")]
    assert html.BETTER not in means_table and html.WORSE not in means_table
    comparison = compare(QRELS, RUNS, task="focused", all_pairs=True, test="tukey")
    assert any(comparison.significant(row) for row in comparison.rows)
    assert "Every pair of runs is compared" in text and 'class="differences"' not in text
    details = text[text.index('<table class="sortable details">'):]
    assert "<th class=\"text\">baseline</th>" in details[:details.index("</thead>")]
