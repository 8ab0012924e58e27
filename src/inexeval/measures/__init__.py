"""Measure families, one module each, registered when the registry is first consulted
(:func:`inexeval.measures.registry.parse_measures`), so that a command using one family (an
official task) does not import the others."""

FAMILY_MODULES = ("cutoff", "eprum", "focused", "hixeval", "ng", "precall", "xcg")
"""Modules of :mod:`inexeval.measures` that register the built-in families."""
