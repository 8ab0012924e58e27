"""The passages mode (INEX 2006-2010, the default of ``assess init``) in Chromium, as an
assessor works through a pool with the one-key flow: highlight and a best entry point, ``d`` to
save and open the next unassessed document, ``x`` for not relevant in one key (``Ctrl+Z``
reverts it, also from the next document), undo and redo of each kind of change, the topic's
statement in a panel that stays in view, ``k of N`` and a document reopening at its first
highlight; everything checked through the HTTP API."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.ui.conftest import (
    SCREENS,
    ConsoleErrors,
    Server,
    log_in,
    open_document,
    running_server,
    screenshot,
)
from tests.ui.test_assessing import click_word, drag_select, settled, span, text_of


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("campaign-passages"), mode="passages") as up:
        yield up


class Keys:
    """The keyboard of a page, counting the keys pressed (mouse drags and clicks apart)."""

    def __init__(self, page: Any):
        self.page = page
        self.pressed = 0

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.pressed += 1


def pool_order(server: Server, topic: str = "1") -> list[str]:
    articles = server.api("alice").get(f"/api/topics/{topic}/pool").json()["articles"]
    return [a["file"] for a in articles]


def ready(page: Any, server: Server, file: str) -> None:
    page.wait_for_url(f"{server.url}/topics/1/docs/{file}")
    page.wait_for_selector("body[data-ready=true]")


def test_the_passages_flow_with_d_and_x_only(browser: Any, server: Server,
                                             console: ConsoleErrors, tmp_path: Path) -> None:
    order = pool_order(server)
    assert server.api("alice").get("/api/session").json()["mode"] == "passages"
    page = log_in(browser, server, "alice", console, viewport={"width": 1280, "height": 700})
    open_document(page, server, "1", order[0])
    keys = Keys(page)
    assert page.locator("#position").inner_text() == f"1 of {len(order)}"
    assert page.locator("#topic-done").inner_text() == f"0 of {len(order)} done"
    assert "Exhaustivity" not in page.locator(".side").inner_text()

    # The statement stays in view, scrolled apart from the document.
    narrative = page.locator("#narrative")
    assert "best entry points is relevant" in narrative.inner_text()
    page.mouse.wheel(0, 2000)
    page.wait_for_function("() => window.scrollY > 0")
    assert narrative.is_visible() and narrative.bounding_box()["y"] >= 0

    # A relevant document: one highlight, a best entry point, d.
    page.evaluate("window.scrollTo(0, 0)")
    text = text_of(server, "alice", "1", order[0])
    drag_select(page, "relevant passages", "Elements holding")
    keys.press("h")
    click_word(page, "Assessors")
    keys.press("b")
    settled(page)
    assert page.locator("#consistency").get_attribute("data-state") == "green"
    assert page.locator("#elements li").all_inner_texts()[0].startswith("relevant passages")
    screenshot(page, tmp_path, "passages-document-page")
    keys.press("d")
    ready(page, server, order[1])
    relevant_keys = keys.pressed
    saved = server.judgement("alice", "1", order[0])
    start, end = span(text, "relevant passages", "Elements holding")
    assert (saved["status"], saved["passages"], saved["best_entry_point"],
            saved["exhaustivity"]) == ("done", [[start, end]], text.index("Assessors"), {})
    assert page.locator("#position").inner_text() == f"2 of {len(order)}"
    assert page.locator("#topic-done").inner_text() == f"1 of {len(order)} done"

    # A non-relevant document: x, and the next one opens.
    keys.pressed = 0
    keys.press("x")
    ready(page, server, order[2])
    assert keys.pressed == 1
    saved = server.judgement("alice", "1", order[1])
    assert (saved["status"], saved["passages"], saved["relevant"]) == ("done", [], False)

    # Ctrl+Z on the next document reverts the x and goes back to it.
    page.keyboard.press("Control+z")
    ready(page, server, order[1])
    settled(page)
    saved = server.judgement("alice", "1", order[1])
    assert (saved["status"], saved["passages"]) == ("unseen", [])
    assert "Not relevant undone" in page.locator("#notice").inner_text()
    page.keyboard.press("x")
    ready(page, server, order[2])
    assert server.judgement("alice", "1", order[1])["status"] == "done"

    # Through the rest of the pool with x only; the last one opens the pool page.
    for k, file in enumerate(order[2:], 2):
        ready(page, server, file)
        page.keyboard.press("x")
        if k + 1 < len(order):
            ready(page, server, order[k + 1])
    page.wait_for_url(f"{server.url}/topics/1")
    statuses = [server.judgement("alice", "1", f)["status"] for f in order]
    assert statuses == ["done"] * len(order)
    print(f"\nkeys: {relevant_keys} per relevant document with one highlight (and a drag and "
          f"a click), 1 per non-relevant document")
    page.context.close()


def test_undo_and_redo_of_each_kind_of_change(browser: Any, server: Server,
                                              console: ConsoleErrors) -> None:
    file = pool_order(server)[3]
    page = log_in(browser, server, "bob", console)
    open_document(page, server, "1", file)
    text = text_of(server, "bob", "1", file)
    words = text.split()

    def saved() -> tuple[Any, ...]:
        settled(page)
        j = server.judgement("bob", "1", file)
        return j["passages"], j["best_entry_point"], j["status"]

    drag_select(page, words[8], words[10])
    page.keyboard.press("h")
    highlighted, first = saved()[:2]
    assert len(highlighted) == 1
    assert first == highlighted[0][0]  # the first highlight brings a best entry point
    click_word(page, words[9])
    page.keyboard.press("b")
    point = saved()[1]
    assert point is not None and point != first
    for key, expected in [("Control+z", (highlighted, first, "in-progress")),
                          ("Control+z", ([], None, "in-progress")),
                          ("Control+Shift+z", (highlighted, first, "in-progress")),
                          ("Control+Shift+z", (highlighted, point, "in-progress"))]:
        page.keyboard.press(key)
        assert saved() == expected, key
    page.keyboard.press("Control+Shift+z")
    expect(page.locator("#notice")).to_contain_text("Nothing to redo")

    page.keyboard.press("d")  # done; the next document opens: come back to this one
    page.wait_for_url(lambda url: not url.endswith(file))
    open_document(page, server, "1", file)
    click_word(page, words[9])
    page.keyboard.press("u")  # unhighlight the passage at the caret
    assert saved() == ([], None, "in-progress")
    for key, expected in [("Control+z", (highlighted, point, "done")),
                          ("Control+Shift+z", ([], None, "in-progress")),
                          ("Control+z", (highlighted, point, "done"))]:
        page.keyboard.press(key)
        assert saved() == expected, key
    # Undo goes no further back than this visit (and no x led here).
    page.keyboard.press("Control+z")
    expect(page.locator("#notice")).to_contain_text("Nothing to undo")
    page.context.close()


def test_the_page_keeps_passages_sorted_and_merged(browser: Any, server: Server,
                                                   console: ConsoleErrors) -> None:
    """The page's passage arithmetic (judge.js) gives sorted, merged passages whatever order
    it is given them in (issue 22: a cut passage came back as ``[[103, 354], [61, 89]]``)."""
    page = log_in(browser, server, "alice", console)
    open_document(page, server, "1", pool_order(server)[0])
    found = page.evaluate("""async () => {
      const judge = await import('/static/judge.js');
      return [judge.subtractPassage([[103, 354], [61, 89]], [200, 210]),
              judge.subtractPassage([[61, 354]], [89, 103]),
              judge.addPassage([[103, 354], [61, 89]], [89, 103])];
    }""")
    assert found == [[[61, 89], [103, 200], [210, 354]], [[61, 89], [103, 354]], [[61, 354]]]
    page.context.close()


def test_a_document_reopens_at_its_first_highlight(browser: Any, server: Server,
                                                   console: ConsoleErrors,
                                                   tmp_path: Path) -> None:
    text = text_of(server, "alice", "2", "co/big")
    at = text.index(" ", len(text) * 3 // 4) + 1
    client = server.api("alice")
    answer = client.put("/api/topics/2/docs/co/big", json={
        "version": 0, "status": "in-progress", "passages": [[at, at + 40]]})
    assert answer.status_code == 200, answer.text
    page = log_in(browser, server, "alice", console, viewport={"width": 1280, "height": 700})
    open_document(page, server, "2", "co/big")
    inside = page.evaluate("""() => {
      const range = [...CSS.highlights.get('passage')][0];
      const box = range.getBoundingClientRect();
      return [window.scrollY, box.top, box.bottom, window.innerHeight];
    }""")
    scrolled, top, bottom, height = inside
    assert scrolled > 1000 and 0 <= top and bottom <= height, inside
    shot = tmp_path / "passages-reopened-at-first-highlight.png"
    page.screenshot(path=str(shot))  # the window only: where the page opened
    SCREENS.mkdir(exist_ok=True)
    shutil.copy(shot, SCREENS / shot.name)
    page.context.close()


def test_a_resize_while_the_text_loads_draws_nothing_early(browser: Any, server: Server,
                                                           console: ConsoleErrors) -> None:
    """The judgement can arrive before the text: a resize then (the layout settling, a window
    dragged) must wait for the text before it places the best entry point's marker. It read
    the text's length while it was still null: "Cannot read properties of null (reading
    'length')", twice in CI under load, on documents with a best entry point."""
    file = pool_order(server)[-1]
    text = text_of(server, "bob", "1", file)
    at = text.index(text.split()[3])
    answer = server.api("bob").put(f"/api/topics/1/docs/{file}", json={
        "version": server.judgement("bob", "1", file)["version"], "status": "in-progress",
        "passages": [[at, at + 20]], "best_entry_point": at})
    assert answer.status_code == 200, answer.text
    page = log_in(browser, server, "bob", console)
    held: list[Any] = []
    page.route("**/content", lambda route: held.append(route))  # held until the test says
    page.goto(f"{server.url}/topics/1/docs/{file}")
    page.wait_for_function("() => window.inexeval?.state?.judgement?.best_entry_point != null")
    assert len(held) == 1 and page.evaluate("() => window.inexeval.state.text") is None
    page.set_viewport_size({"width": 500, "height": 700})  # the document's box narrows
    page.wait_for_timeout(300)
    held[0].continue_()
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#bep-marker")).to_be_visible()
    page.context.close()
