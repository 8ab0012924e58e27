"""Inline SVG figures for the HTML report, with the standard library only.

The report must open anywhere from the core install, so its figures are drawn here rather than
by matplotlib: a line chart (the measures' curves) and a bar chart (sorted per-topic
differences). Every drawn series carries its exact values in ``data-`` attributes, so a test
can check what was drawn against the measure code; every string is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

PALETTE = ("#0072b2", "#c68900", "#009e73", "#cc79a7", "#4b9dcb", "#d55e00", "#000000",
           "#9e962c", "#7f7f7f", "#8c564b", "#1f3d7a", "#a6761d", "#65a41e", "#e7298a",
           "#7570b3", "#b2182b", "#14a3b2", "#4d4d00", "#5e3c99", "#ce7e7d")
"""Twenty colours: Okabe and Ito's colour-blind safe eight (yellow moved after black), then
twelve of other hues and lightness; each pale one darkened (same hue) to a contrast of at
least 3:1 on white (WCAG 2.1's non-text contrast, 1.4.11), so that no run is drawn too pale to
see on paper; the figures of ``inexeval plot`` use the same."""
DASHES = ("", "7 3", "7 3 2 3", "2 2")
"""Solid, dashed, dash-dotted and dotted lines (``stroke-dasharray``), as matplotlib's
``-``, ``--``, ``-.`` and ``:``."""


def run_stroke(index: int) -> tuple[str, str]:
    """The colour and dash pattern of the ``index``-th run: twenty colours, neighbours in
    different dashes, a repeated colour (beyond twenty) in another dash."""
    return (PALETTE[index % len(PALETTE)],
            DASHES[(index + index // len(PALETTE)) % len(DASHES)])
WIN = "#2e7d32"
LOSS = "#c62828"

_HEIGHT = 340
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 16, 46


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 times a power of ten) covering
    [low, high]."""
    if not high > low:
        high = low + 1.0
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step + 1e-9) * step
    ticks = [round(first, 12)]
    while ticks[-1] < high - step * 1e-9:
        ticks.append(round(ticks[-1] + step, 12))
    return ticks


def _number(value: float) -> str:
    return "nan" if math.isnan(value) else repr(float(value))


def _label(value: float) -> str:
    return f"{value:g}"


class _Frame:
    """The plotting area and the mapping from data to pixels."""

    def __init__(self, x_range: tuple[float, float], y_range: tuple[float, float],
                 width: int = 640) -> None:
        self.width = width
        self.x0, self.x1 = x_range
        self.y0, self.y1 = y_range
        if self.x1 == self.x0:
            self.x1 = self.x0 + 1.0

    def x(self, value: float) -> float:
        return _LEFT + (value - self.x0) / (self.x1 - self.x0) * (self.width - _LEFT - _RIGHT)

    def y(self, value: float) -> float:
        return _HEIGHT - _BOTTOM - (value - self.y0) / (self.y1 - self.y0) * (
            _HEIGHT - _TOP - _BOTTOM)

    def axes(self, x_ticks: Sequence[float], y_ticks: Sequence[float], x_label: str,
             y_label: str) -> list[str]:
        area = (f'<rect class="plot-area" x="{_LEFT}" y="{_TOP}" '
                f'width="{self.width - _LEFT - _RIGHT}" height="{_HEIGHT - _TOP - _BOTTOM}"/>')
        parts = [area]
        for tick in y_ticks:
            y = self.y(tick)
            parts.append(f'<line class="grid" x1="{_LEFT}" x2="{self.width - _RIGHT}" y1="{y:.1f}" '
                         f'y2="{y:.1f}"/><text class="tick" x="{_LEFT - 6}" y="{y + 4:.1f}" '
                         f'text-anchor="end">{_label(tick)}</text>')
        for tick in x_ticks:
            x = self.x(tick)
            parts.append(f'<line class="axis" x1="{x:.1f}" x2="{x:.1f}" '
                         f'y1="{_HEIGHT - _BOTTOM}" y2="{_HEIGHT - _BOTTOM + 4}"/>'
                         f'<text class="tick" x="{x:.1f}" y="{_HEIGHT - _BOTTOM + 17}" '
                         f'text-anchor="middle">{_label(tick)}</text>')
        parts.append(f'<text class="axis-label" x="{(_LEFT + self.width - _RIGHT) / 2}" '
                     f'y="{_HEIGHT - 8}" text-anchor="middle">{escape(x_label)}</text>')
        middle = (_TOP + _HEIGHT - _BOTTOM) / 2
        parts.append(f'<text class="axis-label" x="14" y="{middle}" text-anchor="middle" '
                     f'transform="rotate(-90 14 {middle})">{escape(y_label)}</text>')
        return parts


