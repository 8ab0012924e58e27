"""Hostile and malformed XML through the one safe parser configuration."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from inexeval.errors import FormatError
from inexeval.formats.xmlsafe import iterparse, parse

LOL = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'.encode()
        for i in range(1, 10)
    )
    + b"]>"
)


@pytest.mark.parametrize("body", [b"<lolz>&lol9;</lolz>", b'<lolz a="&lol9;">x</lolz>'])
def test_entity_bomb_fails_fast_with_bounded_memory(tmp_path: Path, body: bytes) -> None:
    file = tmp_path / "bomb.xml"
    file.write_bytes(LOL + body)
    tracemalloc.start()
    began = time.perf_counter()
    with pytest.raises(FormatError):
        parse(file)
    with pytest.raises(FormatError):
        list(iterparse(file))
    elapsed = time.perf_counter() - began
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 1.0
    assert peak < 10_000_000


def test_external_entity_is_never_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    file = tmp_path / "xxe.xml"
    file.write_text(
        f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "{secret.as_uri()}">]><x>&e;</x>')
    with pytest.raises(FormatError, match="entity 'e'"):
        parse(file)
    with pytest.raises(FormatError, match="entity 'e'"):
        list(iterparse(file))


def test_external_dtd_is_not_loaded(tmp_path: Path) -> None:
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY hello "WORLD">')
    file = tmp_path / "doc.xml"
    file.write_text(f'<!DOCTYPE x SYSTEM "{dtd.as_uri()}"><x>a&hello;b</x>')
    root = parse(file).getroot()
    assert "WORLD" not in "".join(root.itertext())


def test_redeclared_predefined_entities_keep_their_meaning() -> None:
    text = b'<!DOCTYPE x [<!ENTITY amp "ampersand">]><x>a &amp; b</x>'
    assert parse(text, "t").getroot().text == "a & b"


def test_malformed_xml_names_file_and_line(tmp_path: Path) -> None:
    file = tmp_path / "bad.xml"
    file.write_text("<a>\n<b>\n</a>\n")
    with pytest.raises(FormatError) as caught:
        parse(file)
    assert caught.value.file == str(file)
    assert caught.value.line == 3
    with pytest.raises(FormatError) as streamed:
        list(iterparse(file))
    assert streamed.value.line == 3


def test_text_that_is_not_utf8_is_refused_unless_declared(tmp_path: Path) -> None:
    file = tmp_path / "latin.xml"
    file.write_bytes(b"<a>\ncaf\xe9</a>")
    with pytest.raises(FormatError) as caught:
        parse(file)
    assert caught.value.line == 2
    with pytest.raises(FormatError) as streamed:
        list(iterparse(file))
    assert streamed.value.line == 2
    file.write_bytes(b'<?xml version="1.0" encoding="ISO-8859-1"?><a>caf\xe9</a>')
    assert parse(file).getroot().text == "caf\u00e9"


def test_missing_file_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError):
        parse(tmp_path / "absent.xml")
