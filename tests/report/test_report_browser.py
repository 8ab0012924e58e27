"""The report in a real browser (headless Chromium): it opens without a console error, asks
for nothing beyond its own file, its tables sort on a click, and a screenshot is kept."""

from __future__ import annotations

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
