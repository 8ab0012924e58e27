"""What the HTML report says about itself: the date (fixed by SOURCE_DATE_EPOCH), the inexeval
version, the averaging rule and topic coverage, the tests and the correction ("none" said when
none), every input's size and SHA-256; and, in Chromium at 1400 pixels, nothing scrolls
sideways with twenty runs."""

from __future__ import annotations

import hashlib
import os
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import DATA, needs_shared

from inexeval.cli import installed_version, main
from inexeval.outputs import fingerprint
from inexeval.report import html
from inexeval.scores import describe_rule

IPCS = DATA / "ipcs"
QRELS = str(IPCS / "INEX_Qrels.txt")
RUNS = [str(IPCS / name) for name in ("bert_inex_converted_1.run", "bert1_incontext.run",
                                      "bert1_bestincontext.run")]


def _text(page: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.replace("<wbr>", ""))))


def _report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764201600")  # 2025-11-27 00:00 UTC
    out = tmp_path / "report.html"
    assert main(["report", "--task", "focused", *args, QRELS, *RUNS, "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


@needs_shared
def test_the_report_says_when_by_what_over_which_topics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _text(_report(tmp_path, monkeypatch))
    assert "made 2025-11-27 00:00 UTC" in text
    assert f"by inexeval {installed_version()}" in text
    assert f"topics {describe_rule('any', 60)}" in text
    assert "test t: paired, two-sided, significant at p < 0.05" in text
    assert "correction none (each p-value as the test gives it)" in text
    assert f"2025-11-27 00:00 UTC, inexeval {installed_version()}" in text  # under the command
    corrected = _text(_report(tmp_path, monkeypatch, "--test", "t", "--test", "sign",
                              "--correction", "holm"))
    assert "tests t, sign: paired, two-sided" in corrected
    assert "correction holm" in corrected


@needs_shared
def test_every_input_with_its_size_digest_and_coverage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = _report(tmp_path, monkeypatch)
    page = page[page.index('<table class="inputs">'):]
    page = page[:page.index("</table>")]
    rows = re.findall(r"<tr><td class=\"text\">(.*?)</td><td class=\"text\">(.*?)</td>"
                      r"<td data-value=\"(\d+)\">.*?</td><td class=\"text\">(.*?)</td>"
                      r"<td>(.*?)</td></tr>", page)
    assert [row[0].replace("<wbr>", "") for row in rows] == [
        "assessments", "run TREC2INEX", "run bert1ctx", "run bert1bic"]
    for (_, path, size, digest, coverage), given in zip(rows, [QRELS, *RUNS]):
        content = Path(given).read_bytes()
        assert path.replace("<wbr>", "") == given and int(size) == len(content)
        assert re.sub(r"<[^>]+>", "", digest) == hashlib.sha256(content).hexdigest()
        assert coverage == ("" if given == QRELS else "60 of 120 (50%)")


def test_fingerprint_of_files_folders_and_pipes(tmp_path: Path) -> None:
    content = b"2009001 Q0 1 0 1.0 r 0 10\n" * 1000
    run = tmp_path / "run.txt"
    run.write_bytes(content)
    assert fingerprint(run) == (len(content), hashlib.sha256(content).hexdigest())
    folder = tmp_path / "qrels"
    folder.mkdir()
    (folder / "a.xml").write_bytes(b"<a/>")
    (folder / "b.xml").write_bytes(b"<b/>")
    size, digest = fingerprint(folder) or (0, "")
    lines = "".join(f"{name}\t4\t{hashlib.sha256(data).hexdigest()}\n"
                    for name, data in (("a.xml", b"<a/>"), ("b.xml", b"<b/>")))
    assert (size, digest) == (8, hashlib.sha256(lines.encode()).hexdigest())
    (folder / "b.xml").write_bytes(b"<c/>")
    assert fingerprint(folder) != (size, digest)
    assert fingerprint("-") is None
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert fingerprint(pipe) is None  # never opened: opening a pipe nobody writes would hang
    assert html.InputFile.of("run r", "-") == html.InputFile("run r", "-", None, None)


def test_report_date_is_now_or_the_source_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert html.report_date() == "1970-01-01 00:00 UTC"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert re.fullmatch(r"20\d\d-\d\d-\d\d \d\d:\d\d UTC", html.report_date())


@needs_shared
def test_twenty_runs_fit_1400_pixels(browser: Any, tmp_path: Path) -> None:
    lines = Path(RUNS[0]).read_text().splitlines(keepends=True)
    runs = []
    for i in range(20):
        path = tmp_path / f"system_{i:02d}_with_a_long_name.run"
        path.write_text("".join(line.replace("TREC2INEX", f"system_{i:02d}_with_a_long_name")
                                for k, line in enumerate(lines) if k % (i + 2)))
        runs.append(str(path))
    out = tmp_path / "report.html"
    assert main(["report", "--task", "focused", "--test", "t", "--test", "randomised",
                 "--permutations", "200", "--correction", "holm", QRELS, *runs,
                 "-o", str(out)]) == 0
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(out.as_uri())
    page.wait_for_load_state("load")
    for details in page.locator("details").all():  # the per-topic tables too
        details.evaluate("element => { element.open = true; }")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    wider = page.evaluate("""Array.from(document.querySelectorAll('*'))
        .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
        .map(e => e.tagName + '.' + e.className + ': ' + e.scrollWidth + ' > ' + e.clientWidth)""")
    assert wider == []
    assert page.locator("table.inputs tbody tr").count() == 21
    page.close()
