"""The organiser's pages and API (issue 22): ``/admin`` (every topic with its assessors and
progress, assigning, locking, agreement, drift, export), a read-only view of any assessor's
judgement, and adjudication.

Every route needs an administrator's session (a page redirects to the login page without one,
403 for another user); every change needs the session's CSRF token (header ``X-CSRF-Token``)
and runs in one transaction of the store. Document text reaches the pages as JSON only and is
put in the page as DOM text nodes by ``static/admin.js``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from inexeval.assess import adjudicate, organiser
from inexeval.assess.api import Service, authorise, error, json_request, service, session_of
from inexeval.assess.model import Judgement
from inexeval.assess.pages import Redirect, duration, export_formats
from inexeval.assess.store import ADJUDICATED, Locked, NotFound, Store, User
from inexeval.errors import InexevalError

HERE = Path(__file__).parent
Handler = Callable[[Request], Awaitable[Response]]


# -- API ---------------------------------------------------------------------------------------

async def get_agreement(request: Request) -> Response:
    await authorise(request, change=False, admin=True)
    return JSONResponse(await run_in_threadpool(organiser.agreement, service(request).store))


async def get_self_agreement(request: Request) -> Response:
    await authorise(request, change=False, admin=True)
    return JSONResponse(await run_in_threadpool(organiser.self_agreement,
                                                service(request).store))


async def get_drift(request: Request) -> Response:
    await authorise(request, change=False, admin=True)
    return JSONResponse({"assessors": await run_in_threadpool(organiser.drift,
                                                              service(request).store)})


def _pair(request: Request, store: Store, topic: str) -> tuple[str, str]:
    params = request.query_params
    return adjudicate.pair(store, topic, params.get("a") or None, params.get("b") or None)


async def get_disagreements(request: Request) -> Response:
    await authorise(request, change=False, admin=True)
    store, topic = service(request).store, request.path_params["topic"]

    def load() -> dict[str, Any]:
        store.topic(topic)
        a, b = _pair(request, store, topic)
        threshold = organiser.check_threshold(request.query_params.get("threshold"),
                                              adjudicate.THRESHOLD)
        return adjudicate.disagreements(store, topic, a, b, threshold)

    return JSONResponse(await run_in_threadpool(load))


async def post_assessor(request: Request) -> Response:
    """Assign the topic to the body's ``assessor``."""
    user = await authorise(request, change=True, admin=True)
    topic = request.path_params["topic"]
    body = await json_request(request)
    name = body.get("assessor")
    if not isinstance(name, str) or not name:
        return error(422, "assessor: a user name is required")
    added = await run_in_threadpool(service(request).store.assign, name, [topic], user.name)
    return JSONResponse({"topic": topic, "assessor": name, "assigned": bool(added)})


async def delete_assessor(request: Request) -> Response:
    """Withdraw the topic from an assessor (the judgements stay in the store)."""
    user = await authorise(request, change=True, admin=True)
    topic, name = request.path_params["topic"], request.path_params["assessor"]
    removed = await run_in_threadpool(service(request).store.unassign, name, [topic],
                                      user.name)
    if not removed:
        return error(404, f"topic {topic} is not assigned to {name}")
    return JSONResponse({"topic": topic, "assessor": name, "assigned": False})


async def get_judgement(request: Request) -> Response:
    """Any assessor's judgement of a pooled document (``adjudicated`` too), read only."""
    await authorise(request, change=False, admin=True)
    app = service(request)
    topic, name, file = (request.path_params[k] for k in ("topic", "assessor", "file"))

    def load() -> dict[str, Any]:
        if file not in app.store.pool_files(topic):
            raise NotFound(f"document {file!r} is not in the pool of topic {topic!r}")
        try:
            judgement = app.store.judgement(topic, file, name)
        except NotFound:
            if name != ADJUDICATED and app.store.user(name) is None:
                raise NotFound(f"no assessor {name!r}") from None
            judgement = Judgement(topic, file, name)
        return {**judgement.to_api(),
                "relevant": judgement.relevant if judgement.status == "done" else None}

    return JSONResponse(await run_in_threadpool(load))


