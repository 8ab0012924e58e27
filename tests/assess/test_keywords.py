"""The assessor's keywords: ``GET|PUT /api/topics/{topic}/keywords``, kept per assessor and
topic in the store (schema version 4, ``assessor_keywords``), and the words of a document that
match them by Snowball stem (``GET /api/topics/{topic}/docs/{file}/keywords``,
``inexeval.assess.stems``)."""

from __future__ import annotations

from typing import Any

import snowballstemmer

from inexeval.assess.stems import is_pattern, is_word_char, keyword_spans, stem

KEYWORDS = "/api/topics/1/keywords"
SPANS = "/api/topics/1/docs/co/a1/keywords"

# Snowball's English stemmer: words and stems of its reference vocabulary (snowballstem.org,
# English stemmer page and snowball-data english/voc.txt, output.txt)
REFERENCE = {"generously": "generous", "elements": "element", "passages": "passag",
             "running": "run", "consisted": "consist", "consistency": "consist",
             "consolation": "consol", "consolatory": "consolatori", "knightly": "knight",
             "knackeries": "knackeri"}


def test_keywords_per_assessor_and_topic(connect: Any) -> None:
    alice, bob = connect("alice"), connect("bob")
    # the topic's own until the assessor chooses (conftest: <keywords>xml, retrieval</keywords>)
    assert alice.get(KEYWORDS).json() == {"topic": "1", "chosen": False,
                                          "keywords": ["xml", "retrieval"]}
    kept = alice.put(KEYWORDS, {"keywords": [" evaluation ", "/retriev\\w*/", "evaluation"]})
    assert kept.status_code == 200
    assert kept.json() == {"topic": "1", "chosen": True,
                           "keywords": ["evaluation", "/retriev\\w*/"]}
    assert connect("alice").get(KEYWORDS).json()["keywords"] == ["evaluation", "/retriev\\w*/"]
    assert bob.get(KEYWORDS).json()["chosen"] is False
    # none at all is a choice too
    assert alice.put(KEYWORDS, {"keywords": []}).json() == {
        "topic": "1", "chosen": True, "keywords": []}


def test_bad_keywords_are_refused(connect: Any) -> None:
    alice = connect("alice")
    for body in ({"keywords": "xml"}, {"keywords": [3]}, {"keywords": [""]},
                 {"keywords": ["x" * 101]}, {"keywords": ["w"] * 101}, {"keywords": ["/a(/"]},
                 {}):
        response = alice.put(KEYWORDS, body)
        assert response.status_code == 422, body
        assert response.json()["error"].startswith("keywords:")
    assert alice.put("/api/topics/2/keywords", {"keywords": ["x"]}).status_code == 403
    assert alice.put("/api/topics/9/keywords", {"keywords": ["x"]}).status_code == 404
    assert alice.http.put(KEYWORDS, json={"keywords": ["x"]}).status_code == 403  # no CSRF
    assert connect(None).get(KEYWORDS).status_code == 401
    assert alice.get(KEYWORDS).json()["chosen"] is False


def test_snowball_english_stems() -> None:
    english = snowballstemmer.stemmer("english")
    for word, expected in REFERENCE.items():
        assert english.stemWord(word) == expected, word
        assert stem(word) == expected, word
    # lower case first: the page's words keep their case
    assert stem("Elements") == stem("ELEMENTS") == "element"
    assert stem("Evaluate") == stem("evaluations") == "evalu"


def test_words_and_spans_by_hand() -> None:
    # the page's word characters: letters, numbers, marks and _, not ' or -
    assert [is_word_char(c) for c in "a9_\u0301'-😀 "] == [True] * 4 + [False] * 4
    assert is_pattern("/best \\w+/") and is_pattern(" /x/i ") and not is_pattern("/x")
    text = "She runs; running, ran."
    assert keyword_spans(text, ["run"]) == [(4, 8), (10, 17)]
    assert keyword_spans(text, ["/run/", "  "]) == []
    # code points: the emoji counts once; a word with a combining mark is one word
    text = "😀 cafe\u0301s elements"
    assert keyword_spans(text, ["element"]) == [(9, 17)]
    assert keyword_spans(text, ["cafe\u0301s"]) == [(2, 8)]
    # element edges inside a run of word characters: every run of consecutive pieces
    assert keyword_spans("IntroXML", ["xml"], [0, 5, 8]) == [(5, 8)]
    assert keyword_spans("elements", ["element"], [3]) == [(0, 8)]
    assert keyword_spans("elements", ["ele"], [3]) == [(0, 3)]
    # a word cut by an edge at every letter: runs of at most 8 pieces are stemmed
    assert keyword_spans("a" * 30, ["a" * 8], range(31)) == [(s, s + 8) for s in range(23)]
    assert keyword_spans("a" * 30, ["a" * 9], range(31)) == []
    # and words of at most 200 letters
    assert keyword_spans("a" * 200 + " " + "a" * 201, ["a" * 200, "a" * 201]) == [(0, 200)]


def test_document_spans_by_stem(connect: Any) -> None:
    alice = connect("alice")
    # "Retrieval of XMLA. AuthorIntroXML retrieval evaluates elements.Second & paragraph.
    # Another section 😀 here." with element edges at 16, 25 (au; Author|Intro) and 30
    # (st|p: Intro|XML); the emoji is one code point (98), so "here" is [100, 104)
    assert alice.get(SPANS).json() == {  # the topic's keywords: xml, retrieval
        "topic": "1", "file": "co/a1", "keywords": ["xml", "retrieval"],
        "spans": [[0, 9], [13, 16], [30, 33], [34, 43]]}
    words = ["retrieve", "Element", "sections", "here", "intro", "/xml/"]
    assert alice.put(KEYWORDS, {"keywords": words}).status_code == 200
    assert alice.get(SPANS).json() == {
        "topic": "1", "file": "co/a1", "keywords": words,
        "spans": [[0, 9], [25, 30], [34, 43], [54, 62], [90, 97], [100, 104]]}
    assert connect("bob").get(SPANS).json()["keywords"] == ["xml", "retrieval"]
    assert alice.put(KEYWORDS, {"keywords": []}).status_code == 200
    assert alice.get(SPANS).json()["spans"] == []
    assert alice.get("/api/topics/2/docs/co/a3/keywords").status_code == 403
    assert connect(None).get(SPANS).status_code == 401
