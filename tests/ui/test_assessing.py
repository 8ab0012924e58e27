"""The assessment interface in Chromium, used as an assessor would: log in, open a topic and a
document, highlight with the mouse and the keyboard, give exhaustivity, set a best entry point,
mark done, and check through the HTTP API that exactly that was saved."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.ui.campaign import ASTRAL, XSS_IMG, XSS_SCRIPT
from tests.ui.conftest import (
    PASSWORD,
    ConsoleErrors,
    Server,
    log_in,
    open_as,
    open_document,
    screenshot,
)

WORD_BOX = """([needle, nth]) => {
  const walker = document.createTreeWalker(document.getElementById('doc'), NodeFilter.SHOW_TEXT);
  let seen = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    let at = node.data.indexOf(needle);
    while (at >= 0) {
      if (seen === nth) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + needle.length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const [first, last] = [rects[0], rects[rects.length - 1]];
        return {x: first.x, y: first.y, width: first.width, height: first.height,
                endX: last.x + last.width, endY: last.y + last.height / 2};
      }
      seen += 1;
      at = node.data.indexOf(needle, at + 1);
    }
  }
  return null;
}"""


def box(page: Any, needle: str, nth: int = 0) -> dict[str, float]:
    """The first line box of the ``nth`` occurrence of ``needle`` in the document's text nodes
    (``x``, ``y``, ``width``, ``height``) and the middle of its last line's end (``endX``,
    ``endY``): a phrase may wrap."""
    found: dict[str, float] | None = page.evaluate(WORD_BOX, [needle, nth])
    assert found is not None, needle
    return found


def drag_select(page: Any, first: str, last: str) -> None:
    """Select with the mouse from inside the first letter of ``first`` to inside the last
    letter of ``last`` (the interface snaps both ends to whole words)."""
    a, b = box(page, first), box(page, last)
    page.mouse.move(a["x"] + 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["endX"] - 2, b["endY"], steps=8)
    page.mouse.up()


def highlight_words(page: Any, words: list[str], at: int = 0) -> tuple[str, str]:
    """Select ``words[at:at+6]`` with the mouse and press h; the first and last three words."""
    first, last = " ".join(words[at:at + 3]), " ".join(words[at + 3:at + 6])
    drag_select(page, first, last)
    page.keyboard.press("h")
    return first, last


def click_word(page: Any, word: str, clicks: int = 1, nth: int = 0) -> None:
    """Click the middle of the ``nth`` occurrence of ``word`` in the document."""
    w = box(page, word, nth)
    page.mouse.click(w["x"] + w["width"] / 2, w["y"] + w["height"] / 2, click_count=clicks)


def settled(page: Any) -> None:
    """Wait until every change of the page has been acknowledged by the server (and an undo
    or redo has asked the server whether it was saved elsewhere meanwhile)."""
    page.wait_for_function("""() => window.inexeval.state.pending.length === 0
        && !window.inexeval.state.saving && !window.inexeval.state.stepping""")


def text_of(server: Server, user: str, topic: str, file: str) -> str:
    content = server.api(user).get(f"/api/topics/{topic}/docs/{file}/content").json()
    text: str = content["text"]
    return text


def paragraph(server: Server, file: str, topic: str = "1") -> tuple[str, list[str]]:
    """The document's text and the words of its first paragraph."""
    content = server.api("alice").get(f"/api/topics/{topic}/docs/{file}/content").json()
    first = next(e for e in content["elements"] if e["path"].endswith("/p[1]"))
    return content["text"], content["text"][first["start"]:first["end"]].split()


def span(text: str, first: str, last: str) -> tuple[int, int]:
    start = text.index(first)
    return start, text.index(last, start) + len(last)


def test_login_refuses_without_saying_which_field(browser: Any, server: Server,
                                                  console: ConsoleErrors) -> None:
    context = browser.new_context()
    page = console.watch(context.new_page())
    page.goto(f"{server.url}/topics/1")
    page.wait_for_url(re.compile(r"/login\?next=/topics/1$"))
    for user, password in (("alice", "wrong"), ("nobody", PASSWORD)):
        page.get_by_label("User name").fill(user)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(re.compile(r"/login\?error=1$"))
        assert page.get_by_role("alert").inner_text() == "Wrong user name or password."
    page.get_by_label("User name").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{server.url}/")
    context.close()


