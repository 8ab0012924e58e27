"""What the page says must be true (issue 36), in Chromium: offline, ``d`` says the document
is done but not saved yet until the server has it; a stale tab's undo across a newer save asks
first; ``n`` on a fresh pool opens its first unseen article; the pool's titles and its "Done"
filter; the conflict dialog's words and the best entry point's marker; ``x`` is one change."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.ui.conftest import (
    ConsoleErrors,
    Server,
    log_in,
    open_as,
    open_document,
    running_server,
    screenshot,
)
from tests.ui.test_assessing import click_word, highlight_words, paragraph, settled


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("campaign-truth"), mode="passages") as up:
        yield up


def offline_noise(console: ConsoleErrors) -> None:
    console[:] = [e for e in console if "ERR_INTERNET_DISCONNECTED" not in e
                  and "ERR_FAILED" not in e and "409 (Conflict)" not in e]


def test_done_offline_says_not_saved_until_the_server_has_it(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "alice", "1", "co/a2")
    _, words = paragraph(server, "co/a2")
    page.context.route("**/api/topics/**", lambda route: route.abort("internetdisconnected")
                       if route.request.method == "PUT" else route.continue_())
    page.context.set_offline(True)
    highlight_words(page, words)
    page.keyboard.press("d")
    page.wait_for_selector("#saved[data-state=retry]")
    status = page.locator("#doc-status")
    assert status.inner_text() == "done — not saved yet"
    assert status.get_attribute("data-status") == "done-unsaved"
    assert "not saved yet" in page.locator("#consistency-title").inner_text()
    screenshot(page, tmp_path, "truth-done-offline")
    assert server.judgement("alice", "1", "co/a2")["status"] == "unseen"
    page.context.set_offline(False)
    page.context.unroute("**/api/topics/**")
    page.wait_for_url(lambda url: not url.endswith("/docs/co/a2"))  # saved, then moved on
    assert server.judgement("alice", "1", "co/a2")["status"] == "done"
    page.context.close()
    offline_noise(console)


def test_a_stale_tabs_undo_across_a_newer_save_asks_first(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    stale = open_as(browser, server, console, "alice", "1", "co/a5")
    _, words = paragraph(server, "co/a5")
    highlight_words(stale, words)
    settled(stale)
    other = console.watch(stale.context.new_page())
    open_document(other, server, "1", "co/a5")
    highlight_words(other, words, 8)
    other.keyboard.press("d")
    other.wait_for_url(lambda url: not url.endswith("/docs/co/a5"))
    done = server.judgement("alice", "1", "co/a5")
    assert done["status"] == "done"
    asked: list[str] = []

    def decline(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    stale.once("dialog", decline)
    stale.bring_to_front()
    stale.keyboard.press("Control+z")
    expect(stale.locator("#notice")).to_contain_text("Not undone")
    assert len(asked) == 1 and "another tab or window" in asked[0] and "now done" in asked[0]
    assert server.judgement("alice", "1", "co/a5") == done
    assert stale.locator("#doc-status").inner_text() == "done, relevant"
    assert stale.evaluate("window.inexeval.state.judgement.passages") == done["passages"]
    screenshot(stale, tmp_path, "truth-stale-undo-declined")
    stale.context.close()


def test_n_on_a_fresh_topic_page_opens_the_first_unseen_article(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    page = log_in(browser, server, "bob", console)
    page.goto(f"{server.url}/topics/1")
    rows = page.locator("#pool li[data-file]")
    statuses = rows.evaluate_all("(rows) => rows.map((r) => [r.dataset.file, r.dataset.status])")
    first = next(file for file, status in statuses if status == "unseen")
    page.keyboard.press("n")
    page.wait_for_url(f"**/topics/1/docs/{first}")
    page.context.close()


def test_the_pool_filter_done(browser: Any, server: Server, console: ConsoleErrors) -> None:
    api = server.api("bob")
    for file in ("co/xss", "co/astral"):
        assert api.put(f"/api/topics/1/docs/{file}", json={"version": 0, "status": "done"}
                       ).status_code == 200
    page = log_in(browser, server, "bob", console)
    page.goto(f"{server.url}/topics/1")
    statuses = page.locator("#pool li[data-file]").evaluate_all(
        "(rows) => rows.map((r) => [r.dataset.file, r.dataset.status])")
    done = [f for f, s in statuses if s in ("relevant", "non-relevant")]
    assert {"co/xss", "co/astral"} <= set(done)
    page.select_option("#pool-status", "done")
    shown = page.locator("#pool li:visible").evaluate_all("(rows) => rows.map((r) => r.dataset.file)")
    assert shown == done
    page.context.close()


def test_x_is_one_change_and_one_save(browser: Any, server: Server,
                                      console: ConsoleErrors) -> None:
    page = open_as(browser, server, console, "bob", "1", "co/a3")
    api = server.api("bob")
    before = len(api.get("/api/history").json()["changes"])
    puts: list[str] = []
    page.on("request", lambda r: puts.append(r.url) if r.method == "PUT" else None)
    page.keyboard.press("x")
    page.wait_for_url(lambda url: not url.endswith("/docs/co/a3"))
    saved = server.judgement("bob", "1", "co/a3")
    assert (saved["status"], saved["relevant"]) == ("done", False)
    assert len(puts) == 1 and puts[0].endswith("/api/topics/1/docs/co/a3")
    assert len(api.get("/api/history").json()["changes"]) == before + 1
    page.context.close()


MARKER_AND_LETTERS = """(at) => {
  const state = window.inexeval.state;
  const doc = document.getElementById('doc');
  const rectOf = (cp) => {
    const walker = document.createTreeWalker(doc, NodeFilter.SHOW_TEXT);
    let seen = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (seen + node.data.length > cp) {
        const range = document.createRange();
        range.setStart(node, cp - seen);
        range.setEnd(node, cp - seen + 1);
        return range.getBoundingClientRect().toJSON();
      }
      seen += node.data.length;
    }
    return null;
  };
  const marker = document.getElementById('bep-marker');
  const bar = marker.getBoundingClientRect().toJSON();
  const style = getComputedStyle(marker, '::before');
  const triangle = {left: bar.left + parseFloat(style.left), top: bar.top + parseFloat(style.top),
                    width: parseFloat(style.width), height: parseFloat(style.height)};
  triangle.right = triangle.left + triangle.width;
  triangle.bottom = triangle.top + triangle.height;
  let before = at - 1;
  while (before > 0 && /\\s/.test(state.text.text[before])) before -= 1;
  return {bar, triangle, letter: rectOf(at), before: rectOf(before)};
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5
            and a["top"] < b["bottom"] - 0.5 and b["top"] < a["bottom"] - 0.5)


