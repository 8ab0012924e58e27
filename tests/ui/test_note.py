"""The assessor's note on a document in Chromium (issue 36): a flag and a comment set from the
keyboard on the document page, kept across a reload, said "not saved" while the server cannot
be reached and sent when it can; the organiser sees it on /admin and in the judgement's view,
and the export's notes name it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from tests.ui.conftest import ConsoleErrors, Server, cli, log_in, open_as, screenshot

COMMENT = "Tables cut short; <b>not</b> markup"


def test_a_note_set_from_the_keyboard_is_kept_and_the_organiser_sees_it(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    page = open_as(browser, server, console, "alice", "1", "co/a2")
    note = page.locator("#note")
    expect(note).to_have_attribute("data-state", "saved")
    page.keyboard.press("c")  # the comment takes the focus
    assert page.evaluate("document.activeElement.id") == "note-comment"
    page.keyboard.type(COMMENT)
    page.keyboard.press("Shift+Tab")  # the flags: ↓ chooses the next one
    page.keyboard.press("ArrowDown")
    expect(note).to_have_attribute("data-state", "saved")
    assert server.api("alice").get("/api/topics/1/docs/co/a2/note").json()["flag"] == "unsure"
    # the server out of reach: the change is said not saved, and sent when it is back
    page.context.set_offline(True)
    page.keyboard.press("ArrowDown")
    expect(note).to_have_attribute("data-state", "unsaved")
    expect(page.locator("#note-status")).to_contain_text("Note not saved")
    page.context.set_offline(False)
    expect(note).to_have_attribute("data-state", "saved")
    expect(page.locator("#note-status")).to_have_text("Note saved.")
    # the server not answering (the browser online): sent again a few seconds later
    failed: list[str] = []
    page.route("**/docs/co/a2/note", lambda route: (failed.append(route.request.method),
                                                    route.abort()) if not failed
               and route.request.method == "PUT" else route.continue_())
    page.keyboard.press("ArrowUp")
    expect(note).to_have_attribute("data-state", "unsaved")
    expect(note).to_have_attribute("data-state", "saved", timeout=15_000)
    assert failed == ["PUT"]
    assert server.api("alice").get("/api/topics/1/docs/co/a2/note").json()["flag"] == "unsure"
    page.unroute("**/docs/co/a2/note")
    page.keyboard.press("ArrowDown")
    expect(note).to_have_attribute("data-state", "saved")
    page.keyboard.press("Escape")  # back to the text
    assert page.evaluate("document.activeElement.id") == "doc"
    screenshot(page, tmp_path, "note-saved")
    kept = server.api("alice").get("/api/topics/1/docs/co/a2/note").json()
    assert (kept["flag"], kept["comment"]) == ("broken document", COMMENT)
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    expect(note).to_have_attribute("data-state", "saved")
    expect(page.get_by_label("broken document")).to_be_checked()
    expect(page.get_by_label("Comment")).to_have_value(COMMENT)
    page.keyboard.press("x")  # not relevant: done, so that the export has the topic
    page.wait_for_url(lambda url: not url.endswith("/docs/co/a2"))
    console[:] = [e for e in console if "ERR_INTERNET_DISCONNECTED" not in e
                  and "ERR_FAILED" not in e]
    page.context.close()

    admin = log_in(browser, server, "boss", console)
    admin.goto(f"{server.url}/admin")
    notes = admin.get_by_role("list", name="alice's notes on topic 1")
    expect(notes).to_have_text(f"co/a2 broken document: {COMMENT}")
    assert notes.locator("b").count() == 0  # the comment is text
    screenshot(admin, tmp_path, "note-admin")
    notes.get_by_role("link", name="co/a2").click()
    expect(admin.locator("#judgement-note")).to_have_text(
        f"alice's note: broken document {COMMENT}")
    admin.context.close()
    assert [(n["file"], n["flag"], n["comment"]) for n in server.api("boss").get(
        "/api/admin/notes").json()["notes"]] == [("co/a2", "broken document", COMMENT)]
    done = cli("assess", "export", str(server.store), "-o", str(tmp_path / "qrels.fol"),
               "--partial")
    assert f"assessors' notes: 1 co/a2 (alice: broken document: {COMMENT})" in done.stderr


def test_a_comment_of_two_lines_is_saved(browser: Any, server: Server,
                                         console: ConsoleErrors) -> None:
    """Enter in the comment box starts a new line of the comment, which is saved as typed (it
    was refused: "Note not saved: a string of the body holds a control character")."""
    page = open_as(browser, server, console, "bob", "1", "co/a3")
    note = page.locator("#note")
    page.keyboard.press("c")
    page.keyboard.type("Figure 2 is cut.")
    page.keyboard.press("Enter")
    page.keyboard.type("Table 3 too.")
    page.keyboard.press("Escape")  # saves, back to the text
    expect(page.locator("#note-status")).to_have_text("Note saved.")
    expect(note).to_have_attribute("data-state", "saved")
    assert server.api("bob").get("/api/topics/1/docs/co/a3/note").json()["comment"] \
        == "Figure 2 is cut.\nTable 3 too."
    page.context.close()