def test_an_assessor_judges_a_document(browser: Any, server: Server, console: ConsoleErrors,
                                       tmp_path: Path) -> None:
    page = log_in(browser, server, "alice", console)
    topics = page.get_by_role("table")
    assert "element retrieval evaluation" in topics.inner_text()
    assert "0 / 7 done" in topics.inner_text()
    page.get_by_role("link", name="1", exact=True).click()
    page.wait_for_url("**/topics/1")
    assert page.get_by_role("heading", level=1).inner_text() == \
        "Topic 1 element retrieval evaluation"
    screenshot(page, tmp_path, "topic-page")
    page.keyboard.press("j")  # from the first (unassessed) article to the second
    page.keyboard.press("k")
    page.keyboard.press("Enter")
    page.wait_for_url("**/topics/1/docs/co/a1")
    page.wait_for_selector("body[data-ready=true]")
    text = text_of(server, "alice", "1", "co/a1")
    assert page.evaluate("document.getElementById('doc').textContent") == text
    keywords = "CSS.highlights.get('keyword')?.size ?? 0"
    # the topic's keywords "evaluation, passage", matched by stem: "evaluation" in the title,
    # the heading's "Passages" and the paragraph's "passages" (tests/ui/test_flow.py has more)
    assert page.evaluate(keywords) == 3
    page.keyboard.press("w")
    assert page.evaluate(keywords) == 0
    page.keyboard.press("w")

    # A passage across two paragraphs, selected with the mouse from inside words.
    drag_select(page, "relevant passages", "Elements holding")
    page.keyboard.press("h")
    settled(page)
    start, end = span(text, "relevant passages", "Elements holding")
    saved = server.judgement("alice", "1", "co/a1")
    assert saved["passages"] == [[start, end]]
    assert saved["status"] == "in-progress"
    assert page.locator("#saved").inner_text().endswith("saved")

    # Unhighlight one word inside it (double-click selects the word).
    click_word(page, "passages in", clicks=2)
    page.keyboard.press("u")
    settled(page)
    cut = text.index("passages in")
    cut_end = cut + len("passages")
    saved = server.judgement("alice", "1", "co/a1")
    # the two parts left keep no white space at their edges (issue 22)
    assert saved["passages"] == [[start, cut - 1], [cut_end + 1, end]]

    held = ["/article[1]", "/article[1]/bdy[1]", "/article[1]/bdy[1]/sec[1]",
            "/article[1]/bdy[1]/sec[1]/p[1]", "/article[1]/bdy[1]/sec[1]/p[2]"]
    listed = page.locator("#elements li").evaluate_all("rows => rows.map(r => r.dataset.path)")
    assert listed == held
    assert page.evaluate("window.inexeval.problems()") == saved["problems"]
    assert page.locator("#consistency").get_attribute("data-state") == "red"

    # Done is refused while red.
    page.keyboard.press("d")
    assert "Not done" in page.locator("#notice").inner_text()
    assert "has no exhaustivity" in page.locator("#consistency").inner_text()
    assert server.judgement("alice", "1", "co/a1")["status"] == "in-progress"

    # Exhaustivity with the keys 2, 1, 3: each goes to the current element, which starts at
    # the innermost one holding the highlight, then the next without a value (consistent with
    # the 2005 rules: no element less exhaustive than one inside it, and the last paragraph,
    # which holds no whole passage, too small), then back to the top.
    assert page.evaluate("document.querySelector('#elements li.current').dataset.path") \
        == held[3]
    for key in "13211":
        page.keyboard.press(key)
    settled(page)
    saved = server.judgement("alice", "1", "co/a1")
    assert saved["exhaustivity"] == dict(zip(held, ["2", "1", "1", "1", "?"]))
    # the first highlight brought a best entry point at its start
    assert saved["best_entry_point"] == start
    assert page.evaluate("window.inexeval.problems()") == saved["problems"] == []

    # Best entry point: click inside a word, press b; it starts at the word.
    click_word(page, "Assessors")
    page.keyboard.press("b")
    settled(page)
    saved = server.judgement("alice", "1", "co/a1")
    assert saved["best_entry_point"] == text.index("Assessors")
    assert page.locator("#bep-marker").is_visible()
    assert saved["problems"] == page.evaluate("window.inexeval.problems()") == []
    assert page.locator("#consistency").get_attribute("data-state") == "green"
    screenshot(page, tmp_path, "document-page")

    page.keyboard.press("d")  # saved, then the next unassessed document opens
    page.wait_for_url(lambda url: not url.endswith("/docs/co/a1"))
    saved = server.judgement("alice", "1", "co/a1")
    assert saved["status"] == "done"
    assert saved["relevant"] is True
    assert saved["seconds"] > 0

    # Opened again, the document shows the same state.
    open_document(page, server, "1", "co/a1")
    assert page.locator("#doc-status").inner_text() == "done, relevant"
    assert page.evaluate("CSS.highlights.get('passage').size") == 2
    highlighted = page.evaluate("[...CSS.highlights.get('passage')].map(r => r.toString())")
    assert highlighted == [text[start:cut - 1], text[cut_end + 1:end]]
    pressed = page.locator("#elements button[aria-pressed=true]").evaluate_all(
        "buttons => buttons.map(b => [b.closest('li').dataset.path, b.textContent])")
    assert pressed == [[p, v] for p, v in saved["exhaustivity"].items()]
    assert page.locator("#bep-marker").is_visible()

    # The topic page shows the document done and relevant.
    page.goto(f"{server.url}/topics/1")
    row = page.locator("#pool li[data-file='co/a1']")
    assert row.get_attribute("data-status") == "relevant"
    assert "done, relevant" in row.inner_text()
    page.context.close()


