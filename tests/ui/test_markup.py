"""The markup of the INEX collections in Chromium. Wikipedia (INEX 2009-2010: ``<article>``,
``<name>``, ``<body>`` with ``<section><title>``, ``<link>`` and ``<emph2>`` inline): the pool
lists an article by its ``name`` and its search finds it by that title. Both Wikipedia and IEEE
(``it``, ``b``, ``ref`` inline; CRLF line ends, tabs, entities, indented blocks): the text shows
the blanks between inline elements, and a keyboard selection is stored as it is shown."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.ui.conftest import (
    ConsoleErrors,
    Server,
    log_in,
    open_as,
    open_document,
    running_server,
    screenshot,
)
from tests.ui.test_assessing import settled
from tests.ui.test_keyboard import click_at, selected, text_of_page

LINK = '<link xlink:type="simple" xlink:href="../{n}/{n}.xml">{text}</link>'


def link(text: str, n: int = 7) -> str:
    return LINK.format(n=n, text=text)


WIKI = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<article xmlns:xlink="http://www.w3.org/1999/xlink">\n'
    '<name id="32417">Ursula K. Le Guin</name>\n'
    "<conversionwarning>0</conversionwarning>\n<body>\n"
    "<section>\n<title>Culture</title>\n"
    f"<p>\nHer novels {link('won')} {link('awards')} <emph2>and</emph2> {link('readers', 8)}\n"
    f"alike, {link('science')}\t{link('fiction')} and fantasy both.\n</p>\n"
    "</section>\n<section>\n<title>Legacy</title>\n"
    f"<p>Writers who {link('followed')} her {link('cited')} {link('her')} {link('often')}.</p>\n"
    "</section>\n</body>\n</article>\n")


def collectionlink(text: str, n: int) -> str:
    return (f'<collectionlink xlink:type="simple" xlink:href="{n}.xml">{text}'
            "</collectionlink>")


ANARCHISM = (
    # the opening of an article in the layout of the INEX Wikipedia collection: the name,
    # the conversion's warning count, then the body (an empty template, a bold first mention,
    # links, a section with a list and a table)
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<article xmlns:xlink="http://www.w3.org/1999/xlink">\n'
    '<name id="12">Anarchism</name>\n'
    "<conversionwarning>0</conversionwarning>\n<body>\n"
    '<template name="Template:Anarchism sidebar"></template>\n<p>\n'
    f"<emph3>Anarchism</emph3> is a {collectionlink('political philosophy', 23040)} "
    f"encompassing theories and attitudes which consider the {collectionlink('state', 28014)}"
    " to be unnecessary, harmful, and/or undesirable.</p>\n"
    "<section>\n<title>Etymology</title>\n<p>\nThe word &quot;anarchism&quot; derives from "
    "the Greek &#945;&#957;&#945;&#961;&#967;&#943;&#945;, without rulers.</p>\n"
    "<normallist>\n<item>\nan- (\"without\")</item>\n<item>\narchos (\"ruler\")"
    "</item>\n</normallist>\n<table>\n<row>\n<cell>\nFounded</cell>\n<cell>\n1840"
    "</cell>\n</row>\n</table>\n</section>\n</body>\n</article>\n")


def ieee_paragraph(words: list[str]) -> str:
    """IEEE markup around ``words``: some in ``it`` or ``b`` (two of them side by side), a
    ``ref`` after one, an entity after another; blanks, tabs and CRLF line ends between them."""
    out = []
    for i, word in enumerate(words):
        kind = i % 9
        out.append(f"<it>{word}</it>" if kind == 1 else f"<b>{word}</b>" if kind in (2, 4)
                   else f'{word} <ref rid="bib{i}" type="bib">[{i}]</ref>' if kind == 7
                   else f"{word}&amp;" if kind == 5 else word)
    seps = [" ", "\r\n", "\t", "  \r\n    "]
    return "".join(w + seps[i % 4] for i, w in enumerate(out)).strip()


WORDS = ["retrieval", "evaluation", "element", "passage", "assessor", "relevance", "query",
         "article", "section", "markup", "ranking", "precision", "recall", "topic", "index",
         "model"]
IEEE = (
    '<?xml version="1.0" encoding="UTF-8"?>\r\n<!DOCTYPE article SYSTEM "xmlarticle.dtd">\r\n'
    "<article>\r\n  <fno>K0001</fno>\r\n  <fm>\r\n"
    # the running header as the IEEE collection has it: no blank between its elements
    "    <hdr><hdr1><ti>IEEE TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING</ti><crt><issn>"
    "1041-4347</issn>/02/$17.00 &copy; 2002 IEEE</crt></hdr1><hdr2><obi><volno>Vol. 14</volno>"
    "<issno>No. 1</issno></obi><pdt><mo>JANUARY/FEBRUARY</mo><yr>2002</yr></pdt><pp>pp. 1-19"
    "</pp></hdr2></hdr>\r\n    <tig><atl>G&ouml;del &amp; "
    "offsets</atl></tig>\r\n  </fm>\r\n  <bdy>\r\n    <sec>\r\n      <st>Introduction</st>\r\n"
    + "".join(f"      <ip1>\r\n        {ieee_paragraph(WORDS[k:] + WORDS[:k])}\r\n      </ip1>\r\n"
              for k in range(0, 16, 5))
    # small capitals and a formula in the text, inline in the IEEE collection's style sheets
    + "      <p>Compiled by <scp>Fortran</scp> compilers whenever <tmath>x&#x2208;X</tmath> "
      "holds.</p>\r\n"
    + "    </sec>\r\n  </bdy>\r\n  <bm>\r\n    <bib><bibl>\r\n      <bb><au><fnm>N.</fnm> "
      "<snm>Fuhr</snm></au>, <atl>&ldquo;Evaluating XML retrieval,&rdquo;</atl> <ti>SIGIR "
      "Forum</ti>, <pdt><yr>2002</yr></pdt>.</bb>\r\n    </bibl></bib>\r\n  </bm>\r\n"
      "</article>\r\n")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("campaign-wikipedia"), mode="passages",
                        extra={"wiki/32417": WIKI, "co/k0001": IEEE, "wiki/12": ANARCHISM}) as up:
        yield up


@pytest.fixture(scope="module")
def highlight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("campaign-wikipedia-2005"),
                        extra={"wiki/32417": WIKI, "co/k0001": IEEE, "wiki/12": ANARCHISM}) as up:
        yield up


def test_the_pool_lists_the_articles_name_and_its_search_finds_it(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    page = log_in(browser, server, "alice", console)
    page.goto(f"{server.url}/topics/1")
    row = page.locator('#pool li[data-file="wiki/32417"]')
    # the title is the article's name, not its first section's heading
    assert row.locator(".doc-title").inner_text() == "Ursula K. Le Guin"
    assert not row.locator(".first-words").inner_text().startswith("Ursula")
    page.locator("#pool-search").fill("le GUIN")
    shown = page.locator("#pool li[data-file]:not([hidden])")
    assert shown.evaluate_all("(rows) => rows.map((r) => r.dataset.file)") == ["wiki/32417"]
    assert page.locator("#pool-count").inner_text() == "1 of 10 shown"
    screenshot(page, tmp_path, "wikipedia-pool-search")
    page.locator("#pool-search").press("Enter")  # the row found takes the focus: Enter opens it
    assert page.evaluate("document.activeElement.closest('li').dataset.file") == "wiki/32417"
    page.keyboard.press("Enter")
    page.wait_for_url(f"{server.url}/topics/1/docs/wiki/32417")
    page.wait_for_selector("body[data-ready=true]")
    page.context.close()


def test_the_conversion_warning_is_not_shown_as_the_articles_first_words(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    """``<conversionwarning>0</conversionwarning>`` is about the conversion: neither the pool
    nor the page shows its "0" as the article's first words, and the page's text stays the
    document's, so that a passage across it is stored on the document's own offsets."""
    page = log_in(browser, server, "alice", console)
    page.goto(f"{server.url}/topics/1")
    row = page.locator('#pool li[data-file="wiki/12"]')
    assert row.locator(".doc-title").inner_text() == "Anarchism"
    assert row.locator(".first-words").inner_text().startswith(
        "Anarchism is a political philosophy encompassing")
    open_document(page, server, "1", "wiki/12")
    text = text_of_page(page)
    assert page.locator("#doc").evaluate("(doc) => doc.textContent") == text
    lines = [line for line in page.locator("#doc").inner_text().splitlines() if line.strip()]
    first = ("Anarchism is a political philosophy encompassing theories and attitudes which "
             "consider the state to be unnecessary, harmful, and/or undesirable.")
    assert lines[:2] == ["Anarchism", first]
    screenshot(page, tmp_path, "wikipedia-conversion-warning")
    # from the name into the body: the warning's characters are in the passage, shown or not
    title = text.index("Anarchism")
    click_at(page, title + 1)
    anchor = selected(page)["anchor"]
    for _ in range(5):
        page.keyboard.press("Shift+ArrowRight")
    got = selected(page)
    end = got["focus"]
    assert text[anchor:end].split()[1:] == ["0", "Anarchism", "is", "a"]
    assert got["text"].split()[1:] == ["Anarchism", "is", "a"]
    page.keyboard.press("h")
    settled(page)
    assert server.judgement("alice", "1", "wiki/12")["passages"] == [[title, end]]
    page.context.close()


def test_small_capitals_formulas_and_references_stay_in_the_line_of_text(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    """IEEE's ``scp`` (small capitals) and ``tmath`` (a formula in the text) are inline: the
    paragraph reads as one line, not broken before and after them, and a word step crosses
    them as one word each; a bibliography entry (``bb``) reads as one line."""
    page = open_as(browser, server, console, "bob", "1", "co/k0001")
    text = text_of_page(page)
    paragraph = page.locator('#doc [data-tag="p"]')
    assert paragraph.inner_text() == "Compiled by Fortran compilers whenever x\u2208X holds."
    # a bibliography entry is one line too: its authors, title and journal are not headings
    assert page.locator('#doc [data-tag="bb"]').inner_text() \
        == "N. Fuhr, \u201cEvaluating XML retrieval,\u201d SIGIR Forum, 2002."
    size = "(el) => getComputedStyle(el).fontSize"
    assert page.locator('#doc [data-tag="bb"] [data-tag="atl"]').evaluate(size) \
        == page.locator('#doc [data-tag="bb"]').evaluate(size)
    # the running header's parts apart on the screen (none in the source), in one line each
    boxes = page.locator('#doc [data-tag="hdr2"] [data-tag]').evaluate_all(
        "(els) => els.filter((el) => !el.querySelector('[data-tag]'))"
        ".map((el) => { const r = el.getBoundingClientRect(); return [r.left, r.right, r.top]; })")
    assert len(boxes) == 5 and len({top for _, _, top in boxes}) == 1, boxes
    assert all(b[0] - a[1] >= 5 for a, b in itertools.pairwise(boxes)), boxes
    screenshot(page, tmp_path, "ieee-scp-tmath")
    start = text.index("Compiled")
    click_at(page, start + 1)
    anchor = selected(page)["anchor"]
    for _ in range(3):
        page.keyboard.press("Shift+ArrowRight")
    assert start < anchor < start + 3
    assert selected(page)["focus"] == text.index(" compilers")
    page.context.close()


def test_blanks_between_inline_elements_are_shown_and_a_word_step_is_one_word(
        browser: Any, server: Server, highlight: Server, console: ConsoleErrors,
        tmp_path: Path) -> None:
    """The blank (or tab, or line end) between two links is on the screen: the assessor reads
    "won awards", not "wonawards", and Shift+→ selects one word a press; the selection as
    shown (the browser's own text of it) is what h stores, in passages and highlight mode."""
    for up, mode in ((server, "passages"), (highlight, "highlight")):
        page = open_as(browser, up, console, "bob", "1", "wiki/32417")
        text = text_of_page(page)
        shown = page.locator("#doc").inner_text()
        for words in ("Her novels won awards and readers", "alike, science fiction and",
                      "followed her cited her often."):
            assert words in " ".join(shown.split())
        start = text.index("Her novels")
        click_at(page, start + 1)
        anchor = selected(page)["anchor"]
        assert start < anchor < start + 3  # in "Her"
        words = text[start:].split()
        count = 0
        for _ in range(12):
            page.keyboard.press("Shift+ArrowRight")
            got = selected(page)
            assert got["anchor"] == anchor, got
            # the selection as shown is the stored text, blanks between links included
            assert " ".join(got["text"].split()) == " ".join(
                text[anchor:got["focus"]].split()), got
            # at most one more word a press (a comma is a step of its own): two links are
            # two words
            now = len(text[start:got["focus"]].split())
            assert now - count <= 1, (count, got)
            count = now
        assert text[start:got["focus"]].split() == words[:count] and count >= 10
        screenshot(page, tmp_path, f"wikipedia-shift-right-{mode}")
        page.keyboard.press("h")
        settled(page)
        assert up.judgement("bob", "1", "wiki/32417")["passages"] == [[start, got["focus"]]]
        page.context.close()


def test_35_shift_right_over_ieee_markup_are_stored_as_shown(
        browser: Any, server: Server, highlight: Server, console: ConsoleErrors,
        tmp_path: Path) -> None:
    """Issue 36's held-out setup on IEEE markup: a caret placed by a click, Shift+→ 35 times
    across inline elements, entities, tabs, CRLF line ends and paragraph ends, then h: the
    stored passage ends where the selection is seen to end."""
    for up, mode in ((server, "passages"), (highlight, "highlight")):
        page = open_as(browser, up, console, "alice", "1", "co/k0001")
        text = text_of_page(page)
        first = text.index("retrieval", text.index("Introduction"))
        click_at(page, text.index("evaluation", first) + 3)
        anchor = selected(page)["anchor"]
        for _ in range(35):
            page.keyboard.press("Shift+ArrowRight")
            got = selected(page)
            assert got["anchor"] == anchor, got
            assert " ".join(got["text"].split()) == " ".join(
                text[anchor:got["focus"]].split()), got
        end = len(text[:got["focus"]].rstrip())
        assert len(text[anchor:end].split()) >= 25  # into the next paragraph
        screenshot(page, tmp_path, f"ieee-shift-right-35-{mode}")
        page.keyboard.press("h")
        settled(page)
        start = text.index("evaluation", first)
        assert up.judgement("alice", "1", "co/k0001")["passages"] == [[start, end]]
        page.context.close()


def test_the_organisers_view_hides_a_conversion_warning_of_0(
        browser: Any, server: Server, console: ConsoleErrors, tmp_path: Path) -> None:
    """The organiser's read-only view (and the adjudication panes, drawn by the same code) keep
    the warning's text in the pane, hidden: the pane's text is the document's, so selections
    and passages keep its offsets, and no "0" line comes before the article's first words."""
    api = server.api("bob")
    text = api.get("/api/topics/1/docs/wiki/12/content").json()["text"]
    version = server.judgement("bob", "1", "wiki/12")["version"]
    start = text.index("political philosophy")
    span = [start, start + len("political philosophy")]
    assert api.put("/api/topics/1/docs/wiki/12", json={
        "version": version, "status": "in-progress", "passages": [span],
        "best_entry_point": start}).status_code == 200
    page = log_in(browser, server, "boss", console)
    page.goto(f"{server.url}/admin/topics/1/docs/wiki/12?assessor=bob")
    page.wait_for_selector("body[data-ready=true]")
    pane = page.locator("#pane-view")
    assert pane.evaluate("(p) => p.textContent") == text
    lines = [line.strip() for line in pane.inner_text().splitlines() if line.strip()]
    assert lines[0] == "Anarchism" and "0" not in lines
    assert lines[1].startswith("Anarchism is a political philosophy")
    assert pane.locator("mark").all_inner_texts() == ["political philosophy"]
    screenshot(page, tmp_path, "organiser-conversion-warning")
    page.context.close()


def test_find_never_stops_on_the_hidden_conversion_warning(
        browser: Any, server: Server, console: ConsoleErrors) -> None:
    """``/`` finds what the page shows: a search for "0" finds the table's 1840, not the
    hidden warning's 0 before the body."""
    page = open_as(browser, server, console, "bob", "1", "wiki/12")
    text = text_of_page(page)
    shown = text.index("1840")
    page.keyboard.press("/")
    page.keyboard.type("0")
    find = page.locator("#find")
    assert text.count("0") == 2 and find.get_attribute("data-hits") == "1"
    page.keyboard.press("Enter")
    assert selected(page)["anchor"] == shown + 3
    page.context.close()
