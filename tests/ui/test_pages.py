"""The other pages in Chromium (topic keys, admin), the page's rules against the server's, and
the speed of the document page on a 50,000-character article."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.ui.conftest import (
    SCREENS,
    ConsoleErrors,
    Server,
    log_in,
    open_as,
    screenshot,
)


def test_topic_page_keys_move_open_and_skip_to_the_next_unassessed(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    api = server.api("alice")
    first = api.get("/api/topics/1/docs/co/a1").json()
    reply = api.put("/api/topics/1/docs/co/a1", json={**first, "status": "done"})
    assert reply.status_code == 200, reply.text
    page = log_in(browser, server, "alice", console)
    page.goto(f"{server.url}/topics/1")
    focused = "document.activeElement.closest('li').dataset.file"
    assert page.evaluate(focused) == "co/a2"  # the first one not done
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.evaluate(focused) == "co/a4"
    page.keyboard.press("k")
    assert page.evaluate(focused) == "co/a3"
    page.keyboard.press("n")
    page.wait_for_url("**/topics/1/docs/co/a4")
    page.wait_for_selector("body[data-ready=true]")
    page.keyboard.press("n")  # on the document page: the next unassessed after it
    page.wait_for_url("**/topics/1/docs/co/a5")
    page.go_back()
    page.go_back()
    page.wait_for_url("**/topics/1")
    page.keyboard.press("Enter")
    page.wait_for_url("**/topics/1/docs/co/a2")
    page.context.close()


def test_admin_sees_progress_and_locks_a_topic(browser: Any, server: Server,
                                               console: ConsoleErrors, tmp_path: Path) -> None:
    page = log_in(browser, server, "boss", console)
    page.on("dialog", lambda dialog: dialog.accept())  # locking asks first
    page.goto(f"{server.url}/admin")
    screenshot(page, tmp_path, "admin-page")
    assert page.get_by_role("heading", name="Campaign progress").is_visible()
    tables = page.get_by_role("table")
    assert "alice" in tables.nth(1).inner_text()
    # exact names: "Lock topic 2" is part of "Unlock topic 2", which stays on the page until the
    # reload that follows the request: matched by part, the wait was over before the request
    page.get_by_role("button", name="Lock topic 2", exact=True).click()
    page.get_by_role("button", name="Unlock topic 2", exact=True).wait_for()
    assert server.api("alice").get("/api/topics/2").json()["locked"] is True
    alice = open_as(browser, server, console, "alice", "2", "co/big")
    alice.keyboard.press("r")
    alice.get_by_role("button", name="Yes, non-relevant").click()
    alice.wait_for_selector("#notice[data-kind=error]")
    assert "locked" in alice.locator("#notice").inner_text()
    assert server.judgement("alice", "2", "co/big")["status"] == "unseen"
    console[:] = [e for e in console if "status of 423" not in e]
    page.get_by_role("button", name="Unlock topic 2", exact=True).click()
    page.get_by_role("button", name="Lock topic 2", exact=True).wait_for()
    assert server.api("alice").get("/api/topics/2").json()["locked"] is False
    refused = alice.goto(f"{server.url}/admin")
    assert refused.status == 403
    assert alice.get_by_role("heading", level=1).inner_text() == "Not allowed"
    assert "the admin page is for administrators" in alice.locator("main").inner_text()
    console[:] = [e for e in console if "status of 403" not in e]
    page.context.close()
    alice.context.close()


JUDGEMENTS = [
    {"passages": [], "best_entry_point": None, "exhaustivity": {}},
    {"passages": [[0, 5]], "best_entry_point": None, "exhaustivity": {}},
    {"passages": [[0, 5]], "best_entry_point": 2, "exhaustivity": {
        "/article[1]": "2", "/article[1]/fm[1]": "1", "/article[1]/fm[1]/ti[1]": "?"}},
    {"passages": [[20, 90]], "best_entry_point": 20,
     "exhaustivity": {"/article[1]": "2", "/article[1]/bdy[1]/sec[2]": "1"}},
    {"passages": [], "best_entry_point": 3, "exhaustivity": {"/article[1]": "1"}},
    {"passages": [[27, 29], [150, 151]], "best_entry_point": 150, "exhaustivity": {}},
]


@pytest.mark.parametrize("judgement", JUDGEMENTS)
def test_the_page_finds_the_same_problems_as_the_server(
        browser: Any, server: Server, console: ConsoleErrors, judgement: dict[str, Any]) -> None:
    """The document page mirrors the highlight-mode rules to show them live; for each
    judgement its list is the server's (``POST .../check``), word for word."""
    reply = server.api("bob").post("/api/topics/1/docs/co/a1/check", json=judgement)
    assert reply.status_code == 200, reply.text
    content = server.api("bob").get("/api/topics/1/docs/co/a1/content").json()
    page = console.watch(browser.new_page())
    page.goto(f"{server.url}/static/rules.js")
    found = page.evaluate(
        """async ([judgement, elements]) => {
             const rules = await import('/static/rules.js');
             return rules.highlightProblems(judgement, elements);
           }""", [judgement, content["elements"]])
    assert found == reply.json()["problems"]
    page.close()


def test_speed_of_a_50000_character_article(browser: Any, server: Server,
                                            console: ConsoleErrors, tmp_path: Path) -> None:
    """Measured, not asserted: the document page of a 50,000-character article ready (content
    fetched, rendered, keyboard handlers live) and one highlight saved and acknowledged."""
    page = log_in(browser, server, "alice", console)
    ready = []
    for _ in range(5):
        page.goto(f"{server.url}/topics/2/docs/co/big")
        page.wait_for_selector("body[data-ready=true]")
        ready.append(page.evaluate("window.inexeval.timings"))
    length = page.evaluate("document.getElementById('doc').textContent.length")
    assert length >= 50_000
    saves = []
    for k in range(10):
        page.evaluate("""(k) => {
            const doc = document.getElementById('doc');
            const walker = document.createTreeWalker(doc, NodeFilter.SHOW_TEXT);
            let node = walker.nextNode();
            for (let i = 0; i < 10 + 4 * k; i += 1) node = walker.nextNode();
            const range = document.createRange();
            range.setStart(node, 0);
            range.setEnd(node, Math.min(20, node.data.length));
            getSelection().removeAllRanges();
            getSelection().addRange(range);
        }""", k)
        page.keyboard.press("h")
        page.wait_for_function(
            "() => window.inexeval.state.pending.length === 0 && !window.inexeval.state.saving")
        timings = page.evaluate("window.inexeval.timings")
        saves.append({"change_to_ack_ms": timings["acknowledged"], "put_ms": timings["lastSave"]})
    navigation = page.evaluate("performance.getEntriesByType('navigation')[0].toJSON()")
    report = {"characters": length, "page_ready": ready, "saves": saves,
              "navigation_dom_content_loaded_ms": navigation["domContentLoadedEventEnd"]}
    text = json.dumps(report, indent=1)
    print(text)
    (tmp_path / "speed.json").write_text(text)
    SCREENS.mkdir(exist_ok=True)
    (SCREENS / "ui-speed.json").write_text(text)
    page.context.close()
