"""Format detection from content, and loading assessments and runs in any supported format.

Assessment formats: ``inex`` (INEX 2002-2008 XML, one file or a folder; ``inex2002``,
``inex2003``, ``inex2005`` force the scale), ``fol`` (INEX 2008+ plain-text qrels, spec §1.5.4:
5 or more columns, passages as ``offset:length``), ``trec`` (``topic iter doc rel``) and
``genomics`` (the TREC Genomics 2007 gold standard, :mod:`inexeval.formats.genomics`).
Run formats: ``xml`` (INEX XML submission), ``trec`` (7 columns: element run; 6 columns: TREC
document run) and ``fol`` (8 columns ending in an integer offset or ``X``/``-1`` and a length).

Detection looks at the XML root element name, or at the first non-blank line of a text file.
FOL files are read by :mod:`inexeval.formats.fol`, imported only when needed.
"""

from __future__ import annotations

from pathlib import Path

from inexeval.errors import FormatError, InexevalError
from inexeval.formats.inex_assessments import DIM_TYPES, read_inex_assessments
from inexeval.formats.submission import ROOT as SUBMISSION_ROOT
from inexeval.formats.submission import read_submission
from inexeval.formats.trec import read_lines, read_trec_qrels, read_trec_run
from inexeval.formats.xmlsafe import iterparse
from inexeval.model.assessments import Assessments
from inexeval.model.run import Run

ASSESSMENT_FORMATS = ("inex", *DIM_TYPES, "fol", "trec", "genomics")
RUN_FORMATS = ("xml", "trec", "fol")
"""Run formats; ``inex`` is accepted for ``xml`` (INEX submissions)."""


def _is_xml(path: Path) -> bool:
    with open(path, "rb") as handle:
        head = handle.read(512).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith((b"<", b"\xff\xfe", b"\xfe\xff"))


def _root(path: Path) -> str:
    for _, element in iterparse(path, path, events=("start",)):
        return str(element.tag)
    raise FormatError("empty XML document", path)


def _first_fields(path: Path) -> tuple[int, list[str]]:
    for line, fields in read_lines(path):
        return line, fields
    raise FormatError("the file is empty", path)


def _first_line(path: Path) -> str:
    """The first non-blank line as Latin-1 text, tabs kept."""
    with open(path, "rb") as handle:
        return next((raw.decode("latin-1") for raw in handle if raw.strip()), "")


def _existing(path: str | Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise InexevalError("no such file or folder", path)
    return path


def detect_assessments_format(path: str | Path) -> str:
    """``inex``, ``fol`` or ``trec``, from the content of ``path`` (a folder is ``inex``)."""
    path = _existing(path)
    if path.is_dir():
        return "inex"
    if _is_xml(path):
        root = _root(path)
        if root == "assessments":
            return "inex"
        raise FormatError(f"XML root <{root}> is not an INEX assessment file", path)
    from inexeval.formats.genomics import is_genomics_line

    if is_genomics_line(_first_line(path)):
        return "genomics"
    line, fields = _first_fields(path)
    if len(fields) == 4:
        return "trec"
    numeric = len(fields) >= 5 and all(f.lstrip("-").isdigit() for f in fields[3:5])
    if numeric and all(":" in f for f in fields[6:]):
        return "fol"
    raise FormatError(f"cannot tell the assessment format of a {len(fields)}-column line "
                      "(expected trec: topic iter doc rel, or FOL qrels)", path, line)


def detect_run_format(path: str | Path) -> str:
    """``xml``, ``trec`` or ``fol``, from the content of ``path``."""
    path = _existing(path)
    if path.is_dir():
        raise InexevalError("a run must be a file, not a folder", path)
    if _is_xml(path):
        root = _root(path)
        if root == SUBMISSION_ROOT:
            return "xml"
        raise FormatError(f"XML root <{root}> is not <{SUBMISSION_ROOT}>", path)
    line, fields = _first_fields(path)
    if len(fields) in (6, 7):
        return "trec"
    if len(fields) == 8:
        return "fol"
    raise FormatError(f"cannot tell the run format of a {len(fields)}-column line (expected 6 "
                      "or 7 columns, or 8 for FOL passages)", path, line)


def load_assessments(path: str | Path, fmt: str | None = None) -> Assessments:
    """Read assessments in ``fmt`` (one of :data:`ASSESSMENT_FORMATS`), detected if None."""
    fmt = fmt or detect_assessments_format(path)
    _existing(path)
    if fmt == "inex":
        return read_inex_assessments(path)
    if fmt in DIM_TYPES:
        return read_inex_assessments(path, scale=fmt)
    if fmt == "trec":
        return read_trec_qrels(path)
    if fmt == "fol":
        from inexeval.formats.fol import read_fol_qrels

        return read_fol_qrels(path)
    if fmt == "genomics":
        from inexeval.formats.genomics import read_genomics_gold

        return read_genomics_gold(path)
    raise InexevalError(f"unknown assessment format {fmt!r} (known: {', '.join(ASSESSMENT_FORMATS)})")


def load_run(path: str | Path, fmt: str | None = None, keep_repeats: bool = False) -> Run:
    """Read a run in ``fmt`` (one of :data:`RUN_FORMATS`), detected if None. Element and
    document runs drop a repeated result (warning) unless ``keep_repeats``; FOL runs keep
    everything, as the official evaluator does."""
    fmt = fmt or detect_run_format(path)
    _existing(path)
    if fmt in ("xml", "inex"):
        return read_submission(path, keep_repeats)
    if fmt == "trec":
        return read_trec_run(path, keep_repeats)
    if fmt == "fol":
        from inexeval.formats.fol import read_fol_run

        return read_fol_run(path)
    raise InexevalError(f"unknown run format {fmt!r} (known: {', '.join(RUN_FORMATS)})")
