"""Measure families, one module each, registered when the registry is first consulted
(:func:`inexeval.measures.registry.parse_measures`), so that a command using one family (an
official task) does not import the others.

Every family is also an attribute, a measure object as in ir_measures: ``measures.MAiP``,
``measures.iP @ 0.01`` (prints as ``iP[0.01]``), ``measures.P(quant="generalised") @ 10``;
names that are not identifiers with ``getattr(measures, "R-Prec")``.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    from inexeval.measures.registry import REGISTRY, Measure, families

    families()  # registers the built-in families
    family = REGISTRY.get(name)
    if family is None:
        raise AttributeError(f"module 'inexeval.measures' has no measure {name!r}")
    return Measure(family, tuple((p.name, p.default) for p in family.params))
