"""The documentation's generated pages, written at build time by MkDocs (``hooks:`` in
mkdocs.yml): the measure reference from the registry, as ``inexeval measures`` and
``inexeval measures NAME`` print it, and the command-line reference from the argparse parsers,
as ``inexeval COMMAND --help`` prints it. A page holds ``<!-- generated: measures -->`` or
``<!-- generated: cli -->`` where the text goes; tests/test_docs.py checks the text is what the
commands print. No second list: both come from the code each time the site is built."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
from collections.abc import Iterator
from typing import Any

WIDTH = 80
"""The terminal width the ``--help`` texts are formatted for (``COLUMNS``)."""


@contextlib.contextmanager
def _columns(width: int = WIDTH) -> Iterator[None]:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _fence(text: str) -> str:
    return f"```text\n{text.rstrip()}\n```\n"


def measures_markdown() -> str:
    """Every family as ``inexeval measures`` lists it, then each in full as
    ``inexeval measures NAME`` shows it, one heading each."""
    from inexeval.commands.measures import describe_family, listing
    from inexeval.measures.registry import families, group, group_key, syntax

    parts = ["## Every measure", "", "What `inexeval measures` prints:", "", _fence(listing()),
             "## Each family", "",
             "What `inexeval measures NAME` prints for each family, grouped as above.", ""]
    heading = None
    for family in sorted(families(), key=lambda f: (group_key(f), group(f), f.name.lower())):
        if group(family) != heading:
            heading = group(family)
            parts += [f"### {heading}", ""]
        parts += [f"#### `{syntax(family)}`", "", _fence(describe_family(family))]
    return "\n".join(parts)


def commands() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command and sub-command with its parser, depth first: ``("inexeval", top)``,
    ``("inexeval assess", ...)``, ``("inexeval assess init", ...)`` ..."""
    from inexeval.cli import parser

    found: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(name: str, node: argparse.ArgumentParser) -> None:
        found.append((name, node))
        for action in node._actions:
            if isinstance(action, argparse._SubParsersAction):
                choices: dict[str, Any] = action.choices
                for sub, child in choices.items():
                    walk(f"{name} {sub}", child)

    walk("inexeval", parser())
    return found


def help_text(node: argparse.ArgumentParser) -> str:
    """What ``--help`` prints, at :data:`WIDTH` columns."""
    with _columns():
        buffer = io.StringIO()
        node.print_help(buffer)
        return buffer.getvalue()


def cli_markdown() -> str:
    """Each command's ``--help``, one heading each (``inexeval eval``, ``inexeval assess
    serve`` ...)."""
    parts: list[str] = []
    for name, node in commands():
        depth = min(name.count(" ") + 2, 4)
        parts += ["#" * depth + f" `{name}`", "", _fence(help_text(node))]
    return "\n".join(parts)


GENERATORS = {"measures": measures_markdown, "cli": cli_markdown}


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs hook: put the generated text in place of its marker."""
    for name, generate in GENERATORS.items():
        marker = f"<!-- generated: {name} -->"
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return markdown


_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):(?=<code>)")


def on_page_content(html: str, **_: Any) -> str:
    """MkDocs hook: the docstrings' Sphinx roles (``:class:`Results```) shown as the code they
    name, without the role."""
    return _ROLE.sub("", html)
