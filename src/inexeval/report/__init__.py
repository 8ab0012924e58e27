"""Turning :class:`inexeval.results.Results` into text: trec lines, CSV, JSON, LaTeX, tables."""

from inexeval.report.text import FORMATS, render

__all__ = ["FORMATS", "render"]
