"""The pages as HTML over HTTP (no browser): who may see what, and that no document text is
ever part of a page; and the small helpers of :mod:`inexeval.assess.pages`."""

from __future__ import annotations

import html

import httpx
from tests.ui.campaign import XSS_IMG, XSS_SCRIPT
from tests.ui.conftest import Server

from inexeval.assess.model import topic_keywords
from inexeval.assess.pages import duration, next_unassessed, status_key


def test_pages_need_a_login_and_an_assignment(server: Server) -> None:
    anonymous = httpx.Client(base_url=server.url)
    for path in ("/", "/topics/1", "/topics/1/docs/co/a1", "/admin"):
        reply = anonymous.get(path)
        assert (reply.status_code, reply.headers["location"]) == (303, f"/login?next={path}")
    assert anonymous.get("/login").status_code == 200
    bob = server.api("bob")
    assert bob.get("/topics/2").status_code == 403
    assert bob.get("/topics/2/docs/co/big").status_code == 403
    assert bob.get("/topics/1/docs/co/big").status_code == 404
    assert bob.get("/topics/9").status_code == 404
    assert bob.get("/admin").status_code == 403
    assert bob.get("/admin/export?format=fol").status_code == 403
    assert server.api("boss").get("/admin/export?format=inex2002").status_code == 404
    anonymous.close()


def test_the_document_page_carries_no_document_text(server: Server) -> None:
    page = server.api("alice").get("/topics/1/docs/co/xss")
    assert page.status_code == 200
    for text in (XSS_SCRIPT, XSS_IMG, "must stay text"):
        assert text not in page.text
        assert html.escape(text) not in page.text
    assert "onerror" not in page.text


def test_the_topic_page_lists_the_pool_with_status_icons(server: Server) -> None:
    page = server.api("bob").get("/topics/1")
    assert page.status_code == 200
    assert page.text.count('data-status="unseen"') == 7
    assert '<a href="/topics/1/docs/co/astral">co/astral</a>' in page.text


def test_helpers() -> None:
    assert [duration(s) for s in (None, 40.4, 725, 3900)] == ["0 s", "40 s", "12 min",
                                                              "1 h 05 min"]
    assert topic_keywords({"keywords": "xml, retrieval; ranking", "title": "t"}) == [
        "xml", "retrieval", "ranking"]
    assert topic_keywords({"keywords": "", "title": "XML element retrieval of a"}) == [
        "XML", "element", "retrieval"]
    articles = [{"file": f, "status": s} for f, s in
                (("a", "done"), ("b", "unseen"), ("c", "done"), ("d", "in-progress"))]
    assert next_unassessed(articles, "b") == "d"
    assert next_unassessed(articles, "d") == "b"
    assert next_unassessed(articles, "x") == "b"
    assert next_unassessed(articles[:1], "a") is None
    assert [status_key({"status": s, "relevant": r}) for s, r in
            (("done", True), ("done", False), ("unseen", None))] == [
        "relevant", "non-relevant", "unseen"]
