"""The assessor's keywords matched by word stem: Snowball's English (Porter2) stemmer, from the
``snowballstemmer`` package (issue 22).

A word is a run of letters, numbers, marks and ``_`` (``isWordChar`` of ``static/judge.js``:
``[\\p{L}\\p{N}\\p{M}_]``). The page also ends a word at the edges of block elements, which it
tells from tag names; the server does not repeat that rule: for a run of word characters that
element edges cut into pieces it returns every run of consecutive pieces whose stem matches,
and the page keeps those that are words by its own rule (``static/keywords.js``). Offsets are
code points of the document's text, as everywhere in the API.

A keyword written ``/like this/`` is a regular expression and is left to the page (it runs in
the assessor's browser, so a slow pattern slows no one else).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from functools import lru_cache

import snowballstemmer

_local = threading.local()

LONGEST_WORD = 200
"""Longer words are never a keyword's form (keywords have at most 100 characters and a stem
drops a few letters only): not stemmed."""

MOST_PIECES = 8
"""Most pieces (between element edges) of one word: a run of word characters cut by many edges
(``<sup>`` in a formula, an element per letter) costs at most this many stems per piece."""

MOST_STEMS = 100_000
"""Most stems one call of :func:`keyword_spans` computes (a document of 200,000 one-letter
elements asked 1.6 million: 135 s); the words beyond are not looked at."""


CHECK_EVERY = 512
"""Words looked at between two looks at :func:`keyword_spans`'s ``cancel``."""


class Cancelled(Exception):
    """Work stopped because its ``cancel`` event was set (its client went away)."""


def is_word_char(ch: str) -> bool:
    """A letter, number, mark or ``_`` (``isWordChar`` of ``static/judge.js``)."""
    return ch == "_" or unicodedata.category(ch)[0] in "LNM"


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of ``word`` in lower case ("elements" -> "element")."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:  # a stemmer keeps state while it works: one per thread
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    result: str = stemmer.stemWord(word.lower())
    return result


def is_pattern(keyword: str) -> bool:
    """Whether a keyword is a ``/regular expression/`` (``keywordPattern`` of the page)."""
    return re.fullmatch(r"/(.+)/[a-z]*", keyword.strip(), re.DOTALL) is not None


def words(text: str) -> Iterable[tuple[int, int]]:
    """The [start, end) of every run of word characters of ``text``."""
    start = None
    for at, ch in enumerate(text):
        if is_word_char(ch):
            if start is None:
                start = at
        elif start is not None:
            yield start, at
            start = None
    if start is not None:
        yield start, len(text)


def keyword_stems(keywords: Iterable[str]) -> set[str]:
    """The stems of the words of the keywords that are no regular expression."""
    return {stem(keyword[s:e]) for keyword in keywords if not is_pattern(keyword)
            for s, e in words(keyword)}


def keyword_spans(text: str, keywords: Iterable[str], edges: Sequence[int] = (),
                  cancel: threading.Event | None = None) -> list[tuple[int, int]]:
    """The [start, end) of the words of ``text`` whose stem is a keyword's stem, sorted. A run of
    word characters with element ``edges`` inside gives every run of its consecutive pieces (the
    page keeps those its block edges make words); words longer than :data:`LONGEST_WORD`
    characters or :data:`MOST_PIECES` pieces are skipped, and at most :data:`MOST_STEMS`
    stems are computed (the words after are left out). :class:`Cancelled` once ``cancel`` is
    set (looked at every :data:`CHECK_EVERY` words: a long article takes seconds)."""
    stems = keyword_stems(keywords)
    if not stems:
        return []
    cuts = sorted(set(edges))
    found: list[tuple[int, int]] = []
    # a stem is never longer than its word: shorter candidates are no keyword's
    shortest = min(len(s) for s in stems)
    budget = MOST_STEMS
    for count, (start, end) in enumerate(words(text)):
        if cancel is not None and count % CHECK_EVERY == 0 and cancel.is_set():
            raise Cancelled
        lo, hi = bisect_left(cuts, start + 1), bisect_left(cuts, end)
        bounds = [start, *cuts[lo:hi], end]
        for i in range(len(bounds) - 1):
            for j in range(i + 1, min(i + 1 + MOST_PIECES, len(bounds))):
                if bounds[j] - bounds[i] > LONGEST_WORD:
                    break
                if bounds[j] - bounds[i] < shortest:
                    continue
                if budget == 0:
                    return found
                budget -= 1
                if stem(text[bounds[i]:bounds[j]]) in stems:
                    found.append((bounds[i], bounds[j]))
    return found

