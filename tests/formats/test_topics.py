"""Topic files: the real INEX 2009/2010 files, and 2002 and 2003-2006 topics in their layouts."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from inexeval.errors import FormatError, InexevalError
from inexeval.formats.topics import nexi_target, read_topics

DATA = Path(__file__).parents[1] / "data" / "formats" / "topics"
from tests.helpers import DATA as SHARED
from tests.helpers import needs_shared


@needs_shared
def test_inex2009_topics() -> None:
    topics = read_topics(SHARED / "inex2009" / "INEX-2009-topics.xml")
    assert len(topics) == 115
    first = topics["2009001"]
    assert first.title == "Nobel prize"
    assert first.castitle == "//article[about(., Nobel prize)]"
    assert first.fields["phrasetitle"] == '"Nobel prize"'
    assert first.fields["ct_no"] == "186"
    assert first.description == "information about Nobel prize"
    assert all(t.topic_id.startswith("2009") for t in topics.values())


@needs_shared
def test_inex2010_topics_with_inline_dtd() -> None:
    topics = read_topics(SHARED / "inex2010" / "2010-topics.xml")
    assert len(topics) == 107
    assert next(iter(topics)) == "2010001"
    # the inline DTD redeclares amp; it keeps its standard meaning
    assert topics["2010092"].fields["phrasetitle"].endswith('"Drum & bass"')
    assert topics["2010003"].castitle.startswith("//article[about(., Monuments)")


def test_inex2002_cas_topic_figure_3() -> None:
    topic = read_topics(DATA / "topic-2002-cas.xml")["09"]
    assert topic.query_type == "CAS"
    assert topic.target_elements == ("article",)
    assert topic.title == "non-monotonic reasoning 1999 2000 -calendar belief revision"
    assert topic.fields["ce"] == "bdy/sec | hdr//yr | tig/at1"
    assert topic.fields["ct_no"] == "048"
    assert topic.keywords.startswith("non-monotonic reasoning")


def test_inex2002_co_topic_figure_4_has_no_target() -> None:
    topic = read_topics(DATA / "topic-2002-co.xml")["45"]
    assert (topic.query_type, topic.target_elements) == ("CO", ())
    assert topic.title == "augmented reality and medicine"


@needs_shared
def test_inex_topic_files_follow_the_real_dtd() -> None:
    dtd = etree.DTD(str(SHARED / "inex-ieee" / "topic.dtd"))
    assert dtd.validate(etree.parse(str(DATA / "topic-2004-cas.xml")))
    topic = read_topics(DATA / "topic-2004-cas.xml")["130"]
    assert topic.query_type == "CAS"
    assert topic.target_elements == ("sec",)
    co_s = read_topics(DATA / "topic-2005-co.xml")["203"]
    assert (co_s.query_type, co_s.target_elements) == ("CO+S", ())
    assert co_s.castitle == "//sec[about(., code signing verification)]"


def test_a_folder_of_topic_files() -> None:
    assert sorted(read_topics(DATA)) == ["09", "130", "203", "45"]


@pytest.mark.parametrize(
    ("expression", "targets"),
    [
        ("//article[about(., x)]//sec[about(., y)]", ("sec",)),
        ("//article[about(.//(sec|p), x)]//(sec|p)[about(., y)]", ("sec", "p")),
        ("//*[about(., x)]", ()),
        ("//article[about(., a[b])]", ("article",)),
        ("", ()),
    ],
)
def test_nexi_target(expression: str, targets: tuple[str, ...]) -> None:
    assert nexi_target(expression) == targets


def test_bad_topic_files(tmp_path: Path) -> None:
    with pytest.raises(InexevalError):
        read_topics(tmp_path / "absent.xml")
    bad = tmp_path / "bad.xml"
    bad.write_text('<inex_topic topic_id="1">\n<title>x</titel>\n</inex_topic>')
    with pytest.raises(FormatError) as caught:
        read_topics(bad)
    assert caught.value.line == 2
    bad.write_text("<inex_topic><title>x</title></inex_topic>")
    with pytest.raises(FormatError, match="no topic id"):
        read_topics(bad)
    bad.write_text('<topics><topic id="1"/><topic id="1"/></topics>')
    with pytest.raises(FormatError, match="twice"):
        read_topics(bad)
    bad.write_text("<nothing/>")
    with pytest.raises(FormatError, match="no topic"):
        read_topics(bad)
