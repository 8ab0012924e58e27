"""From the browser to the evaluation: what an assessor marked in the page is exported by
``inexeval assess export`` as FOL qrels and evaluated by ``inexeval eval``."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from tests.ui.conftest import ConsoleErrors, Server, cli, log_in, open_as, open_document
from tests.ui.test_assessing import click_word, drag_select, settled, span, text_of


def test_judgements_made_in_the_page_are_exported_and_evaluated(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "alice", "1", "co/a1")
    text = text_of(server, "alice", "1", "co/a1")
    drag_select(page, "A best entry point", "reading should start")
    page.keyboard.press("h")
    for key in "2222":  # article, bdy, sec[2], p
        page.keyboard.press(key)
    click_word(page, "entry", nth=1)
    page.keyboard.press("b")
    page.keyboard.press("d")  # saved, then the next unassessed document opens
    page.wait_for_url(lambda url: not url.endswith("/docs/co/a1"))
    open_document(page, server, "1", "co/xss")
    page.keyboard.press("r")
    page.get_by_role("button", name="Yes, non-relevant").click()
    # the dialog's close event (which makes the change) comes in a task of its own: wait for it
    expect(page.locator("#doc-status")).to_have_text("done, non-relevant")
    settled(page)
    page.context.close()

    start, end = span(text, "A best entry point", "reading should start")
    bep = text.index("entry point is")
    qrels = tmp_path / "qrels.fol"
    done = cli("assess", "export", str(server.store), "-o", str(qrels), "--partial")
    assert "1 (bob)" in done.stderr
    xss_length = len(text_of(server, "alice", "1", "co/xss"))
    assert sorted(qrels.read_text().splitlines()) == [
        f"1 Q0 co/a1 {end - start} {len(text)} {bep} {start}:{end - start}",
        f"1 Q0 co/xss 0 {xss_length}",
    ]

    run = tmp_path / "run.fol"
    run.write_text(f"1 Q0 co/a1 1 1.0 exact {start} {end - start}\n")
    evaluated = cli("eval", str(qrels), str(run), "--task", "focused",
                    "-m", "iP[0.00]", "-m", "MAiP")
    values = {line.split("\t")[0]: float(line.split("\t")[2])
              for line in evaluated.stdout.splitlines()}
    assert values == {"iP[0.00]": 1.0, "MAiP": 1.0, "num_q": 1.0}

    # The admin page's export is the command's, byte for byte; XML formats come zipped.
    admin = log_in(browser, server, "boss", console)
    admin.goto(f"{server.url}/admin")
    admin.get_by_label("also topics not complete").check()
    with admin.expect_download() as download:
        admin.get_by_role("button", name="Export").click()
    assert download.value.suggested_filename == "store-first-assessors-fol.txt"
    assert Path(download.value.path()).read_bytes() == qrels.read_bytes()
    admin.get_by_label("Format").select_option("inex2005")
    admin.get_by_label("Assessor").select_option("bob")
    # bob has marked nothing done: an export with nothing in it says why (409)
    admin.get_by_role("button", name="Export").click()
    expect(admin.locator("p.error")).to_contain_text("nothing to export (bob has done no "
                                                     "article)")
    console[:] = [e for e in console if "409 (Conflict)" not in e]  # that answer's own line
    admin.goto(f"{server.url}/admin")
    admin.get_by_label("also topics not complete").check()
    admin.get_by_label("Format").select_option("inex2005")
    with admin.expect_download() as download:
        admin.get_by_role("button", name="Export").click()
    assert download.value.suggested_filename == "store-first-assessors-inex2005.zip"
    with zipfile.ZipFile(download.value.path()) as archive:
        assert archive.namelist() == ["store-first-assessors-inex2005/topic-1.xml"]
    admin.context.close()
