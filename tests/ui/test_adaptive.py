"""An adaptive campaign (``assess init --strategy mtf``) in Chromium: the topic page lists the
articles served to the assessor in the order served, and ``x`` (or ``d``) opens the one the
strategy picks next from every judgement of the topic, another assessor's included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.ui.campaign import write_campaign
from tests.ui.conftest import (
    PASSWORD,
    ConsoleErrors,
    Server,
    cli,
    log_in,
    screenshot,
    serving,
)

RUNS = {"r1": ["co/a1", "co/a2", "co/a3", "co/big"], "r2": ["co/a4", "co/a2", "co/a5", "co/big"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("campaign-adaptive")
    files = write_campaign(folder)
    runs = []
    for name, docs in RUNS.items():
        path = folder / f"{name}.trec"
        path.write_text("".join(f"1 Q0 {d} {r} {10 - r} {name}\n" for r, d in enumerate(docs, 1)),
                        encoding="utf-8")
        runs.append(str(path))
    store = folder / "store.db"
    cli("assess", "init", str(store), "--collection", str(files["collection"]), "--topics",
        str(files["topics"]), "--mode", "passages", "--strategy", "mtf", "--depth", "3",
        "--runs", *runs)
    for name in ("alice", "bob"):
        cli("assess", "add-user", str(store), name, "--password-stdin", stdin=PASSWORD + "\n")
        cli("assess", "assign", str(store), name, "1")
    with serving(store, folder) as running:
        yield running


def _ready(page: Any, server: Server, file: str) -> None:
    page.wait_for_url(f"{server.url}/topics/1/docs/{file}")
    page.wait_for_selector("body[data-ready=true]")


def test_the_pool_follows_move_to_front_with_two_assessors(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    # Move-to-front on r1 = a1 a2 a3 and r2 = a4 a2 a5 (depth 3), worked by hand:
    page = log_in(browser, server, "alice", console)
    page.goto(f"{server.url}/topics/1")
    # alice's topic page serves her r1's first article
    assert page.locator("#pool li").all_inner_texts()[0].startswith("○")
    assert page.locator("#pool li").evaluate_all("l => l.map(e => e.dataset.file)") == ["co/a1"]
    # bob is served meanwhile: a1, being judged, counts as not relevant: r1 drops, r2's a4
    bob = server.api("bob")
    assert bob.post("/api/topics/1/next").json()["file"] == "co/a4"
    page.locator("#pool li a").first.click()
    _ready(page, server, "co/a1")
    # x: a1 not relevant; r2's a4 is bob's (not relevant for now): both at -1, r1's a2
    page.keyboard.press("x")
    _ready(page, server, "co/a2")
    # bob finds a4 relevant: r2 keeps giving, its a2 (alice's, not relevant), then r1's a3
    saved = bob.put("/api/topics/1/docs/co/a4", json={
        "version": 0, "status": "done", "passages": [[0, 10]], "best_entry_point": 0})
    assert saved.status_code == 200 and saved.json()["relevant"] is True
    page.keyboard.press("x")
    _ready(page, server, "co/a3")
    page.goto(f"{server.url}/topics/1")
    assert page.locator("#pool li").evaluate_all("l => l.map(e => e.dataset.file)") == [
        "co/a1", "co/a2", "co/a3"]
    assert page.locator("#pool-title").inner_text() == "Pool: 2 of 3 articles done"
    screenshot(page, tmp_path, "adaptive-topic-page")
    page.locator("#pool li a").nth(2).click()
    _ready(page, server, "co/a3")
    # a3 not relevant: r1 at -2, r2 (-1) gives a5; then nothing is left: the pool page
    page.keyboard.press("x")
    _ready(page, server, "co/a5")
    page.keyboard.press("x")
    page.wait_for_url(f"{server.url}/topics/1")
    assert page.locator("#pool li").evaluate_all("l => l.map(e => e.dataset.file)") == [
        "co/a1", "co/a2", "co/a3", "co/a5"]
    assert bob.post("/api/topics/1/next").json()["file"] is None
    page.context.close()
