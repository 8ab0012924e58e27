"""The three-way merge of a change made on a stale version (inexeval.assess.merge), alone and
through ``PUT /api/topics/{topic}/docs/{file}`` on both back ends."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from inexeval.assess.merge import MergeConflict, merge_passage_sets, subtract, three_way
from inexeval.assess.model import Judgement
from tests.assess.conftest import Client, TestClient, add_users, app_of, init_store

A1 = "/api/topics/1/docs/co/a1"


def _j(passages: tuple[tuple[int, int], ...] = (), status: str = "in-progress",
       best: int | None = None, exhaustivity: dict[str, str] | None = None,
       seconds: float = 0.0, version: int = 0) -> Judgement:
    return Judgement("1", "co/a1", "alice", status=status, passages=passages,
                     best_entry_point=best, exhaustivity=exhaustivity or {}, seconds=seconds,
                     version=version)


def test_subtract_by_hand() -> None:
    assert subtract([(0, 10), (20, 30)], [(5, 25)]) == ((0, 5), (25, 30))
    assert subtract([(0, 10)], [(0, 10)]) == ()
    assert subtract([(0, 10)], [(2, 3), (5, 6)]) == ((0, 2), (3, 5), (6, 10))
    assert subtract([(0, 10)], []) == ((0, 10),)


def test_passages_are_sets_of_characters() -> None:
    # base [10, 20); mine adds [30, 40) and removes [10, 15); theirs adds [50, 60)
    merged = merge_passage_sets([(10, 20)], [(15, 20), (30, 40)], [(10, 20), (50, 60)])
    assert merged == ((15, 20), (30, 40), (50, 60))
    # theirs removed part of what mine keeps: it stays removed (mine did not touch it)
    assert merge_passage_sets([(10, 20)], [(10, 20), (30, 35)], [(10, 12)]) == (
        (10, 12), (30, 35))
    # both add overlapping text: one passage
    assert merge_passage_sets([], [(0, 10)], [(5, 15)]) == ((0, 15),)


def test_scalars_merge_unless_both_changed_them_differently() -> None:
    base = _j(((0, 10),), best=0, exhaustivity={"/a[1]": "1", "/a[1]/b[1]": "2"}, seconds=5)
    mine = _j(((0, 10),), best=4, exhaustivity={"/a[1]": "2", "/a[1]/b[1]": "2"}, seconds=12)
    theirs = _j(((0, 10), (20, 30)), best=0, exhaustivity={"/a[1]": "1", "/a[1]/b[1]": "?"},
                seconds=9, version=3)
    merged = three_way(base, mine, theirs)
    assert merged.best_entry_point == 4 and merged.version == 3
    assert merged.exhaustivity == {"/a[1]": "2", "/a[1]/b[1]": "?"}
    assert merged.passages == ((0, 10), (20, 30))
    assert merged.seconds == 9 + 7
    with pytest.raises(MergeConflict) as conflict:
        three_way(base, mine, _j(((0, 10),), best=6, exhaustivity={"/a[1]": "?"}))
    # /a[1]/b[1]: only theirs removed it (mine kept base's "2"): no conflict
    assert conflict.value.fields == ["best_entry_point", "exhaustivity /a[1]"]
    # the same change on both sides is no conflict
    assert three_way(base, mine, mine).exhaustivity == mine.exhaustivity


def test_a_merged_best_entry_point_lies_in_a_passage() -> None:
    # a stale tab's undo brings back its old passage [0, 10) and best entry point 2, while the
    # other tab replaced that passage by [20, 30) with its point at 25 and marked it done
    base = _j(((40, 50),), best=45)
    mine = _j(((0, 10),), best=2)
    theirs = _j(((20, 30),), status="done", best=45, version=4)
    merged = three_way(base, mine, theirs)
    assert merged.passages == ((0, 10), (20, 30)) and merged.best_entry_point == 2
    # mine removes the passage theirs' point is in: the point moves to the next passage's start
    base = _j(((0, 10), (20, 30)), best=5)
    mine = _j(((20, 30),), best=5)
    theirs = _j(((0, 10), (20, 30), (40, 50)), best=5, version=2)
    assert three_way(base, mine, theirs).best_entry_point == 20
    # ... else the last passage's start; no passage left, no point
    theirs = _j(((0, 10), (20, 30), (3, 4)), best=35, version=2)
    assert three_way(base, _j(((20, 30),), best=35), replace(theirs, passages=((0, 10), (20, 30)))
                     ).best_entry_point == 20
    assert three_way(_j(((0, 10),), best=5), _j((), best=5), _j(((0, 10),), best=5, version=1)
                     ).best_entry_point is None


def test_a_change_already_stored_is_not_merged_again() -> None:
    # a save resent after its answer was lost: theirs is mine; its seconds count once
    base = _j(((0, 4),), seconds=5)
    mine = _j(((0, 4), (8, 9)), status="done", best=0, seconds=12)
    theirs = _j(((0, 4), (8, 9)), status="done", best=0, seconds=12, version=1)
    assert three_way(base, mine, theirs) is theirs
    # the same content with more seconds (another tab's time) still adds mine's
    assert three_way(base, mine, replace(theirs, seconds=20)).seconds == 20 + 7


def test_status() -> None:
    base = _j(status="unseen")
    # two different changes of the status: in-progress (one tab's work is not finished)
    assert three_way(base, _j(status="in-progress"), _j(status="done")).status == "in-progress"
    assert three_way(_j(), _j(), _j(status="done")).status == "done"
    assert three_way(_j(), _j(status="done"), _j()).status == "done"
    # done on one side and a change on the other: not done (nothing is lost)
    done = _j(((0, 4),), status="done", best=0)
    assert three_way(_j(((0, 4),), best=0), done, _j(((0, 4), (8, 9)), best=0)).status \
        == "in-progress"
    assert three_way(base, _j(status="done"), _j(status="in-progress", passages=((0, 3),))
                     ).status == "in-progress"


@pytest.fixture
def passages_client(store_url: str, campaign_files: dict[str, Path]) -> Iterator[Any]:
    init_store(store_url, campaign_files, mode="passages")
    add_users(store_url, {"alice": ["1"]})
    clients = []

    def make() -> Client:
        client = TestClient(app_of(store_url))
        client.__enter__()
        clients.append(client)
        return Client(client, "alice")

    yield make
    for client in clients:
        client.__exit__(None, None, None)


def test_two_tabs_merge_through_the_api(passages_client: Any) -> None:
    first, second = passages_client(), passages_client()
    one = first.put(A1, {"version": 0, "status": "in-progress", "passages": [[0, 6]],
                         "seconds": 4})
    assert one.status_code == 200 and one.json()["merged"] is False
    # the second tab still has version 0: its highlight elsewhere is merged, not refused
    two = second.put(A1, {"version": 0, "status": "in-progress", "passages": [[20, 30]],
                          "seconds": 3})
    assert two.status_code == 200, two.text
    assert two.json()["merged"] is True and two.json()["version"] == 2
    assert two.json()["passages"] == [[0, 6], [20, 30]] and two.json()["seconds"] == 7
    # the first tab (version 1) unhighlights part of its passage: only those characters go
    three = first.put(A1, {"version": 1, "status": "in-progress", "passages": [[0, 3]]})
    assert three.json()["passages"] == [[0, 3], [20, 30]] and three.json()["merged"] is True
    # best entry points set differently in both tabs: a true conflict, nothing written
    four = first.put(A1, {"version": 3, "status": "in-progress", "best_entry_point": 0})
    assert four.status_code == 200 and four.json()["best_entry_point"] == 0
    five = second.put(A1, {"version": 3, "status": "in-progress", "best_entry_point": 20})
    assert five.status_code == 409
    assert five.json()["conflicts"] == ["best_entry_point"]
    assert five.json()["current"]["version"] == 4
    assert first.get(A1).json()["best_entry_point"] == 0
    # the same change from a stale tab, and marking done from it, merge
    six = second.put(A1, {"version": 3, "status": "done", "best_entry_point": 0})
    assert six.status_code == 200 and six.json()["status"] == "done"
    assert six.json()["passages"] == [[0, 3], [20, 30]]


def test_a_save_resent_after_a_lost_answer_is_stored_once(passages_client: Any) -> None:
    # the answer to a save is lost; the outbox sends it again (the same body, its version 0):
    # the stored judgement is given back as it is, its seconds counted once
    tab = passages_client()
    body = {"version": 0, "status": "in-progress", "passages": [[0, 6]], "seconds": 4.5}
    first = tab.put(A1, body)
    assert first.status_code == 200 and first.json()["version"] == 1
    again = tab.put(A1, body)
    assert again.status_code == 200, again.text
    assert again.json()["version"] == 1 and again.json()["merged"] is False
    assert again.json()["seconds"] == 4.5
    stored = tab.get(A1).json()
    assert stored["version"] == 1 and stored["seconds"] == 4.5
    # a further change from the same tab goes on from there
    more = tab.put(A1, {**body, "version": 1, "passages": [[0, 9]], "seconds": 6.0})
    assert more.json()["version"] == 2 and more.json()["seconds"] == 6.0


def test_a_visits_change_is_based_on_its_own_newest_save(passages_client: Any) -> None:
    # a page visit's save reaches the server, its answer is lost; the page queues a later
    # state on top (a highlight more, 3 s more) and sends it on the version it knows (0): its
    # own save is the base, so its 7 s are stored as 7, not 4 + 7
    tab = passages_client()

    def put(version: int, passages: list[list[int]], seconds: float, visit: str,
            sequence: int) -> Any:
        return tab.put(A1, {"version": version, "status": "in-progress", "passages": passages,
                            "seconds": seconds, "visit": visit, "sequence": sequence})

    assert put(0, [[0, 6]], 4.0, "visit-a", 1).json()["version"] == 1
    later = put(0, [[0, 6], [20, 30]], 7.0, "visit-a", 2)
    assert later.status_code == 200, later.text
    assert later.json()["version"] == 2 and later.json()["seconds"] == 7.0
    assert later.json()["passages"] == [[0, 6], [20, 30]] and later.json()["merged"] is False
    # a late copy of its first change (a second sender of the same queue): nothing written
    late = put(0, [[0, 6]], 4.0, "visit-a", 1)
    assert late.status_code == 200 and late.json()["version"] == 2
    assert late.json()["passages"] == [[0, 6], [20, 30]] and late.json()["seconds"] == 7.0
    # another visit's change on an old version is merged as before: both visits' time counts
    other = put(1, [[0, 6], [40, 45]], 5.0, "visit-b", 1)
    assert other.json()["merged"] is True and other.json()["version"] == 3
    assert other.json()["passages"] == [[0, 6], [20, 30], [40, 45]]
    assert other.json()["seconds"] == 7.0 + (5.0 - 4.0)
    # the first visit, its answers still lost, on version 0 again: based on its own save
    # (version 2, 7 s), merged with the other visit's: 8 + 2 s, and what it undid stays undone
    again = put(0, [[20, 30], [50, 55]], 9.0, "visit-a", 3)
    assert again.json()["merged"] is True and again.json()["version"] == 4
    assert again.json()["passages"] == [[20, 30], [40, 45], [50, 55]]
    assert again.json()["seconds"] == 8.0 + (9.0 - 7.0)
    for bad in ({"visit": "a b"}, {"visit": "x" * 65}, {"visit": 7}, {"visit": ""},
                {"visit": "é"}, {"sequence": 1}, {"visit": "v", "sequence": -1},
                {"visit": "v", "sequence": 1.5}, {"visit": "v", "sequence": True}):
        refused = tab.put(A1, {"version": 5, "status": "in-progress", **bad})
        assert refused.status_code == 422, bad
        assert "visit" in refused.text or "sequence" in refused.text


def test_a_stale_change_the_rules_refuse_is_still_refused(passages_client: Any) -> None:
    tab = passages_client()
    assert tab.put(A1, {"version": 0, "status": "in-progress", "passages": [[0, 6]]}
                   ).status_code == 200
    outside = tab.put(A1, {"version": 0, "status": "in-progress", "passages": [[0, 10 ** 6]]})
    assert outside.status_code == 422
    # done without a best entry point is the change's own fault: 422, not a conflict
    undone = tab.put(A1, {"version": 0, "status": "done", "passages": [[8, 9]]})
    assert undone.status_code == 422
