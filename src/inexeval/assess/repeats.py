"""Unannounced repeats (issue 22, quality control): ``assess init --duplicates P`` shows a share
P of each assessor's articles a second time, later in their pool, so that ``/admin`` can report
each assessor's agreement with themselves.

The repeats of (topic, assessor) are drawn when the topic is assigned, deterministically (a
generator seeded by the topic, the assessor and the pool): ``count(P, n)`` of the ``n`` articles
of the pool, each placed right after an article that comes later in the pool than the original
(so the last article is never repeated). The assessor's pool lists a repeat as an ordinary
entry under the article's own name; only its address differs: an opaque one (:func:`key`).
Its judgement is kept apart (the store's ``repeats`` table, keyed like the
judgements), read and saved through the same API and PUT semantics, never exported and never
counted in progress or completeness.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from typing import Any


def count(share: float, articles: int) -> int:
    """How many of ``articles`` are repeated for a share ``share``: ``round(share ×
    articles)`` with halves rounded up (``floor(share × articles + 0.5)``, not Python's round
    to even: 0.25 × 10 = 2.5 gives 3), at most ``articles - 1`` (the last article has no later
    one to follow)."""
    if articles < 2 or share <= 0:
        return 0
    return min(math.floor(share * articles + 0.5 + 1e-9), articles - 1)


def draw(share: float, topic: str, assessor: str, files: Sequence[str]
         ) -> list[tuple[str, str]]:
    """The repeats of ``assessor`` for ``topic`` whose pool is ``files`` (in pool order):
    ``(file, the file it follows)``, in the order drawn. The same arguments always give the
    same repeats."""
    candidates = list(files[:-1])
    seed = hashlib.sha256("\0".join((topic, assessor, *files)).encode()).hexdigest()
    chooser = random.Random(seed)  # a reproducible draw, not a secret
    chosen = chooser.sample(candidates, min(count(share, len(files)), len(candidates)))
    at = {f: i for i, f in enumerate(files)}
    return [(f, files[chooser.randrange(at[f] + 1, len(files))]) for f in chosen]


def key(salt: str, topic: str, assessor: str, file: str) -> str:
    """A repeat's address: its article's folder and 16 hexadecimal digits of a SHA-256 of the
    campaign's secret ``salt``, the topic, the assessor and the article, so that neither the
    URL nor the pool says which article it repeats, nor that it is a repeat."""
    digest = hashlib.sha256(f"{salt}\0{topic}\0{assessor}\0{file}".encode()).hexdigest()
    folder = file.rpartition("/")[0]
    return f"{folder}/{digest[:16]}" if folder else digest[:16]


def place(articles: list[dict[str, Any]], repeats: Sequence[tuple[str, str, dict[str, Any]]]
          ) -> list[dict[str, Any]]:
    """The pool entries ``articles`` (each with ``file``) with each repeat ``(file, after,
    entry)`` placed right after the entry of ``after`` (repeats following the same article in
    the order given)."""
    following: dict[str, list[dict[str, Any]]] = {}
    for _, after, entry in repeats:
        following.setdefault(after, []).append(entry)
    placed = []
    for article in articles:
        placed.append(article)
        placed.extend(following.get(str(article["file"]), ()))
    return placed