async def get_content(request: Request) -> Response:
    """A pooled document's text and elements, for any topic's pool."""
    await authorise(request, change=False, admin=True)
    app = service(request)
    topic, file = request.path_params["topic"], request.path_params["file"]

    def load() -> dict[str, Any]:
        if file not in app.store.pool_files(topic):
            raise NotFound(f"document {file!r} is not in the pool of topic {topic!r}")
        document = app.document(file)
        return {"file": document.file, "text": document.text,
                "elements": [{"path": p, "start": s, "end": e}
                             for p, s, e in document.elements]}

    return JSONResponse(await run_in_threadpool(load))


async def put_adjudicated(request: Request) -> Response:
    """Store the adjudicated judgement: body ``{"choice": "a"|"b"|"union"|"intersection"|
    "edit", "a": name, "b": name, "passages": [[start, end], ...], "best_entry_point": n}``
    (passages and entry point for ``edit`` only)."""
    user = await authorise(request, change=True, admin=True)
    store = service(request).store
    topic, file = request.path_params["topic"], request.path_params["file"]
    body = await json_request(request)
    unknown = set(body) - {"choice", "a", "b", "passages", "best_entry_point"}
    problems = [f"unknown field {k!r}" for k in sorted(unknown)]
    choice, a, b = body.get("choice"), body.get("a"), body.get("b")
    if choice not in adjudicate.CHOICES:
        problems.append(f"choice: one of {', '.join(adjudicate.CHOICES)}")
    if not all(isinstance(x, str) and x for x in (a, b)):
        problems.append("a and b: the two assessors' names are required")
    passages = body.get("passages")
    if passages is not None and not (isinstance(passages, list) and all(
            isinstance(p, list) and len(p) == 2 and all(_whole(x) for x in p)
            for p in passages)):
        problems.append("passages: a list of [start, end] pairs of whole numbers is required")
    entry = body.get("best_entry_point")
    if entry is not None and not _whole(entry):
        problems.append("best_entry_point: a whole number or null is required")
    if problems:
        return error(422, "; ".join(problems), problems=problems)

    def save() -> dict[str, Any]:
        store.topic(topic)
        judgement = adjudicate.adjudicate(
            store, topic, file, str(choice), str(a), str(b), user.name,
            None if passages is None else [(int(s), int(e)) for s, e in passages], entry)
        return {**judgement.to_api(), "relevant": judgement.relevant}

    try:
        return JSONResponse(await run_in_threadpool(save))
    except Locked as locked:
        return error(423, locked.reason)


