"""``inexeval meta``: studies of the measures and of the pools, one subcommand each."""

from __future__ import annotations

import argparse

NAME = "meta"
HELP = "studies of the pools: smaller pools and sampled judgements (pool), reusability (reuse)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inexeval.commands.meta_pool import SUBCOMMANDS

    studies = parser.add_subparsers(dest="study", metavar="STUDY", required=True)
    for name, (text, add, run) in SUBCOMMANDS.items():
        command = studies.add_parser(name, help=text, description=text)
        add(command)
        command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    raise AssertionError("a meta study always has its own run")
