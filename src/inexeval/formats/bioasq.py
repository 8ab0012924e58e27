"""BioASQ task B golden and system JSON files, read for the snippet measures as BioASQ's own
evaluator reads them (BioASQ/Evaluation-Measures, ``flat/BioASQEvaluation``,
``src/data/Task1bData.java``: ``readData``, ``readSnippets``, ``readDocuments``).

Both kinds have one layout: ``{"questions": [{"id", "snippets": [{"document",
"offsetInBeginSection", "offsetInEndSection", "beginSection", "endSection", "text"?}],
"documents"?: [...], ...}]}``; every other field is skipped. As the evaluator reads them:

* a section name is kept from its first ``.`` on (``sections.0`` -> ``0``; ``abstract`` stays);
* a key given twice in a question appends (``snippets``, ``documents``), as ``addSnippets``
  does; ``questions`` given twice at the top appends too;
* only whether a golden question's ``documents`` list is empty matters here (BioASQ 9 skips
  such a question in its first pass, see :mod:`inexeval.measures.bioasq`).

Refused (one line naming the file and the question, exit 2), where the evaluator would stop with
a Java exception or compute from a value it did not read: a file that is not a JSON object with a
``questions`` list (neither a golden nor a system file), a question without a string ``id``, an
id given twice (the evaluator would score a golden one twice, and only the first answer), a
``snippets`` or ``documents`` value that is not a list, a document in that list that is not a
string, a snippet without its document, sections or offsets, an offset that is not a whole
number from 0 to 2**31 - 1, an end before its begin in one section, and a document made of
``/`` only (the evaluator's ``getDocumentOnlyID`` fails on it). Offsets whose snippet begins
and ends in different sections are kept as they are, whatever their order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inexeval.errors import FormatError, shown
from inexeval.formats.source import BOM, Source, opened

MAX_OFFSET = 2**31 - 1
"""The largest offset Java's ``int`` (the evaluator's ``JsonReader.nextInt``) reads."""


@dataclass(frozen=True)
class Snippet:
    """A snippet as the evaluator holds it: its document string, its sections from their first
    ``.`` on, and its offsets (the end inclusive)."""

    document: str
    begin_section: str
    end_section: str
    begin: int
    end: int


@dataclass(frozen=True)
class BioasqQuestion:
    """A question's snippets in file order, and whether its ``documents`` list is non-empty."""

    id: str
    snippets: tuple[Snippet, ...]
    has_documents: bool


@dataclass(frozen=True)
class BioasqFile:
    """The questions of a golden or system file, by id in file order."""

    source: str
    questions: dict[str, BioasqQuestion]

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[str]:
        return iter(self.questions)


class _Pairs(list[tuple[str, Any]]):
    """A JSON object's members in order, repeated keys kept (the evaluator's streaming reader
    sees each)."""

    def get_all(self, key: str) -> list[Any]:
        return [value for name, value in self if name == key]


def _is_array(value: Any) -> bool:
    """A JSON array (an object is read as a list of pairs)."""
    return isinstance(value, list) and not isinstance(value, _Pairs)


def read_bioasq(path: str | Path | Source) -> BioasqFile:
    """Read a golden or system file (see the module docstring)."""
    with opened(path) as source:
        name = source.name
        raw = source.read()
    try:
        data = json.loads(raw.removeprefix(BOM).decode("utf-8"), object_pairs_hook=_Pairs)
    except (UnicodeDecodeError, ValueError) as error:
        raise FormatError(f"not a BioASQ JSON file: {error}", name) from None
    lists = data.get_all("questions") if isinstance(data, _Pairs) else []
    if not lists or not all(_is_array(q) for q in lists):
        raise FormatError('neither a BioASQ golden nor a system file: expected a JSON object '
                          'with a "questions" list', name)
    questions: dict[str, BioasqQuestion] = {}
    for number, item in enumerate((q for group in lists for q in group), 1):
        question = _question(item, number, name)
        if question.id in questions:
            raise FormatError(f"question {shown(question.id)} is given twice", name)
        questions[question.id] = question
    return BioasqFile(name, questions)


def _question(item: Any, number: int, name: str) -> BioasqQuestion:
    if not isinstance(item, _Pairs):
        raise FormatError(f"question {number} is not a JSON object", name)
    ids = item.get_all("id")
    if not ids or not isinstance(ids[-1], str):
        raise FormatError(f"question {number} has no string id", name)
    qid = ids[-1]
    where = f"question {shown(qid)}"
    snippets: list[Snippet] = []
    for group in item.get_all("snippets"):
        if not _is_array(group):
            raise FormatError(f"{where}: snippets is not a list", name)
        snippets.extend(_snippet(s, k, where, name) for k, s in enumerate(group, 1))
    documents = item.get_all("documents")
    if not all(_is_array(d) for d in documents):
        raise FormatError(f"{where}: documents is not a list", name)
    if not all(isinstance(d, (str, int, float)) and not isinstance(d, bool)
               for group in documents for d in group):  # what JsonReader.nextString reads
        raise FormatError(f"{where}: a document of its documents list is not a string", name)
    return BioasqQuestion(qid, tuple(snippets), any(documents))


_FIELDS = ("document", "beginSection", "endSection", "offsetInBeginSection",
           "offsetInEndSection")


def _snippet(item: Any, number: int, where: str, name: str) -> Snippet:
    here = f"{where}, snippet {number}"
    if not isinstance(item, _Pairs):
        raise FormatError(f"{here} is not a JSON object", name)
    values = dict(item)
    missing = [f for f in _FIELDS if f not in values]
    if missing:
        raise FormatError(f"{here} has no {', '.join(missing)}", name)
    for field in _FIELDS[:3]:
        if not isinstance(values[field], str):
            raise FormatError(f"{here}: {field} {shown(str(values[field]))} is not a string",
                              name)
    document = values["document"]
    if document and not document.strip("/"):
        raise FormatError(f"{here}: document {shown(document)} has no id after its '/'", name)
    begin, end = (_offset(values[f], f, here, name) for f in _FIELDS[3:])
    begin_section, end_section = (_section(values[f]) for f in _FIELDS[1:3])
    if begin_section == end_section and end < begin:
        raise FormatError(f"{here}: offsetInEndSection {end} is before offsetInBeginSection "
                          f"{begin} in section {shown(begin_section)}", name)
    return Snippet(document, begin_section, end_section, begin, end)


def _section(name: str) -> str:
    """The section from its first ``.`` on, as ``substring(indexOf('.') + 1)`` keeps it."""
    return name[name.find(".") + 1:]


def _offset(value: Any, field: str, here: str, name: str) -> int:
    whole = (not isinstance(value, bool) and isinstance(value, (int, float))
             and math.isfinite(value) and value == int(value))
    if not whole or not 0 <= int(value) <= MAX_OFFSET:
        raise FormatError(f"{here}: {field} {shown(str(value))} is not a whole number from 0 "
                          f"to {MAX_OFFSET}", name)
    return int(value)
