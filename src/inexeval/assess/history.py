"""The assessor's history panel: the last changes of the login session, each said in words
(``GET /api/history``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from inexeval.assess.merge import subtract

HISTORY_LENGTH = 20
"""Changes the history panel lists."""


def _passages(state: Mapping[str, Any]) -> tuple[tuple[int, int], ...]:
    return tuple((int(s), int(e)) for s, e in state.get("passages") or ())


def _characters(passages: tuple[tuple[int, int], ...]) -> str:
    count = sum(end - start for start, end in passages)
    return f"{count} character{'' if count == 1 else 's'}"


def _quoted(text: str, passages: tuple[tuple[int, int], ...], words: int = 6) -> str:
    """The first words of the first of ``passages`` in quotes (text only, never markup)."""
    start, end = passages[0]
    found = text[start:end].split()
    shown = " ".join(found[:words]) + ("…" if len(found) > words or len(passages) > 1 else "")
    return f"“{shown}” "


def describe(before: Mapping[str, Any], after: Mapping[str, Any], text: str = "") -> str:
    """One save in words: what was highlighted (its first words when the document's ``text``
    is given), unhighlighted, set and marked."""
    parts = []
    old, new = _passages(before), _passages(after)
    added, removed = subtract(new, old), subtract(old, new)
    if added:
        parts.append(f"highlighted {_quoted(text, added) if text else ''}"
                     f"({_characters(added)})")
    if removed:
        parts.append(f"unhighlighted {_quoted(text, removed) if text else ''}"
                     f"({_characters(removed)})")
    point = after.get("best_entry_point")
    if point != before.get("best_entry_point"):
        parts.append("best entry point removed" if point is None
                     else f"best entry point at {point}")
    for name in ("exhaustivity", "values"):
        was, now = before.get(name) or {}, after.get(name) or {}
        for path in sorted({*was, *now}):
            if was.get(path) != now.get(path):
                parts.append(f"{name} of {path} " + (f"set to {now[path]}" if path in now
                                                     else "cleared"))
    status = after.get("status")
    if status != before.get("status"):
        if status == "done":
            relevant = bool(new) or any(v not in ("0N", "E0S0")
                                        for v in (after.get("values") or {}).values())
            parts.append("done, relevant" if relevant else "done, not relevant")
        else:
            parts.append(f"now {status}")
    return "; ".join(parts) or "saved (no change)"


def history_rows(saves: list[dict[str, Any]],
                 text: Callable[[str], str] = lambda file: "") -> list[dict[str, Any]]:
    """The rows of ``GET /api/history`` from :meth:`inexeval.assess.store.Store.history`;
    ``text(file)`` is a document's text (for the first words of a highlight)."""
    return [{"at": save["at"], "topic": save["topic"], "file": save["file"],
             "version": save["after"].get("version"),
             "change": describe(save["before"], save["after"], text(save["file"])),
             "url": f"/topics/{quote(save['topic'], safe='')}/docs/"
                    f"{quote(save['file'], safe='/')}"}
            for save in saves]