def _svg(frame: _Frame, parts: list[str], label: str) -> str:
    return (f'<svg class="chart" viewBox="0 0 {frame.width} {_HEIGHT}" role="img" '
            f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
            + "".join(parts) + "</svg>")


def line_chart(x: Sequence[float], series: Mapping[str, Sequence[float]], *, x_label: str,
               y_label: str) -> str:
    """One polyline per run (colour by position, see :func:`legend`); NaN points are left out.
    Each polyline has ``data-run``, ``data-x`` and ``data-y`` (exact values)."""
    finite = [v for values in series.values() for v in values if not math.isnan(v)]
    top = max(finite, default=1.0)
    low = min(0.0, min(finite, default=0.0))
    y_ticks = nice_ticks(low, top if top > low else low + 1.0)
    frame = _Frame((min(x), max(x)), (y_ticks[0], y_ticks[-1]))
    parts = frame.axes(nice_ticks(min(x), max(x)), y_ticks, x_label, y_label)
    for i, (run, values) in enumerate(series.items()):
        points = " ".join(f"{frame.x(a):.2f},{frame.y(b):.2f}" for a, b in zip(x, values)
                          if not math.isnan(b))
        colour, dashes = run_stroke(i)
        dash = f' stroke-dasharray="{dashes}"' if dashes else ""
        parts.append(
            f'<polyline class="series" fill="none" stroke="{colour}" stroke-width="2"{dash} '
            f'points="{points}" data-run="{escape(run)}" '
            f'data-x="{" ".join(_number(a) for a in x)}" '
            f'data-y="{" ".join(_number(b) for b in values)}"><title>{escape(run)}</title>'
            "</polyline>")
    return _svg(frame, parts, y_label)


def legend(runs: Sequence[str]) -> str:
    """The HTML legend of :func:`line_chart`: a sample of the run's line (its colour and
    dashes) and the run's name."""
    items = []
    for i, run in enumerate(runs):
        colour, dashes = run_stroke(i)
        dash = f' stroke-dasharray="{dashes}"' if dashes else ""
        items.append(f'<li><svg class="swatch" viewBox="0 0 28 6" aria-hidden="true">'
                     f'<line x1="0" y1="3" x2="28" y2="3" stroke="{colour}" stroke-width="2.5"'
                     f'{dash}/></svg>{escape(run)}</li>')
    return f'<ul class="legend">{"".join(items)}</ul>'


def difference_bars(differences: Mapping[str, float], *, y_label: str,
                    reach: float | None = None) -> str:
    """Per-topic differences as bars sorted from the largest gain to the largest loss (green
    above zero, red below); each bar has ``data-topic`` and ``data-value`` and a tooltip.
    ``reach``: the y-axis covers [-reach, reach] (the largest difference of every run drawn,
    so that several charts share one scale); default this chart's largest."""
    ordered = sorted(differences.items(), key=lambda item: (-item[1], item[0]))
    values = [d for _, d in ordered]
    reach = (reach if reach is not None else max((abs(v) for v in values), default=0.0)) or 1.0
    y_ticks = nice_ticks(-reach, reach, 6)
    frame = _Frame((0.0, float(max(len(values), 1))), (y_ticks[0], y_ticks[-1]), width=960)
    parts = frame.axes([], y_ticks, f"topics, sorted by difference ({len(values)})", y_label)
    zero = frame.y(0.0)
    width = max((frame.x(1.0) - frame.x(0.0)) * 0.8, 0.5)
    for i, (topic, value) in enumerate(ordered):
        top = frame.y(max(value, 0.0))
        height = abs(frame.y(value) - zero)
        colour = WIN if value > 0 else LOSS
        parts.append(
            f'<rect class="bar" x="{frame.x(i + 0.1):.2f}" y="{top:.2f}" width="{width:.2f}" '
            f'height="{height:.2f}" fill="{colour}" data-topic="{escape(topic)}" '
            f'data-value="{_number(value)}"><title>topic {escape(topic)}: {value:+.4f}</title>'
            "</rect>")
    parts.append(f'<line class="zero" x1="{_LEFT}" x2="{frame.width - _RIGHT}" y1="{zero:.1f}" '
                 f'y2="{zero:.1f}"/>')
    return _svg(frame, parts, y_label)
