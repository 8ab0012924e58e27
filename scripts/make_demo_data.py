"""Generate the example data of ``inexeval demo`` into src/inexeval/demo/data.

A small collection in the IEEE article layout (fm, bdy/sec/ss1/p, bm), assessments of three
topics in the INEX 2003/2004 layout (exhaustivity x specificity) and in the INEX 2005 layout
(highlighted passages, size, rsize, computed from the documents), and three runs of different
behaviour: heavy overlap, no overlap, articles only. Deterministic (fixed seed); run it again
after changing it and commit the result.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from xml.sax.saxutils import escape

OUT = Path(__file__).resolve().parent.parent / "src" / "inexeval" / "demo" / "data"
WORDS = ["retrieval", "element", "structure", "query", "index", "ranking", "document", "xml", "passage", "relevance", "assessor", "topic", "evaluation", "precision", "recall", "overlap", "markup", "section", "paragraph", "collection", "journal", "article", "search", "engine", "user", "model", "score", "vector"]
TOPICS = ("91", "92", "93")
JOURNALS = ("co", "tc")


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


class Doc:
    """An article built as nested lists so that paths and text lengths are known exactly."""

    def __init__(self, name: str, rng: random.Random) -> None:
        self.name = name
        self.paragraphs: list[tuple[str, str]] = []  # (path, text) of every p, in order
        title = sentence(rng, 4)
        parts = [f"<article><fm><ti>{escape(title)}</ti><au>A. Author &amp; B. Author</au></fm><bdy>"]
        self.text_length = len(title) + len("A. Author & B. Author")
        for s in range(1, rng.randint(2, 4) + 1):
            st = sentence(rng, 3)
            parts.append(f"<sec><st>{escape(st)}</st>")
            self.text_length += len(st)
            for p in range(1, rng.randint(2, 4) + 1):
                self._p(parts, f"/article[1]/bdy[1]/sec[{s}]/p[{p}]", rng)
            if rng.random() < 0.5:
                parts.append("<ss1>")
                for p in range(1, 3):
                    self._p(parts, f"/article[1]/bdy[1]/sec[{s}]/ss1[1]/p[{p}]", rng)
                parts.append("</ss1>")
            parts.append("</sec>")
        ref = sentence(rng, 6)
        parts.append(f"</bdy><bm><bib><bb>{escape(ref)}</bb></bib></bm></article>\n")
        self.text_length += len(ref)
        self.xml = "".join(parts)

    def _p(self, parts: list[str], path: str, rng: random.Random) -> None:
        text = " ".join(sentence(rng, rng.randint(6, 14)) for _ in range(rng.randint(1, 3)))
        parts.append(f"<p>{escape(text)}</p>")
        self.paragraphs.append((path, text))
        self.text_length += len(text)


def ancestors(path: str) -> list[str]:
    steps = path.split("/")[1:]
    return ["/" + "/".join(steps[:i]) for i in range(1, len(steps))]


def main() -> None:
    rng = random.Random(2005)
    if OUT.exists():
        shutil.rmtree(OUT)
    docs = []
    for k, journal in enumerate(JOURNALS):
        for i in range(8):
            docs.append(Doc(f"{journal}/2000/r7{k}{i:02d}", rng))
    for doc in docs:
        path = OUT / "collection" / f"{doc.name}.xml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + doc.xml, encoding="utf-8")

    judged: dict[str, dict[str, dict[str, tuple[int, int]]]] = {}
    highlighted: dict[str, dict[str, list[tuple[str, int]]]] = {}
    for topic in TOPICS:
        judged[topic] = {}
        highlighted[topic] = {}
        for doc in rng.sample(docs, 6):
            relevant = [p for p in doc.paragraphs if rng.random() < 0.45]
            if not relevant:
                continue
            marks: dict[str, tuple[int, int]] = {}
            for path, text in relevant:
                marks[path] = (rng.choice((2, 3)), 3)
                for depth, a in enumerate(reversed(ancestors(path))):
                    e, s = marks.get(a, (0, 0))
                    marks[a] = (max(e, min(3, 1 + depth // 2 + (len(relevant) > 2))),
                                max(s, 1 if depth >= 2 else 2))
            judged[topic][doc.name] = marks
            highlighted[topic][doc.name] = [(path, len(text)) for path, text in relevant]

    write_2004(judged)
    write_2005(docs, highlighted)
    write_runs(docs, judged, rng)
    write_topics()


def write_2004(judged: dict[str, dict[str, dict[str, tuple[int, int]]]]) -> None:
    folder = OUT / "assessments-2004"
    folder.mkdir(parents=True, exist_ok=True)
    for topic, files in judged.items():
        lines = [f"<assessments topic='{topic}'>"]
        for name, marks in files.items():
            lines.append(f"  <file file='{name}'>")
            for path, (e, s) in sorted(marks.items()):
                lines.append(f"    <path path='{path}' exhaustiveness='{e}' specificity='{s}'/>")
            lines.append("  </file>")
        lines.append("</assessments>")
        (folder / f"topic-{topic}.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_2005(docs: list[Doc], highlighted: dict[str, dict[str, list[tuple[str, int]]]]) -> None:
    folder = OUT / "assessments-2005"
    folder.mkdir(parents=True, exist_ok=True)
    by_name = {d.name: d for d in docs}
    for topic, files in highlighted.items():
        lines = [f'<assessments pool="demo" topic="{topic}" version="2">']
        for name, marks in files.items():
            doc = by_name[name]
            lengths = dict(doc.paragraphs)
            sizes = element_sizes(doc)
            rsizes: dict[str, int] = {}
            for path, n in marks:
                for p in [path, *ancestors(path)]:
                    rsizes[p] = rsizes.get(p, 0) + n
            lines.append(f'  <file collection="ieee" name="{name}">')
            lines.append(f'    <best-entry-point path="{marks[0][0]}"/>')
            for path, n in marks:
                lines.append(f'    <passage start="{path}/text()[1].0" end="{path}/text()[1].'
                             f'{len(lengths[path])}" size="{n}"/>')
            for path in sorted(rsizes):
                e = 2 if rsizes[path] * 2 >= sizes[path] else 1
                lines.append(f'    <element path="{path}" exhaustivity="{e}" size="{sizes[path]}" '
                             f'rsize="{rsizes[path]}"/>')
            lines.append("  </file>")
        lines.append("</assessments>")
        (folder / f"topic-{topic}.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def element_sizes(doc: Doc) -> dict[str, int]:
    """Text size of /article[1], bdy, sec, ss1 and p elements (st, fm and bm counted in parents)."""
    import re

    sizes: dict[str, int] = {"/article[1]": doc.text_length}
    bdy = doc.xml[doc.xml.index("<bdy>"):doc.xml.index("</bdy>")]
    sizes["/article[1]/bdy[1]"] = len(_text(bdy))
    for s, sec in enumerate(re.findall(r"<sec>.*?</sec>", bdy, flags=re.DOTALL), start=1):
        base = f"/article[1]/bdy[1]/sec[{s}]"
        sizes[base] = len(_text(sec))
        ss1 = re.search(r"<ss1>.*?</ss1>", sec, flags=re.DOTALL)
        if ss1:
            sizes[base + "/ss1[1]"] = len(_text(ss1.group(0)))
    for path, text in doc.paragraphs:
        sizes[path] = len(text)
    return sizes


def _text(xml: str) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", xml))


def write_runs(docs: list[Doc], judged: dict[str, dict[str, dict[str, tuple[int, int]]]],
               rng: random.Random) -> None:
    folder = OUT / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    behaviours = {
        "overlapping": "every judged element and its ancestors, paragraphs first",
        "focused": "non-overlapping paragraphs only",
        "articles": "whole articles only",
    }
    for run_id, description in behaviours.items():
        lines = [(f'<inex-submission participant-id="0" run-id="{run_id}" task="CO.Thorough" '
                  'query="automatic" topic-part="T">'),
                 f"  <description>{description}</description>"]
        for topic in TOPICS:
            lines.append(f'  <topic topic-id="{topic}">')
            results = candidates(run_id, docs, judged[topic], rng)
            for rank, (name, path) in enumerate(results, start=1):
                lines.append(f"    <result><file>{name}</file><path>{path}</path>"
                             f"<rank>{rank}</rank></result>")
            lines.append("  </topic>")
        lines.append("</inex-submission>")
        (folder / f"{run_id}.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def candidates(run_id: str, docs: list[Doc], marks: dict[str, dict[str, tuple[int, int]]],
               rng: random.Random) -> list[tuple[str, str]]:
    order = sorted(docs, key=lambda d: (d.name not in marks, rng.random()))
    out: list[tuple[str, str]] = []
    for doc in order:
        if run_id == "articles":
            out.append((doc.name, "/article[1]"))
            continue
        paragraphs = [p for p, _ in doc.paragraphs]
        rng.shuffle(paragraphs)
        chosen = paragraphs[: rng.randint(2, 5)]
        if run_id == "focused":
            out.extend((doc.name, p) for p in chosen)
        else:
            for p in chosen:
                out.append((doc.name, p))
                out.extend((doc.name, a) for a in reversed(ancestors(p))
                           if (doc.name, a) not in out)
    return out


def write_topics() -> None:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<topics>"]
    for topic in TOPICS:
        lines += [f'<inex_topic topic_id="{topic}" query_type="CO" ct_no="{topic}">',
                  f"<title>xml element retrieval evaluation {topic}</title>",
                  "<description>Demo topic.</description>",
                  "<narrative>Any element about evaluation is relevant.</narrative>",
                  "<keywords>xml, retrieval</keywords>", "</inex_topic>"]
    lines.append("</topics>")
    (OUT / "topics.xml").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
