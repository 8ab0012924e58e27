"""Unannounced repeats in Chromium (``assess init --duplicates 0.3``, issue 22): alice's pool
lists her repeats like any article (the article's name, title and first words; only the
address differs), the repeat's page is an ordinary document page whose ``x`` saves the second
judgement and moves on through the flow, and the organiser's /admin shows her self-agreement.

Topic 1 pools seven articles: round(0.3 x 7) = 2 repeats per assessor. alice judges through
the API the first time: the repeated articles relevant ([0, 16) each), the rest not relevant;
in the browser she marks the first repeat not relevant with ``x``: one repeat done twice,
relevant only the first time (kappa 0: p_o = 0, p_e = 0), characters first 16, second 0
(F1 = 2 x 0 / (16 + 0) = 0)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.ui.conftest import ConsoleErrors, Server, log_in, running_server, screenshot


@pytest.fixture(scope="module")
def repeated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("repeats"), mode="passages",
                        init_options=("--duplicates", "0.3")) as running:
        yield running


def test_a_repeat_looks_like_any_document_and_admin_shows_self_agreement(
        browser: Any, repeated: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    server = repeated
    alice = server.api("alice")
    pool = alice.get("/api/topics/1/pool").json()["articles"]
    # a repeat has an opaque address and its article's name (issue 36, 25)
    again = [a for a in pool if a["name"] != a["file"]]
    originals = [a for a in pool if a["name"] == a["file"]]
    assert len(originals) == 7 and len(again) == 2
    for article in originals:
        url = f"/api/topics/1/docs/{article['file']}"
        repeated_first = any(r["name"] == article["file"] for r in again)
        alice.put(url, json={"version": 0, "status": "done",
                             "passages": [[0, 16]] if repeated_first else [],
                             "best_entry_point": 0 if repeated_first else None}
                  ).raise_for_status()

    page = log_in(browser, server, "alice", console)
    page.goto(f"{server.url}/topics/1")
    items = page.locator("#pool li")
    expect(items).to_have_count(9)
    shown = page.locator("#pool li a").all_inner_texts()
    assert sorted(set(shown)) == sorted(a["file"] for a in originals)
    assert "~2" not in page.locator("main").inner_text()
    first_repeat = again[0]
    position = [a["file"] for a in pool].index(first_repeat["file"])
    original_at = [a["file"] for a in pool].index(first_repeat["name"])
    assert position > original_at + 1  # after a later article
    # the repeat's entry reads like its article's: title and first words, unseen
    repeat_item, original_item = items.nth(position), items.nth(original_at)
    assert repeat_item.locator(".summary").inner_text() \
        == original_item.locator(".summary").inner_text()
    screenshot(page, tmp_path, "repeats-alice-pool")

    repeat_item.locator("a").click()
    page.wait_for_selector("body[data-ready=true]")
    assert page.title().startswith(f"{first_repeat['name']} · topic 1")
    expect(page.locator("nav.crumbs")).to_contain_text(first_repeat["name"])
    screenshot(page, tmp_path, "repeats-alice-document")
    page.keyboard.press("x")
    page.wait_for_url(lambda url: url != f"{server.url}/topics/1/docs/{first_repeat['file']}")
    second = server.judgement("alice", "1", first_repeat["file"])
    assert (second["status"], second["passages"]) == ("done", [])
    first = server.judgement("alice", "1", first_repeat["name"])
    assert (first["status"], first["passages"]) == ("done", [[0, 16]])
    page.context.close()

    admin = log_in(browser, server, "boss", console)
    admin.goto(f"{server.url}/admin")
    cell = admin.locator("table.throughput tr", has_text="alice").locator("td.self-agreement")
    expect(cell).to_have_text("κ 0.00, F1 0.00 (1 of 2)")  # F1 = 2 · 0 / (16 + 0)
    table = admin.locator("table.self")
    expect(table.locator("tbody tr")).to_have_count(3)
    cells = table.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert cells == [
        ["1", "alice", "2", "1", "0", "1", "0", "0.00", "–", "0.00", "0.00"],
        ["all topics", "alice", "2", "1", "0", "1", "0", "0.00", "–", "0.00", "0.00"],
        ["all topics", "bob", "2", "0", "–", "–", "–", "–", "–", "–", "–"]]
    screenshot(admin, tmp_path, "repeats-admin")
    admin.context.close()