async def post_accept_agreed(request: Request) -> Response:
    """Take A's judgement as the adjudicated one of every agreed article not yet adjudicated:
    body ``{"a": name, "b": name, "threshold": 0.8}`` (all optional)."""
    user = await authorise(request, change=True, admin=True)
    store, topic = service(request).store, request.path_params["topic"]
    body = await json_request(request)
    unknown = sorted(set(body) - {"a", "b", "threshold"})
    if unknown:
        return error(422, f"unknown field {unknown[0]!r}")
    names = [body.get(k) for k in ("a", "b")]
    if not all(n is None or isinstance(n, str) for n in names):
        return error(422, "a and b: assessors' names")
    threshold = body.get("threshold", adjudicate.THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
            or not 0 <= threshold <= 1:
        return error(422, "threshold: a number from 0 to 1")

    def accept() -> dict[str, Any]:
        store.topic(topic)
        a, b = adjudicate.pair(store, topic, names[0], names[1])
        files = adjudicate.accept_agreed(store, topic, a, b, user.name, float(threshold))
        return {"topic": topic, "a": a, "b": b, "adjudicated": files}

    try:
        return JSONResponse(await run_in_threadpool(accept))
    except Locked as locked:
        return error(423, locked.reason)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- pages -------------------------------------------------------------------------------------

def routes(app_service: Service) -> list[BaseRoute]:
    """The organiser's page and API routes over the service's store."""
    store = app_service.store
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["duration"] = duration
    templates.env.filters["number"] = _number

    async def admin_user(request: Request) -> tuple[User, str]:
        session = await session_of(request)
        if session is None:
            raise Redirect(f"/login?next={quote(request.url.path)}")
        if not session[0].admin:
            raise HTTPException(403, "the admin page is for administrators")
        return session

    async def render(request: Request, name: str, context: dict[str, Any],
                     page_data: dict[str, Any] | None = None) -> Response:
        user, csrf = await admin_user(request)
        return templates.TemplateResponse(request, name, {
            "user": user.name, "is_admin": True,
            "page_data": {"csrf_token": csrf, **(page_data or {})}, **context})

    def page(handler: Handler) -> Handler:
        """The handler with its refusals shown as a page."""
        async def shown(request: Request) -> Response:
            try:
                return await handler(request)
            except Redirect:
                raise
            except HTTPException as refusal:
                status, message = refusal.status_code, str(refusal.detail)
            except InexevalError as refusal:
                status = 404 if isinstance(refusal, NotFound) else 422
                message = refusal.reason
            session = await session_of(request)
            response = templates.TemplateResponse(request, "error.html", {
                "user": session[0].name if session else None,
                "is_admin": bool(session and session[0].admin),
                "page_data": {"csrf_token": session[1] if session else None},
                "status": status, "message": message.rstrip(".")})
            response.status_code = status
            return response
        return shown

    async def admin(request: Request) -> Response:
        await admin_user(request)

        def load() -> dict[str, Any]:
            found = organiser.overview(store)
            selves = organiser.self_agreement(store)
            notes: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for note in store.notes():
                notes.setdefault((note["topic"], note["assessor"]), []).append(note)
            # the notes of assessors since withdrawn from a topic, shown under it all the same
            withdrawn: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {}
            assigned = {(t["topic"], a) for t in found["topics"] for a in t["assessors"]}
            for (topic, assessor), theirs in notes.items():
                if (topic, assessor) not in assigned:
                    withdrawn.setdefault(topic, []).append((assessor, theirs))
            return {**found, "agreement": organiser.agreement(store), "self_agreement": selves,
                    "notes": notes, "withdrawn_notes": withdrawn,
                    "self_by_assessor": {r["assessor"]: r for r in selves["assessors"]},
                    "drift": organiser.drift_plot(organiser.drift(store)),
                    "plan": list(zip(organiser.export_plan(store, None, False),
                                     organiser.export_plan(store, ADJUDICATED, False))),
                    "formats": export_formats(store), "adjudicated": ADJUDICATED}

        return await render(request, "admin.html", await run_in_threadpool(load))

    async def adjudication(request: Request) -> Response:
        await admin_user(request)
        topic = request.path_params["topic"]

        def load() -> tuple[dict[str, Any], dict[str, Any]]:
            statement = store.topic(topic)
            a, b = _pair(request, store, topic)
            threshold = organiser.check_threshold(request.query_params.get("threshold"),
                                                  adjudicate.THRESHOLD)
            found = adjudicate.disagreements(store, topic, a, b, threshold)
            for item in found["disagreements"]:
                item["url"] = (f"/admin/topics/{quote(topic, safe='')}/adjudicate/docs/"
                               f"{quote(item['file'], safe='/')}?a={quote(a)}&b={quote(b)}")
            return {**found, "topic": statement, "assessors": store.assessors(topic)}, {
                "accept": f"/api/admin/topics/{quote(topic, safe='')}/accept-agreed",
                "a": a, "b": b, "threshold": threshold}

        context, data = await run_in_threadpool(load)
        return await render(request, "adjudicate.html", context, data)

    async def adjudicate_document(request: Request) -> Response:
        await admin_user(request)
        topic, file = request.path_params["topic"], request.path_params["file"]

        def load() -> tuple[dict[str, Any], dict[str, Any]]:
            statement = store.topic(topic)
            a, b = _pair(request, store, topic)
            if file not in store.pool_files(topic):
                raise NotFound(f"document {file} is not in the pool of topic {topic}")
            return {"topic": statement, "file": file, "a": a, "b": b,
                    "mode": store.mode(),
                    "back": f"/admin/topics/{quote(topic, safe='')}/adjudicate?a={quote(a)}"
                            f"&b={quote(b)}"}, {
                "content": _api(topic, file, "content"),
                "a": a, "b": b,
                "judgement_a": _api(topic, file, "judgement", a),
                "judgement_b": _api(topic, file, "judgement", b),
                "judgement_result": _api(topic, file, "judgement", ADJUDICATED),
                "adjudicate": _api(topic, file, "adjudicated"),
                "highlighting": store.mode() in adjudicate.HIGHLIGHTING_MODES}

        context, data = await run_in_threadpool(load)
        return await render(request, "adjudicate_doc.html", context, data)

    async def judgement_view(request: Request) -> Response:
        await admin_user(request)
        topic, file = request.path_params["topic"], request.path_params["file"]
        name = request.query_params.get("assessor", "")

        def load() -> tuple[dict[str, Any], dict[str, Any]]:
            statement = store.topic(topic)
            if file not in store.pool_files(topic):
                raise NotFound(f"document {file} is not in the pool of topic {topic}")
            if name != ADJUDICATED and store.user(name) is None:
                raise NotFound(f"no assessor {name!r}")
            noted = store.notes(topic, name, file)
            return {"topic": statement, "file": file, "assessor": name,
                    "note": noted[-1] if noted else None, "files": store.pool_files(topic),
                    "assessors": [*store.assessors(topic), ADJUDICATED]}, {
                "content": _api(topic, file, "content"),
                "judgement": _api(topic, file, "judgement", name)}

        context, data = await run_in_threadpool(load)
        return await render(request, "judgement.html", context, data)

    return [
        Route("/api/admin/agreement", get_agreement, methods=["GET"]),
        Route("/api/admin/self-agreement", get_self_agreement, methods=["GET"]),
        Route("/api/admin/drift", get_drift, methods=["GET"]),
        Route("/api/admin/topics/{topic}/disagreements", get_disagreements, methods=["GET"]),
        Route("/api/admin/topics/{topic}/assessors", post_assessor, methods=["POST"]),
        Route("/api/admin/topics/{topic}/assessors/{assessor}", delete_assessor,
              methods=["DELETE"]),
        Route("/api/admin/topics/{topic}/judgements/{assessor}/docs/{file:path}", get_judgement,
              methods=["GET"]),
        Route("/api/admin/topics/{topic}/content/{file:path}", get_content, methods=["GET"]),
        Route("/api/admin/topics/{topic}/adjudicated/{file:path}", put_adjudicated,
              methods=["PUT"]),
        Route("/api/admin/topics/{topic}/accept-agreed", post_accept_agreed, methods=["POST"]),
        Route("/admin", page(admin)),
        Route("/admin/topics/{topic}/adjudicate", page(adjudication)),
        Route("/admin/topics/{topic}/adjudicate/docs/{file:path}", page(adjudicate_document)),
        Route("/admin/topics/{topic}/docs/{file:path}", page(judgement_view)),
    ]


def _api(topic: str, file: str, kind: str, assessor: str = "") -> str:
    """The API URL of a document's content, an assessor's judgement or the adjudication."""
    base = f"/api/admin/topics/{quote(topic, safe='')}"
    where = quote(file, safe="/")
    if kind == "content":
        return f"{base}/content/{where}"
    if kind == "judgement":
        return f"{base}/judgements/{quote(assessor, safe='')}/docs/{where}"
    return f"{base}/adjudicated/{where}"


def _number(value: float | None, digits: int = 2) -> str:
    """A ratio for a table; a dash when undefined."""
    return "–" if value is None else f"{value:.{digits}f}"
