"""Figures written one way everywhere: PNG, SVG or PDF as the file's suffix says, without a
creation date and with fixed SVG ids, so that the same data give the same bytes."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

FIGURE_FORMATS = ("png", "svg", "pdf")
_NO_DATE: dict[str, Any] = {"png": None, "svg": {"Date": None}, "pdf": {"CreationDate": None}}


def figure_format(path: str) -> str | None:
    """The figure format the suffix of ``path`` names, or None when it names none."""
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in FIGURE_FORMATS else None


def required_format(path: str) -> str:
    """The figure format of ``path``; an error naming the file when its suffix names none."""
    from inexeval.errors import InexevalError

    fmt = figure_format(path)
    if fmt is None:
        suffix = Path(path).suffix.lower().lstrip(".")
        raise InexevalError(f"cannot tell the figure format from the suffix {suffix!r} (.png, "
                            ".svg or .pdf)", path)
    return fmt


def figure_bytes(fig: Any, fmt: str) -> bytes:
    """``fig`` (a matplotlib Figure) in ``fmt``, reproducibly."""
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "inexeval"}):
        fig.savefig(buffer, format=fmt, metadata=_NO_DATE[fmt], dpi=150)
    return buffer.getvalue()


def captioned(fig: Any, title: str) -> Any:
    """``fig`` with ``title`` (a study's topics, rule and parameters) above its axes, wrapped
    to the figure's width."""
    import textwrap

    fig.suptitle(textwrap.fill(title, width=int(fig.get_figwidth() * 15)), fontsize=8,
                 horizontalalignment="left", x=0.01)
    return fig


def save_figure(fig: Any, path: str) -> None:
    """Write ``fig`` atomically to ``path`` in the format its suffix names."""
    from inexeval.outputs import atomic_output

    data = figure_bytes(fig, required_format(path))
    with atomic_output(path, "wb") as handle:
        handle.write(data)