def test_the_conflict_dialog_names_the_best_entry_point_and_both_places(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    first = open_as(browser, server, console, "bob", "1", "co/a2")
    text, words = paragraph(server, "co/a2")
    highlight_words(first, words)
    settled(first)
    second = console.watch(first.context.new_page())
    open_document(second, server, "1", "co/a2")
    click_word(first, words[1])
    first.keyboard.press("b")
    settled(first)
    # the marker hides neither its letter nor the one before it
    at = server.judgement("bob", "1", "co/a2")["best_entry_point"]
    found = first.evaluate(MARKER_AND_LETTERS, at)
    assert found["bar"]["width"] > 0 and found["triangle"]["width"] > 0
    for mark in (found["bar"], found["triangle"]):
        for letter in (found["letter"], found["before"]):
            assert not overlap(mark, letter), (mark, letter)
    screenshot(first, tmp_path, "truth-bep-marker")
    click_word(second, words[4])
    second.keyboard.press("b")
    dialog = second.locator("#merge-conflict")
    dialog.wait_for(state="visible")
    said = dialog.inner_text()
    assert "best_entry_point" not in said and "Best entry point" in said
    row = dialog.locator("li[data-field=best_entry_point]")
    assert row.locator(".mine").inner_text().startswith(f"yours at “{words[4]} ")
    assert row.locator(".theirs").inner_text().startswith(f"saved at “{words[1]} ")
    assert f"(character {text.index(' ' + words[1] + ' ') + 1})" in row.inner_text()
    screenshot(second, tmp_path, "truth-conflict-dialog")
    second.get_by_role("button", name="Take the saved version").click()
    settled(second)
    first.context.close()
    offline_noise(console)


PASSAGE_LINES = """(phrase) => {
  const walker = document.createTreeWalker(document.getElementById('doc'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.data.includes(phrase)) {
      const el = node.parentElement;
      const own = getComputedStyle(el);
      return {highlight: getComputedStyle(el, '::highlight(passage)').textDecorationLine,
              element: own.textDecorationLine, forced: matchMedia('(forced-colors: active)').matches};
    }
  }
  return null;
}"""


def test_forced_colours_keep_a_line_on_the_passages_own_text(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "bob", "1", "co/a4")
    _, words = paragraph(server, "co/a4")
    click_word(page, words[2])
    page.keyboard.press("p")  # the whole paragraph, and words inside it
    page.keyboard.press("h")
    settled(page)
    phrase = " ".join(words[:3])
    assert page.evaluate(PASSAGE_LINES, phrase)["element"] == "none"  # not out of forced colours
    page.emulate_media(forced_colors="active")
    found = page.evaluate(PASSAGE_LINES, phrase)
    assert found == {"highlight": "underline", "element": "underline", "forced": True}
    # text outside any passage has none
    other = page.evaluate(PASSAGE_LINES, "Article 4")
    assert other["element"] == "none"
    screenshot(page, tmp_path, "truth-forced-colours")
    page.context.close()
