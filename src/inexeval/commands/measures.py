"""``inexeval measures``: every measure, one line each, grouped by the kind of assessments it
applies to, with its source; ``inexeval measures NAME``: one family with its parameters and
examples."""

from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inexeval.measures.registry import Family

NAME = "measures"
HELP = "list every measure and quantisation with parameters, defaults and descriptions"

_KEY = ("k: a rank cut-off (1, 2 ...); x: a recall level from 0 to 1; a cut-off in [ ] may be "
        "left out; parameters as NAME(param=value,...)@k. inex_eval 3.1 is the official INEX "
        "2007-2010 evaluator. `inexeval measures NAME` shows one family's parameters and "
        "examples.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?",
                        help="show one family with its parameters and examples (a name like P, "
                        "iP or P@10), or list the families named PREFIX_... (bioasq)")


def run(args: argparse.Namespace) -> int:
    from inexeval.measures.registry import parse_measure

    prefixed = _prefixed(args.name) if args.name else []
    if prefixed:
        print("".join(describe_family(f) for f in prefixed), end="")
    elif args.name:
        print(describe_family(parse_measure(args.name, partial=True).family), end="")
    else:
        print(listing(), end="")
    return 0


def _prefixed(word: str) -> list[Family]:
    """The families named ``word_...`` (``inexeval measures chroma``), when no family is
    named ``word``."""
    from inexeval.measures.registry import REGISTRY, families

    listed = families()  # registers them
    return [] if word in REGISTRY else [f for f in listed if f.name.startswith(word + "_")]


def listing(chosen: list[Family] | None = None) -> str:
    """Every family on one line (name and cut-off, summary, source), under the heading of the
    assessments it applies to; then the quantisations by assessment scale. ``chosen``: only
    these families, without the key and the quantisations."""
    from inexeval.measures.registry import about, families, group, group_key, syntax
    from inexeval.quantise import describe

    by_group: dict[str, list[Family]] = {}
    for family in sorted(chosen or families(), key=lambda f: (group_key(f), group(f))):
        by_group.setdefault(group(family), []).append(family)
    lines = [] if chosen else textwrap.wrap(_KEY, 100)
    for heading, members in by_group.items():
        lines += ["", f"{heading}:"]
        width = max(len(syntax(f)) for f in members)
        for family in members:
            entry = about(family)
            aliases = f"; also {', '.join(family.aliases)}" if family.aliases else ""
            source = f" ({entry.source}{aliases})" if entry.source or aliases else ""
            lines.append(f"  {syntax(family):{width}}  {entry.summary}{source}")
    if chosen:
        return "\n".join(lines[1:]) + "\n"
    lines += ["", "Quantisations (quant=NAME), by assessments:"]
    width = max(len(name) for name, _, _ in describe())
    for name, scale, description in describe():
        lines.append(f"  {name:{width}}  {_scale(scale)}: {description}")
    return "\n".join(lines) + "\n"


def _scale(scale: str) -> str:
    from inexeval.measures.registry import SCALE_NAMES

    return SCALE_NAMES.get(scale, scale).split(" (")[0]


def describe_family(family: Family) -> str:
    """One family in full: its name and cut-off, aliases, the assessments it applies to, the
    description, the source, every parameter (type, default, choices) and valid examples."""
    from inexeval.measures.registry import about, group, syntax

    entry = about(family)
    lines = [f"{syntax(family)}: {entry.summary}"]
    if family.aliases:
        lines.append(f"  also named: {', '.join(family.aliases)}")
    lines.append(f"  assessments: {group(family)}")
    if entry.source:
        lines.append(f"  source: {entry.source}")
    lines += textwrap.wrap(family.description, 96, initial_indent="  ", subsequent_indent="  ")
    if family.cutoff is not None:
        kind = "a rank (1, 2 ...)" if family.cutoff is int else "a level from 0 to 1"
        needed = "required" if family.cutoff_required else "optional"
        lines.append(f"  cut-off: {kind}, {needed}")
    if family.params:
        lines.append("  parameters:")
        for p in family.params:
            choices = f"; one of {', '.join(map(str, p.choices))}" if p.choices else ""
            lines += textwrap.wrap(f"{p.name} ({p.kind.__name__}, default {p.default}{choices}):"
                                   f" {p.description}", 96, initial_indent="    ",
                                   subsequent_indent="      ")
    lines.append("  examples: " + "  ".join(entry.examples))
    return "\n".join(lines) + "\n"
