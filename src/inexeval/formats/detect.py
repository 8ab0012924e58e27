"""Format detection from content, and loading assessments and runs in any supported format.

Assessment formats: ``inex`` (INEX 2002-2008 XML, one file or a folder; ``inex2002``,
``inex2003``, ``inex2005`` force the scale), ``fol`` (INEX 2008+ plain-text qrels, spec §1.5.4:
5 or more columns, passages as ``offset:length``), ``trec`` (``topic iter doc rel``),
``genomics`` (the TREC Genomics 2007 gold standard, :mod:`inexeval.formats.genomics`) and
``sampled`` (NIST's ``topic iter docno stratum rel``, :mod:`inexeval.formats.sampled`; told
from five-column FOL qrels by an iteration other than ``Q0`` or a negative relevance).
Run formats: ``xml`` (INEX XML submission), ``trec`` (7 columns: element run; 6 columns: TREC
document run) and ``fol`` (8 columns ending in an integer offset or ``X``/``-1`` and a length).

Detection looks at the XML root element name, or at the first non-blank line of a text file,
in the first bytes of the stream the reader then reads (:meth:`Source.head`): every input is
read once, so ``-`` (standard input) and pipes work. FOL files are read by
:mod:`inexeval.formats.fol`, imported only when needed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from inexeval.errors import FormatError, InexevalError
from inexeval.formats import DIM_TYPES, SUBMISSION_ROOT
from inexeval.formats.source import BOM, Source, first_fields, is_xml, opened

if TYPE_CHECKING:
    from inexeval.model.assessments import Assessments
    from inexeval.model.run import Run

# Each reader (and lxml, for the XML formats) is imported when a file of its format comes:
# evaluating FOL files starts without the XML machinery.
ASSESSMENT_FORMATS = ("inex", *DIM_TYPES, "fol", "trec", "genomics", "sampled")
RUN_FORMATS = ("xml", "trec", "fol")
"""Run formats; ``inex`` is accepted for ``xml`` (INEX submissions)."""


def _checked(path: str | Path, what: str) -> str | Path:
    """``path`` if it is a file name (TypeError otherwise) that names something (or ``-``)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} is a file name (str or path), not {type(path).__name__}")
    if str(path) != "-" and not Path(path).exists():
        raise InexevalError("no such file or folder", path)
    return path


def _first_line(source: Source) -> str:
    """The first non-blank line of the stream's head as Latin-1 text, tabs kept."""
    lines = source.head().removeprefix(BOM).replace(b"\r", b"\n").split(b"\n")
    return next((line.decode("latin-1") for line in lines if line.strip()), "")


def _assessments_format(source: Source) -> str:
    if is_xml(source):
        from inexeval.formats.xmlsafe import root_tag

        root = root_tag(source)
        if root == "assessments":
            return "inex"
        raise FormatError(f"XML root <{root}> is not an INEX assessment file", source.name)
    from inexeval.formats.probes import is_genomics_line

    if is_genomics_line(_first_line(source)):
        return "genomics"
    line, fields = first_fields(source)
    if len(fields) == 4 or fields[0].startswith("#") and _comments_then_qrels(source):
        return "trec"
    from inexeval.formats.sampled import is_sampled_line

    if is_sampled_line(fields):
        return "sampled"
    numeric = len(fields) >= 5 and all(f.lstrip("-").isdigit() for f in fields[3:5])
    from inexeval.formats.fol import ends_with_stratum

    passages = fields[6:-1] if ends_with_stratum(fields) else fields[6:]
    if numeric and all(":" in f for f in passages):
        return "fol"
    raise FormatError(f"cannot tell the assessment format of {column_line(len(fields))} "
                      "(expected trec: topic iter doc rel, or FOL qrels)", source.name, line)


def _comments_then_qrels(source: Source) -> bool:
    """Whether the first line that is no ``#`` comment line (trec_eval skips them in qrels) has
    TREC qrels' four fields."""
    try:
        return len(first_fields(source, comments=True)[1]) == 4
    except FormatError:  # nothing but comments: the first line's problem is told
        return False


