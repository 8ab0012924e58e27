"""Measure families, one module each, registered when the registry is first consulted
(:func:`inexeval.measures.registry.parse_measures`), so that a command using one family (an
official task) does not import the others.

Every family is also an attribute, a measure object as in ir_measures: ``measures.MAiP``,
``measures.iP @ 0.01`` (prints as ``iP[0.01]``), ``measures.P(quant="generalised") @ 10``;
names that are not identifiers with ``getattr(measures, "R-Prec")``.
"""

from typing import Any

FAMILY_MODULES = ("bioasq", "chroma", "cutoff", "eprum", "focused", "genomics", "hixeval",
                  "legalbench", "ng", "precall", "sampled", "trec", "xcg")
"""Modules of :mod:`inexeval.measures` that register the built-in families."""

DOCUMENT_NAMES = frozenset({
    "AP", "map", "map_cut", "gm_map", "R-Prec", "Rprec", "bpref", "Bpref", "gm_bpref", "RR",
    "recip_rank", "IPrec", "iprec_at_recall", "R", "recall", "infAP", "Rprec_mult", "utility",
    "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "nDCG", "ndcg", "ndcg_cut", "ndcg_rel", "Rndcg",
    "relative_P", "Success", "success", "SetP", "set_P", "SetRelP", "set_relative_P", "SetR",
    "set_recall", "SetAP", "set_map", "SetF", "set_F", "yaap", "RBP", "rbp", "rbp_resid", "unj",
    "num_ret", "NumRet", "num_rel", "NumRel", "num_rel_ret", "NumRelRet",
    "num_nonrel_judged_ret", "Judged", "P"})
"""The names (and aliases) of the TREC document families (:mod:`inexeval.measures.trec`, and
``P`` of :mod:`inexeval.measures.cutoff`, which imports it): a name among them is parsed
without importing the other families' modules (and lxml, the collection code), so that
``eval`` and the API start at once on TREC qrels (a test checks the set against the
registry)."""


def __getattr__(name: str) -> Any:
    from inexeval.measures.registry import REGISTRY, Measure, families

    families()  # registers the built-in families
    family = REGISTRY.get(name)
    if family is None:
        raise AttributeError(f"module 'inexeval.measures' has no measure {name!r}")
    return Measure(family, tuple((p.name, p.default) for p in family.params))
