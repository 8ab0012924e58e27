"""``inexeval measures``: list every measure with its parameters and defaults."""

from __future__ import annotations

import argparse
import textwrap

NAME = "measures"
HELP = "list every measure and quantisation with parameters, defaults and descriptions"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="show only this measure (a name like P or P@10)")


def run(args: argparse.Namespace) -> int:
    from inexeval.measures.registry import families, parse_measure
    from inexeval.quantise import describe

    wanted = parse_measure(args.name).family if args.name else None
    for family in families():
        if wanted is not None and family is not wanted:
            continue
        cut = ""
        if family.cutoff is not None:
            kind = family.cutoff.__name__
            if not family.cutoff_required:
                cut = f"[@{kind}]"
            else:
                cut = f"[{kind}]" if family.bracket_cutoff else f"@{kind}"
        aliases = f"  (also {', '.join(family.aliases)})" if family.aliases else ""
        print(f"{family.name}{cut}{aliases}")
        print(textwrap.indent(textwrap.fill(family.description, 76), "    "))
        for p in family.params:
            choices = f" {{{', '.join(map(str, p.choices))}}}" if p.choices else ""
            print(f"    {p.name}: {p.kind.__name__} = {p.default!r}{choices}  {p.description}")
    if not args.name:
        print("\nquantisations (quant=...):")
        for name, scale, description in describe():
            print(f"    {name:16} {scale:9} {description}")
    return 0
