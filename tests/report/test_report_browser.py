"""The report in a real browser (headless Chromium): it opens without a console error, asks
for nothing beyond its own file, its tables sort on a click, and a screenshot is kept."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import DATA, needs_shared

from inexeval.cli import main

pytestmark = needs_shared

IPCS = DATA / "ipcs"
SCREENS = Path("/tmp/inexeval-screens")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser")
    hostile = folder / "hostile.run"
    # a run whose id would be markup if it were not escaped
    lines = (IPCS / "bert1_bestincontext.run").read_text().splitlines(keepends=True)
    hostile.write_text("".join(line.replace("bert1bic", "<img/src=x/onerror=alert(1)>")
                               for line in lines))
    out = folder / "report.html"
    assert main(["report", "--task", "focused", "-c", "--test", "t", "--test", "randomised",
                 "--correction", "holm", "--meta", "--power", str(IPCS / "INEX_Qrels.txt"),
                 str(IPCS / "bert_inex_converted_1.run"), str(IPCS / "bert1_incontext.run"),
                 str(hostile), "-o", str(out)]) == 0
    return out


def _column(page: Any, table: str, column: int) -> list[str]:
    return list(page.eval_on_selector_all(
        f"{table} tbody tr", f"rows => rows.map(r => r.cells[{column}].textContent)"))


def test_report_in_chromium(browser: Any, report: Path, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    problems: list[str] = []
    dialogs: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda message: problems.append(message.text)
            if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(report.as_uri())
    page.wait_for_load_state("load")

    assert problems == []
    assert dialogs == [] and page.locator("img").count() == 0
    assert all(url == report.as_uri() or url.startswith("data:") for url in requests), requests
    assert page.title() == "Evaluation report: focused task"
    assert page.locator("#curves svg.chart polyline").count() == 3
    assert page.locator("#measures svg.chart polyline").count() == 5  # --meta: ASL curves
    assert page.locator("table.details th", has_text="achieved power").count() == 1
    assert page.locator("text=<img/src=x/onerror=alert(1)>").count() > 0

    # sorting the per-topic table of MAiP: by a run's values, descending then ascending
    table = 'table.per-topic[data-measure="MAiP"]'
    header = page.locator(f"{table} thead th").nth(2)
    assert header.text_content() == "bert1ctx"
    original = _column(page, table, 0)
    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    ascending = [float(v) for v in _column(page, table, 2)]
    assert ascending == sorted(ascending) and len(ascending) == 120
    header.click()
    assert header.get_attribute("aria-sort") == "descending"
    descending = [float(v) for v in _column(page, table, 2)]
    assert descending == sorted(descending, reverse=True)
    first_topic = page.locator(f"{table} thead th").nth(0)
    first_topic.click()
    assert _column(page, table, 0) == sorted(original, key=int)
    # the significance tests sort too (by p-value)
    tests = "table.details"
    p_column = page.eval_on_selector_all(
        f"{tests} thead th", "ths => ths.findIndex(th => th.textContent === 'p')")
    assert p_column > 0
    page.locator(f"{tests} thead th").nth(p_column).click()
    # sorted by the exact values (a cell may read <0.0001)
    p_values = [float(v) for v in page.eval_on_selector_all(
        f"{tests} tbody tr", f"rows => rows.map(r => r.cells[{p_column}].dataset.value)")]
    assert p_values == sorted(p_values)
    assert "<0.0001" in _column(page, tests, p_column)
    assert problems == []

    page.locator(table).scroll_into_view_if_needed()
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    SCREENS.mkdir(exist_ok=True)
    shutil.copy(shot, SCREENS / "report.png")
    page.close()


@pytest.fixture(scope="module")
def many_runs_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of twelve runs with long names (tables wider than a page at screen size)."""
    folder = tmp_path_factory.mktemp("print")
    suite = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
    lines = [line.split() for line in (suite / "results.test").read_text().splitlines()]
    runs = []
    for i in range(1, 13):
        run = folder / f"many{i}"
        run.write_text("".join(f"{t} Q0 {d} {r} {float(s) * ((n * i) % 7 + 1)} system_number_{i}\n"
                               for n, (t, _, d, r, s, _) in enumerate(lines, 1)))
        runs.append(str(run))
    out = folder / "report.html"
    assert main(["report", str(suite / "qrels.test"), *runs, "-m", "map", "-m", "P.10",
                 "-o", str(out)]) == 0
    return out


def test_the_report_prints_whole(browser: Any, many_runs_report: Path) -> None:
    """Under print media at an A4 page's width (718 CSS pixels between the default margins):
    no box scrolls, every folded per-topic table is shown, no table or figure is wider than the
    page; and Chromium prints it to a PDF."""
    page = browser.new_page(viewport={"width": 718, "height": 1000})
    page.goto(many_runs_report.as_uri())
    page.emulate_media(media="print")
    found = page.evaluate("""() => ({
      details: document.querySelectorAll('details').length,
      hidden: [...document.querySelectorAll('details table')]
        .filter(t => !t.checkVisibility()).length,
      scrolling: [...document.querySelectorAll('*')].filter(e => {
        const s = getComputedStyle(e);
        const scrolls = [s.overflowX, s.overflowY].some(o => o === 'auto' || o === 'scroll');
        return scrolls && (e.scrollHeight > e.clientHeight + 1
                           || e.scrollWidth > e.clientWidth + 1); }).length,
      wider: [...document.querySelectorAll('table, svg, figure')]
        .filter(e => e.getBoundingClientRect().right > 719).length})""")
    assert found == {"details": 2, "hidden": 0, "scrolling": 0, "wider": 0}
    assert page.pdf(format="A4")[:5] == b"%PDF-"


def test_captions_count_topics_and_say_each_sentence_once(many_runs_report: Path) -> None:
    text = many_runs_report.read_text()
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", text, re.DOTALL)
    assert captions
    for caption in captions:
        sentences = [s.strip() for s in re.split(r"<br>|; ", caption) if s.strip()]
        assert len(sentences) == len(set(sentences)), caption
        assert not re.search(r"\b1 topics\b", caption), caption
    from inexeval.report.html import _difference_figure

    assert ": 1 topic better, 1 worse, 1 tied<" in _difference_figure(
        "map", "b", "a", {"301": 0.1, "302": -0.1, "303": 0.0})


def test_no_run_is_drawn_too_pale_on_white() -> None:
    """Every run colour has a contrast of at least 3:1 on white (WCAG 2.1, 1.4.11), and no
    two are alike."""
    from inexeval.report.svg import PALETTE

    def luminance(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    for colour in PALETTE:
        assert 1.05 / (luminance(colour) + 0.05) >= 3.0, colour
    assert len(set(PALETTE)) == len(PALETTE) == 20
