"""The browser interface's HTML pages: login, the assessor's topics, a topic's pool, the
document page and the admin page (server-rendered with Jinja2; the document page's work is done
by ``static/assess.js`` through the JSON API).

The interface follows X-Rai, the INEX 2005-2010 assessment tool (Piwowarski et al.): the topic
always in view, the pool grouped by article with a status icon each, text highlighted with one
key, exhaustivity for the elements holding highlighted text, a best entry point, and a red/green
check of what is missing before a document is done. Document text never reaches a template:
the page receives it as JSON and builds DOM text nodes from it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from inexeval.assess.adaptive import serve
from inexeval.assess.api import Service, download_headers, session_of
from inexeval.assess.campaign import NothingToExport, export_download
from inexeval.assess.model import ACTIVE_SECONDS, topic_keywords
from inexeval.assess.store import NotFound, Store, User

HERE = Path(__file__).parent
Handler = Callable[[Request], Awaitable[Response]]

EXPORTS = {"passages": ("fol", "json"), "highlight": ("fol", "inex2005", "json"),
           "2002": ("inex2002", "json"), "2003": ("inex2003", "json")}
"""The export formats of each mode (``inexeval assess export --format``)."""

STATUS_ICONS = {
    "unseen": ("○", "unseen"),
    "in-progress": ("◐", "in progress"),
    "relevant": ("●", "done, relevant"),
    "non-relevant": ("✕", "done, non-relevant"),
}


def duration(seconds: float | None) -> str:
    """Seconds as ``1 h 05 min``, ``12 min``, or ``40 s``."""
    total = round(seconds or 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min"
    return f"{secs} s"


def status_key(article: dict[str, Any]) -> str:
    """``unseen``, ``in-progress``, ``relevant`` or ``non-relevant`` (done documents)."""
    if article["status"] == "done":
        return "relevant" if article.get("relevant") else "non-relevant"
    return str(article["status"])


def doc_url(topic: str, file: str) -> str:
    return f"/topics/{quote(topic, safe='')}/docs/{quote(file, safe='/')}"


def next_unassessed(articles: list[dict[str, Any]], file: str) -> str | None:
    """The first article after ``file`` in pool order (wrapping round) that is not done."""
    files = [a["file"] for a in articles]
    at = files.index(file) if file in files else -1
    for article in articles[at + 1:] + articles[:max(at, 0)]:
        if article["status"] != "done" and article["file"] != file:
            return str(article["file"])
    return None


def routes(service: Service) -> list[BaseRoute]:
    """The page routes of the app, reading the service's store; the session is the API's
    (:func:`inexeval.assess.api.session_of`)."""
    store = service.store
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["duration"] = duration

    async def render(request: Request, name: str, context: dict[str, Any],
                     page_data: dict[str, Any] | None = None) -> Response:
        session = await session_of(request)
        user, csrf = session if session else (None, None)
        base = {"user": user.name if user else None, "is_admin": bool(user and user.admin),
                "page_data": {"csrf_token": csrf, "user": user.name if user else None,
                              **(page_data or {})}}
        return templates.TemplateResponse(request, name, {**base, **context})

    async def login_user(request: Request, topic: str | None = None) -> User:
        """The logged-in user (else a redirect to the login page), assigned ``topic`` (403)."""
        session = await session_of(request)
        if session is None:
            raise Redirect(f"/login?next={quote(request.url.path)}")
        user = session[0]
        if topic is not None:
            _topic(store, topic)
            if not await run_in_threadpool(store.is_assigned, user.name, topic):
                raise HTTPException(403, f"topic {topic} is not assigned to {user.name}")
        return user

    async def login(request: Request) -> Response:
        error = {"1": "Wrong user name or password.",
                 "limited": "Too many failed attempts: wait a minute and try again.",
                 "busy": "The server is busy: try again in a moment."}
        target = request.query_params.get("next", "/")
        return await render(request, "login.html", {
            "error": error.get(request.query_params.get("error", "")),
            "next": target if target.startswith("/") and not target.startswith("//") else "/"})

    async def topics(request: Request) -> Response:
        user = await login_user(request)
        found = await run_in_threadpool(store.user_topics, user.name)
        return await render(request, "topics.html", {"topics": found})

    async def topic(request: Request) -> Response:
        topic_id = request.path_params["topic"]
        user = await login_user(request, topic_id)
        await run_in_threadpool(serve, store, topic_id, user.name)
        articles = _articles(await run_in_threadpool(store.assessor_pool, topic_id, user.name),
                             topic_id)
        await run_in_threadpool(_summarised, store, articles)
        return await render(request, "topic.html", {
            "topic": _topic(store, topic_id), "articles": articles,
            "done": sum(a["status"] == "done" for a in articles)})

    async def document(request: Request) -> Response:
        topic_id, file = request.path_params["topic"], request.path_params["file"]
        user = await login_user(request, topic_id)
        articles = await run_in_threadpool(store.assessor_pool, topic_id, user.name)
        if file not in {a["file"] for a in articles}:
            raise HTTPException(404, f"document {file} is not in the pool of topic {topic_id}")
        statement = _topic(store, topic_id)
        adaptive = await run_in_threadpool(store.setting, "strategy")
        following = next_unassessed(articles, file)
        mode = store.mode()
        files = [a["file"] for a in articles]
        # a repeat (assess init --duplicates) is shown under its article's name
        name = next((a.get("name", file) for a in articles if a["file"] == file), file)
        return await render(request, "doc.html", {
            "topic": statement, "file": name, "mode": mode,
            "min_element_chars": service.min_element_chars,
            "position": files.index(file) + 1, "pool_size": len(files),
            "done": sum(a["status"] == "done" for a in articles),
            "relevant": sum(a["status"] == "done" and bool(a.get("relevant"))
                            for a in articles)}, {
            "user": user.name, "file": file, "mode": mode,
            "keywords": await run_in_threadpool(_keywords_of, store, statement, user.name),
            "keywords_api": f"/api/topics/{quote(topic_id, safe='')}/keywords",
            "active_seconds": ACTIVE_SECONDS,
            "topic_url": f"/topics/{quote(topic_id, safe='')}",
            "doc_api": f"/api/topics/{quote(topic_id, safe='')}/docs/{quote(file, safe='/')}",
            "pooled": await run_in_threadpool(store.pool_paths, topic_id, file),
            "next_url": (f"/topics/{quote(topic_id, safe='')}/next" if adaptive
                         else doc_url(topic_id, following) if following else None)})

    def page(handler: Handler) -> Handler:
        """The handler with its refusals (403, 404) shown as a page, not as JSON."""
        async def shown(request: Request) -> Response:
            try:
                return await handler(request)
            except Redirect:
                raise
            except HTTPException as refusal:
                response = await render(request, "error.html", {
                    "status": refusal.status_code, "message": refusal.detail})
                response.status_code = refusal.status_code
                return response
        return shown

    async def export(request: Request) -> Response:
        """The qrels as a download (``assess export``; the XML formats zipped)."""
        user = await login_user(request)
        if not user.admin:
            raise HTTPException(403, "exporting is for administrators")
        mode = store.mode()
        fmt = request.query_params.get("format", "")
        if fmt not in export_formats(store):
            raise HTTPException(404, f"no export format {fmt!r} in {mode} mode")
        assessor = request.query_params.get("assessor") or None
        partial = request.query_params.get("partial") == "1"
        try:
            name, body, notes = await run_in_threadpool(export_download, store, fmt, assessor,
                                                        partial)
        except NothingToExport as empty:
            raise HTTPException(409, empty.reason) from None
        return Response(body, media_type="application/octet-stream",
                        headers=download_headers(name, notes))

    async def next_article(request: Request) -> Response:
        """An adaptive campaign's next article for the user (the strategy's pick, served in a
        transaction), opened; the topic's page when nothing is left."""
        topic_id = request.path_params["topic"]
        user = await login_user(request, topic_id)
        file = await run_in_threadpool(serve, store, topic_id, user.name)
        target = doc_url(topic_id, file) if file else f"/topics/{quote(topic_id, safe='')}"
        return Response(status_code=303, headers={"Location": target})

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    return [
        Route("/login", page(login), methods=["GET"]),
        Route("/", page(topics)),
        Route("/topics/{topic}", page(topic)),
        Route("/topics/{topic}/next", page(next_article)),
        Route("/topics/{topic}/docs/{file:path}", page(document)),
        Route("/admin/export", page(export)),
        Route("/favicon.ico", favicon),
    ]


