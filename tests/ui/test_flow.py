"""The assessor's flow of issue 22 in Chromium (passages mode): two tabs merging and a true
conflict asking, one outbox for the whole app surviving a reload while offline, the history
panel, and assessing time counted only while the page is visible and the assessor acts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from tests.ui.conftest import (
    ConsoleErrors,
    Server,
    log_in,
    open_as,
    open_document,
    running_server,
    screenshot,
)
from tests.ui.test_assessing import click_word, highlight_words, paragraph, settled, span

from inexeval.assess.model import merge_passages


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("campaign-flow"), mode="passages") as up:
        yield up


def offline_noise(console: ConsoleErrors) -> None:
    """Failed requests while offline are expected console errors."""
    console[:] = [e for e in console if "ERR_INTERNET_DISCONNECTED" not in e
                  and "ERR_FAILED" not in e and "409 (Conflict)" not in e]


def test_two_tabs_a_true_conflict_asks(browser: Any, server: Server, console: ConsoleErrors,
                                       tmp_path: Path) -> None:
    first = log_in(browser, server, "alice", console)
    second = console.watch(first.context.new_page())
    open_document(first, server, "1", "co/a2")
    text, words = paragraph(server, "co/a2")
    highlight_words(first, words)
    settled(first)
    open_document(second, server, "1", "co/a2")
    # both tabs now start from the same version; each sets the best entry point elsewhere
    click_word(first, words[1])
    first.keyboard.press("b")
    settled(first)
    click_word(second, words[4])
    second.keyboard.press("b")
    mine = second.evaluate("window.inexeval.state.judgement.best_entry_point")
    dialog = second.locator("#merge-conflict")
    dialog.wait_for(state="visible")
    assert "Best entry point" in dialog.inner_text()
    screenshot(second, tmp_path, "flow-conflict-dialog")
    second.get_by_role("button", name="Keep mine").click()
    settled(second)
    saved = server.judgement("alice", "1", "co/a2")
    assert saved["best_entry_point"] == mine != text.index(words[1])
    assert saved["passages"] == [list(span(text, " ".join(words[0:3]), " ".join(words[3:6])))]
    # the first tab is stale now: its new best entry point conflicts; it takes the saved one
    click_word(first, words[2])
    first.keyboard.press("b")
    first.locator("#merge-conflict").wait_for(state="visible")
    first.get_by_role("button", name="Take the saved version").click()
    first.wait_for_selector("#notice[data-kind=conflict]")
    settled(first)
    assert first.evaluate("window.inexeval.state.judgement.best_entry_point") == mine
    assert server.judgement("alice", "1", "co/a2")["best_entry_point"] == mine
    offline_noise(console)
    first.context.close()


def test_the_outbox_survives_a_reload_while_offline(browser: Any, server: Server,
                                                    console: ConsoleErrors,
                                                    tmp_path: Path) -> None:
    """Offline, a highlight is queued and counted in the banner; the page is reloaded (which
    fails: offline) and the browser comes back online on another page of the app, which sends
    the change; the history panel then lists it with a link back to its document."""
    page = open_as(browser, server, console, "alice", "1", "co/a3")
    text, words = paragraph(server, "co/a3")
    # Chromium's offline emulation lets the old document's retry through while a reload
    # fails (seen in 3 runs of 3): the saves are refused at the context as well
    page.context.route("**/api/topics/**", lambda route: route.abort("internetdisconnected")
                       if route.request.method == "PUT" else route.continue_())
    page.context.set_offline(True)
    first, last = highlight_words(page, words)
    page.wait_for_selector("#saved[data-state=retry]")
    banner = page.locator("#outbox")
    banner.wait_for(state="visible")
    assert banner.inner_text().startswith("1 change not saved yet")
    screenshot(page, tmp_path, "flow-outbox-banner")
    page.on("dialog", lambda d: d.accept())
    with pytest.raises(PlaywrightError):
        page.reload()
    # Nothing saved while offline, as a rule; but one of three whole-suite runs (a CI rehearsal;
    # never this test alone, 4 runs) saw the old document's change reach the server
    # during the failed reload despite the offline emulation and the context's route: Chromium's,
    # not the page's (no beacon, no keepalive). What follows holds either way: the outbox sends
    # the change (or finds it stored: a resend of a stored state writes nothing) and the banner
    # empties.
    early = server.judgement("alice", "1", "co/a3")["passages"]
    assert early in ([], [list(span(text, first, last))])
    page.context.set_offline(False)
    page.context.unroute("**/api/topics/**")
    page.goto(f"{server.url}/topics/1")
    page.wait_for_function("() => document.body.dataset.unsaved === '0'")
    assert not page.locator("#outbox").is_visible()
    assert server.judgement("alice", "1", "co/a3")["passages"] == [list(span(text, first, last))]
    # (a second, empty save may follow: the old document's own retry, which Chromium lets
    # through as the page comes back online; the server merges it into no change)
    history = page.locator("#history li", has_text="highlighted")
    history.wait_for()
    start = span(text, first, last)[0]
    assert f"co/a3 (topic 1): highlighted “{first} {last}” ({len(first) + len(last) + 1} " \
        f"characters); best entry point at {start}; now in-progress" in history.inner_text()
    screenshot(page, tmp_path, "flow-history-topic-page")
    page.locator("#history a", has_text="co/a3").first.click()
    page.wait_for_url(f"{server.url}/topics/1/docs/co/a3")
    offline_noise(console)
    page.context.close()


def test_an_orphaned_change_is_sent_from_another_page_and_the_banner_counts_it(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    """A change left in the outbox by a page that is gone (here: put there as a page writes
    it, made on version 0 while the server has moved on) is sent by the pool page and merged
    by the server with what was saved meanwhile."""
    page = log_in(browser, server, "bob", console)
    api = server.api("bob")
    text, words = paragraph(server, "co/a4")
    one = span(text, words[0], words[1])
    two = span(text, words[4], words[5])
    assert api.put("/api/topics/1/docs/co/a4", json={
        "version": 0, "status": "in-progress", "passages": [list(one)]}).status_code == 200
    page.route("**/api/topics/1/docs/co/a4", lambda route: route.abort()
               if route.request.method == "PUT" else route.continue_())
    page.evaluate("""([two]) => localStorage.setItem('inexeval:bob:outbox:test', JSON.stringify({
        doc_api: '/api/topics/1/docs/co/a4', url: '/topics/1/docs/co/a4', file: 'co/a4',
        version: 0, base: {status: 'unseen', passages: [], best_entry_point: null,
                           exhaustivity: {}, values: {}, seconds: 0},
        pending: [{status: 'in-progress', passages: [two], best_entry_point: null,
                   exhaustivity: {}, values: {}, seconds: 2}],
        alive: 0, created: 1}))""", [list(two)])
    page.goto(f"{server.url}/topics/1")
    page.locator("#outbox").wait_for(state="visible")
    assert page.locator("#outbox").inner_text().startswith("1 change not saved yet")
    page.unroute("**/api/topics/1/docs/co/a4")
    page.wait_for_function("() => document.body.dataset.unsaved === '0'", timeout=15000)
    assert server.judgement("bob", "1", "co/a4")["passages"] == [list(one), list(two)]
    offline_noise(console)
    page.context.close()


def test_history_on_the_document_page(browser: Any, server: Server,
                                      console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "bob", "1", "co/a5")
    _, words = paragraph(server, "co/a5")
    highlight_words(page, words)
    settled(page)
    page.keyboard.press("u")  # the caret is nowhere: a notice, nothing saved
    highlight_words(page, words, 8)
    settled(page)
    panel = page.locator("#history")
    panel.locator("summary").click()
    page.wait_for_function("() => document.querySelector('#history').dataset.count === '2'")
    rows = panel.locator("li").all_inner_texts()
    assert all("co/a5 (topic 1): highlighted" in row for row in rows)
    assert panel.locator("a[aria-current=page]").count() == 2
    screenshot(page, tmp_path, "flow-history-document-page")
    page.context.close()


PAGE_DATA_WINDOW = re.compile(r'"active_seconds": [0-9.]+')


def test_time_counts_only_while_visible_and_active(browser: Any, server: Server,
                                                   console: ConsoleErrors) -> None:
    """The activity window shortened to 1 s for the test (the page reads it from the page
    data): idle time beyond it, and hidden time, do not count; the saved seconds are what the
    page counted."""
    page = log_in(browser, server, "alice", console)

    def shorter(route: Any) -> None:
        response = route.fetch()
        body = PAGE_DATA_WINDOW.sub('"active_seconds": 1.0', response.text())
        route.fulfill(response=response, body=body)

    page.route(f"{server.url}/topics/1/docs/co/a5", shorter)
    open_document(page, server, "1", "co/a5")
    active = "window.inexeval.activeSeconds()"
    page.wait_for_timeout(3000)  # no act: at most the first second counts
    idle = page.evaluate(active)
    assert 0.5 <= idle <= 1.3, idle
    for _ in range(4):  # acting every half second: all of it counts
        page.mouse.move(300, 300 + _ * 5)
        page.wait_for_timeout(500)
    busy = page.evaluate(active)
    assert 1.6 <= busy - idle <= 2.6, (idle, busy)
    # hidden (as when another tab is in front): acts do not count
    page.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    hidden_at = page.evaluate(active)
    for _ in range(4):
        page.mouse.move(400, 300 + _ * 5)
        page.wait_for_timeout(250)
    assert page.evaluate(active) - hidden_at < 0.05
    page.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    _, words = paragraph(server, "co/a5")
    highlight_words(page, words)
    settled(page)
    counted = page.evaluate("window.inexeval.state.baseSeconds + "
                            "window.inexeval.state.activeMs / 1000")
    saved = server.judgement("alice", "1", "co/a5")["seconds"]
    assert abs(saved - counted) < 1.0, (saved, counted)
    stats = server.api("boss").get("/api/admin/stats").json()
    alice_topic_1 = next(r for r in stats["topics"] if r["assessor"] == "alice"
                         and r["topic"] == "1")
    alice = next(r for r in stats["assessors"] if r["assessor"] == "alice")
    # one definition: the assessor's time is the sum of its judgements' (topic 2 untouched)
    assert alice_topic_1["seconds"] >= saved
    assert alice["seconds"] == pytest.approx(alice_topic_1["seconds"], abs=0.001)
    page.context.close()


def test_a_save_whose_answer_is_lost_counts_its_seconds_once(browser: Any, server: Server,
                                                             console: ConsoleErrors) -> None:
    """The first save reaches the server but its answer is lost (the connection reset); the
    next saves fail (offline) while the assessor highlights more, which the page queues on
    top of the first; back online, the page sends its newer state on the version it knows:
    the server takes it (the same page visit saved the version since), so that the seconds
    the page counted are stored as counted, not added to those of its own lost save."""
    page = open_as(browser, server, console, "alice", "1", "co/a4")
    text, words = paragraph(server, "co/a4")
    for step in range(8):  # three or four seconds of work before the first highlight
        page.mouse.move(300, 300 + step * 5)
        page.wait_for_timeout(450)
    held = {"lost": False, "offline": True}

    def lose_the_answer(route: Any) -> None:
        if route.request.method != "PUT":
            route.continue_()
        elif not held["lost"]:
            held["lost"] = True
            route.fetch()  # stored by the server
            route.abort("connectionreset")
        elif held["offline"]:
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route("**/api/topics/1/docs/co/a4", lose_the_answer)
    one = span(text, *highlight_words(page, words))
    page.wait_for_selector("#saved[data-state=retry]")
    first_seconds = server.judgement("alice", "1", "co/a4")["seconds"]
    assert first_seconds >= 2.5, first_seconds
    two = span(text, *highlight_words(page, words, at=6))
    held["offline"] = False
    settled(page)
    stored = server.judgement("alice", "1", "co/a4")
    assert stored["passages"] == [list(p) for p in merge_passages([one, two])]
    # the page's own time (it opened a document never judged: nothing to start from, and no
    # other tab's seconds to take over from a merge)
    base, active = page.evaluate("[window.inexeval.state.baseSeconds, "
                                 "window.inexeval.state.activeMs / 1000]")
    assert base == 0, (base, stored["seconds"], first_seconds)
    assert abs(stored["seconds"] - active) < 1.0, (stored["seconds"], active, first_seconds)
    assert stored["version"] == 2
    offline_noise(console)
    console[:] = [e for e in console if "ERR_CONNECTION_RESET" not in e]
    page.context.close()


def test_forced_colours_and_a_passage_list_for_screen_readers(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "alice", "1", "co/a1")
    text, words = paragraph(server, "co/a1")
    first, last = highlight_words(page, words[:6])
    settled(page)
    start, end = span(text, first, last)
    # the passages as text, in the accessibility tree, not on the screen
    heading = page.get_by_role("heading", name="Highlighted text: 1 passage")
    assert heading.count() == 1 and not heading.is_visible() or heading.bounding_box()[
        "width"] <= 1
    assert page.locator("#passage-text li").all_text_contents() == [text[start:end]]
    snapshot = page.locator("#passage-text").aria_snapshot()
    assert text[start:end] in snapshot
    # Windows high contrast: the passage keeps lines above and below, not only a background
    page.emulate_media(forced_colors="active")
    assert page.evaluate("matchMedia('(forced-colors: active)').matches")
    page.wait_for_selector("#outlines-passage span")
    outline = page.evaluate("""() => {
        const mark = document.querySelector('#outlines-passage span');
        const style = getComputedStyle(mark);
        return [style.outlineStyle, parseFloat(style.outlineWidth), mark.offsetWidth > 20];
    }""")
    assert outline == ["solid", 2, True]
    # keywords: a dashed line only (a highlight would look like a passage)
    assert page.evaluate("CSS.highlights.has('keyword')") is False
    assert page.locator("#outlines-keyword span").count() > 0
    screenshot(page, tmp_path, "flow-forced-colours")
    page.context.close()


def test_the_pool_page_shows_titles_and_filters(browser: Any, server: Server,
                                                console: ConsoleErrors, tmp_path: Path) -> None:
    page = log_in(browser, server, "bob", console)
    api = server.api("bob")
    assert api.put("/api/topics/1/docs/co/xss", json={"version": 0, "status": "done"}
                   ).status_code == 200
    page.goto(f"{server.url}/topics/1")
    row = page.locator("#pool li[data-file='co/a1']")
    assert row.locator(".doc-title").inner_text() == "Element retrieval evaluation"
    assert row.locator(".first-words").inner_text().startswith(
        "Passages and elements Assessors highlight relevant passages in articles.")
    # the markup-like text of co/xss is text on the pool page too
    assert "<script>alert(1)</script>" in page.locator(
        "#pool li[data-file='co/xss'] .first-words").inner_text()
    assert page.locator("#pool script").count() == 0
    total = page.locator("#pool li").count()
    page.select_option("#pool-status", "non-relevant")
    assert page.locator("#pool li:visible").all_inner_texts()[0].count("co/xss") == 1
    assert page.locator("#pool li:visible").count() == 1
    page.select_option("#pool-status", "waiting")
    assert page.locator("#pool li:visible").count() == total - 1
    page.select_option("#pool-status", "all")
    page.keyboard.press("Escape")
    page.locator("#pool li a").first.focus()
    page.keyboard.press("/")
    page.keyboard.type("astral")
    assert [r.split()[1] for r in page.locator("#pool li:visible").all_inner_texts()] == [
        "co/astral"]
    assert page.locator("#pool-count").inner_text() == f"1 of {total} shown"
    screenshot(page, tmp_path, "flow-pool-filter")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.textContent") == "co/astral"
    page.context.close()


def test_slash_searches_inside_the_document(browser: Any, server: Server,
                                            console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "bob", "1", "co/a1")
    text = page.evaluate("window.inexeval.state.text.text")
    page.keyboard.press("/")
    page.keyboard.type("ELEMENT")
    hits = [m.start() for m in re.finditer("element", text, re.IGNORECASE)]
    assert len(hits) >= 3
    find = page.locator("#find")
    assert find.get_attribute("data-hits") == str(len(hits))
    assert page.locator("#find-count").inner_text() == f"1 of {len(hits)}"
    page.keyboard.press("ArrowDown")
    assert find.get_attribute("data-current") == "1"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Shift+Enter")
    assert page.locator("#find-count").inner_text() == f"{len(hits)} of {len(hits)}"
    current = page.evaluate("""() => {
        const [range] = CSS.highlights.get('search-current');
        return range.toString();
    }""")
    assert current.lower() == "element"
    screenshot(page, tmp_path, "flow-find")
    page.keyboard.press("Tab")  # out of the box: ] and [ move too
    page.keyboard.press("]")
    assert page.locator("#find-count").inner_text() == f"1 of {len(hits)}"
    page.keyboard.press("[")
    assert page.locator("#find-count").inner_text() == f"{len(hits)} of {len(hits)}"
    page.keyboard.press("/")
    page.keyboard.press("Escape")
    assert not find.is_visible() and page.evaluate("CSS.highlights.has('search')") is False
    page.context.close()


def test_keywords_by_stem_or_regular_expression_kept_per_assessor_and_topic(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "bob", "1", "co/a1")
    keyword_texts = """() => [...CSS.highlights.get('keyword') || []].map((r) => r.toString())"""
    # the topic's keywords "evaluation, passage", by Snowball stem from the server
    page.wait_for_function("() => (CSS.highlights.get('keyword')?.size ?? 0) === 3")
    assert sorted(page.evaluate(keyword_texts)) == ["Passages", "evaluation", "passages"]
    spans = server.api("bob").get("/api/topics/1/docs/co/a1/keywords").json()["spans"]
    assert page.evaluate("window.inexeval.state.stemSpans") == spans
    editor = page.locator("#keyword-editor")
    editor.get_by_role("button", name="Remove keyword passage").click()
    page.wait_for_function("() => (CSS.highlights.get('keyword')?.size ?? 0) === 1")
    page.fill("#keyword-input", "element")
    page.keyboard.press("Enter")
    page.wait_for_function("() => CSS.highlights.get('keyword').size === 4")
    assert sorted(page.evaluate(keyword_texts)) == [
        "Element", "Elements", "elements", "evaluation"]
    # a keyword colours its inflected forms, even when it is not in the text itself
    page.fill("#keyword-input", "highlighting")
    page.keyboard.press("Enter")
    page.wait_for_function("() => CSS.highlights.get('keyword').size === 6")
    assert sorted(page.evaluate(keyword_texts)) == [
        "Element", "Elements", "elements", "evaluation", "highlight", "highlighted"]
    page.fill("#keyword-input", "/best \\w+ points?/")
    page.keyboard.press("Enter")
    page.wait_for_function("() => CSS.highlights.get('keyword').size === 8")
    assert {"Best entry points", "best entry point"} <= set(page.evaluate(keyword_texts))
    page.fill("#keyword-input", "/best (/")
    page.keyboard.press("Enter")
    assert page.locator("#keyword-message").inner_text() == "Not a valid regular expression."
    screenshot(page, tmp_path, "flow-keywords")
    # kept per assessor and topic: on another document of the topic, and not for alice
    api = server.api("bob")
    assert api.get("/api/topics/1/keywords").json() == {
        "topic": "1", "chosen": True,
        "keywords": ["evaluation", "element", "highlighting", "/best \\w+ points?/"]}
    assert server.api("alice").get("/api/topics/1/keywords").json()["chosen"] is False
    open_document(page, server, "1", "co/a2")
    assert [li.split()[0] for li in editor.locator("li").all_inner_texts()] == [
        "evaluation", "element", "highlighting", "/best"]
    assert api.put("/api/topics/1/keywords", json={"keywords": ["/a(/"]}).status_code == 422
    assert api.put("/api/topics/2/keywords", json={"keywords": ["x"]}).status_code == 403
    page.context.close()


def test_highlighting_from_the_keyboard(browser: Any, server: Server, console: ConsoleErrors,
                                        tmp_path: Path) -> None:
    """No mouse: Tab to the document, arrows move the caret, Shift+arrows select, h saves the
    offsets shown (code points: the paragraph holds characters outside the BMP), b sets the
    best entry point at the caret."""
    page = open_as(browser, server, console, "bob", "1", "co/astral")
    text = page.evaluate("window.inexeval.state.text.text")
    for _ in range(40):
        if page.evaluate("document.activeElement.id") == "doc":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "doc"
    assert page.locator("#caret-marker").is_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # title, heading, then the first paragraph
    page.keyboard.press("Home")
    for _ in range(4):
        page.keyboard.press("Shift+ArrowRight")
    shown = page.evaluate("window.getSelection().toString()")
    assert shown.strip().startswith("Before") and len(shown.split()) >= 3, shown
    screenshot(page, tmp_path, "flow-keyboard-selection")
    page.keyboard.press("h")
    settled(page)
    selected = shown.strip()
    start = text.index(selected)
    # whole words, no white space at the edges, code points (Python's str counts them)
    assert server.judgement("bob", "1", "co/astral")["passages"] == [
        [start, start + len(selected)]]
    assert len(selected) < len(selected.encode("utf-16-le")) // 2  # astral characters in it
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Home")
    page.keyboard.press("b")
    settled(page)
    assert server.judgement("bob", "1", "co/astral")["best_entry_point"] == text.index(
        "The evaluation paragraph")
    # Shift+arrows across a passage's edge and u: only the selected words go
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Home")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("u")
    settled(page)
    after = server.judgement("bob", "1", "co/astral")["passages"]
    assert after == [[text.index(selected.split()[1]), start + len(selected)]]
    page.context.close()
