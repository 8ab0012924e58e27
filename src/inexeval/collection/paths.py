"""Element paths: canonical form, steps, and containment by steps (spec §1.2).

An element is addressed by an absolute path of child steps with 1-based positional predicates
counting same-named siblings, e.g. ``/article[1]/bdy[1]/sec[2]``. Paths are compared step by
step, never as strings: ``/a[1]/s[1]`` is a string prefix of ``/a[1]/s[10]`` but not its ancestor.
"""

from __future__ import annotations

import re
from functools import lru_cache

from inexeval.errors import InexevalError, shown

MAX_POSITION_DIGITS = 15
"""Digits of the largest step position accepted (as every integer of the input formats)."""

_STEP = re.compile(r"^([A-Za-z_][\w.\-:]*)(?:\[\s*([0-9]+)\s*\])?$")


@lru_cache(maxsize=1 << 16)
def canonical_path(path: str) -> str:
    """Return the canonical form of ``path``: whitespace removed, ``[1]`` added to bare steps,
    a trailing ``/`` dropped. Raises :class:`InexevalError` for anything that is not an absolute
    path of child steps with positional predicates."""
    text = "".join(path.split())
    if text.endswith("/") and len(text) > 1:
        text = text[:-1]
    if not text.startswith("/") or text.startswith("//"):
        raise InexevalError(f"path {shown(path)} is not an absolute path of child steps")
    steps = []
    for raw in text[1:].split("/"):
        match = _STEP.match(raw)
        if match is None:
            raise InexevalError(f"path {shown(path)} has an unsupported step {shown(raw)}")
        if len(match.group(2) or "") > MAX_POSITION_DIGITS:
            raise InexevalError(f"path {shown(path)} has a position too large in step "
                                f"{shown(raw)}")
        position = int(match.group(2) or 1)
        if position < 1:
            raise InexevalError(f"path {shown(path)} has a position below 1 in step "
                                f"{shown(raw)}")
        steps.append(f"{match.group(1)}[{position}]")
    return "/" + "/".join(steps)


def steps(path: str) -> tuple[str, ...]:
    """The steps of a canonical path: ``/a[1]/b[2]`` gives ``('a[1]', 'b[2]')``."""
    return tuple(path[1:].split("/")) if path else ()


def depth(path: str) -> int:
    """Number of steps (the root ``/article[1]`` has depth 1)."""
    return path.count("/")


def is_ancestor_or_self(ancestor: str, descendant: str) -> bool:
    """True when canonical ``ancestor`` is ``descendant`` or one of its ancestors (same file)."""
    return descendant == ancestor or descendant.startswith(ancestor + "/")


def nested(a: str, b: str) -> bool:
    """True when two canonical paths of the same file are equal or one contains the other."""
    return is_ancestor_or_self(a, b) or is_ancestor_or_self(b, a)


def parent(path: str) -> str | None:
    """The canonical path of the parent, or None for the root."""
    cut = path.rfind("/")
    return path[:cut] if cut > 0 else None


def ancestors(path: str) -> list[str]:
    """Proper ancestors of a canonical path, nearest first."""
    found = []
    cut = path.rfind("/")
    while cut > 0:
        path = path[:cut]
        found.append(path)
        cut = path.rfind("/")
    return found