def column_line(count: int) -> str:
    """``a 3-column line``, ``an 8-column line``: the article as the number is spoken."""
    spoken_vowel = str(count).startswith("8") or count in (11, 18) or (
        len(str(count)) in (5, 8) and str(count)[:2] in ("11", "18"))
    return f"{'an' if spoken_vowel else 'a'} {count}-column line"


def _run_format(source: Source) -> str:
    if is_xml(source):
        from inexeval.formats.xmlsafe import root_tag

        root = root_tag(source)
        if root == SUBMISSION_ROOT:
            return "xml"
        raise FormatError(f"XML root <{root}> is not <{SUBMISSION_ROOT}>", source.name)
    line, fields = first_fields(source)
    from inexeval.formats.trec_columns import looks_like_fol

    if looks_like_fol([f.encode("utf-8") for f in fields]):
        return "fol"
    if len(fields) >= 6:
        return "trec"  # 7 columns: an element's path, or text after a document's run id
    raise FormatError(f"cannot tell the run format of {column_line(len(fields))} (expected 6 "
                      "or 7 columns, or 8 for FOL passages)", source.name, line)


def detect_assessments_format(path: str | Path) -> str:
    """``inex``, ``fol`` or ``trec``, from the content of ``path`` (a folder is ``inex``)."""
    if Path(_checked(path, "the assessments")).is_dir():
        return "inex"
    with opened(path) as source:
        return _assessments_format(source)


def detect_run_format(path: str | Path) -> str:
    """``xml``, ``trec`` or ``fol``, from the content of ``path``."""
    if Path(_checked(path, "a run")).is_dir():
        raise InexevalError("a run must be a file, not a folder", path)
    with opened(path) as source:
        return _run_format(source)


def detect_run_kind(path: str | Path, fmt: str | None = None) -> str:
    """``passage``, ``element`` or ``document``: the results of the run at ``path`` in format
    ``fmt`` (detected if None), from its first line (FOL: passages; 7 columns, the last a path:
    elements; 6, or more with text after the run id: documents); an INEX XML submission counts as ``element`` (its results are not looked at)."""
    with opened(_checked(path, "a run")) as source:
        fmt = fmt or _run_format(source)
        if fmt in ("xml", "inex"):
            return "element"
        if fmt == "fol":
            return "passage"
        from inexeval.formats.trec_columns import text_after_run_id

        fields = [f.encode("utf-8") for f in first_fields(source)[1]]
        text_after = text_after_run_id(fields, source.head())
        return "document" if len(fields) == 6 or text_after else "element"


def peek_run_name(path: str | Path, fmt: str | None = None) -> str | None:
    """The name :func:`load_run` gives the run at ``path`` (format ``fmt``, detected if None),
    found without reading the run: an XML submission's ``run-id`` (else the file's stem), a
    TREC run's first run-id, a FOL run's last run-id (from the end of the file, as the official
    evaluator names a run). None where that would mean reading it all or cannot be done:
    standard input, a pipe, a compressed FOL run, a file that cannot be read or recognised (it
    is reported when it is evaluated)."""
    if str(path) == "-" or not Path(path).is_file():
        return None
    try:
        with opened(path) as source:
            fmt = fmt or _run_format(source)
            if fmt in ("xml", "inex"):
                from inexeval.formats.xmlsafe import root_attributes

                return root_attributes(source).get("run-id", Path(source.name).stem)
            if fmt == "trec":
                fields = first_fields(source)[1]
                return fields[5] if len(fields) > 5 else None
            if source.compression:
                return None
        with open(path, "rb") as raw:
            start = max(0, raw.seek(0, os.SEEK_END) - _TAIL)
            raw.seek(start)
            tail = raw.read()
    except (InexevalError, OSError):
        return None
    # the first line read is cut unless the file starts there
    lines = [line for line in tail.replace(b"\r", b"\n").split(b"\n")[bool(start):]
             if line.strip()]
    try:
        fields = lines[-1].decode("utf-8").split() if lines else []
    except UnicodeDecodeError:
        return None
    return fields[5] if len(fields) > 5 else None


