"""Measure families, one module each; importing this package registers them all."""

from inexeval.measures import cutoff, eprum, focused, hixeval, ng, precall, xcg  # noqa: F401
