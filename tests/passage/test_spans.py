"""The character engine against brute-force character sets."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval import spans

interval = st.tuples(st.integers(0, 3), st.integers(-20, 60), st.integers(-5, 40))


def _chars(start: int, end: int) -> set[int]:
    return set(range(start, max(start, end)))


@settings(max_examples=200, deadline=None)
@given(st.lists(interval, max_size=25))
def test_merge_is_the_union(items: list[tuple[int, int, int]]) -> None:
    docs = [d for d, _, _ in items]
    starts = [s for _, s, _ in items]
    ends = [s + n for _, s, n in items]
    md, ms, me = spans.merge(starts, ends, docs)
    assert np.all(me > ms)
    for doc in range(4):
        want = set().union(*[_chars(s, e) for d, s, e in zip(docs, starts, ends) if d == doc])
        got_pieces = [(s, e) for d, s, e in zip(md, ms, me) if d == doc]
        got = set().union(*[_chars(int(s), int(e)) for s, e in got_pieces])
        assert got == want
        assert all(a[1] < b[0] for a, b in itertools.pairwise(got_pieces))


@settings(max_examples=200, deadline=None)
@given(st.lists(interval, max_size=20), st.lists(interval, max_size=20))
def test_covered_lengths_sums_each_listing(judged: list[tuple[int, int, int]],
                                           queries: list[tuple[int, int, int]]) -> None:
    got = spans.covered_lengths(
        [s for _, s, _ in judged], [s + n for _, s, n in judged],
        [s for _, s, _ in queries], [s + n for _, s, n in queries],
        [d for d, _, _ in judged], [d for d, _, _ in queries],
    )
    for value, (qd, qs, qn) in zip(got, queries):
        want = sum(len(_chars(qs, qs + qn) & _chars(s, s + n)) for d, s, n in judged if d == qd)
        assert value == want


@settings(max_examples=200, deadline=None)
@given(st.lists(interval, max_size=25), st.lists(interval, max_size=10))
def test_unseen_against_character_sets(items: list[tuple[int, int, int]],
                                       judged: list[tuple[int, int, int]]) -> None:
    docs = [d for d, _, _ in items]
    starts = [s for _, s, _ in items]
    ends = [s + n for _, s, n in items]
    hd, hs, he = spans.merge([s for _, s, _ in judged], [s + n for _, s, n in judged],
                             [d for d, _, _ in judged])
    unseen, relevant = spans.unseen_covered(starts, ends, spans.Coverage(hs, he, hd), docs)
    assert np.array_equal(unseen, spans.unseen_lengths(starts, ends, docs))
    seen: dict[int, set[int]] = {}
    for i, (d, s, e) in enumerate(zip(docs, starts, ends)):
        new = _chars(s, e) - seen.setdefault(d, set())
        highlighted = set().union(*[_chars(int(a), int(b)) for x, a, b in zip(hd, hs, he) if x == d])
        assert unseen[i] == len(new)
        assert relevant[i] == len(new & highlighted)
        seen[d] |= new


def test_thorough_example_of_spec_15_15() -> None:
    """E15-2: new characters of article A are 20, 50, 230, 700."""
    got = spans.unseen_lengths([100, 300, 50, 0], [120, 350, 350, 1000])
    assert got.tolist() == [20, 50, 230, 700]


def test_document_codes_are_shared() -> None:
    a, b = spans.document_codes(["x", "y", "x"], ["y", "z"])
    assert a[0] == a[2] and a[1] == b[0] and b[1] not in a
