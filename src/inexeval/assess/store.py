"""The assessment store: every SQL statement of the assessment service (SQLAlchemy Core).

One schema for both back ends: SQLite (STORE is a file path; WAL journal, foreign keys on,
``synchronous=FULL``, write transactions ``BEGIN IMMEDIATE``) and PostgreSQL (STORE is a
``postgresql://`` URL, driven by psycopg 3). The schema is versioned from the start: the table
``schema_version`` holds the version and :data:`MIGRATIONS` the ordered steps that bring a store
from one version to the next, each run in its own transaction when a store is opened.

Every change is one transaction. A judgement is saved when the version the client read is
still the stored one (optimistic concurrency); a stale version raises :class:`Conflict` and writes
nothing, unless the caller gives a three-way merge (:mod:`inexeval.assess.merge`), which is then
applied to the stored judgement; the new version is one more. Every change is appended to the action log ``actions``
(who, what, when, the state before and after, as JSON) in the same transaction.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import hashlib
import json
import math
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from inexeval.assess.model import MAX_SECONDS, Judgement, merge_passages, same_record
from inexeval.assess.repeats import draw as draw_repeats
from inexeval.assess.repeats import key as repeat_key
from inexeval.assess.repeats import place as place_repeats
from inexeval.errors import InexevalError

SCHEMA_VERSION = 5
_T = TypeVar("_T")
SESSION_SECONDS = 7 * 24 * 3600
"""How long a login session lasts at most, however active."""
SESSION_IDLE = 12 * 3600.0
"""A session unused for this long ends (``assess serve --session-idle``)."""
SESSIONS_PER_USER = 10
"""Live sessions one user may have; a new login ends the least recently used beyond it."""
_SEEN_EVERY = 60.0
"""A session's last use is written at most this often (not on every request)."""
NAME_LENGTH = 128
"""Longest user name or topic id (both back ends)."""
ADJUDICATED = "adjudicated"
NOTE_FLAGS = ("unsure", "broken document")
"""The flags an assessor may put on a document (:meth:`Store.set_note`)."""
"""The assessor name of a topic's adjudicated judgements (stored by the organiser's adjudication,
exported by ``assess export --assessor adjudicated``); no user may take this name."""

metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version", metadata,
    sa.Column("version", sa.Integer, nullable=False),
)
campaign = sa.Table(
    "campaign", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
topics = sa.Table(
    "topics", metadata,
    sa.Column("topic", sa.String(NAME_LENGTH), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("query_type", sa.Text, nullable=False, default=""),
    sa.Column("title", sa.Text, nullable=False, default=""),
    sa.Column("castitle", sa.Text, nullable=False, default=""),
    sa.Column("description", sa.Text, nullable=False, default=""),
    sa.Column("narrative", sa.Text, nullable=False, default=""),
    sa.Column("keywords", sa.Text, nullable=False, default=""),
    sa.Column("locked", sa.Boolean, nullable=False, default=False),
)
documents = sa.Table(
    "documents", metadata,
    sa.Column("file", sa.String(512), primary_key=True),
    sa.Column("length", sa.Integer, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("elements", sa.Text, nullable=False),
    sa.Column("text_nodes", sa.Text, nullable=False),
)
pool = sa.Table(
    "pool", metadata,
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), primary_key=True),
    sa.Column("file", sa.String(512), sa.ForeignKey("documents.file"), primary_key=True),
    sa.Column("path", sa.String(1024), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("min_rank", sa.Integer),
    sa.Column("runs", sa.Integer),
)
users = sa.Table(
    "users", metadata,
    sa.Column("name", sa.String(128), primary_key=True),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("admin", sa.Boolean, nullable=False, default=False),
)
assignments = sa.Table(
    "assignments", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), nullable=False),
    sa.Column("assessor", sa.String(128), sa.ForeignKey("users.name"), nullable=False),
    sa.UniqueConstraint("topic", "assessor"),
)
judgements = sa.Table(
    "judgements", metadata,
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), primary_key=True),
    sa.Column("file", sa.String(512), sa.ForeignKey("documents.file"), primary_key=True),
    sa.Column("assessor", sa.String(128), sa.ForeignKey("users.name"), primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("passages", sa.Text, nullable=False),
    sa.Column("best_entry_point", sa.Integer),
    sa.Column("exhaustivity", sa.Text, nullable=False),
    sa.Column("judged_values", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False),
    sa.Column("updated", sa.String(40)),
)
actions = sa.Table(
    "actions", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("actor", sa.String(128), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("topic", sa.String(NAME_LENGTH)),
    sa.Column("file", sa.String(512)),
    sa.Column("before", sa.Text),
    sa.Column("after", sa.Text),
    sa.Index("actions_by_actor", "actor", "id"),
)
sessions = sa.Table(
    "sessions", metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user", sa.String(128), sa.ForeignKey("users.name"), nullable=False),
    sa.Column("csrf_token", sa.String(64), nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False, server_default="0"),
)
login_failures = sa.Table(
    "login_failures", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("last", sa.Float, nullable=False),
    sa.Index("login_failures_by_last", "last"),
)

strategy_topics = sa.Table(
    "strategy_topics", metadata,
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), primary_key=True),
    sa.Column("candidates", sa.Text, nullable=False),
)
"""An adaptive campaign's runs per topic (:mod:`inexeval.assess.adaptive`): each run's distinct
articles in rank order, as JSON."""
served = sa.Table(
    "served", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), nullable=False),
    sa.Column("file", sa.String(512), sa.ForeignKey("documents.file"), nullable=False),
    sa.Column("assessor", sa.String(128), sa.ForeignKey("users.name"), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.UniqueConstraint("topic", "file"),
)
"""The articles an adaptive campaign served, to whom, in the order served."""
sample_units = sa.Table(
    "sample_units", metadata,
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), primary_key=True),
    sa.Column("file", sa.String(512), primary_key=True),
    sa.Column("path", sa.String(1024), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("stratum", sa.String(NAME_LENGTH), nullable=False),
    sa.Column("probability", sa.Float, nullable=False),
    sa.Column("drawn", sa.Boolean, nullable=False),
)
"""A sampled campaign's sample: every unit of the strata, drawn (pooled, judged) or not."""
assessor_keywords = sa.Table(
    "assessor_keywords", metadata,
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), primary_key=True),
    sa.Column("assessor", sa.String(128), sa.ForeignKey("users.name"), primary_key=True),
    sa.Column("words", sa.Text, nullable=False),
)
repeats = sa.Table(
    "repeats", metadata,
    sa.Column("topic", sa.String(NAME_LENGTH), sa.ForeignKey("topics.topic"), primary_key=True),
    sa.Column("file", sa.String(512), sa.ForeignKey("documents.file"), primary_key=True),
    sa.Column("assessor", sa.String(128), sa.ForeignKey("users.name"), primary_key=True),
    sa.Column("after_file", sa.String(512), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    *[sa.Column(c.name, c.type, nullable=c.nullable) for c in judgements.c
      if not c.primary_key],
)
"""The unannounced repeats of ``assess init --duplicates`` (:mod:`inexeval.assess.repeats`):
the second judgement of an article by the same assessor, keyed like ``judgements``, shown right
after ``after_file`` (``position``: the order drawn)."""


# The statements of every save, built once (a save is the hot path of the service).
_KEY = (judgements.c.topic == sa.bindparam("key_topic"),
        judgements.c.file == sa.bindparam("key_file"),
        judgements.c.assessor == sa.bindparam("key_assessor"))
_SELECT_JUDGEMENT = sa.select(judgements).where(*_KEY)
_LOCK_JUDGEMENT = _SELECT_JUDGEMENT.with_for_update()
_UPDATE_JUDGEMENT = judgements.update().where(
    *_KEY, judgements.c.version == sa.bindparam("key_version"))
_REPEAT_KEY = (repeats.c.topic == sa.bindparam("key_topic"),
               repeats.c.file == sa.bindparam("key_file"),
               repeats.c.assessor == sa.bindparam("key_assessor"))
_SELECT_REPEAT = sa.select(repeats).where(*_REPEAT_KEY)
_STATEMENTS = {
    False: ("save", _SELECT_JUDGEMENT, _LOCK_JUDGEMENT, _UPDATE_JUDGEMENT),
    True: ("repeat", _SELECT_REPEAT, _SELECT_REPEAT.with_for_update(), repeats.update().where(
        *_REPEAT_KEY, repeats.c.version == sa.bindparam("key_version"))),
}
"""Per kind of judgement (a repeat or not): the action its saves are logged as, and the
statements that read, lock and update it."""
_ACCESS = (sa.select(topics.c.locked, assignments.c.id)
           .select_from(topics.outerjoin(assignments, sa.and_(
               assignments.c.topic == topics.c.topic,
               assignments.c.assessor == sa.bindparam("assessor"))))
           .where(topics.c.topic == sa.bindparam("topic")))


def _lock_pooled(*key: sa.ColumnElement[bool]) -> sa.Select[Any]:
    return (sa.select(judgements, topics.c.locked, assignments.c.id)
            .select_from(judgements.join(topics, topics.c.topic == judgements.c.topic)
                         .outerjoin(assignments, sa.and_(
                             assignments.c.topic == judgements.c.topic,
                             assignments.c.assessor == judgements.c.assessor)))
            .where(*key, sa.exists().where(pool.c.topic == judgements.c.topic,
                                           pool.c.file == judgements.c.file))
            .with_for_update(of=judgements))


_LOCK_POOLED = _lock_pooled(*_KEY)
"""A pooled document's judgement, locked, with its topic's access (as :data:`_ACCESS`)."""
_LOCK_POOLED_OF_SESSION = _lock_pooled(*_KEY[:2], judgements.c.assessor == sa.select(
    sessions.c.user).where(sessions.c.token_hash == sa.bindparam("token_hash")).scalar_subquery())
"""As :data:`_LOCK_POOLED`, the judgement of the user of a login session (PostgreSQL reads it
with the session: :meth:`Store.save_change_of_session`)."""
_UNREAD = object()
"""A row not read yet."""
_POOLED = sa.select(pool.c.file).where(pool.c.topic == sa.bindparam("topic"),
                                       pool.c.file == sa.bindparam("file"))
_SESSION = (sa.select(users, sessions.c.csrf_token, sessions.c.expires, sessions.c.last_seen)
            .join(sessions, sessions.c.user == users.c.name)
            .where(sessions.c.token_hash == sa.bindparam("token_hash")))


_SEEN = (sessions.update().where(sessions.c.token_hash == sa.bindparam("seen_token"))
         .values(last_seen=sa.bindparam("seen_at")))
_LOG = actions.insert().inline()
"""An action-log entry (its id not fetched back)."""
_LOGIN_FAILURES_LOCKED = (sa.select(login_failures)
                          .where(login_failures.c.key == sa.bindparam("key")).with_for_update())


def _insert_new(connection: Connection) -> Any:
    """INSERT of a failed-login row that does nothing when the key is there (both dialects)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    return (insert(login_failures).on_conflict_do_nothing(index_elements=["key"])
            .returning(login_failures.c.key))


def _key(topic: str, file: str, assessor: str) -> dict[str, str]:
    return {"key_topic": topic, "key_file": file, "key_assessor": assessor}


def _create_version_1(connection: Connection) -> None:
    metadata.create_all(connection, tables=[
        campaign, topics, documents, pool, users, assignments, judgements, actions, sessions])


def _version_2(connection: Connection) -> None:
    """Sessions end when idle (``last_seen``; the sessions of version 1 are ended), failed logins
    are kept in the store (``login_failures``), topic ids are as long as user names."""
    if "last_seen" not in {c["name"] for c in sa.inspect(connection).get_columns("sessions")}:
        connection.execute(sessions.delete())
        connection.exec_driver_sql(
            "ALTER TABLE sessions ADD COLUMN last_seen FLOAT NOT NULL DEFAULT 0")
    metadata.create_all(connection, tables=[login_failures])
    if connection.dialect.name == "postgresql":
        for table in ("topics", "pool", "assignments", "judgements", "actions"):
            connection.exec_driver_sql(
                f"ALTER TABLE {table} ALTER COLUMN topic TYPE VARCHAR({NAME_LENGTH})")


def _version_3_assess24(connection: Connection) -> None:
    """Adaptive pooling and sampled campaigns (issue 24): the runs of an adaptive campaign per
    topic (``strategy_topics``), what it served to whom (``served``), and the sample of a
    sampled campaign (``sample_units``)."""
    metadata.create_all(connection, tables=[strategy_topics, served, sample_units])


def _version_4_flow22(connection: Connection) -> None:
    """The keywords each assessor chose for a topic (``assessor_keywords``; issue 22)."""
    metadata.create_all(connection, tables=[assessor_keywords])


def _version_5_dups22(connection: Connection) -> None:
    """Unannounced repeats of articles (``repeats``; ``assess init --duplicates``, issue 22)."""
    metadata.create_all(connection, tables=[repeats])


MIGRATIONS: Sequence[Callable[[Connection], None]] = (
    _create_version_1, _version_2, _version_3_assess24, _version_4_flow22, _version_5_dups22)
"""``MIGRATIONS[i]`` brings a store from schema version ``i`` to ``i + 1``."""


class StoreError(InexevalError):
    """A request the store refuses (unknown user or topic, no campaign at STORE, ...); a
    database server's URL is named with its password masked (:func:`shown_store`)."""

    def __init__(self, reason: str, file: str | Path | None = None, line: int | None = None):
        super().__init__(reason, None if file is None else shown_store(file), line)


def shown_store(store: str | Path) -> str:
    """The store as messages and logs name it: a database server's URL with its password
    masked (``postgresql://user:***@host/db``, ``...?password=***``). A URL without a password leaves it to libpq:
    ``PGPASSWORD`` or the password file (``PGPASSFILE``, ``~/.pgpass``), which keep it out of
    the command line."""
    text = str(store)
    if not _is_server(text):
        return text
    masked = re.sub(r"^([^:/]+://[^:/@]*:).*@", r"\1***@", text)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", masked)  # libpq's query parameter


def check_name(kind: str, name: str) -> str:
    """``name`` when it is a valid user name or topic id (``kind`` says which), the same on both
    back ends: 1 to :data:`NAME_LENGTH` printable characters, no ``/`` and not ``.`` or ``..``
    (it could not be part of a URL path), no surrounding spaces; :class:`StoreError`
    otherwise."""
    if not name or len(name) > NAME_LENGTH or not name.isprintable() or "/" in name \
            or name != name.strip() or name in (".", ".."):
        raise StoreError(f"{kind} {name[:NAME_LENGTH]!r} is not valid: 1 to {NAME_LENGTH} "
                         "printable characters, no '/', not '.' or '..', no surrounding "
                         "spaces")
    return name


def user_key(name: str) -> str:
    """A user name as the store keeps and looks it up: Unicode's NFKC_Casefold
    (``NFKC(casefold(NFKC(name)))``, UAX #15 and #31), so that its NFC and NFD forms, its
    cases and its full-width forms are one user."""
    import unicodedata

    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


_CONFUSABLE = str.maketrans(
    # Cyrillic, Greek and Latin letters drawn like the Latin letters of ASCII (Unicode's
    # confusables.txt, the lower-case letters of user names after user_key: dotless ı, ɩ and
    # ȷ, Latin alpha ɑ), and the digits read as letters
    "аеорсухіјѕԁһԛԝӏвкмнтɡαεικνορτυχοıɩȷɑ01", "aeopcyxijsdhqwlbkmhtgaeikvoptuxoiijaol")


def name_skeleton(name: str) -> str:
    """What a user name looks like (UTS #39's skeleton, reduced to the look-alikes of
    :data:`_CONFUSABLE`): two names with one skeleton are confusable."""
    import unicodedata

    folded = "".join(c for c in unicodedata.normalize("NFD", user_key(name))
                     if not unicodedata.combining(c))
    return folded.translate(_CONFUSABLE)


class Conflict(StoreError):
    """The judgement changed since the client read it; ``current`` is the stored one."""

    def __init__(self, current: Judgement):
        super().__init__(f"version {current.version} is the current one; reload and retry")
        self.current = current


class NotFound(StoreError):
    """No such topic, document or judgement."""


class NotAssigned(StoreError):
    """The topic is not assigned to the user."""


class Locked(StoreError):
    """The topic is locked: no further changes."""


class _ProcessWriters:
    """One writer at a time among the threads of a process (a lock) and among the processes
    serving one SQLite store (``flock`` on the file ``STORE-writers`` beside it): a process
    waiting for another's writer is woken when it is done, where SQLite's busy handler sleeps
    and polls (up to 100 ms a try: with two serving processes the slowest saves waited more
    than a second). Not the database file itself: closing a descriptor of that file would drop
    the process's SQLite locks."""

    def __init__(self, store: str):
        self._threads = threading.Lock()
        self._fd = os.open(f"{store}-writers", os.O_RDWR | os.O_CREAT, 0o600)

    def __enter__(self) -> None:
        self._threads.acquire()
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except BaseException:
            self._threads.release()
            raise

    def __exit__(self, *exc: object) -> None:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._threads.release()

    def close(self) -> None:
        os.close(self._fd)


class _Redo(Exception):
    """A work of a batch committed without savepoints raised: the batch is rolled back."""

    def __init__(self, refused: Exception):
        super().__init__(str(refused))
        self.refused = refused


class _Unwritten(Exception):
    """A work refused (``refused``, its caller's exception) before it wrote anything: the
    works batched with it stand (no :class:`_Redo`)."""

    def __init__(self, refused: Exception):
        super().__init__(str(refused))
        self.refused = refused


def _refused(error: BaseException) -> BaseException:
    """The caller's exception of what a work raised (:class:`_Unwritten` unwrapped)."""
    return error.refused if isinstance(error, _Unwritten) else error


class _Refused(Exception):
    """Rolls back a transaction that decided to change nothing."""

    def __init__(self, wait: float):
        self.wait = wait


@dataclass(frozen=True)
class User:
    name: str
    password_hash: str
    admin: bool


@dataclass(frozen=True)
class Document:
    """A pooled document: its text, its elements ``(path, start, end)`` in document order and
    its text nodes ``(element position, start, end)`` in document order (for XPointers)."""

    file: str
    text: str
    elements: tuple[tuple[str, int, int], ...]
    text_nodes: tuple[tuple[int, int, int], ...] = ()

    @property
    def length(self) -> int:
        return len(self.text)


def now_iso(at: float | None = None) -> str:
    """A UTC timestamp as ISO 8601 with seconds."""
    moment = datetime.fromtimestamp(time.time() if at is None else at, timezone.utc)
    return moment.isoformat(timespec="seconds")


def _is_server(store: str | Path) -> bool:
    return str(store).startswith(("postgresql", "postgres://"))


def _check_sqlite_file(store: str | Path) -> None:
    """Refuse what is not a SQLite database before the engine opens it (opening a SQLite
    connection writes to an empty or foreign file: WAL mode), so that it stays as it was.

    The file is looked at through SQLite, read-only, never with ``open()``: closing any
    descriptor of a database file drops every POSIX lock the process holds on it, so a serving
    process that did would let the next process take itself for the last connection and delete
    the live ``-wal`` file (SQLite's "How To Corrupt An SQLite Database File", 2.2)."""
    path = Path(store)
    if not path.is_file():
        raise StoreError("no assessment store there (create one with inexeval assess init)", store)
    if path.stat().st_size == 0:
        raise StoreError("not an inexeval assessment store", store)
    try:
        probe = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            probe.execute("PRAGMA schema_version").fetchone()
        finally:
            probe.close()
    except sqlite3.DatabaseError:
        raise StoreError("not an inexeval assessment store", store) from None


POOL_SIZE = 25
"""Connections an engine keeps open: twenty assessors saving back to back use about as many at
once (a session's read, then the save), and with 10 kept (and 20 more opened and closed as
needed) a PostgreSQL connection was set up for every few saves."""
SAVE_THREADS = 16
"""Threads that run the saves of login sessions on PostgreSQL, each in a transaction of its
own (:meth:`Store.save_change_of_session`; the server commits them together)."""
POOL_OVERFLOW = 5
"""Connections opened beyond :data:`POOL_SIZE` when needed (30 in all per process, as before;
``serve --workers N`` uses N times as many: PostgreSQL allows 100 by default)."""


def engine_for(store: str | Path) -> Engine:
    """An engine for STORE: a ``postgresql://`` URL, or the path of a SQLite file."""
    text = str(store)
    if text.startswith(("postgresql://", "postgresql+psycopg://", "postgres://")):
        try:
            url = sa.engine.make_url(text).set(drivername="postgresql+psycopg")
        except (sa.exc.ArgumentError, ValueError):
            raise StoreError("not a database URL", text) from None
        return sa.create_engine(url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW,
                                pool_pre_ping=True)
    engine = sa.create_engine(f"sqlite:///{Path(text)}", pool_size=POOL_SIZE,
                               max_overflow=POOL_OVERFLOW)

    @sa.event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, record: Any) -> None:
        # pysqlite's own transaction handling is switched off so that BEGIN is ours (below)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "synchronous=FULL",
                       "busy_timeout=30000"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        # a write transaction takes the write lock at once, so two writers never deadlock
        immediate = connection.get_execution_options().get("write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _judgement(row: Any) -> Judgement:
    return Judgement(
        topic=row.topic, file=row.file, assessor=row.assessor, status=row.status,
        passages=merge_passages([(int(s), int(e)) for s, e in json.loads(row.passages)]),
        best_entry_point=row.best_entry_point,
        exhaustivity=json.loads(row.exhaustivity), values=json.loads(row.judged_values),
        version=row.version, seconds=_bounded_seconds(row.seconds), updated=row.updated)


def _bounded_seconds(seconds: float) -> float:
    """A stored time as a sum can use: saves are bounded to :data:`MAX_SECONDS`, but a store
    written before the bound may hold any float."""
    return min(float(seconds), MAX_SECONDS) if math.isfinite(seconds) and seconds > 0 else 0.0


def _judgement_row(j: Judgement) -> dict[str, Any]:
    return {
        "status": j.status, "passages": _dumps([list(p) for p in j.passages]),
        "best_entry_point": j.best_entry_point, "exhaustivity": _dumps(dict(j.exhaustivity)),
        "judged_values": _dumps(dict(j.values)), "version": j.version, "seconds": j.seconds,
        "updated": j.updated,
    }


def _state(j: Judgement, visit: str | None = None, sequence: int | None = None) -> str:
    """A judgement as the action log keeps it (with the page visit that saved it and the
    change's place among the visit's, when known)."""
    state = j.to_api()
    for key in ("topic", "file", "assessor"):
        del state[key]
    if visit is not None:
        state["visit"] = visit
        if sequence is not None:
            state["sequence"] = sequence
    return _dumps(state)


def _from_state(current: Judgement, state: Mapping[str, Any]) -> Judgement:
    """A judgement of the action log (:func:`_state`) for the key of ``current``."""
    return Judgement(
        topic=current.topic, file=current.file, assessor=current.assessor,
        status=str(state.get("status", "unseen")),
        passages=merge_passages([(int(s), int(e)) for s, e in state.get("passages", ())]),
        best_entry_point=state.get("best_entry_point"),
        exhaustivity=dict(state.get("exhaustivity", {})), values=dict(state.get("values", {})),
        version=int(state["version"]), seconds=_bounded_seconds(float(state.get("seconds", 0))),
        updated=state.get("updated"))


class Store:
    """An assessment campaign in a SQLite file or a PostgreSQL database; see the module docs."""

    def __init__(self, engine: Engine, url: str):
        self.engine = engine
        self.url = url
        # SQLite has one writer at a time; queueing writers here rather than in SQLite's busy
        # handler (which sleeps and polls) keeps the waits short and in arrival order
        self._writer: threading.Lock | _ProcessWriters | None = (
            threading.Lock() if engine.dialect.name == "sqlite" else None)
        self._pending: list[tuple[Callable[[Connection], Any], Future[Any]]] = []
        self._pending_ready = threading.Condition()
        self._committer: threading.Thread | None = None
        self._savers: ThreadPoolExecutor | None = None
        self._strategy: bool | None = None

    # -- opening and creating ------------------------------------------------------------------

    @classmethod
    def create(cls, store: str | Path) -> Store:
        """A new, empty store at STORE (refused when one exists there)."""
        if not _is_server(store):
            try:
                # created empty and private before SQLite opens it: its -wal and -shm files
                # take the same permissions (judgements and password hashes are not for all)
                os.close(os.open(store, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:
                raise StoreError("a file exists there already; a new store needs a new path",
                                 store) from None
            except OSError as error:
                raise StoreError(f"cannot create the store: {error.strerror}", store) from None
        self = cls(engine_for(store), str(store))
        if self._version() is not None:
            self.engine.dispose()
            raise StoreError("an assessment store exists there already", store)
        self._migrate()
        return self

    @classmethod
    def open(cls, store: str | Path) -> Store:
        """The store at STORE, migrated to the current schema version."""
        if not _is_server(store):
            _check_sqlite_file(store)
        self = cls(engine_for(store), str(store))
        version = self._version()
        if version is None:
            self.engine.dispose()
            raise StoreError("not an inexeval assessment store", store)
        if version > SCHEMA_VERSION:
            self.engine.dispose()
            raise StoreError(f"the store has schema version {version}, newer than this "
                             f"inexeval's {SCHEMA_VERSION}", store)
        self._migrate()
        return self

    def close(self) -> None:
        if self._savers is not None:
            # the saves in flight end (committed or refused) before the connections go; a save
            # after this gets a new thread pool, as it gets new connections (saves worked after
            # close() before the pool, and a closed pool's RuntimeError was a 500)
            savers, self._savers = self._savers, None
            savers.shutdown(wait=True)
        self.engine.dispose()
        if isinstance(self._writer, _ProcessWriters):
            self._writer.close()

    def share_writes(self) -> None:
        """Several processes serve this store (``assess serve --workers``): on SQLite their
        writers queue on a lock file beside it (:class:`_ProcessWriters`)."""
        if self._writer is not None and not isinstance(self._writer, _ProcessWriters):
            self._writer = _ProcessWriters(self.url)

    def discard(self) -> None:
        """Remove a store :meth:`create` made (its campaign failed to load): the SQLite file and
        its companions, or the tables on a database server; closes it."""
        if _is_server(self.url):
            with self._write() as connection:
                metadata.drop_all(connection)
            self.close()
            return
        self.close()
        for suffix in ("", "-wal", "-shm", "-journal", "-writers"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.url}{suffix}")

    def __enter__(self) -> Store:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _version(self) -> int | None:
        try:
            with self.engine.connect() as connection:
                if not sa.inspect(connection).has_table("schema_version"):
                    return None
                return int(connection.execute(sa.select(schema_version.c.version)).scalar_one())
        except sa.exc.DatabaseError as error:
            raise StoreError(f"cannot open the store: {error.orig}", self.url) from None

    def _migrate(self) -> None:
        # a store at the current version is only read: a read-only store can still be served
        if self._version() == SCHEMA_VERSION:
            return
        with self._write() as connection:
            metadata.create_all(connection, tables=[schema_version])
            current = connection.execute(sa.select(schema_version.c.version)).scalar()
            if current is None:
                connection.execute(schema_version.insert().values(version=0))
                current = 0
        for version in range(int(current), SCHEMA_VERSION):
            with self._write() as connection:
                MIGRATIONS[version](connection)
                connection.execute(schema_version.update().values(version=version + 1))

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` on SQLite)."""
        with self._writer or contextlib.nullcontext(), self.engine.connect() as connection:
            connection = connection.execution_options(write=True)
            with connection.begin():
                yield connection

    def _grouped(self, work: Callable[[Connection], _T]) -> _T:
        """``work(connection)`` in a write transaction, committed with the others waiting at
        the time (group commit, SQLite): a committer thread of the store commits what waits at
        once (:meth:`_commit_batch`: when one raises, it is rolled back alone and gets its
        exception), so that one fsync acknowledges many saves (20 assessors saving back
        to back: one fsync each made a save wait for 19 others). The answer comes after the
        commit, as before. On PostgreSQL each is its own transaction (the server groups
        commits)."""
        if self._writer is None:
            try:
                with self._write() as connection:
                    return work(connection)
            except _Unwritten as clean:
                raise clean.refused from None
        return self._submit(work).result()

    @property
    def groups_commits(self) -> bool:
        """Whether write transactions go through the committer (:meth:`_grouped`: SQLite)."""
        return self._writer is not None

    def _submit(self, work: Callable[[Connection], _T]) -> Future[_T]:
        """``work`` for the committer (:meth:`_grouped`); its future. A future cancelled before
        its batch is taken is left out of it."""
        future: Future[_T] = Future()
        with self._pending_ready:
            self._pending.append((work, future))
            if self._committer is None:
                self._committer = threading.Thread(target=self._commit_pending,
                                                   name="inexeval-commits", daemon=True)
                self._committer.start()
            self._pending_ready.notify()
        return future

    def _commit_pending(self) -> None:
        """The committer: what waits, batch after batch; it ends after a few idle seconds."""
        while True:
            with self._pending_ready:
                while not self._pending:
                    if not self._pending_ready.wait(timeout=5.0) and not self._pending:
                        self._committer = None
                        return
                batch = [(work, future) for work, future in self._pending
                         if future.set_running_or_notify_cancel()]
                self._pending = []
                if not batch:
                    continue
            try:
                try:
                    outcomes = self._commit_batch(batch, savepoints=False)
                except _Redo as redo:
                    outcomes = ([(batch[0][1], None, _refused(redo.refused))] if len(batch) == 1
                                else self._commit_batch(batch, savepoints=True))
            except Exception as failure:  # noqa: BLE001 - the commit failed: for all
                for _, future in batch:
                    future.set_exception(failure)
                continue
            for future, result, raised in outcomes:
                if raised is None:
                    future.set_result(result)
                else:
                    future.set_exception(raised)

    def _commit_batch(self, batch: Sequence[tuple[Callable[[Connection], Any], Future[Any]]],
                      savepoints: bool) -> list[tuple[Future[Any], Any, BaseException | None]]:
        """The works of ``batch`` in one write transaction, committed; each one's result or
        exception. Without ``savepoints`` (a refusal is rare, and a savepoint each was a
        tenth of the committer's time) a work that raises rolls them all back
        (:class:`_Redo`); with them it is rolled back alone and its exception is its
        outcome."""
        outcomes: list[tuple[Future[Any], Any, BaseException | None]] = []
        with self._write() as connection:
            for work, future in batch:
                try:
                    with connection.begin_nested() if savepoints else contextlib.nullcontext():
                        outcomes.append((future, work(connection), None))
                except _Unwritten as clean:  # refused before any write: the others stand
                    outcomes.append((future, None, clean.refused))
                except Exception as refused:  # given to its caller, or the batch is redone
                    if not savepoints:
                        raise _Redo(refused) from refused
                    outcomes.append((future, None, refused))
        return outcomes

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as connection, connection.begin():
            yield connection

    def _log(self, connection: Connection, actor: str, action: str, topic: str | None = None,
             file: str | None = None, before: str | None = None, after: str | None = None) -> None:
        _changed(connection, _LOG, _log_entry(actor, action, topic, file, before, after))

    # -- the campaign --------------------------------------------------------------------------

    def init_campaign(self, mode: str, topic_rows: Sequence[Mapping[str, str]],
                      document_rows: Sequence[Document],
                      pool_rows: Sequence[tuple[str, str, str, int | None, int | None]],
                      actor: str, *, settings: Mapping[str, str] | None = None,
                      candidates: Mapping[str, str] | None = None,
                      sample_rows: Sequence[tuple[str, str, str, str, float, bool]] = (),
                      ) -> None:
        """Fill a new store: the mode, topics (in order), documents and pool rows
        ``(topic, file, path, min_rank, runs)`` in pool order, all in one transaction; the
        campaign's ``settings`` (read back with :meth:`setting`: ``strategy``, ``sample``,
        ``min_element_chars``), an adaptive campaign's
        ``candidates`` (topic: its runs as JSON), a sampled one's ``sample_rows``
        ``(topic, file, path, stratum, probability, drawn)`` in sample order."""
        for row in topic_rows:
            check_name("topic id", row["topic"])
        with self._write() as connection:
            connection.execute(campaign.insert(), [
                {"key": "mode", "value": mode}, {"key": "created", "value": now_iso()}])
            connection.execute(topics.insert(), [
                {**row, "position": i, "locked": False} for i, row in enumerate(topic_rows)])
            for document in document_rows:
                connection.execute(documents.insert().values(
                    file=document.file, length=document.length, text=document.text,
                    elements=_dumps([list(e) for e in document.elements]),
                    text_nodes=_dumps([list(t) for t in document.text_nodes])))
            if pool_rows:
                connection.execute(pool.insert(), [
                    {"topic": t, "file": f, "path": p, "position": i, "min_rank": r, "runs": n}
                    for i, (t, f, p, r, n) in enumerate(pool_rows)])
            if settings:
                connection.execute(campaign.insert(), [
                    {"key": k, "value": v} for k, v in settings.items()])
            if candidates:
                connection.execute(strategy_topics.insert(), [
                    {"topic": t, "candidates": c} for t, c in candidates.items()])
            if sample_rows:
                connection.execute(sample_units.insert(), [
                    {"topic": t, "file": f, "path": p, "position": i, "stratum": s,
                     "probability": q, "drawn": d}
                    for i, (t, f, p, s, q, d) in enumerate(sample_rows)])
            self._log(connection, actor, "init", after=_dumps({
                "mode": mode, "topics": len(topic_rows), "documents": len(document_rows),
                "pool": len(pool_rows)}))

    def mode(self) -> str:
        with self._read() as connection:
            value = connection.execute(
                sa.select(campaign.c.value).where(campaign.c.key == "mode")).scalar()
        if value is None:
            raise StoreError("the store holds no campaign", self.url)
        return str(value)

    def _adaptive(self) -> bool:
        """Whether the campaign is adaptive (``assess init --strategy``; fixed at ``init``)."""
        if self._strategy is None:
            self._strategy = self.setting("strategy") is not None
        return self._strategy

    def setting(self, key: str) -> str | None:
        """A campaign setting (``strategy``, ``sample``, ...), None when not set."""
        with self._read() as connection:
            value = connection.execute(
                sa.select(campaign.c.value).where(campaign.c.key == key)).scalar()
        return None if value is None else str(value)

    # -- adaptive pooling and samples (issue 24) -----------------------------------------------

    def serve(self, topic: str, assessor: str,
              choose: Callable[[str, list[tuple[str, str, bool]], list[Judgement]], str | None]
              ) -> str | None:
        """The article ``assessor`` judges next for ``topic`` in an adaptive campaign, in one
        transaction (the topic's row locked, so that two assessors are served in turn): the
        one served to the assessor and not done yet, else ``choose(candidates, served, done)``
        (the topic's runs as stored, the articles served so far ``(file, assessor, done)`` in
        order, the topic's done judgements), recorded as served to the assessor. Articles
        served to an assessor the topic is no longer assigned to, and not done, are taken
        back. None when the strategy has nothing more (or the topic is locked)."""
        with self._write() as connection:
            if self._access(connection, topic, assessor):
                return None
            connection.execute(sa.select(topics.c.topic).where(topics.c.topic == topic)
                               .with_for_update())
            found = connection.execute(sa.select(strategy_topics.c.candidates).where(
                strategy_topics.c.topic == topic)).scalar()
            if found is None:
                return None
            rows = connection.execute(sa.select(served).where(served.c.topic == topic)
                                      .order_by(served.c.id)).all()
            # only the judgements of articles served to their assessor count (a store written
            # before saves of others were refused may hold some)
            given_to = {(row.file, row.assessor) for row in rows}
            done = [j for j in (_judgement(r) for r in connection.execute(
                sa.select(judgements).where(judgements.c.topic == topic,
                                            judgements.c.status == "done")))
                    if (j.file, j.assessor) in given_to]
            finished = {(j.file, j.assessor) for j in done}
            assigned = set(connection.execute(sa.select(assignments.c.assessor).where(
                assignments.c.topic == topic)).scalars())
            given = []
            for row in rows:
                is_done = (row.file, row.assessor) in finished
                if row.assessor == assessor and not is_done:
                    return str(row.file)
                if row.assessor not in assigned and not is_done:
                    connection.execute(served.delete().where(served.c.id == row.id))
                    continue
                given.append((str(row.file), str(row.assessor), is_done))
            chosen = choose(str(found), given, done)
            if chosen is not None:
                connection.execute(served.insert().values(topic=topic, file=chosen,
                                                          assessor=assessor, at=time.time()))
                self._log(connection, assessor, "serve", topic=topic, file=chosen)
            return chosen

    def _draw_repeats(self, connection: Connection, topic: str, assessor: str,
                      files: Sequence[str]) -> None:
        """At assignment: the assessor's repeats of the topic drawn when the campaign repeats
        a share of the articles (``duplicates``) and none were drawn before (a topic assigned
        again keeps them)."""
        share = connection.execute(sa.select(campaign.c.value).where(
            campaign.c.key == "duplicates")).scalar()
        if share is None or connection.execute(sa.select(repeats.c.file).where(
                repeats.c.topic == topic, repeats.c.assessor == assessor)).first():
            return
        fresh = _judgement_row(Judgement(topic=topic, file="", assessor=assessor))
        rows = [{"topic": topic, "file": f, "assessor": assessor, "after_file": after,
                 "position": i, **fresh}
                for i, (f, after) in enumerate(draw_repeats(float(share), topic, assessor, files))]
        if rows:
            connection.execute(repeats.insert(), rows)
            if self._repeat_salt(connection) == "":
                connection.execute(campaign.insert().values(key="repeat_salt",
                                                            value=secrets.token_hex(16)))

    @staticmethod
    def _repeat_salt(connection: Connection) -> str:
        """The campaign's secret of the repeats' addresses (none before a repeat is drawn)."""
        return str(connection.execute(sa.select(campaign.c.value).where(
            campaign.c.key == "repeat_salt")).scalar() or "")

    def _repeat_of(self, connection: Connection, key: str, topic: str | None = None,
                   assessor: str | None = None) -> tuple[str, str, str] | None:
        """``(topic, assessor, article)`` of the repeat whose address is ``key`` (of ``topic``
        and ``assessor`` when given), or None."""
        query = sa.select(repeats.c.topic, repeats.c.assessor, repeats.c.file)
        if topic is not None:
            query = query.where(repeats.c.topic == topic)
        if assessor is not None:
            query = query.where(repeats.c.assessor == assessor)
        salt = None
        for row in connection.execute(query):
            if salt is None:
                salt = self._repeat_salt(connection)
            if repeat_key(salt, row.topic, row.assessor, row.file) == key:
                return str(row.topic), str(row.assessor), str(row.file)
        return None

    def repeat_article(self, topic: str, key: str) -> str | None:
        """The article a repeat's address ``key`` of ``topic`` repeats (any assessor's), or
        None."""
        with self._read() as connection:
            found = self._repeat_of(connection, key, topic)
        return None if found is None else found[2]

    def repeats(self, topic: str | None = None, assessor: str | None = None
                ) -> list[tuple[str, Judgement]]:
        """The repeats drawn (all, or of a topic or assessor) in topic order, then assessor,
        then as drawn: ``(the article they follow, the repeat's judgement)``; the
        judgement's file is the article's own (not the key)."""
        query = (sa.select(repeats).join(topics, topics.c.topic == repeats.c.topic)
                 .order_by(topics.c.position, repeats.c.assessor, repeats.c.position))
        if topic is not None:
            query = query.where(repeats.c.topic == topic)
        if assessor is not None:
            query = query.where(repeats.c.assessor == assessor)
        with self._read() as connection:
            return [(str(row.after_file), _judgement(row)) for row in connection.execute(query)]

    def served(self, topic: str) -> list[tuple[str, str]]:
        """An adaptive campaign's articles served for ``topic``: ``(file, assessor)`` in the
        order served."""
        with self._read() as connection:
            return [(str(r.file), str(r.assessor)) for r in connection.execute(
                sa.select(served.c.file, served.c.assessor).where(served.c.topic == topic)
                .order_by(served.c.id))]

    def assessor_pool(self, topic: str, assessor: str) -> list[dict[str, Any]]:
        """:meth:`pool` as the assessor sees it: in an adaptive campaign, the articles served
        to the assessor in the order served; else the whole pool."""
        articles = self.pool(topic, assessor)
        if self.setting("strategy") is None:
            return self._with_repeats(articles, topic, assessor)
        by_file = {a["file"]: a for a in articles}
        return [by_file[f] for f, who in self.served(topic) if who == assessor and f in by_file]

    def _with_repeats(self, articles: list[dict[str, Any]], topic: str,
                      assessor: str) -> list[dict[str, Any]]:
        """The pool entries with the assessor's repeats placed after the articles they follow:
        each a copy of its article's entry with the repeat's status, its key as ``file`` and
        the article's file as ``name``."""
        by_file = {a["file"]: {**a, "name": a["file"]} for a in articles}
        entries = []
        found = self.repeats(topic, assessor)
        if found:
            with self._read() as connection:
                salt = self._repeat_salt(connection)
        for after, j in found:
            entries.append((j.file, after, {
                **by_file[j.file], "file": repeat_key(salt, topic, assessor, j.file),
                "status": j.status, "relevant": j.relevant if j.status == "done" else None,
                "version": j.version}))
        listed = list(by_file.values())
        return place_repeats(listed, entries) if entries else listed

    def sample(self, topic: str) -> list[tuple[str, str, str, float, bool]]:
        """A sampled campaign's sample of ``topic``: ``(file, path, stratum, probability,
        drawn)`` in sample order (empty for a campaign that is not sampled)."""
        with self._read() as connection:
            return [(str(r.file), str(r.path), str(r.stratum), float(r.probability),
                     bool(r.drawn)) for r in connection.execute(
                sa.select(sample_units).where(sample_units.c.topic == topic)
                .order_by(sample_units.c.position))]

    # -- users, assignments, sessions ----------------------------------------------------------

    def add_user(self, name: str, password_hash: str, admin: bool, actor: str) -> None:
        """Add a user (or give a removed one a password again: its judgements are still there)."""
        name = user_key(check_name("user name", name))
        check_name("user name", name)
        if name_skeleton(name) == name_skeleton(ADJUDICATED):
            raise StoreError(f"{ADJUDICATED!r} is the name of the adjudicated judgements, not "
                             "available for a user")
        with self._write() as connection:
            found = connection.execute(sa.select(users.c.password_hash)
                                       .where(users.c.name == name)).first()
            if found is None:
                skeleton = name_skeleton(name)
                for other in connection.execute(sa.select(users.c.name)).scalars():
                    if name_skeleton(other) == skeleton:
                        raise StoreError(f"user name {name!r} looks like the user {other!r}'s: "
                                         "choose another")
            if found and found.password_hash:
                raise StoreError(f"user {name!r} exists already")
            if found:
                connection.execute(users.update().where(users.c.name == name).values(
                    password_hash=password_hash, admin=admin))
            else:
                connection.execute(users.insert().values(
                    name=name, password_hash=password_hash, admin=admin))
            self._log(connection, actor, "add-user", after=_dumps({"user": name, "admin": admin}))

    def user(self, name: str) -> User | None:
        """The user called ``name``; None when there is none (or it was removed)."""
        with self._read() as connection:
            row = connection.execute(sa.select(users).where(users.c.name == name)).first() \
                or connection.execute(sa.select(users).where(
                    users.c.name == user_key(name))).first()
        if row is None or not row.password_hash:
            return None
        return User(row.name, row.password_hash, bool(row.admin))

    def set_password_hash(self, name: str, password_hash: str) -> None:
        """Replace a hash by a rehash with current parameters (no action logged: no change)."""
        with self._write() as connection:
            connection.execute(users.update().where(users.c.name == name).values(
                password_hash=password_hash))

    def set_password(self, name: str, password_hash: str, actor: str) -> int:
        """A new password for ``name``; ends its sessions (returns how many)."""
        with self._write() as connection:
            name = self._require_user(connection, name)
            connection.execute(users.update().where(users.c.name == name).values(
                password_hash=password_hash))
            ended = self._end_sessions(connection, name)
            self._log(connection, actor, "set-password", after=_dumps({"user": name}))
        return ended

    def remove_user(self, name: str, actor: str) -> list[str]:
        """Remove a user: it can no longer log in, its sessions end and its topics are withdrawn
        (returned); its judgements and actions stay in the store (``add-user`` of the same
        name gives them back)."""
        with self._write() as connection:
            name = self._require_user(connection, name)
            withdrawn = list(connection.execute(
                sa.select(assignments.c.topic).where(assignments.c.assessor == name)
                .order_by(assignments.c.id)).scalars())
            connection.execute(assignments.delete().where(assignments.c.assessor == name))
            self._end_sessions(connection, name)
            connection.execute(users.update().where(users.c.name == name).values(
                password_hash="", admin=False))
            self._log(connection, actor, "remove-user",
                      before=_dumps({"user": name, "topics": withdrawn}))
        return withdrawn

    def end_sessions(self, name: str, actor: str) -> int:
        """End every session of ``name``; returns how many there were."""
        with self._write() as connection:
            name = self._require_user(connection, name)
            ended = self._end_sessions(connection, name)
            self._log(connection, actor, "end-sessions", after=_dumps({"user": name,
                                                                       "sessions": ended}))
        return ended

    def _end_sessions(self, connection: Connection, name: str) -> int:
        return int(connection.execute(sessions.delete().where(sessions.c.user == name)).rowcount)

    def count_login_attempt(self, keys: Sequence[tuple[str, Callable[[int], float]]],
                            now: float, forget: float, most: int) -> float:
        """Count a login attempt under each of ``keys`` (a client address, a user name) as a
        failure before its password is checked, in one transaction, so that concurrent attempts
        are all counted; returns 0 then. When a key is still waiting (``delay(failures)``
        seconds after its last failure, ``keys`` being ``(key, delay)`` pairs) nothing is counted
        and the wait in seconds is returned.

        Keys whose last failure is ``forget`` seconds old are forgotten, and beyond ``most``
        keys the oldest are: the table stays bounded. A key that must wait stops the others from
        being looked at (a spray of names from a waiting address adds no row)."""
        try:
            with self._write() as connection:
                found = []
                for key, delay in keys:
                    inserted = connection.execute(
                        _insert_new(connection), {"key": key, "failures": 0, "last": now})
                    if inserted.first() is not None:
                        self._forget_logins(connection, now - forget, most)
                    row = connection.execute(_LOGIN_FAILURES_LOCKED, {"key": key}).one()
                    found.append((key, row.failures))
                    wait = row.last + delay(row.failures) - now
                    if wait > 0:
                        raise _Refused(wait)
                for key, failures in found:
                    connection.execute(login_failures.update().where(
                        login_failures.c.key == key).values(failures=failures + 1, last=now))
        except _Refused as refused:
            return refused.wait
        return 0.0

    def login_taken_back(self, keys: Sequence[str]) -> None:
        """After :meth:`count_login_attempt`, an attempt that was no failure (a right password,
        or one that could not be checked): it no longer counts against ``keys``."""
        with self._write() as connection:
            connection.execute(login_failures.update().where(
                login_failures.c.key.in_(keys), login_failures.c.failures > 0).values(
                failures=login_failures.c.failures - 1))

    def login_failure_count(self) -> int:
        """How many keys the failed-login table holds."""
        with self._read() as connection:
            return int(connection.execute(
                sa.select(sa.func.count()).select_from(login_failures)).scalar_one())

    def _forget_logins(self, connection: Connection, before: float, most: int) -> None:
        connection.execute(login_failures.delete().where(login_failures.c.last < before))
        held = connection.execute(sa.select(sa.func.count()).select_from(login_failures)).scalar()
        if held is not None and held > most:
            oldest = (sa.select(login_failures.c.key).order_by(login_failures.c.last)
                      .limit(held - most).scalar_subquery())
            connection.execute(login_failures.delete().where(login_failures.c.key.in_(oldest)))

    def assign(self, assessor: str, topic_ids: Sequence[str], actor: str) -> list[str]:
        """Assign topics to an assessor (one transaction); returns those newly assigned. The
        assessor's judgements of each pooled document are created as ``unseen``."""
        added = []
        with self._write() as connection:
            assessor = self._require_user(connection, assessor)
            for topic in topic_ids:
                self._require_topic(connection, topic)
                if connection.execute(sa.select(assignments.c.id).where(
                        assignments.c.topic == topic, assignments.c.assessor == assessor)).first():
                    continue
                connection.execute(assignments.insert().values(topic=topic, assessor=assessor))
                have = set(connection.execute(sa.select(judgements.c.file).where(
                    judgements.c.topic == topic, judgements.c.assessor == assessor)).scalars())
                files = self._pool_files(connection, topic)
                fresh = Judgement(topic=topic, file="", assessor=assessor)
                rows = [{"topic": topic, "file": f, "assessor": assessor, **_judgement_row(fresh)}
                        for f in files if f not in have]
                if rows:
                    connection.execute(judgements.insert(), rows)
                self._draw_repeats(connection, topic, assessor, files)
                self._log(connection, actor, "assign", topic=topic,
                          after=_dumps({"assessor": assessor}))
                added.append(topic)
        return added

    def unassign(self, assessor: str, topic_ids: Sequence[str], actor: str) -> list[str]:
        """Withdraw topics from an assessor; their judgements are kept (and exported only if
        the topic is assigned again)."""
        removed = []
        with self._write() as connection:
            assessor = self._require_user(connection, assessor)
            for topic in topic_ids:
                self._require_topic(connection, topic)
                result = connection.execute(assignments.delete().where(
                    assignments.c.topic == topic, assignments.c.assessor == assessor))
                if result.rowcount:
                    self._log(connection, actor, "unassign", topic=topic,
                              before=_dumps({"assessor": assessor}))
                    removed.append(topic)
        return removed

    def assessors(self, topic: str) -> list[str]:
        """The topic's assessors in the order they were assigned."""
        with self._read() as connection:
            return list(connection.execute(
                sa.select(assignments.c.assessor).where(assignments.c.topic == topic)
                .order_by(assignments.c.id)).scalars())

    def is_assigned(self, assessor: str, topic: str) -> bool:
        with self._read() as connection:
            return connection.execute(sa.select(assignments.c.id).where(
                assignments.c.topic == topic, assignments.c.assessor == assessor)).first() is not None

    def access(self, topic: str, assessor: str) -> None:
        """Raise :class:`NotFound` for an unknown topic, :class:`NotAssigned` for a topic not
        assigned to ``assessor``."""
        with self._read() as connection:
            self._access(connection, topic, assessor)

    def _access(self, connection: Connection, topic: str, assessor: str) -> bool:
        """As :meth:`access`, in a transaction; returns whether the topic is locked."""
        return _allowed(connection.execute(_ACCESS, {"topic": topic, "assessor": assessor})
                        .first(), topic, assessor)

    def create_session(self, user: str, idle: float = SESSION_IDLE) -> tuple[str, str]:
        """A new login session: ``(token for the cookie, CSRF token)``; only a hash of the
        session token is stored. Ended sessions are deleted, and the user's least recently used
        ones beyond :data:`SESSIONS_PER_USER`."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = time.time()
        with self._write() as connection:
            connection.execute(sessions.delete().where(sa.or_(
                sessions.c.expires < now, sessions.c.last_seen < now - idle)))
            kept = (sa.select(sessions.c.token_hash).where(sessions.c.user == user)
                    .order_by(sessions.c.last_seen.desc()).limit(SESSIONS_PER_USER - 1))
            connection.execute(sessions.delete().where(
                sessions.c.user == user, sessions.c.token_hash.not_in(kept.scalar_subquery())))
            connection.execute(sessions.insert().values(
                token_hash=_token_hash(token), user=user, csrf_token=csrf,
                expires=now + SESSION_SECONDS, last_seen=now))
        return token, csrf

    def session(self, token: str, idle: float = SESSION_IDLE) -> tuple[User, str] | None:
        """The user and CSRF token of a live session, None for an unknown, expired or idle
        (unused for ``idle`` seconds) token. A use is recorded at most once a minute."""
        now, token_hash = time.time(), _token_hash(token)
        with self._read() as connection:
            row = _first(connection, _SESSION, {"token_hash": token_hash})
        found, seen = _live_session(row, now, idle)
        if seen:
            try:
                with self._write() as connection:
                    connection.execute(_SEEN, {"seen_token": token_hash, "seen_at": now})
            except (sa.exc.OperationalError, sa.exc.InternalError):
                pass  # a store that cannot be written (full disk, read-only) can still be read
        return found

    def end_session(self, token: str) -> None:
        with self._write() as connection:
            connection.execute(sessions.delete().where(sessions.c.token_hash == _token_hash(token)))

    # -- topics, pool, documents ---------------------------------------------------------------

    def topic_ids(self) -> list[str]:
        with self._read() as connection:
            return list(connection.execute(
                sa.select(topics.c.topic).order_by(topics.c.position)).scalars())

    def topic(self, topic: str) -> dict[str, Any]:
        with self._read() as connection:
            row = connection.execute(sa.select(topics).where(topics.c.topic == topic)).first()
        if row is None:
            raise NotFound(f"no topic {topic!r} in the store")
        fields = dict(row._mapping)
        del fields["position"]
        fields["locked"] = bool(fields["locked"])
        return fields

    def set_locked(self, topic: str, locked: bool, actor: str) -> None:
        with self._write() as connection:
            self._require_topic(connection, topic)
            connection.execute(topics.update().where(topics.c.topic == topic).values(
                locked=locked))
            self._log(connection, actor, "lock" if locked else "unlock", topic=topic)

    def user_topics(self, assessor: str) -> list[dict[str, Any]]:
        """The assessor's topics in topic order with progress: documents in the pool, done,
        in progress, relevant among done, and the seconds spent."""
        with self._read() as connection:
            rows = connection.execute(
                sa.select(topics.c.topic, topics.c.title, topics.c.locked)
                .join(assignments, assignments.c.topic == topics.c.topic)
                .where(assignments.c.assessor == assessor).order_by(topics.c.position)).all()
            found = []
            for row in rows:
                progress = self._progress(connection, row.topic, assessor)
                found.append({"topic": row.topic, "title": row.title,
                              "locked": bool(row.locked), **progress})
        return found

    def _progress(self, connection: Connection, topic: str, assessor: str) -> dict[str, Any]:
        pooled = set(self._pool_files(connection, topic))
        rows = connection.execute(sa.select(judgements).where(
            judgements.c.topic == topic, judgements.c.assessor == assessor)).all()
        counted = [_judgement(r) for r in rows if r.file in pooled]
        return {
            "pool": len(pooled),
            "done": sum(j.status == "done" for j in counted),
            "in_progress": sum(j.status == "in-progress" for j in counted),
            "relevant": sum(j.status == "done" and j.relevant for j in counted),
            "seconds": sum(j.seconds for j in counted),
        }

    def _pool_files(self, connection: Connection, topic: str) -> list[str]:
        rows = connection.execute(sa.select(pool.c.file).where(pool.c.topic == topic)
                                  .order_by(pool.c.position)).scalars()
        return list(dict.fromkeys(rows))

    def pool(self, topic: str, assessor: str) -> list[dict[str, Any]]:
        """The topic's pool grouped by article in pool order, with the assessor's status."""
        with self._read() as connection:
            self._require_topic(connection, topic)
            rows = connection.execute(sa.select(pool).where(pool.c.topic == topic)
                                      .order_by(pool.c.position)).all()
            judged = {r.file: _judgement(r) for r in connection.execute(sa.select(judgements).where(
                judgements.c.topic == topic, judgements.c.assessor == assessor))}
        articles: dict[str, dict[str, Any]] = {}
        for row in rows:
            article = articles.get(row.file)
            if article is None:
                j = judged.get(row.file, Judgement(topic, row.file, assessor))
                article = articles[row.file] = {
                    "file": row.file, "status": j.status,
                    "relevant": j.relevant if j.status == "done" else None,
                    "version": j.version, "min_rank": row.min_rank, "runs": row.runs,
                    "elements": []}
            if row.path:
                article["elements"].append(
                    {"path": row.path, "min_rank": row.min_rank, "runs": row.runs})
            if row.min_rank is not None and (article["min_rank"] is None
                                             or row.min_rank < article["min_rank"]):
                article["min_rank"] = row.min_rank
            if row.runs is not None:
                article["runs"] = max(article["runs"] or 0, row.runs)
        return list(articles.values())

    def pool_paths(self, topic: str, file: str) -> list[str]:
        """The pooled elements of a document (empty for an article pool); a repeat's key
        gives those of its article."""
        with self._read() as connection:
            found = [p for p in connection.execute(sa.select(pool.c.path).where(
                pool.c.topic == topic, pool.c.file == file).order_by(pool.c.position)).scalars()]
            repeat = None if found else self._repeat_of(connection, file, topic)
            if repeat is not None:
                found = list(connection.execute(sa.select(pool.c.path).where(
                    pool.c.topic == topic, pool.c.file == repeat[2])
                    .order_by(pool.c.position)).scalars())
        return [p for p in found if p]

    def document(self, file: str) -> Document:
        """The document ``file``, or the one a repeat's key names
        (:func:`inexeval.assess.repeats.key`)."""
        with self._read() as connection:
            row = connection.execute(sa.select(documents).where(documents.c.file == file)).first()
            repeat = None if row is not None else self._repeat_of(connection, file)
            if repeat is not None:
                row = connection.execute(sa.select(documents).where(
                    documents.c.file == repeat[2])).first()
        if row is None:
            raise NotFound(f"no document {file!r} in the store")
        return Document(row.file, row.text,
                        tuple((p, int(s), int(e)) for p, s, e in json.loads(row.elements)),
                        tuple((int(i), int(s), int(e)) for i, s, e in json.loads(row.text_nodes)))

    def document_files(self) -> list[str]:
        with self._read() as connection:
            return list(connection.execute(sa.select(documents.c.file)
                                           .order_by(documents.c.file)).scalars())

    # -- judgements ----------------------------------------------------------------------------

    def judgement(self, topic: str, file: str, assessor: str) -> Judgement:
        """The assessor's judgement of ``file``, or of a repeat for a repeat's key
        (:mod:`inexeval.assess.repeats`; the judgement then carries the key as its file)."""
        with self._read() as connection:
            stored, repeat = self._resolve(connection, topic, file, assessor)
            row = connection.execute(_STATEMENTS[repeat][1],
                                     _key(topic, stored, assessor)).first()
        if row is None:
            raise NotFound(f"document {file!r} is not in the pool of topic {topic!r}")
        return replace(_judgement(row), file=file)

    def _resolve(self, connection: Connection, topic: str, key: str,
                 assessor: str) -> tuple[str, bool]:
        """``(the stored file, whether it is a repeat)`` of a document key: a pooled file is
        itself; the address of a repeat drawn for the assessor names the repeat."""
        if connection.execute(_POOLED, {"topic": topic, "file": key}).first() is not None:
            return key, False
        repeat = self._repeat_of(connection, key, topic, assessor)
        return (key, False) if repeat is None else (repeat[2], True)

    def save(self, topic: str, file: str, assessor: str, version: int,
             change: Callable[[Judgement], Judgement],
             merge: Callable[[Judgement, Judgement], Judgement] | None = None, *,
             visit: str | None = None, sequence: int | None = None) -> Judgement:
        """:meth:`save_change`'s judgement."""
        return self.save_change(topic, file, assessor, version, change, merge, visit=visit,
                                sequence=sequence)[0]

    def save_change(self, topic: str, file: str, assessor: str, version: int,
                    change: Callable[[Judgement], Judgement],
                    merge: Callable[[Judgement, Judgement], Judgement] | None = None, *,
                    visit: str | None = None, sequence: int | None = None
                    ) -> tuple[Judgement, bool]:
        """Apply ``change`` to the stored judgement when its version is ``version`` and store
        the result with the next version, in one transaction with its action-log entry.
        Passages are stored sorted and merged whatever ``change`` returns (and read so: a row
        written otherwise is read sorted and merged too).

        When the stored version is newer and ``merge`` is given, the judgement as it was at
        ``version`` (the *base*, from the action log: :meth:`_base`) is looked up and
        ``merge(base, stored)`` stored instead (a three-way merge,
        :mod:`inexeval.assess.merge`); a base that cannot be found is a :class:`Conflict`. A
        merge that says what is stored (a save resent after its answer was lost) writes
        nothing and gives the stored judgement.

        ``visit`` names the page visit that sends the change (the browser's outbox entry) and
        ``sequence`` its place among that visit's changes; both are kept in the action log
        with the save. A visit's change includes everything it changed before, so when the
        visit saved a version newer than ``version`` itself (its answers were lost, its later
        changes queued on top), the newest of those is the base, not ``version``: the seconds
        the visit counted are not added to themselves, and a change of its own it undid
        stays undone. A change whose ``sequence`` is not above that save's is a late copy of
        an older one: nothing is written, the stored judgement is given.

        Gives the judgement stored and whether it was merged with changes saved meanwhile.
        Raises :class:`Conflict` (stale version), :class:`Locked`, :class:`NotFound`,
        :class:`NotAssigned`, or whatever ``change`` or ``merge`` raises; nothing is written
        then."""
        return self._grouped(self._save_work(topic, file, assessor, version, change, merge,
                                             visit, sequence))

    def save_change_of_session(
            self, token: str, idle: float,
            authorise: Callable[[tuple[User, str] | None], User], topic: str, file: str,
            version: int, change: Callable[[Judgement], Judgement],
            merge: Callable[[Judgement, Judgement], Judgement] | None = None, *,
            visit: str | None = None, sequence: int | None = None
            ) -> Future[tuple[Judgement, bool]]:
        """:meth:`save_change` for the user of the login session ``token`` (as
        :meth:`session`), looked up in the save's transaction: ``authorise(session)`` gives the
        user or raises, and nothing is written then. Where :attr:`groups_commits` it is given
        to the committer at once, elsewhere (PostgreSQL) to a thread of the store's
        (:data:`SAVE_THREADS`); the future is done once the save is committed or refused (a
        serving process's event loop waits for it without a thread of its own)."""
        def work(connection: Connection) -> tuple[Judgement, bool]:
            now, token_hash = time.time(), _token_hash(token)
            pooled: Any = _UNREAD
            if connection.dialect.name == "postgresql":
                # the session and the judgement of its user, locked, in one round trip
                session, pooled = _first_rows(connection, [
                    (_SESSION, {"token_hash": token_hash}),
                    (_LOCK_POOLED_OF_SESSION, {"key_topic": topic, "key_file": file,
                                               "token_hash": token_hash})])
            else:
                session = _first(connection, _SESSION, {"token_hash": token_hash})
            found, seen = _live_session(session, now, idle)
            # every refusal (401, 403 and the save's own) comes before anything is written,
            # so that it does not make the committer redo the saves batched with it
            user = _before_writing(authorise, found)
            if pooled is not _UNREAD and (pooled is None or pooled.assessor != user.name):
                pooled = _UNREAD  # (a repeat's, or the session ended meanwhile: read again)
            saved = self._save_work(topic, file, user.name, version, change, merge, visit,
                                    sequence, pooled)(connection)
            if seen:  # the session's use, at most once a minute
                _changed(connection, _SEEN, {"seen_token": token_hash, "seen_at": now})
            return saved

        if self.groups_commits:
            return self._submit(work)
        with self._pending_ready:
            if self._savers is None:
                self._savers = ThreadPoolExecutor(SAVE_THREADS, "inexeval-saves")
        return self._savers.submit(self._grouped, work)

    def _save_work(self, topic: str, file: str, assessor: str, version: int,
                   change: Callable[[Judgement], Judgement],
                   merge: Callable[[Judgement, Judgement], Judgement] | None,
                   visit: str | None, sequence: int | None, pooled: Any = _UNREAD
                   ) -> Callable[[Connection], tuple[Judgement, bool]]:
        """The transaction's work of :meth:`save_change`: every refusal it raises (not the
        store's own errors) before it writes is raised as :class:`_Unwritten`. ``pooled``:
        the row of :data:`_LOCK_POOLED` when read already in the transaction."""
        writing = False

        def work(connection: Connection) -> tuple[Judgement, bool]:
            try:
                return checked(connection)
            except sa.exc.SQLAlchemyError:
                raise
            except _Unwritten:
                raise
            except Exception as refused:
                if writing:
                    raise
                raise _Unwritten(refused) from refused

        def checked(connection: Connection) -> tuple[Judgement, bool]:
            nonlocal writing
            merged = False
            # a pooled document's judgement (every save but a repeat's): the topic's access,
            # the pool and the judgement, locked, in one statement
            row = (_first(connection, _LOCK_POOLED, _key(topic, file, assessor))
                   if pooled is _UNREAD else pooled)
            if row is not None:
                locked, stored, repeat = _allowed(row, topic, assessor), file, False
            else:
                locked = self._access(connection, topic, assessor)
            if locked:
                raise Locked(f"topic {topic} is locked: no further changes")
            if row is None:
                stored, repeat = self._resolve(connection, topic, file, assessor)
            if not repeat and self._adaptive() and connection.execute(
                    sa.select(served.c.id).where(served.c.topic == topic, served.c.file == stored,
                                                 served.c.assessor == assessor)).first() is None:
                raise NotAssigned(f"document {file!r} of topic {topic} was not served to "
                                  f"{assessor}: an adaptive campaign's judgements are of the "
                                  "articles it serves")
            action, _, lock, update = _STATEMENTS[repeat]
            key = _key(topic, stored, assessor)
            if row is None:
                row = connection.execute(lock, key).first()
                if row is None:
                    raise NotFound(f"document {file!r} is not in the pool of topic {topic!r}")
            before = replace(_judgement(row), file=file)
            if before.version == version:
                changed = change(before)
            else:
                if merge is None:
                    raise Conflict(before)
                own = (None if visit is None or not 0 <= version < before.version
                       else self._own_save(connection, before, version, action, visit))
                if own is not None:
                    if sequence is not None and own.get("sequence") is not None \
                            and sequence <= own["sequence"]:
                        return before, False  # a late copy of a change saved since
                    base = _from_state(before, own)
                else:
                    found = self._base(connection, before, version, action)
                    if found is None:
                        raise Conflict(before)
                    base = found
                changed, merged = merge(base, before), base.version != before.version
                if same_record(changed, before):  # stored already (a resent save): kept as is
                    return before, False
            after = Judgement(
                topic=topic, file=file, assessor=assessor, status=changed.status,
                passages=merge_passages(changed.passages), best_entry_point=changed.best_entry_point,
                exhaustivity=changed.exhaustivity, values=changed.values,
                version=before.version + 1, seconds=changed.seconds, updated=now_iso())
            values = {**key, "key_version": before.version, **_judgement_row(after)}
            entry = _log_entry(assessor, action, topic, file, _state(before),
                               _state(after, visit, sequence))
            writing = True  # a refusal from here on follows a write
            if connection.dialect.name == "postgresql":
                # the update and its log entry in one round trip (both undone on a conflict)
                if _changed_rows(connection, [(update, values), (_LOG, entry)])[0] != 1:
                    raise Conflict(before)
                return after, merged
            if _changed(connection, update, values) != 1:
                raise Conflict(before)
            _changed(connection, _LOG, entry)
            return after, merged

        return work

    def _own_save(self, connection: Connection, current: Judgement, version: int,
                  action: str, visit: str) -> dict[str, Any] | None:
        """The state (action log) of the newest version of ``current`` after ``version`` that
        ``visit`` saved, if any."""
        for state in self._saved_states(connection, current, action):
            saved = state.get("version")
            if not isinstance(saved, int) or saved <= version:
                return None
            if state.get("visit") == visit:
                return state
        return None

    def _base(self, connection: Connection, current: Judgement,
              version: int, action: str = "save") -> Judgement | None:
        """The judgement ``current`` as it was stored at ``version`` (older than its own), from
        the states the action log keeps of every save; the fresh judgement for version 0; None
        when the log has no such state (a version the store never had)."""
        if version == 0:
            return Judgement(current.topic, current.file, current.assessor)
        if not 0 < version < current.version:
            return None
        for state in self._saved_states(connection, current, action):
            if state.get("version") == version:
                return _from_state(current, state)
        return None

    @staticmethod
    def _saved_states(connection: Connection, current: Judgement,
                      action: str) -> Iterator[dict[str, Any]]:
        """The states the action log keeps of the saves (``action``) of ``current``'s
        judgement, newest first, read as they are asked for."""
        rows = connection.execute(
            sa.select(actions.c.after).where(
                actions.c.actor == current.assessor, actions.c.action == action,
                actions.c.topic == current.topic, actions.c.file == current.file)
            .order_by(actions.c.id.desc())).scalars()
        for after in rows:
            state: dict[str, Any] = json.loads(after)
            yield state

    def judgements(self, topic: str | None = None,
                   assessor: str | None = None) -> list[Judgement]:
        """Stored judgements in topic order, then pool order (all, or of one topic/assessor)."""
        query = (sa.select(judgements)
                 .join(topics, topics.c.topic == judgements.c.topic)
                 .order_by(topics.c.position, judgements.c.assessor, judgements.c.file))
        if topic is not None:
            query = query.where(judgements.c.topic == topic)
        if assessor is not None:
            query = query.where(judgements.c.assessor == assessor)
        with self._read() as connection:
            return [_judgement(row) for row in connection.execute(query)]

    # -- statistics ----------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Progress per topic and assessor and throughput per assessor, from the judgements and
        the action log. Assessing time has one definition, the same per topic and per assessor
        (``/admin`` and ``assess stats`` both show this): the sum of the seconds the judgements
        record, which the document page counts only while it is visible and the assessor acted
        (a key, a click, a scroll, a pointer move) within the last ``ACTIVE_SECONDS``
        (:data:`inexeval.assess.model.ACTIVE_SECONDS`, 2 minutes); documents per hour are the
        documents the assessor marked done divided by that time."""
        with self._read() as connection:
            pairs = connection.execute(
                sa.select(assignments.c.topic, assignments.c.assessor, topics.c.locked)
                .join(topics, topics.c.topic == assignments.c.topic)
                .order_by(topics.c.position, assignments.c.id)).all()
            per_topic = [{"topic": p.topic, "assessor": p.assessor, "locked": bool(p.locked),
                          **self._progress(connection, p.topic, p.assessor)} for p in pairs]
            saves = connection.execute(
                sa.select(actions.c.actor, actions.c.at, actions.c.topic, actions.c.file,
                          actions.c.after)
                .where(actions.c.action == "save").order_by(actions.c.actor, actions.c.id)).all()
            recorded = connection.execute(
                sa.select(judgements.c.assessor, judgements.c.seconds)).all()
        active: dict[str, float] = {}
        for row in recorded:
            active[row.assessor] = active.get(row.assessor, 0.0) + _bounded_seconds(row.seconds)
        per_assessor: dict[str, dict[str, Any]] = {}
        done: dict[str, set[tuple[str, str]]] = {}
        for save in saves:
            entry = per_assessor.setdefault(save.actor, {
                "assessor": save.actor, "saves": 0, "seconds": active.get(save.actor, 0.0)})
            entry["saves"] += 1
            if json.loads(save.after).get("status") == "done":
                done.setdefault(save.actor, set()).add((save.topic, save.file))
        for name, entry in per_assessor.items():
            entry["documents_done"] = len(done.get(name, ()))
            hours = entry["seconds"] / 3600
            # under a minute of activity says nothing about a rate
            entry["documents_per_hour"] = (round(entry["documents_done"] / hours, 2)
                                           if entry["seconds"] >= 60 else None)
            entry["seconds"] = round(entry["seconds"], 3)
        return {"topics": per_topic,
                "assessors": sorted(per_assessor.values(), key=lambda e: str(e["assessor"]))}

    def assessor_keywords(self, topic: str, assessor: str) -> list[str] | None:
        """The keywords ``assessor`` chose for ``topic``; None when none were chosen (the
        page then shows the topic's own)."""
        with self._read() as connection:
            words = connection.execute(sa.select(assessor_keywords.c.words).where(
                assessor_keywords.c.topic == topic,
                assessor_keywords.c.assessor == assessor)).scalar()
        return None if words is None else [str(w) for w in json.loads(words)]

    def set_assessor_keywords(self, topic: str, assessor: str, words: Sequence[str]) -> None:
        """Keep ``words`` as the keywords of ``assessor`` for ``topic`` (one transaction,
        logged); :class:`Locked` when the topic is."""
        with self._write() as connection:
            if self._access(connection, topic, assessor):
                raise Locked(f"topic {topic} is locked: no further changes")
            key = (assessor_keywords.c.topic == topic, assessor_keywords.c.assessor == assessor)
            before = connection.execute(sa.select(assessor_keywords.c.words).where(*key)).scalar()
            if before is None:
                connection.execute(assessor_keywords.insert().values(
                    topic=topic, assessor=assessor, words=_dumps(list(words))))
            else:
                connection.execute(assessor_keywords.update().where(*key).values(
                    words=_dumps(list(words))))
            self._log(connection, assessor, "keywords", topic=topic, before=before,
                      after=_dumps(list(words)))

    def set_note(self, topic: str, file: str, assessor: str, flag: str | None,
                 comment: str) -> dict[str, Any]:
        """Keep the assessor's note on a document: a ``flag`` (one of :data:`NOTE_FLAGS`, or
        None) and a ``comment`` (empty: none), in the action log (one transaction); the
        latest is the note. :class:`Locked` when the topic is, :class:`NotFound` for a
        document not in the assessor's pool."""
        note = {"flag": flag, "comment": comment}
        with self._write() as connection:
            if self._access(connection, topic, assessor):
                raise Locked(f"topic {topic} is locked: no further changes")
            stored, repeat = self._resolve(connection, topic, file, assessor)
            table = repeats if repeat else judgements
            if connection.execute(sa.select(table.c.version).where(
                    table.c.topic == topic, table.c.file == stored,
                    table.c.assessor == assessor)).first() is None:
                raise NotFound(f"document {file!r} is not in the pool of topic {topic!r}")
            self._log(connection, assessor, "note", topic=topic, file=file, after=_dumps(note))
        return {"topic": topic, "file": file, "assessor": assessor, **note}

    def notes(self, topic: str | None = None, assessor: str | None = None,
              file: str | None = None) -> list[dict[str, Any]]:
        """The assessors' notes on documents (:meth:`set_note`), the latest of each document and
        assessor, those with a flag or a comment, in the order written: ``topic``, ``file``,
        ``assessor``, ``flag``, ``comment``, ``at`` (seconds since 1970)."""
        query = sa.select(actions).where(actions.c.action == "note").order_by(actions.c.id)
        for column, value in ((actions.c.topic, topic), (actions.c.actor, assessor),
                              (actions.c.file, file)):
            if value is not None:
                query = query.where(column == value)
        latest: dict[tuple[str, str, str], dict[str, Any]] = {}
        with self._read() as connection:
            for row in connection.execute(query):
                key = (str(row.topic), str(row.file), str(row.actor))
                latest.pop(key, None)
                latest[key] = {"topic": key[0], "file": key[1], "assessor": key[2],
                               **json.loads(row.after), "at": row.at}
        return [n for n in latest.values() if n["flag"] or n["comment"]]

    def history(self, assessor: str, since: float = 0.0,
                limit: int = 20) -> list[dict[str, Any]]:
        """The assessor's last ``limit`` saves since ``since`` (a time), newest first: when,
        topic, document, and the states before and after (as the action log keeps them)."""
        with self._read() as connection:
            rows = connection.execute(
                sa.select(actions.c.at, actions.c.topic, actions.c.file, actions.c.before,
                          actions.c.after)
                .where(actions.c.actor == assessor, actions.c.action == "save",
                       actions.c.at >= since)
                .order_by(actions.c.id.desc()).limit(limit)).all()
        return [{"at": row.at, "topic": row.topic, "file": row.file,
                 "before": json.loads(row.before or "{}"), "after": json.loads(row.after or "{}")}
                for row in rows]

    def session_started(self, token: str) -> float | None:
        """When the session of ``token`` began (None for an unknown token)."""
        with self._read() as connection:
            expires = connection.execute(sa.select(sessions.c.expires).where(
                sessions.c.token_hash == _token_hash(token))).scalar()
        return None if expires is None else float(expires) - SESSION_SECONDS

    def actions(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The action log, oldest first."""
        query = sa.select(actions).order_by(actions.c.id)
        if limit is not None:
            query = query.limit(limit)
        with self._read() as connection:
            return [dict(row._mapping) for row in connection.execute(query)]

    # -- the organiser's campaign (issue 22) ---------------------------------------------------

    def topics_overview(self) -> list[dict[str, Any]]:
        """Every topic in topic order, assigned or not: its id, title, lock, the articles of its
        pool and its assessors in assignment order."""
        with self._read() as connection:
            rows = connection.execute(sa.select(topics.c.topic, topics.c.title, topics.c.locked)
                                      .order_by(topics.c.position)).all()
            pooled: dict[str, int] = dict(connection.execute(
                sa.select(pool.c.topic, sa.func.count(sa.distinct(pool.c.file)))
                .group_by(pool.c.topic)).all())
            assigned: dict[str, list[str]] = {}
            for topic, assessor in connection.execute(
                    sa.select(assignments.c.topic, assignments.c.assessor)
                    .order_by(assignments.c.id)):
                assigned.setdefault(topic, []).append(assessor)
        return [{"topic": r.topic, "title": r.title, "locked": bool(r.locked),
                 "pool": int(pooled.get(r.topic, 0)), "assessors": assigned.get(r.topic, [])}
                for r in rows]

    def done_counts(self) -> dict[tuple[str, str], int]:
        """Per (topic, assessor), the pooled articles the assessor has marked done."""
        pooled = sa.select(pool.c.topic, pool.c.file).distinct().subquery()
        query = (sa.select(judgements.c.topic, judgements.c.assessor, sa.func.count())
                 .join(pooled, sa.and_(pooled.c.topic == judgements.c.topic,
                                       pooled.c.file == judgements.c.file))
                 .where(judgements.c.status == "done")
                 .group_by(judgements.c.topic, judgements.c.assessor))
        with self._read() as connection:
            return {(topic, assessor): int(count)
                    for topic, assessor, count in connection.execute(query)}

    def document_lengths(self) -> dict[str, int]:
        """The length in characters of every stored document."""
        with self._read() as connection:
            return {file: int(length) for file, length in connection.execute(
                sa.select(documents.c.file, documents.c.length))}

    def assessor_names(self) -> list[str]:
        """The users who can log in and are not administrators, by name."""
        with self._read() as connection:
            return list(connection.execute(
                sa.select(users.c.name).where(users.c.password_hash != "",
                                              sa.not_(users.c.admin))
                .order_by(users.c.name)).scalars())

    def pool_files(self, topic: str) -> list[str]:
        """The articles of a topic's pool, in pool order."""
        with self._read() as connection:
            self._require_topic(connection, topic)
            return self._pool_files(connection, topic)

    def save_log(self) -> list[tuple[str, float, str, str, Judgement]]:
        """Every save of the action log, oldest first: ``(assessor, time, topic, file, the
        judgement after the save)``."""
        with self._read() as connection:
            rows = connection.execute(
                sa.select(actions.c.actor, actions.c.at, actions.c.topic, actions.c.file,
                          actions.c.after)
                .where(actions.c.action == "save").order_by(actions.c.id)).all()
        found = []
        for row in rows:
            state = json.loads(row.after)
            found.append((row.actor, float(row.at), row.topic, row.file, Judgement(
                topic=row.topic, file=row.file, assessor=row.actor, status=state["status"],
                passages=tuple((int(s), int(e)) for s, e in state["passages"]),
                values=state.get("values") or {})))
        return found

    def put_adjudicated(self, judgements: Sequence[Judgement], actor: str) -> list[Judgement]:
        """Store each of ``judgements`` (status, passages, best entry point, exhaustivity,
        values) as the adjudicated judgement of its topic and document (assessor
        :data:`ADJUDICATED`, created when absent, next version when present), each with its
        action-log entry, all in one transaction. Raises :class:`NotFound` for a document not
        in its topic's pool, :class:`Locked` for a locked topic; nothing is written then."""
        stored = []
        with self._write() as connection:
            if connection.execute(sa.select(users.c.name).where(
                    users.c.name == ADJUDICATED)).first() is None:
                connection.execute(users.insert().values(name=ADJUDICATED, password_hash="",
                                                         admin=False))
            for judgement in judgements:
                stored.append(self._put_adjudicated(connection, judgement, actor))
        return stored

    def _put_adjudicated(self, connection: Connection, judgement: Judgement,
                         actor: str) -> Judgement:
        topic, file = judgement.topic, judgement.file
        key = _key(topic, file, ADJUDICATED)
        row = connection.execute(sa.select(topics.c.locked).where(
            topics.c.topic == topic)).first()
        if row is None:
            raise NotFound(f"no topic {topic!r} in the store")
        if row.locked:
            raise Locked(f"topic {topic} is locked: no further changes")
        if connection.execute(sa.select(pool.c.file).where(
                pool.c.topic == topic, pool.c.file == file).limit(1)).first() is None:
            raise NotFound(f"document {file!r} is not in the pool of topic {topic!r}")
        found = connection.execute(_LOCK_JUDGEMENT, key).first()
        before = _judgement(found) if found is not None else None
        after = Judgement(
            topic=topic, file=file, assessor=ADJUDICATED, status=judgement.status,
            passages=merge_passages(judgement.passages),
            best_entry_point=judgement.best_entry_point,
            exhaustivity=judgement.exhaustivity, values=judgement.values,
            version=(before.version if before else 0) + 1, seconds=0.0, updated=now_iso())
        if before is None:
            connection.execute(judgements.insert().values(
                topic=topic, file=file, assessor=ADJUDICATED, **_judgement_row(after)))
        else:
            connection.execute(judgements.update().where(*_KEY).values(
                **_judgement_row(after)), key)
        self._log(connection, actor, "adjudicate", topic=topic, file=file,
                  before=None if before is None else _state(before), after=_state(after))
        return after

    # -- helpers -------------------------------------------------------------------------------

    def _require_user(self, connection: Connection, name: str) -> str:
        """The stored name of the user ``name`` (as given, else its :func:`user_key`)."""
        for candidate in dict.fromkeys((name, user_key(name))):
            if connection.execute(sa.select(users.c.name).where(
                    users.c.name == candidate, users.c.password_hash != "")).first():
                return candidate
        raise StoreError(f"no user {name!r} (add one with inexeval assess add-user)")

    def _require_topic(self, connection: Connection, topic: str) -> None:
        if connection.execute(sa.select(topics.c.topic).where(topics.c.topic == topic)).first() \
                is None:
            raise NotFound(f"no topic {topic!r} in the store")


_COMPILED: dict[tuple[str, Any, tuple[str, ...]], tuple[str, tuple[str, ...] | None, Any]] = {}
"""The statements :func:`_first` and :func:`_changed` ran: per dialect, statement and
parameter names, the SQL, the order of its parameters (None: by name) and the row type (None
for a change)."""


def _compiled(connection: Connection, statement: Any,
              parameters: Mapping[str, Any]) -> tuple[str, tuple[str, ...] | None, Any]:
    keys = tuple(sorted(parameters))
    found = _COMPILED.get((connection.dialect.name, statement, keys))
    if found is None:
        done = statement.compile(dialect=connection.dialect, column_keys=list(keys))
        row_type = (collections.namedtuple("Row", [c.name for c in statement.selected_columns],
                                           rename=True)
                    if isinstance(statement, sa.Select) else None)
        found = _COMPILED[connection.dialect.name, statement, keys] = (
            str(done), tuple(done.positiontup) if done.positiontup else None, row_type)
    return found


def _raw(connection: Connection, statement: Any, parameters: Mapping[str, Any]) -> Any:
    """``statement`` run on the driver's connection underneath ``connection`` (in its
    transaction), compiled once; its cursor and row type. On PostgreSQL it is prepared (parsed
    and planned once per connection)."""
    sql, order, row_type = _compiled(connection, statement, parameters)
    dbapi = connection.connection.driver_connection
    assert dbapi is not None
    if order is None:
        return _pg_call(sql, lambda: dbapi.execute(sql, parameters, prepare=True)), row_type
    try:
        return dbapi.execute(sql, [parameters[k] for k in order]), row_type
    except sqlite3.Error as failure:  # as SQLAlchemy raises it (a read-only store is 503)
        raise sa.exc.DBAPIError.instance(sql, None, failure, sqlite3.Error) from failure


def _pg_call(sql: str, call: Callable[[], _T]) -> _T:
    """``call()`` (psycopg), a failure raised as SQLAlchemy raises it."""
    import psycopg

    try:
        return call()
    except psycopg.Error as failure:
        raise sa.exc.DBAPIError.instance(sql, None, failure, psycopg.Error) from failure


def _first(connection: Connection, statement: sa.Select[Any],
           parameters: Mapping[str, Any]) -> Any:
    """The first row of a select of a save (its columns by name), or None. The statement runs
    on the driver's connection (:func:`_raw`): SQLAlchemy's execution (its cache look-up,
    parameters and result) cost five times the statement's own time on SQLite, most of a
    save's work, and its types do nothing there (integers, floats and text; psycopg gives the
    same Python types as SQLAlchemy's PostgreSQL types)."""
    cursor, row_type = _raw(connection, statement, parameters)
    row = cursor.fetchone()
    cursor.close()
    return None if row is None else row_type._make(row)


def _first_rows(connection: Connection,
                queries: Sequence[tuple[sa.Select[Any], Mapping[str, Any]]]) -> list[Any]:
    """:func:`_first` of each query, in order; on PostgreSQL all sent at once (a pipeline:
    one round trip to the server, the transaction's ``BEGIN`` included)."""
    if connection.dialect.name != "postgresql":
        return [_first(connection, statement, parameters) for statement, parameters in queries]
    dbapi = connection.connection.driver_connection
    assert dbapi is not None
    compiled = [_compiled(connection, statement, parameters)[::2]
                for statement, parameters in queries]

    def run() -> list[Any]:
        with dbapi.pipeline():
            cursors = [dbapi.execute(sql, parameters, prepare=True)
                       for (sql, _), (_, parameters) in zip(compiled, queries, strict=True)]
        rows = [cursor.fetchone() for cursor in cursors]
        return [None if row is None else row_type._make(row)
                for row, (_, row_type) in zip(rows, compiled, strict=True)]

    return _pg_call("\n".join(sql for sql, _ in compiled), run)  # (any of them may fail)


def _changed(connection: Connection, statement: sa.Insert | sa.Update,
             parameters: Mapping[str, Any]) -> int:
    """The rows an insert or update of a save changed (as :func:`_first`)."""
    cursor, _ = _raw(connection, statement, parameters)
    changed = int(cursor.rowcount)
    cursor.close()
    return changed


def _changed_rows(connection: Connection,
                  changes: Sequence[tuple[sa.Insert | sa.Update, Mapping[str, Any]]]
                  ) -> list[int]:
    """:func:`_changed` of each change, in order; on PostgreSQL all sent at once (as
    :func:`_first_rows`)."""
    if connection.dialect.name != "postgresql":
        return [_changed(connection, statement, parameters) for statement, parameters in changes]
    dbapi = connection.connection.driver_connection
    assert dbapi is not None
    sqls = [_compiled(connection, statement, parameters)[0] for statement, parameters in changes]

    def run() -> list[int]:
        with dbapi.pipeline():
            cursors = [dbapi.execute(sql, parameters, prepare=True)
                       for sql, (_, parameters) in zip(sqls, changes, strict=True)]
        return [int(cursor.rowcount) for cursor in cursors]

    return _pg_call("\n".join(sqls), run)  # (any of them may fail)


def _log_entry(actor: str, action: str, topic: str | None = None, file: str | None = None,
               before: str | None = None, after: str | None = None) -> dict[str, Any]:
    """The parameters of an action-log entry (:data:`_LOG`) made now."""
    return {"at": time.time(), "actor": actor, "action": action, "topic": topic, "file": file,
            "before": before, "after": after}


def _before_writing(authorise: Callable[[tuple[User, str] | None], User],
                    found: tuple[User, str] | None) -> User:
    """``authorise(found)``, its refusal raised as :class:`_Unwritten`."""
    try:
        return authorise(found)
    except Exception as refused:
        raise _Unwritten(refused) from refused


def _live_session(row: Any, now: float,
                  idle: float) -> tuple[tuple[User, str] | None, bool]:
    """The user and CSRF token of a session row (:data:`_SESSION`), None when it is missing,
    expired, idle or its user has no password; and whether its use is to be written (at most
    once a minute)."""
    if row is None or row.expires < now or row.last_seen < now - idle \
            or not row.password_hash:
        return None, False
    return ((User(row.name, row.password_hash, bool(row.admin)), row.csrf_token),
            row.last_seen < now - min(_SEEN_EVERY, idle / 4))


def _allowed(row: Any, topic: str, assessor: str) -> bool:
    """Whether the topic of an access row (:data:`_ACCESS`: its ``locked``, and the ``id`` of
    the assessor's assignment) is locked; :class:`NotFound` for no row, :class:`NotAssigned`
    for no assignment."""
    if row is None:
        raise NotFound(f"no topic {topic!r} in the store")
    if row.id is None:
        raise NotAssigned(f"topic {topic} is not assigned to {assessor}")
    return bool(row.locked)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
