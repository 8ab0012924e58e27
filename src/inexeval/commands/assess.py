"""``inexeval assess``: the assessment campaign (store, users, assignments, server, export).

``init`` creates a store from a collection, topics and a pool; ``add-user``, ``assign`` and
``unassign`` manage assessors; ``serve`` runs the HTTP API (and the browser interface) with
uvicorn; ``stats`` reports progress and throughput; ``export`` writes the qrels.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any

from inexeval.cli import positive
from inexeval.errors import InexevalError

NAME = "assess"
HELP = "run an assessment campaign: store, users, assignments, HTTP server, export"

MODES = ("highlight", "2002", "2003")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.cli import Parser

    sub = parser.add_subparsers(dest="assess_command", metavar="ACTION", parser_class=Parser)
    sub.required = True

    def action(name: str, help: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help, description=help)
        command.add_argument("store", metavar="STORE",
                             help="the store: a SQLite file path or a postgresql:// URL")
        return command

    init = action("init", "create a campaign: topics, pooled documents, judgement scale")
    init.add_argument("--collection", metavar="DIR|INDEX", required=True,
                      help="the XML documents, or an index saved by `inexeval index` (the "
                      "documents must still be in the folder it was built from)")
    init.add_argument("--topics", metavar="FILE", required=True, help="topic file or folder")
    init.add_argument("--pool", metavar="POOL.tsv", required=True,
                      help="the pool written by `inexeval pool`")
    init.add_argument("--mode", choices=MODES, default="highlight",
                      help="what assessors give: highlighted passages with exhaustivity "
                      "(default), INEX 2002 relevance x coverage, INEX 2003 E x S")

    user = action("add-user", "add an assessor (or administrator) with a password")
    user.add_argument("name", metavar="NAME")
    user.add_argument("--admin", action="store_true", help="may see statistics and lock topics")
    source = user.add_mutually_exclusive_group(required=True)
    source.add_argument("--password-stdin", action="store_true",
                        help="read the password from standard input (one trailing newline "
                        "stripped)")
    source.add_argument("--password-file", metavar="F",
                        help="read the password from file F (one trailing newline stripped)")

    for name, verb in (("assign", "assign topics to"), ("unassign", "withdraw topics from")):
        command = action(name, f"{verb} an assessor")
        command.add_argument("user", metavar="USER")
        command.add_argument("topics", metavar="TOPIC", nargs="+")

    action("stats", "progress per topic and assessor, time and documents per hour")

    export = action("export", "write the judgements as qrels")
    export.add_argument("-o", "--output", metavar="DIR|FILE", required=True,
                        help="output file (fol, json) or folder (per-topic XML formats)")
    export.add_argument("--format", choices=("fol", "inex2005", "inex2002", "inex2003", "json"),
                        default=None,
                        help="qrels format (default: fol in highlight mode, inex2002 / inex2003 "
                        "in those modes)")
    export.add_argument("--assessor", metavar="NAME",
                        help="export this assessor's judgements (default: each topic's "
                        "first-assigned assessor)")

    serve = action("serve", "serve the HTTP API and the browser interface")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=positive, default=8000, help="port (8000)")


def run(args: argparse.Namespace) -> int:
    import sqlalchemy as sa

    from inexeval.assess.store import StoreError

    command = {"init": _init, "add-user": _add_user, "assign": _assign, "unassign": _assign,
               "stats": _stats, "export": _export, "serve": _serve}[args.assess_command]
    try:
        return command(args)
    except (sa.exc.DatabaseError, UnicodeDecodeError) as error:
        # a SQLite file damaged after its header: malformed pages, text that is not UTF-8
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise StoreError(f"the store is damaged ({reason[:80]}): use a copy", args.store) from None


def _actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def _init(args: argparse.Namespace) -> int:
    from inexeval.assess.campaign import load_campaign
    from inexeval.assess.store import Store

    topic_rows, document_rows, pool_rows = load_campaign(args.collection, args.topics, args.pool)
    store = Store.create(args.store)
    try:
        store.init_campaign(args.mode, topic_rows, document_rows, pool_rows, _actor())
    finally:
        store.close()
    print(f"{len(topic_rows)} topics, {len(document_rows)} documents, {len(pool_rows)} pooled "
          f"units, {args.mode} mode -> {args.store}")
    return 0


def _read_password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        text = sys.stdin.read()
    else:
        try:
            text = Path(args.password_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InexevalError(f"cannot read the password: {getattr(error, 'strerror', error)}",
                                args.password_file) from None
    password = text.removesuffix("\n")
    if not password:
        raise InexevalError("the password is empty")
    return password


def _add_user(args: argparse.Namespace) -> int:
    from argon2 import PasswordHasher

    from inexeval.assess.store import Store

    if not args.name.strip() or args.name != args.name.strip():
        raise InexevalError(f"user name {args.name!r} is empty or has surrounding spaces")
    password = _read_password(args)
    store = Store.open(args.store)
    try:
        store.add_user(args.name, PasswordHasher().hash(password), args.admin, _actor())
    finally:
        store.close()
    print(f"added {'administrator' if args.admin else 'assessor'} {args.name}")
    return 0


def _assign(args: argparse.Namespace) -> int:
    from inexeval.assess.store import Store

    store = Store.open(args.store)
    try:
        if args.assess_command == "assign":
            changed = store.assign(args.user, args.topics, _actor())
            verb = "assigned to"
        else:
            changed = store.unassign(args.user, args.topics, _actor())
            verb = "withdrawn from"
    finally:
        store.close()
    unchanged = [t for t in args.topics if t not in changed]
    print(f"{len(changed)} topic(s) {verb} {args.user}"
          + (f" ({len(unchanged)} unchanged: {' '.join(unchanged)})" if unchanged else ""))
    return 0


def _stats(args: argparse.Namespace) -> int:
    from inexeval.assess.store import Store

    store = Store.open(args.store)
    try:
        stats = store.stats()
    finally:
        store.close()
    out = sys.stdout
    out.write("topic\tassessor\tpool\tdone\tin_progress\trelevant\tseconds\tlocked\n")
    for row in stats["topics"]:
        out.write(f"{row['topic']}\t{row['assessor']}\t{row['pool']}\t{row['done']}\t"
                  f"{row['in_progress']}\t{row['relevant']}\t{row['seconds']:.0f}\t"
                  f"{'yes' if row['locked'] else 'no'}\n")
    out.write("\nassessor\tsaves\tdocuments_done\tactive_seconds\tdocuments_per_hour\n")
    for row in stats["assessors"]:
        rate = "-" if row["documents_per_hour"] is None else f"{row['documents_per_hour']:.2f}"
        out.write(f"{row['assessor']}\t{row['saves']}\t{row['documents_done']}\t"
                  f"{row['seconds']:.0f}\t{rate}\n")
    return 0


def _export(args: argparse.Namespace) -> int:
    from inexeval.assess.campaign import export_campaign

    notes = export_campaign(args.store, args.output, args.format, args.assessor)
    for note in notes[:-1]:
        print(f"inexeval: note: {note}", file=sys.stderr)
    print(notes[-1])
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from inexeval.assess.app import create_app

    app: Any = create_app(args.store)
    print(f"serving {args.store} on http://{args.host}:{args.port}/ (Ctrl-C stops)",
          file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
