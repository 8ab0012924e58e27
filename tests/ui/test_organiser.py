"""The organiser's campaign in Chromium (issue 22): /admin with every topic, assigning,
withdrawing and locking with a confirmation, the read-only view of a judgement, adjudication
side by side, and the adjudicated export read by ``inexeval eval`` and ``agree --judgements``.

A passages-mode campaign: alice and bob judge the seven articles of topic 1 through the API
(they disagree on co/a1, both relevant but on other text, and on co/xss, relevant for bob only;
they agree on the rest), then boss organises in the browser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.ui.conftest import ConsoleErrors, Server, cli, log_in, running_server, screenshot

TOPIC_1 = ["co/a1", "co/xss", "co/astral", "co/a2", "co/a3", "co/a4", "co/a5"]

PANE_BOX = """([pane, needle]) => {
  const walker = document.createTreeWalker(document.getElementById(pane), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(needle);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + needle.length);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    const [first, last] = [rects[0], rects[rects.length - 1]];
    return {x: first.x, y: first.y + first.height / 2, endX: last.x + last.width,
            endY: last.y + last.height / 2};
  }
  return null;
}"""


@pytest.fixture(scope="module")
def organised(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("organiser"), mode="passages") as running:
        yield running


def text(server: Server, file: str) -> str:
    found: str = server.api("alice").get(f"/api/topics/1/docs/{file}/content").json()["text"]
    return found


def span(of: str, phrase: str) -> list[int]:
    """The code point offsets of ``phrase`` in ``of`` (the API counts code points)."""
    start = of.index(phrase)
    return [len(of[:start]), len(of[:start]) + len(phrase)]


def judge(server: Server, user: str, file: str, passages: list[list[int]]) -> None:
    client = server.api(user)
    url = f"/api/topics/1/docs/{file}"
    version = client.get(url).json()["version"]
    body = {"version": version, "status": "done", "passages": passages,
            "best_entry_point": passages[0][0] if passages else None}
    client.put(url, json=body).raise_for_status()


def drag(page: Any, pane: str, phrase: str) -> None:
    """Select ``phrase`` in a pane with the mouse."""
    found = page.evaluate(PANE_BOX, [pane, phrase])
    assert found is not None, phrase
    page.mouse.move(found["x"] + 1, found["y"])
    page.mouse.down()
    page.mouse.move(found["endX"] - 1, found["endY"], steps=6)
    page.mouse.up()


def adjudicated(server: Server, file: str) -> dict[str, Any]:
    found: dict[str, Any] = server.api("boss").get(
        f"/api/admin/topics/1/judgements/adjudicated/docs/{file}").json()
    return found


def test_the_organiser_assigns_views_adjudicates_and_exports(
        browser: Any, organised: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    server = organised
    a1, xss, astral = text(server, "co/a1"), text(server, "co/xss"), text(server, "co/astral")
    alice_a1 = span(a1, "Assessors highlight relevant passages in articles.")
    bob_a1 = span(a1, "Elements holding highlighted text get exhaustivity.")
    both_astral = span(astral, "after the astral characters.")
    judge(server, "alice", "co/a1", [alice_a1])
    judge(server, "bob", "co/a1", [bob_a1])
    judge(server, "alice", "co/xss", [])
    judge(server, "bob", "co/xss", [span(xss, "must stay text.")])
    for file in TOPIC_1[2:]:
        for user in ("alice", "bob"):
            judge(server, user, file, [both_astral] if file == "co/astral" else [])

    page = log_in(browser, server, "boss", console)
    page.goto(f"{server.url}/admin")
    topics = page.locator("table.admin-topics")
    expect(topics.locator("tr[data-topic='2']")).to_contain_text("alice")
    expect(page.locator("table.agreement")).to_contain_text("alice")
    expect(page.locator("figure.drift svg polyline")).to_have_count(2)
    screenshot(page, tmp_path, "organiser-admin")

    # assign bob to topic 2, then withdraw him after confirming; lock after a confirmation
    page.get_by_label("Whom to assign to topic 2").select_option("bob")
    page.get_by_role("button", name="Assign to topic 2").click()
    expect(page.get_by_role("button", name="Withdraw bob from topic 2")).to_be_visible()
    assert server.api("bob").get("/api/topics/2").status_code == 200
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Withdraw bob from topic 2").click()
    page.wait_for_timeout(300)
    assert server.api("bob").get("/api/topics/2").status_code == 200  # dismissed: unchanged
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Withdraw bob from topic 2").click()
    expect(page.get_by_role("button", name="Withdraw bob from topic 2")).to_have_count(0)
    assert server.api("bob").get("/api/topics/2").status_code == 403
    questions: list[str] = []

    def accept(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.get_by_role("button", name="Lock topic 2").click()
    expect(page.get_by_role("button", name="Unlock topic 2")).to_be_visible()
    assert questions == ["Lock topic 2? Its assessors can no longer change their judgements."]
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Unlock topic 2").click()
    expect(page.get_by_role("button", name="Lock topic 2")).to_be_visible()

    # the read-only view of bob's judgement of co/xss: its passage, the markup as text
    page.get_by_role("link", name="view bob's judgements").click()
    page.wait_for_selector("body[data-ready=true]")
    page.get_by_role("link", name="co/xss").click()
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#pane-view mark")).to_have_text(["must stay text."])
    expect(page.locator("#pane-view")).to_contain_text("<script>alert(1)</script>")
    expect(page.locator("#judgement-summary")).to_contain_text("relevant, 1 passage(s)")
    assert page.locator("#pane-view script, #pane-view img").count() == 0
    screenshot(page, tmp_path, "organiser-judgement")

    # adjudication: the list, agreed articles taken from A, then each disagreement
    page.goto(f"{server.url}/admin")
    page.get_by_role("link", name="Adjudicate topic 1").click()
    expect(page.locator("table.disagreements tbody tr")).to_have_count(2)
    expect(page.locator("#adjudicate-summary")).to_contain_text("5 agreed, 2 disagreed")
    screenshot(page, tmp_path, "organiser-adjudicate-list")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Take alice's judgements of the agreed articles").click()
    expect(page.locator("#adjudicate-message")).to_contain_text("5 agreed article(s)")
    assert adjudicated(server, "co/astral")["passages"] == [both_astral]

    page.get_by_role("link", name="co/a1").click()
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#pane-a mark")).to_have_text([a1[alice_a1[0]:alice_a1[1]]])
    expect(page.locator("#pane-b mark")).to_have_text([a1[bob_a1[0]:bob_a1[1]]])
    expect(page.locator("#verdict-result")).to_have_text("not adjudicated")
    page.get_by_role("button", name="Union").click()
    expect(page.locator("#adjudicate-message")).to_contain_text("Saved")
    # the two paragraphs touch: their union is one passage
    assert adjudicated(server, "co/a1")["passages"] == [[alice_a1[0], bob_a1[1]]]
    # an edit: take the words "get exhaustivity." out of the union
    drag(page, "pane-result", "get exhaustivity.")
    page.get_by_role("button", name="Remove selected text").click()
    expect(page.locator("#verdict-result")).to_have_text("edited, not saved")
    screenshot(page, tmp_path, "organiser-adjudicate-document")
    page.get_by_role("button", name="Save the edit").click()
    expect(page.locator("#adjudicate-message")).to_contain_text("version 2")
    cut = span(a1, "get exhaustivity.")
    assert adjudicated(server, "co/a1")["passages"] == [[alice_a1[0], cut[0]]]
    # an edit adding "and " (a blank after it) before the passage: the word alone is added,
    # and the best entry point stays where it was (not at the added text's start)
    entry = adjudicated(server, "co/a1")["best_entry_point"]
    page.evaluate("""() => {
        const pane = document.getElementById('pane-a');
        const walker = document.createTreeWalker(pane, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.data.indexOf('and elements');
            if (at >= 0) {
                window.getSelection().setBaseAndExtent(node, at, node, at + 4);
                return;
            }
        }
    }""")
    page.get_by_role("button", name="Add selected text").click()
    page.get_by_role("button", name="Save the edit").click()
    expect(page.locator("#adjudicate-message")).to_contain_text("version 3")
    added = span(a1, "and")
    saved = adjudicated(server, "co/a1")
    assert saved["passages"] == [added, [alice_a1[0], cut[0]]]
    assert saved["best_entry_point"] == entry != added[0]

    page.goto(f"{server.url}/admin/topics/1/adjudicate/docs/co/xss")
    page.wait_for_selector("body[data-ready=true]")
    page.get_by_role("button", name="Take B (bob)").click()
    expect(page.locator("#verdict-result")).to_have_text("relevant, 1 passage(s)")

    # the web export of the adjudicated judgements is the command's, byte for byte
    page.goto(f"{server.url}/admin")
    expect(page.locator("table.admin-topics tr[data-topic='1']")).to_contain_text(
        "7 of 7 adjudicated")
    page.get_by_label("Assessor").select_option("adjudicated")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export").click()
    web = Path(download.value.path()).read_bytes()
    page.context.close()
    qrels = tmp_path / "adjudicated.fol"
    done = cli("assess", "export", str(server.store), "-o", str(qrels), "--assessor",
               "adjudicated")
    assert "assessor used per topic: 1: adjudicated" in done.stderr
    assert "topics left out: 2 (not adjudicated)" in done.stderr
    assert web == qrels.read_bytes()
    lines = sorted(qrels.read_text().splitlines())
    assert len(lines) == 7
    kept = cut[0] - alice_a1[0]
    assert f"1 Q0 co/a1 {kept + 3} {len(a1)} {alice_a1[0]} {added[0]}:3 " \
        f"{alice_a1[0]}:{kept}" in lines

    run = tmp_path / "run.fol"
    run.write_text(f"1 Q0 co/a1 1 1.0 r {alice_a1[0]} {alice_a1[1] - alice_a1[0]}\n")
    evaluated = cli("eval", str(qrels), str(run), "--task", "focused", "-m", "iP[0.00]")
    values = {line.split("\t")[0]: float(line.split("\t")[2])
              for line in evaluated.stdout.splitlines()}
    assert values["iP[0.00]"] == 1.0
    bob = tmp_path / "bob.fol"
    cli("assess", "export", str(server.store), "-o", str(bob), "--assessor", "bob")
    agreement = json.loads(cli("agree", "--judgements", str(qrels), str(bob), "--format",
                               "json").stdout)
    # bob vs the adjudication: co/a1 differs, co/xss is bob's; 7 articles, 3 relevant to both
    assert [r["articles"] for r in agreement] == [7, 7]
    assert agreement[0]["both"] == 3 and agreement[0]["only_a"] == 0


def test_an_assessor_cannot_open_the_organisers_pages(
        browser: Any, organised: Server, console: ConsoleErrors) -> None:
    page = log_in(browser, organised, "alice", console)
    for path in ("/admin", "/admin/topics/1/adjudicate", "/admin/topics/1/docs/co/a1?assessor=bob"):
        response = page.goto(f"{organised.url}{path}")
        assert response is not None and response.status == 403
        expect(page.locator("h1")).to_have_text("Not allowed")
    console.clear()  # the 403 responses are logged by the browser as resource errors
    page.context.close()


def test_the_side_by_side_panes_open_at_the_first_disagreement(
        browser: Any, organised: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    server = organised
    cli("assess", "assign", str(server.store), "bob", "2")
    big: str = server.api("alice").get("/api/topics/2/docs/co/big/content").json()["text"]
    # both highlight the same first words; far down, alice alone highlights a sentence
    same = [0, big.index(" ", 20)]
    far = big.index(".", len(big) * 2 // 3) + 1  # the next paragraph or heading
    alone = [far, big.index(".", far) + 1]
    for user, passages in (("alice", [same, alone]), ("bob", [same])):
        client = server.api(user)
        url = "/api/topics/2/docs/co/big"
        version = client.get(url).json()["version"]
        client.put(url, json={"version": version, "status": "done", "passages": passages,
                              "best_entry_point": 0}).raise_for_status()
    page = log_in(browser, server, "boss", console)
    page.goto(f"{server.url}/admin/topics/2/adjudicate/docs/co/big?a=alice&b=bob")
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator(".side-by-side").get_attribute("data-first-difference") == str(far)
    for pane in ("pane-a", "pane-b", "pane-result"):
        shown = page.evaluate("""([id, text]) => {
            const pane = document.getElementById(id);
            const box = pane.getBoundingClientRect();
            const walker = document.createTreeWalker(pane, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const at = node.data.indexOf(text);
                if (at >= 0) {
                    const range = document.createRange();
                    range.setStart(node, at);
                    range.setEnd(node, at + 1);
                    const rect = range.getBoundingClientRect();
                    return [pane.scrollTop, rect.top >= box.top && rect.bottom <= box.bottom];
                }
            }
            return null;
        }""", [pane, big[alone[0]:alone[1]]])
        assert shown is not None and shown[0] > 0 and shown[1], (pane, shown)
    screenshot(page, tmp_path, "organiser-first-disagreement")
    page.context.close()
