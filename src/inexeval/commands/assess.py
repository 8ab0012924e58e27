"""``inexeval assess``: the assessment campaign (store, users, assignments, server, export).

``init`` creates a store from a collection, topics and a pool; ``add-user``, ``set-password``,
``remove-user``, ``end-sessions``, ``assign`` and ``unassign`` manage assessors; ``serve`` runs
the HTTP API (and the browser interface) with uvicorn; ``stats`` reports progress and
throughput; ``export`` writes the qrels.
"""

from __future__ import annotations

import argparse
import getpass
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inexeval.assess.model import MODES
from inexeval.assess.names import MIN_ELEMENT_CHARS
from inexeval.cli import non_negative, positive
from inexeval.cli_args import STRATEGIES, add_run_options, add_strategy_options
from inexeval.errors import InexevalError

NAME = "assess"
SHUTDOWN_SECONDS = 3
"""How long ``serve`` lets running requests finish once told to stop."""
HELP = "run an assessment campaign: store, users, assignments, HTTP server, export"

MIN_PASSWORD = 12
"""Shortest password accepted (OWASP ASVS 2.1.1)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.cli import Parser

    sub = parser.add_subparsers(dest="assess_command", metavar="ACTION", parser_class=Parser)
    sub.required = True

    def action(name: str, help: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help, description=help)
        command.add_argument("store", metavar="STORE",
                             help="the store: a SQLite file path or a postgresql:// URL "
                             "(leave its password out: libpq reads PGPASSWORD or the password "
                             "file, ~/.pgpass; a password given is shown as ***)")
        return command

    init = action("init", "create a campaign: topics, pooled documents, judgement scale")
    init.add_argument("--collection", metavar="DIR|INDEX", required=True,
                      help="the XML documents, or an index saved by `inexeval index` (the "
                      "documents must still be in the folder it was built from); a document "
                      "without its .xml file is read as plain text or Markdown, {name}.md, "
                      "{name}.txt... (a RAG corpus; offsets in code points)")
    init.add_argument("--topics", metavar="FILE", required=True,
                      help="topic file or folder, or a questions CSV whose first column is "
                      "'question' (Chroma's: a question's id is its row number, its text the "
                      "title)")
    source = init.add_mutually_exclusive_group(required=True)
    source.add_argument("--pool", metavar="POOL.tsv",
                        help="the pool written by `inexeval pool`; of `pool --unit span`: each "
                        "pooled span is judged on its own text")
    source.add_argument("--strategy", choices=STRATEGIES,
                        help="an adaptive campaign: serve each assessor the article this "
                        "pooling strategy picks next from the topic's judgements so far (as "
                        "`inexeval pool --strategy`), from the depth-K pool of the --runs")
    source.add_argument("--sample", metavar="SAMPLE.tsv",
                        help="a sampled campaign: judge the articles drawn in the sampled pool "
                        "`inexeval pool --sample ... -o SAMPLE.tsv` writes; the export keeps "
                        "the strata (--format sampled or fol)")
    adaptive = init.add_argument_group("adaptive campaigns (with --strategy)")
    adaptive.add_argument("--runs", metavar="RUN", nargs="+",
                          help="the runs to pool (their order is the strategies' run order)")
    adaptive.add_argument("--depth", type=positive, metavar="K",
                          help="the depth pool the strategy orders (default 100)")
    adaptive.add_argument("--budget", type=positive, metavar="N",
                          help="articles served per topic at most (default: the whole depth "
                          "pool)")
    add_strategy_options(adaptive)
    add_run_options(init, default_order=None)
    init.add_argument("--mode", choices=MODES, default="passages",
                      help="what assessors give: highlighted passages and a best entry point "
                      "(passages, INEX 2006-2010, the default), passages with exhaustivity "
                      "(highlight, INEX 2005), INEX 2002 relevance x coverage, INEX 2003 E x S")
    init.add_argument("--min-element-chars", metavar="N", type=non_negative,
                      default=MIN_ELEMENT_CHARS,
                      help="highlight mode: elements with less text than N characters are never "
                      "asked for an exhaustivity, nor are inline ones (italics, links...); they "
                      f"are too small (default {MIN_ELEMENT_CHARS})")

    init.add_argument("--duplicates", metavar="P", type=_share,
                      help="quality control: show a share P (0 < P <= 1) of each assessor's "
                      "articles a second time, unannounced, later in their pool (round(P x "
                      "pool) per assessor and topic, halves up, drawn when the topic is "
                      "assigned); /admin reports each assessor's agreement with themselves. "
                      "Not with --strategy or --sample")

    def password_options(command: argparse.ArgumentParser) -> None:
        source = command.add_mutually_exclusive_group()
        source.add_argument("--password-stdin", action="store_true",
                            help="read the password from standard input (one trailing newline "
                            "stripped; asked without echo at a terminal, as without an option)")
        source.add_argument("--password-file", metavar="F",
                            help="read the password from file F (one trailing newline stripped)")

    user = action("add-user", f"add an assessor (or administrator) with a password of at least "
                  f"{MIN_PASSWORD} characters")
    user.add_argument("name", metavar="NAME")
    user.add_argument("--admin", action="store_true", help="may see statistics and lock topics")
    password_options(user)
    new_password = action("set-password", "give a user a new password (ends its sessions)")
    new_password.add_argument("name", metavar="NAME")
    password_options(new_password)
    remove = action("remove-user", "remove a user: no more logins, its sessions end and its "
                    "topics are withdrawn (its judgements stay in the store)")
    remove.add_argument("name", metavar="NAME")
    end = action("end-sessions", "log a user out everywhere")
    end.add_argument("name", metavar="NAME")

    for name, verb in (("assign", "assign topics to"), ("unassign", "withdraw topics from")):
        command = action(name, f"{verb} an assessor")
        command.add_argument("user", metavar="USER")
        command.add_argument("topics", metavar="TOPIC", nargs="+")

    action("stats", "progress per topic and assessor, time and documents per hour")

    export = action("export", "write the judgements as qrels")
    export.add_argument("-o", "--output", metavar="DIR|FILE", required=True,
                        help="output file (fol, json, chroma, bioasq; - for standard output) or "
                        "folder (per-topic XML formats)")
    export.add_argument("--format", choices=("fol", "inex2005", "inex2002", "inex2003", "json",
                                              "sampled", "chroma", "bioasq"),
                        default=None,
                        help="qrels format (default: fol in passages and highlight modes, inex2002 / inex2003 "
                        "in those modes; a sampled campaign: sampled, NIST's topic iter docno "
                        "stratum rel, or fol with the stratum as the last field; a span "
                        "campaign: chroma). chroma and bioasq: the highlighted evidence as "
                        "Chroma's questions CSV or a BioASQ golden JSON, in the documents' "
                        "offsets")
    export.add_argument("--assessor", metavar="NAME",
                        help="export this assessor's judgements (default: each topic's "
                        "first-assigned assessor); 'adjudicated': the organiser's adjudicated "
                        "judgements")
    export.add_argument("--partial", action="store_true",
                        help="also export topics that are not complete (an article of the pool "
                        "not done by the assessor); without it they are left out, and a note "
                        "on standard error says which and why")
    export.add_argument("--force", action="store_true",
                        help="replace an existing output file (or write into an existing folder)")
    export.add_argument("--mode", type=_file_mode, default=0o600, metavar="OCTAL",
                        help="permissions of the files written (600: only you may read them, "
                        "as the store; 644: everyone); a folder made also lets its readers in")

    serve = action("serve", "serve the HTTP API and the browser interface")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=positive, default=8000, help="port (8000)")
    serve.add_argument("--allowed-host", metavar="NAME", action="append", default=[],
                       help="a host name clients may use to reach the server, besides "
                       "127.0.0.1, localhost, ::1 and the --host address (repeat for several; "
                       "the name the reverse proxy forwards as Host)")
    serve.add_argument("--secure-cookies", action="store_true",
                       help="behind HTTPS: the session cookie only over HTTPS, and HSTS")
    serve.add_argument("--session-idle", metavar="HOURS", type=_hours, default=12.0,
                       help="a session unused this long ends (12)")
    serve.add_argument("--workers", metavar="N", type=positive, default=1,
                       help="serving processes (1); more use more cores under load, each with "
                       "its share of the password checks")
    serve.add_argument("--address-hold", metavar="SECONDS", type=_hold, default=5.0,
                       help="an address past its free failed logins holds its turn this long "
                       "before each further login is checked (5; from 0.1 to 60): each of an "
                       "attacker's guesses costs it as much, a right password still gets in")


def _number(text: str, ok: Callable[[float], bool], what: str) -> float:
    """``text`` as a float for which ``ok`` holds; argparse's error saying ``what`` else."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not ok(value):  # (NaN fails every comparison)
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