_TAIL = 1 << 16
"""Bytes read from the end of a FOL run for its last line (:func:`peek_run_name`)."""


def load_assessments(path: str | Path, fmt: str | None = None) -> Assessments:
    """Read assessments in ``fmt`` (one of :data:`ASSESSMENT_FORMATS`), detected if None;
    ``path`` is a file, a folder of per-topic INEX files, or ``-`` (standard input)."""
    _checked(path, "the assessments")
    if fmt is not None and fmt not in ASSESSMENT_FORMATS:
        raise InexevalError(f"unknown assessment format {fmt!r} (known: "
                            f"{', '.join(ASSESSMENT_FORMATS)})")
    if Path(path).is_dir() and str(path) != "-":
        from inexeval.formats.inex_assessments import read_inex_assessments

        return read_inex_assessments(path, scale=None if fmt in (None, "inex") else fmt)
    with opened(path) as source:
        fmt = fmt or _assessments_format(source)
        if fmt == "trec":
            from inexeval.formats.trec import read_trec_qrels

            return read_trec_qrels(source)
        if fmt == "fol":
            from inexeval.formats.fol import read_fol_qrels

            return read_fol_qrels(source)
        if fmt == "sampled":
            if len(first_fields(source)[1]) > 5:  # FOL qrels with a stratum field
                from inexeval.formats.fol import read_fol_qrels

                return read_fol_qrels(source, sampled=True)
            from inexeval.formats.sampled import read_sampled_qrels

            return read_sampled_qrels(source)
        if fmt == "genomics":
            from inexeval.formats.genomics import read_genomics_gold

            return read_genomics_gold(source)
        from inexeval.formats.inex_assessments import read_inex_assessments

        return read_inex_assessments(source, scale=None if fmt == "inex" else fmt)


def run_parts(path: str | Path, fmt: str | None = None, keep_repeats: bool = False
              ) -> Iterator[Run]:
    """The run :func:`load_run` reads, given a group of whole topics at a time where that can be
    done (a FOL or TREC run in a file: :func:`inexeval.formats.fol.read_fol_run_parts`,
    :func:`inexeval.formats.trec.read_trec_run_parts`, which raise
    :class:`~inexeval.formats.source.TopicResumed` when a topic resumes after others: read it
    with :func:`load_run` then), else as one part (an INEX XML submission, standard input, a
    pipe). Nothing is read before the first part is asked for."""
    if fmt in (None, "fol", "trec") and str(path) != "-" and Path(path).is_file():
        with opened(path) as source:
            fmt = fmt or _run_format(source)
            if fmt == "fol":
                from inexeval.formats.fol import read_fol_run_parts

                yield from read_fol_run_parts(source)
                return
            if fmt == "trec":
                from inexeval.formats.trec import read_trec_run_parts

                yield from read_trec_run_parts(source, keep_repeats)
                return
    yield load_run(path, fmt, keep_repeats)


def load_run(path: str | Path, fmt: str | None = None, keep_repeats: bool = False) -> Run:
    """Read a run in ``fmt`` (one of :data:`RUN_FORMATS`), detected if None; ``-`` reads
    standard input. Element and document runs drop a repeated result (warning) unless
    ``keep_repeats``; FOL runs keep everything, as the official evaluator does."""
    _checked(path, "a run")
    if fmt is not None and fmt not in (*RUN_FORMATS, "inex"):
        raise InexevalError(f"unknown run format {fmt!r} (known: {', '.join(RUN_FORMATS)})")
    if str(path) != "-" and Path(path).is_dir():
        raise InexevalError("a run must be a file, not a folder", path)
    with opened(path) as source:
        fmt = fmt or _run_format(source)
        if fmt in ("xml", "inex"):
            from inexeval.formats.submission import read_submission

            return read_submission(source, keep_repeats)
        if fmt == "trec":
            from inexeval.formats.trec import read_trec_run

            return read_trec_run(source, keep_repeats)
        from inexeval.formats.fol import read_fol_run

        return read_fol_run(source)
