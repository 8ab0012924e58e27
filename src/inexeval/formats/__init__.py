"""Readers and writers, one module per format; nothing else in inexeval parses files.

XML parsers are configured only in :mod:`inexeval.formats.xmlsafe`; formats are detected from
content in :mod:`inexeval.formats.detect`, which also dispatches to the readers.
"""

SUBMISSION_ROOT = "inex-submission"
"""The root element of an INEX XML run (submission)."""

DIM_TYPES: dict[str, dict[str, type]] = {
    "inex2002": {"relevance": int, "coverage": int},
    "inex2003": {"exhaustivity": int, "specificity": int},
    "inex2005": {"exhaustivity": int, "size": float, "rsize": float},
}
"""The judgement dimensions of each INEX XML assessment scale (here, without the readers, so
that format detection names them without importing lxml)."""