def _hold(text: str) -> float:
    """argparse type: seconds from 0.1 to 60."""
    return _number(text, lambda v: 0.1 <= v <= 60, "a number of seconds from 0.1 to 60")


def _hours(text: str) -> float:
    """argparse type: a number of hours above 0."""
    return _number(text, lambda v: 0 < v < 24 * 365, "a number of hours above 0")


ASSESS_MODULES = ("sqlalchemy", "starlette", "uvicorn", "jinja2", "argon2", "multipart",
                  "snowballstemmer")
"""What the ``assess`` extra installs (psycopg only for a PostgreSQL store: asked there)."""


def _check_extra() -> None:
    """One error line, not a traceback, when the ``assess`` extra is not installed."""
    import importlib.util

    missing = [name for name in ASSESS_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise InexevalError(f"inexeval assess needs the assess extra (missing: "
                            f"{', '.join(missing)}): pip install 'inexeval[assess]'")


def run(args: argparse.Namespace) -> int:
    _check_extra()
    import sqlalchemy as sa

    from inexeval.assess.campaign import store_files
    from inexeval.assess.store import StoreError

    command = {"init": _init, "add-user": _add_user, "set-password": _set_password,
               "remove-user": _remove_user, "end-sessions": _end_sessions, "assign": _assign,
               "unassign": _assign, "stats": _stats, "export": _export,
               "serve": _serve}[args.assess_command]
    try:
        return command(args)
    except (sa.exc.DatabaseError, UnicodeDecodeError) as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        if isinstance(error, sa.exc.OperationalError) and not store_files(args.store):
            raise StoreError(f"cannot use the database server ({reason[:160]})",
                             args.store) from None
        # a SQLite file damaged after its header: malformed pages, text that is not UTF-8
        raise StoreError(f"the store is damaged ({reason[:80]}): use a copy", args.store) from None


def _actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def _share(text: str) -> float:
    """``--duplicates``: a share above 0, at most 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a share above 0 and at most 1 is required")
    return value


def _init(args: argparse.Namespace) -> int:
    from inexeval.assess.campaign import campaign_rows, load_campaign
    from inexeval.assess.store import Store, shown_store
    from inexeval.formats.span_pool import is_span_pool

    if (args.strategy is None) != (args.runs is None):
        raise InexevalError("--strategy NAME and --runs RUN... go together")
    if args.strategy is None:
        for option in ("depth", "budget"):
            if getattr(args, option) is not None:
                raise InexevalError(f"--{option} goes with --strategy")
    if args.duplicates is not None and (args.strategy is not None or args.sample is not None):
        raise InexevalError("--duplicates goes with --pool only (an adaptive or sampled "
                            "campaign serves each article once)")
    settings: dict[str, str] = {}
    if args.duplicates is not None:
        settings["duplicates"] = repr(args.duplicates)
    candidates: dict[str, str] = {}
    sample_rows: list[Any] = []
    if args.strategy is not None:
        from inexeval.assess.adaptive import Plan, adaptive_pool
        from inexeval.cli_args import strategy_options
        from inexeval.formats.detect import load_run

        for path in args.runs:
            if path != "-" and not Path(path).exists():
                raise InexevalError("no such file or folder", path)
        plan = Plan(args.strategy, args.depth or 100, args.budget, strategy_options(args))
        runs = [load_run(path, args.run_format, args.keep_repeats) for path in args.runs]
        pool, candidates = adaptive_pool(runs, args.topics, plan, args.order)
        settings["strategy"] = plan.to_json()
        topic_rows, document_rows, pool_rows = campaign_rows(args.collection, args.topics, pool,
                                                             "the runs' pool")
    elif args.sample is not None:
        from inexeval.assess.sample import sampled_campaign
        from inexeval.formats.sampled import read_sampled_pool

        pool, sample_rows = sampled_campaign(read_sampled_pool(args.sample))
        settings["sample"] = Path(args.sample).name
        topic_rows, document_rows, pool_rows = campaign_rows(args.collection, args.topics, pool,
                                                             args.sample)
    elif is_span_pool(args.pool):
        from inexeval.assess.campaign import span_campaign_rows
        from inexeval.assess.export_rag import SPANS

        topic_rows, document_rows, pool_rows, settings[SPANS] = span_campaign_rows(
            args.collection, args.topics, args.pool)
    else:
        topic_rows, document_rows, pool_rows = load_campaign(args.collection, args.topics,
                                                             args.pool)
    if args.mode == "highlight":
        settings["min_element_chars"] = str(args.min_element_chars)
    store = Store.create(args.store)
    try:
        store.init_campaign(args.mode, topic_rows, document_rows, pool_rows, _actor(),
                            settings=settings, candidates=candidates, sample_rows=sample_rows)
    except BaseException:
        store.discard()  # no empty store that stats would take for a campaign
        raise
    store.close()
    how = (f", served by the {args.strategy} strategy" if args.strategy is not None
           else f", a sample of {len(sample_rows)} units" if args.sample is not None else "")
    print(f"{len(topic_rows)} topics, {len(document_rows)} documents, {len(pool_rows)} pooled "
          f"units{how}, {args.mode} mode -> {shown_store(args.store)}")
    return 0


def _read_password(args: argparse.Namespace) -> str:
    """The password of ``--password-file``, of standard input, or asked twice without echo
    when standard input is a terminal."""
    if args.password_file is None and sys.stdin.isatty():
        password = getpass.getpass(f"Password for {args.name}: ")
        if getpass.getpass("The same again: ") != password:
            raise InexevalError("the two passwords differ")
    elif args.password_file is None:
        if not args.password_stdin:
            raise InexevalError("give the password with --password-stdin or --password-file "
                                "(or at a terminal)")
        password = sys.stdin.read().removesuffix("\n")
    else:
        try:
            text = Path(args.password_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InexevalError(f"cannot read the password: {getattr(error, 'strerror', error)}",
                                args.password_file) from None
        password = text.removesuffix("\n")
    if not password:
        raise InexevalError("the password is empty")
    if len(password) < MIN_PASSWORD:
        raise InexevalError(f"the password has {len(password)} characters: at least "
                            f"{MIN_PASSWORD} are needed")
    return password


def _add_user(args: argparse.Namespace) -> int:
    from argon2 import PasswordHasher

    from inexeval.assess.store import Store, StoreError, check_name

    check_name("user name", args.name)
    with Store.open(args.store) as store:
        if store.user(args.name) is not None:  # said before the password is asked for
            raise StoreError(f"user {args.name!r} exists already")
        password = _read_password(args)
        store.add_user(args.name, PasswordHasher().hash(password), args.admin, _actor())
    print(f"added {'administrator' if args.admin else 'assessor'} {args.name}")
    return 0


def _set_password(args: argparse.Namespace) -> int:
    from argon2 import PasswordHasher

    from inexeval.assess.store import Store

    password = _read_password(args)
    with Store.open(args.store) as store:
        ended = store.set_password(args.name, PasswordHasher().hash(password), _actor())
    print(f"new password for {args.name} ({ended} session(s) ended)")
    return 0


def _remove_user(args: argparse.Namespace) -> int:
    from inexeval.assess.store import Store

    with Store.open(args.store) as store:
        withdrawn = store.remove_user(args.name, _actor())
    print(f"removed {args.name}" + (f" (topics withdrawn: {' '.join(withdrawn)})"
                                    if withdrawn else "") + "; the judgements stay in the store")
    return 0


def _end_sessions(args: argparse.Namespace) -> int:
    from inexeval.assess.store import Store

    with Store.open(args.store) as store:
        ended = store.end_sessions(args.name, _actor())
    print(f"{ended} session(s) of {args.name} ended")
    return 0


def _assign(args: argparse.Namespace) -> int:
    from inexeval.assess.store import Store

    with Store.open(args.store) as store:
        if args.assess_command == "assign":
            changed = store.assign(args.user, args.topics, _actor())
            verb = "assigned to"
        else:
            changed = store.unassign(args.user, args.topics, _actor())
            verb = "withdrawn from"
    unchanged = [t for t in args.topics if t not in changed]
    print(f"{len(changed)} topic(s) {verb} {args.user}"
          + (f" ({len(unchanged)} unchanged: {' '.join(unchanged)})" if unchanged else ""))
    return 0


def _stats(args: argparse.Namespace) -> int:
    from inexeval.assess.store import Store

    with Store.open(args.store) as store:
        stats = store.stats()
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
    from inexeval.assess.campaign import export_campaign, store_files
    from inexeval.outputs import check_output

    to_stdout = args.output == "-"
    if not to_stdout:
        check_output(args.output, *store_files(args.store), folder=True)
        if Path(args.output).exists() and not args.force:
            raise InexevalError("exists already (--force replaces it)", args.output)
    made = not to_stdout and not Path(args.output).exists() and _folder_format(args)
    # the files are made with the permissions asked (never readable by others in between); the
    # process's own mask given back whatever happens (a store that could not be opened by
    # _folder_format left it at 0177 for good: in a test process, Chromium then failed to start)
    mask = os.umask(0o777 & ~args.mode)
    try:
        if made:
            Path(args.output).mkdir(mode=0o700)
            os.chmod(args.output, args.mode | (args.mode & 0o444) >> 2)
        notes = export_campaign(args.store, args.output, args.format, args.assessor,
                                args.partial)
    except BaseException:
        if made and not any(Path(args.output).iterdir()):
            Path(args.output).rmdir()
        raise
    finally:
        os.umask(mask)
    for note in notes[:-1]:
        print(f"inexeval: note: {note}", file=sys.stderr)
    print(notes[-1], file=sys.stderr if to_stdout else sys.stdout)
    return 0


def _folder_format(args: argparse.Namespace) -> bool:
    """Whether the export writes one file per topic into a folder (the XML formats)."""
    from inexeval.assess.campaign import DEFAULT_FORMAT, FILE_FORMATS
    from inexeval.assess.store import Store

    if args.format is None:
        with Store.open(args.store) as store:
            return DEFAULT_FORMAT[store.mode()] not in FILE_FORMATS
    return bool(args.format not in FILE_FORMATS)


def _file_mode(text: str) -> int:
    try:
        mode = int(text, 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o777:
        raise argparse.ArgumentTypeError(f"{text!r} is no file mode: octal, 000 to 777 (600)")
    return mode


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from inexeval.assess.api import CHECK_THREADS
    from inexeval.assess.app import (
        SERVE_OPTIONS,
        create_app,
        create_app_from_environment,
        serve_logging,
    )
    from inexeval.assess.store import Store, shown_store

    # a server listening on one address may be reached by it; on all of them, only by name
    listening = [] if args.host in ("0.0.0.0", "::", "") else [args.host]
    options = {"store_url": str(args.store), "secure_cookies": args.secure_cookies,
               "allowed_hosts": [*listening, *args.allowed_host],
               "session_idle": 3600 * args.session_idle,
               "check_threads": max(1, CHECK_THREADS // args.workers),
               "address_hold": args.address_hold,
               "processes": args.workers}
    app: Any
    if args.workers == 1:
        app = create_app(**options)
    else:
        # each worker process makes its own app (uvicorn starts them afresh) from these
        # options; the store is opened here first, so that a bad one fails as with one process
        Store.open(args.store).close()
        os.environ[SERVE_OPTIONS] = json.dumps(options)
        app = f"{create_app_from_environment.__module__}:{create_app_from_environment.__name__}"
    print(f"serving {shown_store(args.store)} on http://{args.host}:{args.port}/ "
          f"({args.workers} process{'es' if args.workers > 1 else ''}; Ctrl-C stops)",
          file=sys.stderr, flush=True)
    # SIGTERM (or Ctrl-C) stops within seconds: requests still running after
    # SHUTDOWN_SECONDS are cancelled (a client sending a body slowly kept it up before), each
    # said in one line of the log
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                log_config=serve_logging(), timeout_graceful_shutdown=SHUTDOWN_SECONDS,
                workers=args.workers, factory=args.workers > 1)
    return 0
