"""A small generated campaign for the browser tests: a collection in the IEEE layout (one
article with markup-like text, one with characters outside the BMP, one of 50,000 characters),
two topics and an article pool, written as the files ``inexeval assess init`` reads."""

from __future__ import annotations

import random
from pathlib import Path
from xml.sax.saxutils import escape

WORDS = ["retrieval", "evaluation", "element", "passage", "assessor", "relevance", "query", "article", "section", "paragraph", "markup", "collection", "structure", "ranking", "precision", "recall", "topic", "document", "index", "model", "vector", "engine", "overlap", "judgement", "highlight"]

XSS_SCRIPT = "<script>alert(1)</script>"
XSS_IMG = '<img src=x onerror="alert(2)">'
ASTRAL = "\U0001d518\U0001d52b\U0001d526 \U0001f600"


def sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def article(title: str, sections: list[tuple[str, list[str]]], items: list[str] = ()) -> str:
    """An IEEE-style article: ``fm/ti``, ``bdy/sec`` with ``st`` and ``p``, a ``list``."""
    body = "".join(
        "<sec><st>" + escape(heading) + "</st>"
        + "".join(f"<p>{escape(p)}</p>" for p in paragraphs) + "</sec>"
        for heading, paragraphs in sections)
    if items:
        body += "<sec><st>Items</st><list>" + "".join(
            f"<item>{escape(i)}</item>" for i in items) + "</list></sec>"
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<article><fm><ti>{escape(title)}</ti>'
            f"</fm><bdy>{body}</bdy></article>\n")


POOLED_ELEMENTS = ("/article[1]/bdy[1]/sec[1]/p[1]", "/article[1]/bdy[1]/sec[2]/p[1]")
"""The pooled elements of ``co/a1`` in an element pool (the 2002/2003 modes)."""


def write_campaign(folder: Path, big_chars: int = 50_000, element_pool: bool = False,
                   extra: dict[str, str] | None = None) -> dict[str, Path]:
    """Write the collection, topics and pool into ``folder``; returns their paths. The pool is
    an article pool, or with ``element_pool`` one whose ``co/a1`` has :data:`POOLED_ELEMENTS`.
    ``extra`` adds documents (``{name: XML}``) to the collection and to topic 1's pool."""
    rng = random.Random(11)
    collection = folder / "collection"
    (collection / "co").mkdir(parents=True)
    docs: dict[str, str] = {
        "co/a1": article("Element retrieval evaluation", [
            ("Passages and elements", ["Assessors highlight relevant passages in articles.",
                                       "Elements holding highlighted text get exhaustivity."]),
            ("Best entry points", ["A best entry point is where reading should start."]),
        ], ["First item of the list.", "Second item of the list."]),
        "co/xss": article("Markup inside the text", [
            ("Inert markup", [f"The text {XSS_SCRIPT} must stay text.",
                              f"So must {XSS_IMG} and \"onerror=alert(3) here."]),
        ]),
        "co/astral": article("Characters outside the BMP", [
            ("Astral", [f"Before {ASTRAL} after the astral characters.",
                        "The evaluation paragraph that follows them."]),
        ]),
    }
    for k in range(2, 6):
        docs[f"co/a{k}"] = article(f"Article {k} on {rng.choice(WORDS)}", [
            (sentence(rng, 3), [sentence(rng, 15) for _ in range(3)]) for _ in range(2)])
    sections = []
    size = 0
    while size < big_chars:
        paragraphs = [sentence(rng, 60) for _ in range(5)]
        heading = sentence(rng, 4)
        sections.append((heading, paragraphs))
        size += len(heading) + sum(len(p) for p in paragraphs)
    docs["co/big"] = article("A long article", sections)
    docs.update(extra or {})
    for name, xml in docs.items():
        (collection / f"{name}.xml").parent.mkdir(parents=True, exist_ok=True)
        (collection / f"{name}.xml").write_text(xml, encoding="utf-8", newline="")

    topics = folder / "topics.xml"
    topics.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<topics>\n'
        '<inex_topic topic_id="1" query_type="CO">\n<title>element retrieval evaluation</title>\n'
        "<description>Find passages about evaluating element retrieval.</description>\n"
        "<narrative>Text about assessors, passages or best entry points is relevant; "
        "anything else is not.</narrative>\n<keywords>evaluation, passage</keywords>\n"
        "</inex_topic>\n"
        '<inex_topic topic_id="2" query_type="CO">\n<title>long articles</title>\n'
        "<description>Long articles.</description>\n<narrative>Any.</narrative>\n"
        "<keywords>retrieval</keywords>\n</inex_topic>\n</topics>\n", encoding="utf-8")

    pool = folder / "pool.tsv"
    topic_1 = ["co/a1", "co/xss", "co/astral", "co/a2", "co/a3", "co/a4", "co/a5", *(extra or {})]
    lines = [f"1\t{f}\t\t{rank}\t1" for rank, f in enumerate(topic_1, 1)
             if not (element_pool and f == "co/a1")]
    if element_pool:
        lines += [f"1\tco/a1\t{path}\t1\t1" for path in POOLED_ELEMENTS]
    lines.append("2\tco/big\t\t1\t1")
    pool.write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    return {"collection": collection, "topics": topics, "pool": pool}
