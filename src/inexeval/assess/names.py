"""Element names for people, and which elements are too small to be asked about.

An assessor reads ``Section 2 › ¶ 3``, not ``/article[1]/bdy[1]/sec[2]/p[3]`` (the XPath stays in
a tooltip). The names come from the tag names of the two INEX collections: the IEEE Computer
Society articles of INEX 2002-2005 (``fm``, ``bdy``, ``sec``, ``ss1``, ``st``, ``p``, ``ip1``,
``it`` ...) and the Wikipedia XML corpus of INEX 2006-2008 (``name``, ``body``, ``section``,
``title``, ``p``, ``normallist``, ``emph2``, ``collectionlink`` ...), as X-Rai's style sheets
for them display each tag. A tag of neither keeps its own name.

*Inline* elements are never asked for an exhaustivity in highlight mode (the INEX 2005 rules,
:mod:`inexeval.assess.rules`): those whose tag the collections display in the line of text
(italics, bold, links, sub- and superscripts, name parts), and inside a paragraph, title, item
or cell those of a tag no style sheet names (the semantic annotations of the INEX 2009-2010
Wikipedia, ``<person>``, ``<country>`` ...), when they hold no other kind of element; and
every element whose text is shorter than ``min_chars`` characters (``assess init
--min-element-chars``, default :data:`MIN_ELEMENT_CHARS`).
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_ELEMENT_CHARS = 20
"""Elements with less text than this are not asked (``assess init --min-element-chars``)."""

PARAGRAPH = "¶"
_LABELS: dict[str, str] = {
    # IEEE Computer Society collection (INEX 2002-2005)
    "article": "Article", "fm": "Front matter", "bdy": "Body", "bm": "Back matter",
    "hdr": "Header", "hdr1": "Header", "hdr2": "Header", "ti": "Journal title",
    "atl": "Title", "st": "Title", "au": "Author", "aff": "Affiliation", "abs": "Abstract",
    "kwd": "Keywords", "sec": "Section", "ss1": "Subsection", "ss2": "Subsubsection",
    "ss3": "Subsubsection", "p": PARAGRAPH, "p1": PARAGRAPH, "p2": PARAGRAPH, "p3": PARAGRAPH,
    "ip1": PARAGRAPH, "ip2": PARAGRAPH, "ip3": PARAGRAPH, "ip4": PARAGRAPH, "ip5": PARAGRAPH,
    "ilrj": PARAGRAPH, "list": "List", "l1": "List", "l2": "List", "l3": "List", "l4": "List",
    "l5": "List", "l6": "List", "l7": "List", "l8": "List", "l9": "List", "la": "List",
    "lb": "List", "lc": "List", "ld": "List", "le": "List", "numeric-list": "List", "dl": "List",
    "li": "Item", "dd": "Item", "dt": "Term", "fig": "Figure", "fgc": "Caption",
    "art": "Image", "tbl": "Table", "tgroup": "Table", "row": "Row", "entry": "Cell",
    "bib": "Bibliography", "bibl": "Bibliography", "bb": "Reference", "app": "Appendix",
    "apt": "Title", "vt": "Biography", "edintro": "Introduction", "proof": "Proof",
    "theorem": "Theorem", "dialog": "Dialogue", "pre": "Listing", "ack": "Acknowledgements",
    "it": "italic", "b": "bold", "u": "underlined", "tt": "typewriter", "scp": "small caps",
    "sub": "subscript", "sup": "superscript", "ref": "reference", "rom": "roman",
    "bi": "bold italic", "bu": "bold underlined", "ariel": "sans serif", "fnm": "first name",
    "snm": "surname", "url": "address", "math": "formula", "tmath": "formula",
    # Wikipedia XML corpus (INEX 2006-2008)
    "name": "Title", "body": "Body", "section": "Section", "title": "Title",
    "normallist": "List", "numberlist": "List", "definitionlist": "List", "item": "Item",
    "table": "Table", "cell": "Cell", "template": "Template", "figure": "Figure",
    "caption": "Caption", "image": "Image", "emph2": "italic", "emph3": "bold",
    "emph4": "emphasis", "emph5": "emphasis", "collectionlink": "link", "outsidelink": "link",
    "unknownlink": "link", "wikipedialink": "link", "weblink": "link", "languagelink": "link",
    "i": "italic", "font": "font", "span": "span", "small": "small", "big": "big",
}
INLINE_TAGS = frozenset({
    # IEEE: fonts (ss sans serif, sc small capitals, bui/ub/ui their mixes), references, names
    "it", "b", "u", "tt", "scp", "sc", "ss", "sub", "sup", "ref", "rom", "bi", "bu", "bui", "ub",
    "ui", "ariel", "fnm", "snm", "url", "tmath", "fref",
    # Wikipedia 2006 (INEX 2006-2008) and 2009 (INEX 2009-2010)
    "emph", "emph2", "emph3", "emph4", "emph5", "link", "collectionlink", "outsidelink",
    "unknownlink", "wikipedialink", "weblink", "languagelink", "i", "em", "strong", "font",
    "span", "small", "big", "br", "a",
})
"""Tags the collections display in the line of text (their style sheets' inline elements)."""
_NUMBERED = frozenset({"Section", "Subsection", "Subsubsection", PARAGRAPH, "Item", "Figure",
                       "Table", "Appendix", "Reference", "Row", "Cell"})
_UNNAMED_STEPS = frozenset({"bdy", "body"})
"""Steps left out of a longer name: every section is in the body."""


def tag(path: str) -> str:
    """The local name of a canonical path's last step, lower case (``/a[1]/x:sec[2]`` gives
    ``sec``)."""
    step = path[path.rfind("/") + 1:]
    name = step[:step.find("[")] if "[" in step else step
    return name[name.find(":") + 1:].lower()


def label(tag_name: str) -> str:
    """What people call an element with this tag (the tag itself when unknown)."""
    return _LABELS.get(tag_name, tag_name)


def _parent(path: str) -> str:
    return path[:path.rfind("/")]


def element_names(elements: Sequence[tuple[str, int, int]]) -> dict[str, str]:
    """A readable name for every element ``(path, start, end)`` (document order): the labels
    of its steps below the root joined by ``›`` (the body left out), each numbered among its
    siblings of the same label when that label is numbered or shared by several siblings,
    e.g. ``Section 2 › ¶ 3``; the root is ``Article``."""
    children: dict[str, list[str]] = {}
    for path, _, _ in elements:
        children.setdefault(_parent(path), []).append(path)
    step_name: dict[str, str] = {}
    for siblings in children.values():
        labels = [label(tag(p)) for p in siblings]
        seen: dict[str, int] = {}
        for path, name in zip(siblings, labels):
            seen[name] = seen.get(name, 0) + 1
            numbered = name in _NUMBERED or labels.count(name) > 1
            step_name[path] = f"{name} {seen[name]}" if numbered else name
    names: dict[str, str] = {}
    chain: dict[str, str] = {}  # the name a child's name starts with
    for path, _, _ in elements:
        up = _parent(path)
        if up not in chain:  # the root, or an element whose parent is not listed
            names[path] = label(tag(path)) if "/" not in up else step_name[path]
            chain[path] = "" if "/" not in up else names[path]
            continue
        base = chain[up]
        names[path] = f"{base} › {step_name[path]}" if base else step_name[path]
        chain[path] = base if tag(path) in _UNNAMED_STEPS else names[path]
    return names


_TEXT_HOLDERS = frozenset({
    *(t for t, name in _LABELS.items() if name == PARAGRAPH), "p",
    "st", "atl", "title", "name", "fgc", "caption", "li", "item", "entry", "cell", "dd", "dt",
    "bb",
})
"""Tags of the elements that hold a line of text (paragraphs, titles, items, cells): an element
of a tag no collection's style sheet names (the INEX 2009-2010 Wikipedia's semantic
annotations, ``<person>``, ``<country>``, ... by the thousand) inside one is in the line too."""


def _inline_kind(path: str, in_text: bool) -> bool:
    name = tag(path)
    return name in INLINE_TAGS or (in_text and name not in _LABELS)


def inline_kinds(elements: Sequence[tuple[str, int, int]]) -> dict[str, bool]:
    """For each element (document order, a parent before its children), whether it is of an
    inline kind: an inline tag, or, inside a paragraph, title, item or cell
    (:data:`_TEXT_HOLDERS`), a tag that no collection's style sheet names. Its edges are no
    break in the line of text."""
    in_text: set[str] = set()  # the elements below a text holder
    kinds: dict[str, bool] = {}
    for path, _, _ in elements:
        up = _parent(path)
        if up in in_text or tag(up) in _TEXT_HOLDERS:
            in_text.add(path)
        kinds[path] = _inline_kind(path, path in in_text)
    return kinds


def inline_elements(elements: Sequence[tuple[str, int, int]],
                    min_chars: int = MIN_ELEMENT_CHARS) -> frozenset[str]:
    """The elements never asked for an exhaustivity (see the module docstring): shorter than
    ``min_chars`` characters, or of an inline kind with only inline kinds inside: an inline
    tag, or, inside a paragraph, title, item or cell (:data:`_TEXT_HOLDERS`), a tag that no
    collection's style sheet names."""
    kinds = inline_kinds(elements)
    holds_block: set[str] = set()
    for path, _, _ in elements:
        if not kinds[path]:
            up = _parent(path)
            while up.count("/") >= 1 and up not in holds_block:
                holds_block.add(up)
                up = _parent(up)
    return frozenset(path for path, start, end in elements
                     if end - start < min_chars or (kinds[path] and path not in holds_block))