def test_a_document_is_marked_non_relevant_after_confirmation(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    page = open_as(browser, server, console, "alice", "1", "co/a2")
    page.keyboard.press("r")
    dialog = page.get_by_role("dialog")
    assert dialog.is_visible()
    dialog.get_by_role("button", name="Cancel").click()
    assert server.judgement("alice", "1", "co/a2")["status"] == "unseen"
    page.keyboard.press("r")
    dialog.get_by_role("button", name="Yes, non-relevant").click()
    # the dialog's close event (which makes the change) comes in a task of its own: wait for it
    expect(page.locator("#doc-status")).to_have_text("done, non-relevant")
    settled(page)
    saved = server.judgement("alice", "1", "co/a2")
    assert (saved["status"], saved["passages"], saved["relevant"]) == ("done", [], False)
    assert page.locator("#doc-status").inner_text() == "done, non-relevant"
    page.context.close()


def test_markup_in_the_text_stays_text(browser: Any, server: Server,
                                       console: ConsoleErrors) -> None:
    page = log_in(browser, server, "alice", console)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_document(page, server, "1", "co/xss")
    doc = page.locator("#doc")
    assert XSS_SCRIPT in doc.inner_text()
    assert XSS_IMG in doc.inner_text()
    assert page.evaluate("document.getElementById('doc').textContent") == \
        text_of(server, "alice", "1", "co/xss")
    assert doc.locator("script, img").count() == 0
    page.wait_for_timeout(300)
    assert dialogs == []
    page.context.close()


def test_offsets_count_code_points_outside_the_bmp(browser: Any, server: Server,
                                                   console: ConsoleErrors) -> None:
    page = open_as(browser, server, console, "alice", "1", "co/astral")
    text = text_of(server, "alice", "1", "co/astral")
    assert ASTRAL in text
    assert page.evaluate("document.getElementById('doc').textContent") == text
    drag_select(page, "after the astral", "The evaluation")
    page.keyboard.press("h")
    settled(page)
    start, end = span(text, "after the astral", "The evaluation")
    assert server.judgement("alice", "1", "co/astral")["passages"] == [[start, end]]
    click_word(page, "after")
    page.keyboard.press("b")
    settled(page)
    assert server.judgement("alice", "1", "co/astral")["best_entry_point"] == start
    page.context.close()


def test_two_assessors_never_see_each_others_highlights(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    alice = log_in(browser, server, "alice", console)
    bob = log_in(browser, server, "bob", console)
    open_document(alice, server, "1", "co/a3")
    open_document(bob, server, "1", "co/a3")
    _, first_words = paragraph(server, "co/a3")
    highlight_words(alice, first_words)
    settled(alice)
    bob.reload()
    bob.wait_for_selector("body[data-ready=true]")
    assert bob.evaluate("CSS.highlights.get('passage').size") == 0
    assert server.judgement("bob", "1", "co/a3")["passages"] == []
    assert server.judgement("alice", "1", "co/a3")["passages"] != []
    alice.context.close()
    bob.context.close()


def test_a_stale_tab_merges_its_change(browser: Any, server: Server,
                                       console: ConsoleErrors) -> None:
    """Two tabs of one assessor highlight different words of one document: the second tab's
    save (on a stale version) is merged by the server; both highlights survive and the stale
    tab shows the merged state (tests/ui/test_flow.py: a true conflict)."""
    text, words = paragraph(server, "co/a4")
    # the title already highlighted, with the best entry point (a first highlight brings one:
    # in both tabs at once, that would be a true conflict)
    title = [text.index("Article 4"), text.index("Article 4") + len("Article 4")]
    api = server.api("alice")
    assert api.put("/api/topics/1/docs/co/a4", json={
        "version": 0, "status": "in-progress", "passages": [title],
        "best_entry_point": title[0]}).status_code == 200
    first = log_in(browser, server, "alice", console)
    second = console.watch(first.context.new_page())
    open_document(first, server, "1", "co/a4")
    open_document(second, server, "1", "co/a4")
    one = highlight_words(first, words)
    settled(first)
    two = highlight_words(second, words, 8)
    second.wait_for_selector("#notice[data-kind=info]")
    assert "Merged" in second.locator("#notice").inner_text()
    settled(second)
    saved = server.judgement("alice", "1", "co/a4")
    assert saved["passages"] == [title, list(span(text, *one)), list(span(text, *two))]
    assert second.evaluate("window.inexeval.state.judgement.passages") == saved["passages"]
    assert second.evaluate("window.inexeval.state.judgement.version") == saved["version"]
    first.context.close()


def test_a_change_that_cannot_be_saved_is_kept_until_it_is(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    """Offline: queued, retried, saved when back online; leaving asks first; a change still
    unsaved when the page is left is restored and saved on the next visit."""
    page = open_as(browser, server, console, "alice", "1", "co/a5")
    text, words = paragraph(server, "co/a5")
    page.context.set_offline(True)
    first, last = highlight_words(page, words)
    page.wait_for_selector("#saved[data-state=retry]")
    assert page.evaluate("window.inexeval.state.pending.length") == 1
    dialogs: list[str] = []
    leave = {"beforeunload": False}
    page.on("dialog", lambda d: (dialogs.append(d.type),
                                 d.accept() if leave[d.type] else d.dismiss()))
    page.close(run_before_unload=True)
    page.wait_for_timeout(300)
    assert dialogs == ["beforeunload"]
    assert not page.is_closed()
    page.context.set_offline(False)
    settled(page)
    passages = [list(span(text, first, last))]
    assert server.judgement("alice", "1", "co/a5")["passages"] == passages

    page.route("**/api/topics/1/docs/co/a5", lambda route: route.abort()
               if route.request.method == "PUT" else route.continue_())
    first, last = highlight_words(page, words, 6)
    page.wait_for_selector("#saved[data-state=retry]")
    leave["beforeunload"] = True
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert server.judgement("alice", "1", "co/a5")["passages"] == passages
    page.unroute("**/api/topics/1/docs/co/a5")
    page.wait_for_selector("#notice[data-kind=info]")
    settled(page)
    passages.append(list(span(text, first, last)))
    assert server.judgement("alice", "1", "co/a5")["passages"] == passages
    console[:] = [e for e in console if "ERR_INTERNET_DISCONNECTED" not in e
                  and "ERR_FAILED" not in e]
    page.context.close()


@pytest.mark.parametrize("width", [640])
def test_the_document_page_works_at_200_percent_zoom(browser: Any, server: Server,
                                                     console: ConsoleErrors, width: int,
                                                     tmp_path: Path) -> None:
    """A 1280-pixel window at 200% zoom lays out as 640 CSS pixels: one column, nothing
    wider than the window, every control reachable."""
    page = log_in(browser, server, "alice", console, viewport={"width": width, "height": 900})
    open_document(page, server, "1", "co/a1")
    assert page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    for name in ("Highlight", "Unhighlight", "Best entry point", "Done, next",
                 "Not relevant, next", "Undo", "Redo"):
        assert page.get_by_role("button", name=name, exact=True).is_visible()
    screenshot(page, tmp_path, "document-page-200pct")
    page.context.close()


def test_a_drag_past_the_end_of_the_document_stops_at_its_end(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    page = open_as(browser, server, console, "bob", "1", "co/a2")
    text = text_of(server, "bob", "1", "co/a2")
    last_words = " ".join(text.split()[-3:])
    start = box(page, last_words)
    page.mouse.move(start["x"] + 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(start["x"] + 200, start["y"] + 400, steps=8)
    page.mouse.up()
    page.keyboard.press("h")
    settled(page)
    assert server.judgement("bob", "1", "co/a2")["passages"] == [
        [text.rindex(last_words), len(text)]]
    page.context.close()
