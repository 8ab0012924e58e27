"""Measure families, one module each; importing this package registers them all.

Every family is also an attribute, a measure object as in ir_measures: ``measures.MAiP``,
``measures.iP @ 0.01`` (prints as ``iP[0.01]``), ``measures.P(quant="generalised") @ 10``;
names that are not identifiers with ``getattr(measures, "R-Prec")``.
"""

from typing import Any

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


def __getattr__(name: str) -> Any:
    from inexeval.measures.registry import REGISTRY, Measure

    family = REGISTRY.get(name)
    if family is None:
        raise AttributeError(f"module 'inexeval.measures' has no measure {name!r}")
    return Measure(family, tuple((p.name, p.default) for p in family.params))