class Redirect(HTTPException):
    """A redirect raised from a helper so that it ends the page's handler."""

    def __init__(self, url: str) -> None:
        super().__init__(303, headers={"Location": url})


def export_formats(store: Store) -> tuple[str, ...]:
    """The export formats of the store's campaign: its mode's, and ``sampled`` for a sampled
    campaign."""
    formats = EXPORTS[store.mode()]
    return (*formats, "sampled") if store.setting("sample") is not None else formats


def _topic(store: Store, topic: str) -> dict[str, Any]:
    try:
        return store.topic(topic)
    except NotFound as error:
        raise HTTPException(404, str(error)) from None


def _articles(pool: list[dict[str, Any]], topic: str) -> list[dict[str, Any]]:
    rows = []
    for article in pool:
        key = status_key(article)
        icon, label = STATUS_ICONS[key]
        rows.append({**article, "name": article.get("name", article["file"]),
                     "status_key": key, "icon": icon, "status_label": label,
                     "elements": len(article.get("elements") or ()),
                     "url": doc_url(topic, article["file"])})
    return rows


def _keywords_of(store: Store, statement: dict[str, Any], assessor: str) -> list[str]:
    """The assessor's keywords for the topic, else the topic's own (:func:`keywords`)."""
    chosen = store.assessor_keywords(statement["topic"], assessor)
    return topic_keywords(statement) if chosen is None else chosen


def _summarised(store: Store, articles: list[dict[str, Any]]) -> None:
    """Each article's ``title`` and ``first_words`` (:mod:`inexeval.assess.summary`)."""
    from inexeval.assess.summary import summaries

    found = summaries(store, [a.get("name", a["file"]) for a in articles])
    for article in articles:
        article["title"], article["first_words"] = found.get(article.get("name", article["file"]),
                                                             ("", ""))

