"""The chunkers on any text: chunks tile it in order, none longer than SIZE, consecutive ones
overlapping by at most OVERLAP (``fixed``: exactly its definition)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from inexeval.rag.chunkers import fixed, recursive

TEXT = st.text(alphabet=st.sampled_from(list("ab é.!?\n\t")), max_size=300)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(1, 40), st.data())
def test_recursive_tiles_the_text(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    chunks = recursive(text, size, overlap)
    if not text:
        assert chunks == []
        return
    assert chunks[0][0] == 0 and chunks[-1][1] == len(text)
    for start, end in chunks:
        assert 0 < end - start <= size
    for (s1, e1), (s2, e2) in itertools.pairwise(chunks):
        assert s1 < s2 and e1 < e2  # progress
        assert s2 <= e1 and e1 - s2 <= overlap  # no gap, overlap bounded


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 500), st.integers(1, 60), st.data())
def test_fixed_is_its_definition(length: int, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    step = size - overlap
    chunks = fixed(length, size, overlap)
    if length == 0:
        assert chunks == []
        return
    for i, (start, end) in enumerate(chunks):
        assert start == i * step
        assert end == (min(start + size, length) if i < len(chunks) - 1 else length)
    assert chunks[-1][1] == length and chunks[-1][0] + size >= length
    assert len(chunks) == 1 or chunks[-2][0] + size < length
