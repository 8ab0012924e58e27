"""Errors and warnings of inexeval.

Every problem with the user's input is an :class:`InexevalError` carrying the file, the line
(where known) and the reason; the command line turns it into one line on stderr and exit code 2.
Warnings go through :func:`warn`, which the command line prints as one line each on stderr.
"""

from __future__ import annotations

import warnings
from pathlib import Path

MAX_REASON = 1000
"""Characters of a reason kept in a message: every error stays one short line, whatever field
of the input it quotes."""


SHOWN = 80
"""Characters of an offending field quoted in a message."""


def shown(value: bytes | str) -> str:
    """A field of the input for a message: decoded, at most :data:`SHOWN` characters, quoted."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


def _where(file: str | Path | None, line: int | None) -> str:
    if file is None:
        return ""
    return f"{file}:{line}: " if line is not None else f"{file}: "


class InexevalError(Exception):
    """A problem with the user's input or request, reported as ``file:line: reason``."""

    def __init__(self, reason: str, file: str | Path | None = None, line: int | None = None):
        reason = " ".join(reason.splitlines())
        if len(reason) > MAX_REASON:
            reason = reason[:MAX_REASON - 3] + "..."
        self.reason = reason
        self.file = None if file is None else str(file)
        self.line = line
        super().__init__(f"{_where(file, line)}{reason}")


class FormatError(InexevalError):
    """A file that cannot be read as the format it claims or was detected to be."""


class MeasureError(InexevalError):
    """Unknown measure names, parameters or values (all problems of one request together)."""


class RunError(InexevalError):
    """A run that breaks the rules of its task (overlap, interleaving, ...)."""


class InexevalWarning(UserWarning):
    """Something suspicious in the input that does not stop the evaluation."""


def warn(reason: str, file: str | Path | None = None, line: int | None = None) -> None:
    """Emit an :class:`InexevalWarning` as ``file:line: reason``."""
    warnings.warn(f"{_where(file, line)}{reason}", InexevalWarning, stacklevel=2)


def warn_unassessed(topics: list[str], source: str | None) -> None:
    """One warning naming (the first five of) the run's topics that have no assessments."""
    if topics:
        shown = ", ".join(topics[:5]) + (" ..." if len(topics) > 5 else "")
        warn(f"{len(topics)} topic(s) in the run have no assessments and are ignored: {shown}",
             source)
