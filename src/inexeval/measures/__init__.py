"""Measure families, one module each; importing this package registers them all."""

from inexeval.measures import (  # noqa: F401
    cutoff,
    eprum,
    focused,
    genomics,
    hixeval,
    ng,
    precall,
    trec,
    xcg,
)
