"""The history panel's data: ``GET /api/history`` (the last 20 changes of the login session,
said in words) and :func:`inexeval.assess.history.describe`."""

from __future__ import annotations

from typing import Any

from inexeval.assess.history import describe

A1 = "/api/topics/1/docs/co/a1"
TEXT = "Retrieval of XML A. Author Intro XML retrieval evaluates elements."


def test_describe_by_hand() -> None:
    empty = {"status": "unseen", "passages": [], "best_entry_point": None,
             "exhaustivity": {}, "values": {}}
    highlighted = {**empty, "status": "in-progress", "passages": [[0, 16]]}
    assert describe(empty, highlighted) == "highlighted (16 characters); now in-progress"
    assert describe(empty, highlighted, TEXT) == (
        "highlighted “Retrieval of XML” (16 characters); now in-progress")
    cut = {**highlighted, "passages": [[0, 9]], "best_entry_point": 0,
           "exhaustivity": {"/article[1]": "2"}}
    assert describe(highlighted, cut, TEXT) == (
        "unhighlighted “of XML” (7 characters); best entry point at 0; "
        "exhaustivity of /article[1] set to 2")
    assert describe(cut, {**empty, "status": "done"}) == (
        "unhighlighted (9 characters); best entry point removed; exhaustivity of /article[1] "
        "cleared; done, not relevant")
    assert describe(cut, {**cut, "status": "done"}) == "done, relevant"
    assert describe(cut, cut) == "saved (no change)"


def test_the_last_20_changes_of_the_session(connect: Any) -> None:
    alice = connect("alice")
    assert alice.get("/api/history").json() == {"changes": []}
    for version in range(25):
        assert alice.put(A1, {"version": version, "status": "in-progress",
                              "passages": [[0, 3 + version]]}).status_code == 200
    changes = alice.get("/api/history").json()["changes"]
    assert len(changes) == 20
    assert [c["version"] for c in changes] == list(range(25, 5, -1))
    assert changes[0]["url"] == "/topics/1/docs/co/a1" and changes[0]["file"] == "co/a1"
    # version 6 added character 7 of "Retrieval of XML ...": the "a"
    assert changes[-1]["change"] == "highlighted “a” (1 character)"
    # another login session starts an empty history; another assessor's changes are theirs
    assert connect("alice").get("/api/history").json() == {"changes": []}
    assert connect("bob").get("/api/history").json() == {"changes": []}
    assert connect(None).get("/api/history").status_code == 401
