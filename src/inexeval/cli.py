"""The ``inexeval`` command line: parses arguments, calls the API, prints. No computation.

Sub-commands live in :mod:`inexeval.commands`, one module each. Problems with the input become
one line on stderr and exit code 2; warnings one line each on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

# One BLAS thread unless the user says otherwise: inexeval's array work is element-wise, and
# OpenBLAS's idle threads only add CPU time (set before any command imports numpy).
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

import inexeval.commands


class Parser(argparse.ArgumentParser):
    """argparse with its errors as one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        # every error line starts "inexeval: error:"; a subcommand's names the subcommand
        where = self.prog.removeprefix("inexeval").strip()
        self.exit(2, f"inexeval: error: {where + ': ' if where else ''}{message}\n")


MAX_WHOLE = 2**53
"""The largest whole number an option takes: beyond it a double (every count ends up in one,
e.g. ``--num-docs`` in the estimated number of components) no longer holds each whole number."""


def non_negative(text: str) -> int:
    """argparse type: a whole number from 0 to :data:`MAX_WHOLE`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    if value > MAX_WHOLE:
        raise argparse.ArgumentTypeError(f"{text!r} is too large (at most 2**53)")
    return value


def positive(text: str) -> int:
    """argparse type: a whole number >= 1."""
    value = non_negative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not at least 1")
    return value


MAX_DIGITS = 17
"""Decimals that still mean something in a double (``--digits``)."""


def digits(text: str) -> int:
    """argparse type: decimals to print, 0-17."""
    value = non_negative(text)
    if value > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"{text!r} is outside 0-{MAX_DIGITS}")
    return value


def probability(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1")
    return value


def add_executor_arguments(parser: argparse.ArgumentParser, tasks: str) -> None:
    """``--jobs N`` and ``--scheduler ADDRESS`` of a study whose ``tasks`` (its replicate
    blocks, levels, left-out groups ...) :mod:`inexeval.executor` runs: the same output
    whatever runs them."""
    parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                        help=f"run the {tasks} in N local processes (same output)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help=f"run the {tasks} on a Dask cluster: tcp://HOST:8786 of a running "
                        "`dask scheduler`, or local:N for N worker processes here (needs the "
                        "dask extra; same output)")


def topic_ids(text: str) -> str:
    """argparse type: comma-separated topic ids naming at least one topic (kept as given)."""
    if not [topic for topic in text.split(",") if topic.strip()]:
        raise argparse.ArgumentTypeError(f"{text!r} names no topic (give comma-separated topic "
                                         "ids)")
    return text


def _command_names() -> list[str]:
    """The commands: the modules and packages of :mod:`inexeval.commands` (a command with
    subcommands of its own, such as ``meta``, is a package holding them)."""
    # the folder listed, not pkgutil.iter_modules, which imports inspect (start-up time)
    return sorted({name.removesuffix(".py") for folder in inexeval.commands.__path__
                   for name in os.listdir(folder)
                   if not name.startswith("_")
                   and (name.endswith(".py")
                        or os.path.isfile(os.path.join(folder, name, "__init__.py")))})


def _chosen(argv: Sequence[str], names: list[str]) -> str | None:
    """The command ``argv`` runs, when it is plain which (its first word, before any option):
    only that command's module is then imported (start-up time)."""
    return argv[0] if argv and argv[0] in names else None


def parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line, or, given the ``argv`` of one command, that command's (the
    others are listed by name, so that a wrong name is still told the choices)."""
    top = Parser(
        prog="inexeval",
        description="Evaluate XML element and passage retrieval as the INEX campaigns did.",
    )
    top.add_argument("--version", action=_Version, nargs=0,
                     help="show the program's version number and exit")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    names = _command_names()
    chosen = _chosen(argv, names) if argv is not None else None
    for name in names:
        if chosen is not None and name != chosen:
            sub.add_parser(name)
            continue
        module = importlib.import_module(f"inexeval.commands.{name}")
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        if chosen is not None and argv and hasattr(module, "add_chosen_arguments"):
            # a command of subcommands builds the one its next word names (start-up time)
            module.add_chosen_arguments(command, argv[1:])
        else:
            module.add_arguments(command)
        command.set_defaults(run=module.run)
    return top


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (the lookup imports
    importlib.metadata, a tenth of the start-up time)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"inexeval {installed_version()}")
        parser.exit()


def installed_version() -> str:
    """The installed inexeval's version ("unknown" when run from a source tree not installed)."""
    from inexeval.version import package_version

    return package_version()


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: object = None, line: str | None = None) -> None:
    print(f"inexeval: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from inexeval.errors import InexevalError, InexevalWarning

    try:
        args = parser(sys.argv[1:] if argv is None else argv).parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error already printed
        return done.code if isinstance(done.code, int) else 0
    # the exact command, for outputs that say how they were made (report, compare --format html)
    args.argv = ["inexeval", *(sys.argv[1:] if argv is None else argv)]
    if getattr(args, "run", None) is None:
        parser().print_help()
        return 0
    try:
        with warnings.catch_warnings():
            # every warning about the input, each as one line (not once per source location)
            warnings.simplefilter("always", InexevalWarning)
            warnings.showwarning = _show_warning
            return int(args.run(args))
    except InexevalError as error:
        print(f"inexeval: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"inexeval: error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
