"""The document page in the INEX 2002 mode (relevance x coverage for pooled elements): values
chosen per element, implicit values shown, contradictions flagged, done refused until the
rules of Kazai et al. (INEX 2002) hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.ui.campaign import POOLED_ELEMENTS
from tests.ui.conftest import (
    ConsoleErrors,
    Server,
    open_as,
    running_server,
    screenshot,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("campaign-2002"), mode="2002") as running:
        yield running


def settled(page: Any) -> None:
    page.wait_for_function(
        "() => window.inexeval.state.pending.length === 0 && !window.inexeval.state.saving")


def choose(page: Any, path: str, code: str) -> None:
    page.get_by_label(f"Value of {path}", exact=True).select_option(code)
    settled(page)


def test_values_implicit_values_and_contradictions(browser: Any, server: Server,
                                                   console: ConsoleErrors,
                                                   tmp_path: Path) -> None:
    first, second = POOLED_ELEMENTS
    page = open_as(browser, server, console, "alice", "1", "co/a1")
    listed = page.locator("#elements li").evaluate_all("rows => rows.map(r => r.dataset.path)")
    assert listed == list(POOLED_ELEMENTS)
    assert page.locator("#consistency").get_attribute("data-state") == "red"
    assert f"pooled element {first} has no value" in page.locator("#consistency").inner_text()

    choose(page, first, "3E")
    saved = server.judgement("alice", "1", "co/a1")
    assert saved["values"] == {first: "3E"}
    # The unjudged ancestors take relevance 3 and coverage L, shown in their rows.
    section = "/article[1]/bdy[1]/sec[1]"
    assert saved["implicit"][section] == "3L"
    assert page.get_by_label(f"Value of {section}", exact=True).locator("option").first.inner_text() == \
        "(implicit 3L)"

    # A contradiction: the section explicitly less relevant than its paragraph.
    choose(page, section, "1L")
    assert page.locator(f"#elements li[data-path='{section}']").get_attribute("class") \
        .split().count("flagged") == 1
    choose(page, second, "0N")
    screenshot(page, tmp_path, "document-page-2002")
    page.keyboard.press("d")
    assert "Not done" in page.locator("#notice").inner_text()
    assert server.judgement("alice", "1", "co/a1")["status"] == "in-progress"

    choose(page, section, "3L")
    assert page.locator("#consistency").get_attribute("data-state") == "green"
    page.keyboard.press("d")  # saved, then the next unassessed document opens
    page.wait_for_url(lambda url: not url.endswith("/docs/co/a1"))
    saved = server.judgement("alice", "1", "co/a1")
    assert (saved["status"], saved["values"]) == (
        "done", {first: "3E", section: "3L", second: "0N"})
    page.goto(f"{server.url}/topics/1/docs/co/a1")
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#doc-status").inner_text() == "done, relevant"
    page.context.close()
