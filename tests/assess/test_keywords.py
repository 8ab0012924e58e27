"""The assessor's keywords: ``GET|PUT /api/topics/{topic}/keywords``, kept per assessor and
topic in the store (schema version 4, ``assessor_keywords``)."""

from __future__ import annotations

from typing import Any

KEYWORDS = "/api/topics/1/keywords"


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
