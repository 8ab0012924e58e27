"""``inexeval compare``: paired significance tests of runs against a baseline (or of every pair)."""

from __future__ import annotations

import argparse

from inexeval.cli_args import add_comparison_arguments, comparison

NAME = "compare"
HELP = ("compare runs with significance tests (paired over the topics assessed and answered by "
        "at least one run; -c: every assessed topic)")

FORMATS = ("table", "markdown", "latex", "csv", "json", "html")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_comparison_arguments(parser, FORMATS)


def run(args: argparse.Namespace) -> int:
    return comparison(args, NAME)
