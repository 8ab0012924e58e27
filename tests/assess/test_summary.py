"""The pool page's title and first words of a document (inexeval.assess.summary), on the
layouts of the INEX collections: IEEE (``fm/tig/atl``, the journal's ``hdr/hdr1/ti``) and
Wikipedia (``name``, section headings in ``title``)."""

from __future__ import annotations

import json

from inexeval.assess.summary import summarise


def _elements(text: str, spans: list[tuple[str, str]]) -> tuple[str, str]:
    """The text and the JSON element list of ``spans`` ([path, exact text]), found in order."""
    rows, at = [], 0
    for path, part in spans:
        start = text.index(part, at) if part else at
        rows.append([path, start, start + len(part)])
        at = start
    return text, json.dumps(rows, separators=(",", ":"))


def test_a_wikipedia_article_is_titled_by_its_name() -> None:
    text = "Anarchism Culture Anarchists wrote songs. Legacy It lasted."
    text, elements = _elements(text, [
        ("/article[1]", text), ("/article[1]/name[1]", "Anarchism"),
        ("/article[1]/body[1]", text[10:]), ("/article[1]/body[1]/section[1]", text[10:42]),
        ("/article[1]/body[1]/section[1]/title[1]", "Culture"),
        ("/article[1]/body[1]/section[1]/p[1]", "Anarchists wrote songs."),
        ("/article[1]/body[1]/section[2]", text[42:]),
        ("/article[1]/body[1]/section[2]/title[1]", "Legacy")])
    title, first = summarise(text, elements)
    assert title == "Anarchism"
    assert first == "Culture Anarchists wrote songs. Legacy It lasted."


def test_an_ieee_article_is_titled_by_atl_not_the_journals_ti() -> None:
    text = "IEEE Annals 1999 Computing at Harvard The Mark I ran."
    text, elements = _elements(text, [
        ("/article[1]", text), ("/article[1]/fm[1]", text[:37]),
        ("/article[1]/fm[1]/hdr[1]", "IEEE Annals 1999"),
        ("/article[1]/fm[1]/hdr[1]/hdr1[1]", "IEEE Annals 1999"),
        ("/article[1]/fm[1]/hdr[1]/hdr1[1]/ti[1]", "IEEE Annals"),
        ("/article[1]/fm[1]/tig[1]", "Computing at Harvard"),
        ("/article[1]/fm[1]/tig[1]/atl[1]", "Computing at Harvard"),
        ("/article[1]/bdy[1]", "The Mark I ran."),
        ("/article[1]/bdy[1]/sec[1]", "The Mark I ran."),
        ("/article[1]/bdy[1]/sec[1]/st[1]", "The Mark I"),
    ])
    assert summarise(text, elements)[0] == "Computing at Harvard"
    # with no title element, a heading stands for it
    text, elements = _elements("Intro Words here.", [
        ("/doc[1]", "Intro Words here."), ("/doc[1]/sec[1]/st[1]", "Intro")])
    assert summarise(text, elements) == ("Intro", "Words here.")


def test_the_conversion_warning_of_a_wikipedia_article_is_not_among_its_first_words() -> None:
    # the INEX Wikipedia layout: <name>, then <conversionwarning>0</conversionwarning>, then
    # the body (the text between them is the file's line ends)
    text = "\nAnarchism\n0\n\nAnarchism is a political philosophy.\n"
    text, elements = _elements(text, [
        ("/article[1]", text), ("/article[1]/name[1]", "Anarchism"),
        ("/article[1]/conversionwarning[1]", "0"),
        ("/article[1]/body[1]", "\nAnarchism is a political philosophy.\n"),
        ("/article[1]/body[1]/p[1]", "Anarchism is a political philosophy.")])
    assert summarise(text, elements) == ("Anarchism", "Anarchism is a political philosophy.")


def test_the_wikipedia_s_entity_elements_inside_a_paragraph_break_no_word() -> None:
    # INEX 2009-2010 wrap entities in elements named after YAGO's classes (<person>,
    # <country>...), inside a word too: they are in the line of text, as the judging page
    # shows them (names.inline_elements), and so are IEEE's fonts (ss, sc) that only
    # names.py knew
    text = "Pamela Anderson's CanadianAmerican career. Boldface type."
    text, elements = _elements(text, [
        ("/article[1]", text), ("/article[1]/body[1]", text),
        ("/article[1]/body[1]/p[1]", text[:42]),
        ("/article[1]/body[1]/p[1]/actor[1]", "Pamela Anderson"),
        ("/article[1]/body[1]/p[1]/actor[1]/person[1]", "Pamela Anderson"),
        ("/article[1]/body[1]/p[1]/country[1]", "Canadian"),
        ("/article[1]/body[1]/p[1]/country[2]", "American"),
        ("/article[1]/body[1]/p[2]", "Boldface type."),
        ("/article[1]/body[1]/p[2]/ss[1]", "Bold")])
    assert summarise(text, elements)[1] == text
    # the old summary's formulas, code and bold stay in the line too
    text = "A n-dimensional space. Boldface."
    text, elements = _elements(text, [
        ("/article[1]", text), ("/article[1]/sec[1]", text),
        ("/article[1]/sec[1]/p[1]", text[:22]), ("/article[1]/sec[1]/p[1]/math[1]", "n"),
        ("/article[1]/sec[1]/bold[1]", "Bold")])
    assert summarise(text, elements)[1] == text
