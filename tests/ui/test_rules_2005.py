"""The INEX 2005 rules of highlight mode in the browser: the table of tests/assess/rules_cases.py
run through the document page (real clicks and keys in Chromium, the result read back through
the HTTP API) and through the server's ``POST .../check``; the page shows inferred values, the
resets and the rules panel, and names elements for people with the XPath in a tooltip."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.assess.rules_cases import CASES, PASSAGE_PHRASES, S1, S3T, Case, D, passages
from tests.ui.conftest import ConsoleErrors, Server, log_in, open_document, screenshot
from tests.ui.test_assessing import settled

TOPIC, FILE = "1", "co/a1"
DOC = f"/api/topics/{TOPIC}/docs/{FILE}"

SELECT = """([first, last]) => {
  const walker = document.createTreeWalker(document.getElementById('doc'), NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
  const text = nodes.map((n) => n.data).join('');
  const start = text.indexOf(first);
  const end = text.indexOf(last, start) + last.length;
  const point = (at) => {
    let seen = 0;
    for (const node of nodes) {
      if (at <= seen + node.data.length) return [node, at - seen];
      seen += node.data.length;
    }
    return null;
  };
  const range = document.createRange();
  range.setStart(...point(start));
  range.setEnd(...point(end));
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}"""


@pytest.fixture(scope="module")
def bob(browser: Any, server: Server) -> Iterator[tuple[Any, ConsoleErrors]]:
    """One browser login of bob for the module (a login per case would end the API client's
    session: an assessor has at most 10), and the console errors of its page."""
    errors = ConsoleErrors()
    page = log_in(browser, server, "bob", errors)
    yield page, errors
    page.context.close()


def text_of(server: Server) -> str:
    text: str = server.api("bob").get(f"{DOC}/content").json()["text"]
    return text


def put_before(server: Server, case: Case) -> None:
    """Store the case's state before the change as bob's judgement of co/a1."""
    client = server.api("bob")
    version = client.get(DOC).json()["version"]
    spans = passages(text_of(server), case.before_passages)
    reply = client.put(DOC, json={"version": version, "status": "in-progress",
                                  "passages": [list(p) for p in spans],
                                  "best_entry_point": None, "exhaustivity": case.before})
    assert reply.status_code == 200, reply.text


def requested(case: Case, server: Server) -> dict[str, str]:
    """The exhaustivity the page's action asks for, before the rules."""
    if not case.rest:
        return {**case.before, **case.change}
    text = text_of(server)
    spans = passages(text, case.after_passages)
    children = [el for el in server.api("bob").get(f"{DOC}/content").json()["elements"]
                if el["path"].rsplit("/", 1)[0] == case.rest and not el["inline"]
                and el["path"] not in case.before
                and any(s < el["end"] and el["start"] < e for s, e in spans)
                and not any(el["start"] <= s and e <= el["end"] for s, e in spans)]
    return {**case.before, **{el["path"]: "?" for el in children}}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_applies_the_rules(server: Server, case: Case) -> None:
    """``POST .../check`` answers each change from the stored state as rules.settle does."""
    put_before(server, case)
    spans = passages(text_of(server), case.after_passages)
    reply = server.api("bob").post(f"{DOC}/check", json={
        "passages": [list(p) for p in spans], "exhaustivity": requested(case, server)})
    assert reply.status_code == 200, reply.text
    found = reply.json()
    if case.refused:
        assert "exhaustivity" not in found and case.refused in found["refused"][0], found
        return
    assert found["exhaustivity"] == case.after
    assert [(r["path"], r["before"], r["after"]) for r in found["resets"]] == list(case.resets)
    assert found["inferred"] == case.inferred


def act(page: Any, case: Case) -> None:
    """The case's change made as an assessor makes it on the page."""
    for path, value in case.change.items():
        row = page.locator(f'#elements li[data-path="{path}"]')
        if value == "?":  # by the keyboard: focus the row, press 3
            row.locator(".label").click()
            page.keyboard.press("3")
        else:  # by the mouse: the row's button
            row.locator(f'button[data-value="{value}"]').click()
    if case.rest:
        page.locator(f'#elements li[data-path="{case.rest}"] .label').click()
        page.keyboard.press("t")
    added = [p for p in case.after_passages if p not in case.before_passages]
    removed = [p for p in case.before_passages if p not in case.after_passages]
    for name in added:
        phrases = D if name == "D" else PASSAGE_PHRASES[name]
        page.evaluate(SELECT, [phrases[0], phrases[-1]])
        page.keyboard.press("h")
    for name in removed:
        phrases = PASSAGE_PHRASES[name]
        page.evaluate(SELECT, [phrases[0], phrases[-1]])
        page.keyboard.press("u")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_page_applies_the_rules(bob: tuple[Any, ConsoleErrors], server: Server,
                                    case: Case, tmp_path: Path) -> None:
    """The same table through the page: what it saves, the inferred values it marks, the
    resets it tells, the too small it refuses."""
    page, console = bob
    put_before(server, case)
    open_document(page, server, TOPIC, FILE)
    before_version = server.judgement("bob", TOPIC, FILE)["version"]
    act(page, case)
    settled(page)
    saved = server.judgement("bob", TOPIC, FILE)
    notice = page.locator("#notice")
    names = {el["path"]: el["name"]
             for el in server.api("bob").get(f"{DOC}/content").json()["elements"]}
    if case.refused:
        assert saved["version"] == before_version and saved["exhaustivity"] == case.before
        assert "Not possible" in notice.inner_text()
        assert f"{names[S1]} contains the whole highlighted passage “highlight relevant”, so " \
            "it cannot be too small" in notice.inner_text()
        current = page.locator("#elements li.current").get_attribute("data-path")
        assert current == S1  # the refused element stays the current one
        screenshot(page, tmp_path, f"rules-2005-{case.name}")
        assert not console, console
        return
    assert saved["exhaustivity"] == case.after
    assert saved["inferred"] == case.inferred
    # inferred values are marked (inline elements are not listed: never asked)
    marked = page.locator("#elements li.inferred").evaluate_all(
        "rows => Object.fromEntries(rows.map(r => [r.dataset.path, r.dataset.inferred]))")
    assert marked == {p: c for p, c in case.inferred.items() if p != S3T}
    assert page.locator(f'#elements li[data-path="{S3T}"]').count() == 0
    # the resets are told, in the notice and in the rules panel's log, with people's names
    log = page.locator("#rules-log li").all_inner_texts()
    if case.resets:
        assert "reset by the 2005 rules" in notice.inner_text()
        assert len(log) == len(case.resets) + len(case.skipped)
        for (path, old, _), line in zip(case.resets, log):
            assert line.startswith(f"{names[path]}: {old} reset"), line
    else:
        assert len(log) == len(case.skipped)
    assert page.evaluate("window.inexeval.problems()") == saved["problems"]
    if case.resets or case.rest or case.inferred.keys() - {S3T}:
        screenshot(page, tmp_path, f"rules-2005-{case.name}")
    assert not console, console


def test_names_and_the_rules_panel(bob: tuple[Any, ConsoleErrors], server: Server,
                                   tmp_path: Path) -> None:
    """Rows named for people with the XPath as tooltip, problems in people's words, the rules
    panel with the campaign's shortest element, and undo bringing back the state before a
    reset exactly (undo is not a change the rules act on)."""
    page, console = bob
    case = CASES[3]  # a_parent_given_less_resets_the_child_above_it
    put_before(server, case)
    open_document(page, server, TOPIC, FILE)
    row = page.locator(f'#elements li[data-path="{S1}"] .label .name')
    assert row.inner_text() == "Section 1"
    assert row.get_attribute("title") == S1
    panel = page.locator("#rules-panel")
    assert "fewer than 20 characters are never asked" in panel.inner_text()
    assert "Nothing reset yet." in panel.inner_text()
    problems = page.locator("#consistency-list li").all_inner_texts()
    assert any(line.startswith("Section 1 › ¶ 2 holds highlighted text") for line in problems)
    act(page, case)
    settled(page)
    assert server.judgement("bob", TOPIC, FILE)["exhaustivity"] == case.after
    assert panel.locator("#rules-log li").count() == 3
    assert panel.locator("#rules-log-empty").is_hidden()
    panel.scroll_into_view_if_needed()
    panel.screenshot(path=str(tmp_path / "rules-2005-panel.png"))
    screenshot(page, tmp_path, "rules-2005-panel-page")
    page.keyboard.press("Control+z")
    settled(page)
    assert server.judgement("bob", TOPIC, FILE)["exhaustivity"] == case.before
    screenshot(page, tmp_path, "rules-2005-panel-after-undo")
    assert not console, console


def test_a_second_undo_does_not_take_the_first_for_another_tabs_save(
        bob: tuple[Any, ConsoleErrors], server: Server) -> None:
    """Two quick Ctrl+Z: the second asks the server for its version while the first one's
    save is on its way; the server answers with that save's version before the page has the
    save's answer. It is the assessor's own save: no question (a confirm the test would see),
    the undo kept and its redo step too. The race is forced by holding the requests."""
    page, console = bob
    case = CASES[3]
    put_before(server, case)
    open_document(page, server, TOPIC, FILE)
    act(page, case)
    settled(page)
    held: dict[str, list[Any]] = {"GET": [], "PUT": []}
    holding = {"GET": True, "PUT": True}

    def hold(route: Any) -> None:
        method = route.request.method
        if holding.get(method, False):
            held[method].append(route)
        else:
            route.continue_()

    def wait_held(method: str, count: int) -> None:
        for _ in range(500):
            if len(held[method]) >= count:
                return
            page.wait_for_timeout(20)
        raise AssertionError(f"{count} {method} not sent: {held}")

    def document_api(url: str) -> bool:
        return url.endswith(DOC)

    page.route(document_api, hold)
    page.keyboard.press("Control+z")
    wait_held("GET", 1)
    page.keyboard.press("Control+z")
    wait_held("GET", 2)
    holding["GET"] = False
    held["GET"][0].continue_()  # the first undo: nothing newer, its save is sent
    wait_held("PUT", 1)
    holding["PUT"] = False
    answer = held["PUT"][0].fetch()  # the server saves it; its answer is held
    assert answer.status == 200
    with page.expect_response(lambda r: r.request == held["GET"][1].request):
        held["GET"][1].continue_()  # the second undo hears of the first one's save
    page.wait_for_function("() => !window.inexeval.state.stepping")
    held["PUT"][0].fulfill(response=answer)
    settled(page)
    page.unroute(document_api, hold)
    assert not console, console
    assert "Not undone" not in page.locator("#notice").inner_text()
    assert server.judgement("bob", TOPIC, FILE)["exhaustivity"] == case.before
    assert page.evaluate("window.inexeval.state.redo.length") == 1
    page.keyboard.press("Control+Shift+z")
    settled(page)
    assert server.judgement("bob", TOPIC, FILE)["exhaustivity"] == case.after
    assert not console, console
