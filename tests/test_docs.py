"""The documentation site: its generated references say what the commands print, and the built
site, looked at in Chromium, shows its pages whole.

The measure reference (docs/reference/measures.md) and the command-line reference
(docs/reference/cli.md) are written at build time by scripts/docs_reference.py; here they are
parsed back and compared with what ``inexeval measures``, ``inexeval measures NAME`` and
``inexeval COMMAND --help`` print, run as a user runs them (through :func:`inexeval.cli.main`)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib.util
import itertools
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from inexeval.cli import main

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference",
                                                  ROOT / "scripts" / "docs_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entries(markdown: str) -> list[tuple[str, str]]:
    """(heading, text of the block under it) for each heading followed by a text block."""
    entry = r"^#+ ([^\n]+)\n\n(?:[^`#\n][^\n]*\n\n)?```text\n(.*?)\n```\n"
    return [(m[1], m[2]) for m in re.finditer(entry, markdown, flags=re.MULTILINE | re.DOTALL)]


def _printed(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with contextlib.suppress(SystemExit):
        assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_pages_hold_the_markers() -> None:
    assert "<!-- generated: measures -->" in (ROOT / "docs/reference/measures.md").read_text()
    assert "<!-- generated: cli -->" in (ROOT / "docs/reference/cli.md").read_text()


def test_measure_reference_is_what_inexeval_measures_prints(
        capsys: pytest.CaptureFixture[str]) -> None:
    from inexeval.measures.registry import families

    entries = _entries(_generator().measures_markdown())
    assert entries[0][0] == "Every measure"
    assert entries[0][1] + "\n" == _printed(capsys, "measures")
    described = entries[1:]
    assert len(described) == len(families())
    for heading, text in described:
        syntax = heading.strip("`")
        name = re.split(r"[@\[(]", syntax)[0]
        assert text + "\n" == _printed(capsys, "measures", name), syntax


def test_cli_reference_is_what_help_prints(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(_generator().WIDTH))
    entries = _entries(_generator().cli_markdown())
    names = [heading.strip("`") for heading, _ in entries]
    assert names[0] == "inexeval" and "inexeval eval" in names
    assert "inexeval assess serve" in names and "inexeval meta power" in names
    for name, text in entries:
        words = name.strip("`").split()[1:]
        assert text + "\n" == _printed(capsys, *words, "--help"), name


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as CI builds it (``mkdocs build --strict``)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings_handlers.python")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    built = tmp_path_factory.mktemp("site")
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(built), strict=True)
    build(config)
    return built


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_built_site_holds_the_generated_references(site: Path) -> None:
    measures = (site / "reference" / "measures" / "index.html").read_text(encoding="utf-8")
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "generated:" not in measures and "generated:" not in cli
    assert "MAiP" in measures and "interpolated precision at recall level x" in measures
    assert "usage: inexeval assess serve" in cli
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert all(f"{name}" in api for name in ("calc_aggregate", "Experiment", "Scores"))
    assert ":class:" not in api and ":func:" not in api  # the Sphinx roles of the docstrings


def test_readme_links_into_the_docs_resolve() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", readme)
    assert len(links) >= 10
    assert [link for link in links if not (ROOT / link).is_file()] == []


def _headings(page: Path) -> list[tuple[int, str]]:
    """(level, text) of the page's Markdown headings, outside code blocks."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"),
                  flags=re.MULTILINE | re.DOTALL)
    return [(len(m[1]), m[2]) for m in re.finditer(r"^(#+) (.+)$", text, flags=re.MULTILINE)]


@pytest.mark.parametrize("page", sorted((ROOT / "docs").rglob("*.md")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_first_section_does_not_repeat_the_title(page: Path) -> None:
    """A page's first section is not its title again (``# Pooling and judging`` then
    ``## Pooling``), and a heading is at most one level below the one before it."""
    headings = _headings(page)
    assert headings and headings[0][0] == 1, page
    title = headings[0][1].lower()
    sections = [text.lower() for level, text in headings[1:] if level == 2]
    assert not sections or not title.startswith(sections[0]), (page, sections[0])
    for (above, _), (level, text) in itertools.pairwise(headings):
        assert level <= above + 1, (page, text)


SHOWN = 100
"""Columns a code block shows whole at 1280 px (docs/stylesheets/extra.css): what inexeval
prints is at most this wide, but for a few lines that scroll inside their block."""
SHOTS = [("", "home"), ("guides/evaluating-runs/", "guide"), ("reference/measures/", "measures")]


@pytest.mark.parametrize(("path", "name"), SHOTS, ids=[n for _, n in SHOTS])
def test_pages_are_readable_in_chromium(site: Path, browser: object, path: str, name: str,
                                        tmp_path: Path) -> None:
    """Home, a guide and the measure reference at 1280 x 900: the page has its title and
    navigation, nothing is wider than the window (code blocks scroll inside themselves), a code
    block of lines up to :data:`SHOWN` columns shows them whole, and each code block has
    Material's copy button. The screenshots are kept in
    ``$INEXEVAL_SCREENSHOTS`` (default: the test's temporary folder)."""
    import os

    shots = Path(os.environ.get("INEXEVAL_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with _served(site) as url:
        page = browser.new_page(  # type: ignore[attr-defined]
            viewport={"width": 1280, "height": 900})
        try:
            page.goto(url + path)
            page.wait_for_load_state("networkidle")
            assert "inexeval" in page.title()
            assert page.locator("nav.md-nav--primary").count() >= 1
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{name}: {overflow} px wider than the window"
            hidden = page.evaluate(f"""() => [...document.querySelectorAll('article pre > code')]
                .filter(code => code.scrollWidth > code.clientWidth)
                .map(code => code.innerText.split('\\n'))
                .filter(lines => Math.max(...lines.map(line => line.length)) <= {SHOWN})
                .map(lines => lines[0])""")
            assert hidden == [], f"{name}: code blocks cut off at the right: {hidden}"
            blocks = page.locator("article pre > code").count()
            buttons = page.locator("article pre [data-md-type=copy]").count()
            assert blocks > 0 and buttons == blocks, (name, blocks, buttons)
            page.screenshot(path=str(shots / f"{name}.png"))
        finally:
            page.close()
    assert (shots / f"{name}.png").stat().st_size > 10_000
    shutil.copy(shots / f"{name}.png", tmp_path / f"{name}-copy.png")
