"""``inexeval demo``: evaluate the bundled example data and print tables in the layout of
Hiemstra and Mihajlović (2005), Table 1, each column explained in one line; ``--data DIR``
writes the real data "Reproducing a study" (docs/guides/meta-evaluation.md) starts from instead."""

from __future__ import annotations

import argparse
import shlex
import sys

from inexeval.cli import non_negative

NAME = "demo"
HELP = "evaluate the bundled example collection, assessments and three runs"

CUTOFFS = (5, 10, 20, 30, 100, 200, 1500)
BEHAVIOUR = {"overlapping": "heavy overlap: paragraphs with all their ancestors",
             "focused": "no overlap: paragraphs only", "articles": "whole articles only"}
QUANTISATIONS = (("strict", "strict"), ("liberal", "liberal"), ("exhaust.", "e3s321"),
                 ("specific", "s3e321"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--digits", type=non_negative, default=3, metavar="N", help="decimals printed (3)")
    parser.add_argument("--data", metavar="DIR",
                        help="instead, write real data into DIR: the INEX 2009-2010 qrels "
                        "(FOL, relevant articles only) and three runs of the ipcs project, "
                        "with their MIT licence (docs/guides/meta-evaluation.md: Reproducing a "
                        "study)")


def run(args: argparse.Namespace) -> int:
    if args.data is not None:
        if args.digits != 3:
            from inexeval.errors import InexevalError

            raise InexevalError("--digits goes with the tables, not --data")
        return _write_data(args.data)
    from inexeval import demo
    from inexeval.collection.build import build_index
    from inexeval.evaluation import Evaluator, with_implicit
    from inexeval.formats.detect import load_assessments, load_run
    from inexeval.measures.registry import parse_measure
    from inexeval.report.text import columns

    collection = build_index(demo.COLLECTION)
    assessments = with_implicit(load_assessments(demo.ASSESSMENTS_2004), collection=collection)
    runs = [load_run(path) for path in demo.RUNS]
    measures = [f"P(quant={q})@{k}" for k in CUTOFFS for _, q in QUANTISATIONS]
    measures += [f"overlap@{k}" for k in CUTOFFS]
    measures += ["inex_eval(quant=strict)", "inex_eval(quant=generalised)"]
    names = {m: str(parse_measure(m)) for m in measures}
    results = Evaluator(measures, assessments, collection=collection, complete=True).evaluate(runs)
    d = args.digits
    out = sys.stdout
    terminal = out.isatty()  # aligned for reading, tab-separated for a pipe
    out.write(f"Example collection: {collection.num_docs} articles; {len(assessments)} topics "
              "with INEX 2003/2004-style assessments (implicit assessments on); "
              f"{len(runs)} runs.\n")
    out.write(_legend())
    for run in runs:
        out.write(f"\nPrecision and overlap of run {run.name} ({BEHAVIOUR.get(run.name, run.name)})"
                  "\n")
        rows = [["cut-off", *(label for label, _ in QUANTISATIONS), "overlap"]]
        for k in CUTOFFS:
            values = [results.mean(names[f"P(quant={q})@{k}"], run.name) for _, q in QUANTISATIONS]
            values.append(results.mean(names[f"overlap@{k}"], run.name))
            rows.append([str(k), *("-" if v is None else f"{v:.{d}f}" for v in values)])
        out.write(columns(rows, terminal))
    out.write("\ninex_eval (mean average precision over 100 recall points)\n")
    rows = [["run", "strict", "generalised"]]
    for run in runs:
        strict = results.mean(names["inex_eval(quant=strict)"], run.name)
        generalised = results.mean(names["inex_eval(quant=generalised)"], run.name)
        rows.append([run.name, *("-" if v is None else f"{v:.{d}f}" for v in (strict, generalised))])
    out.write(columns(rows, terminal))
    command = ["inexeval", "eval", str(demo.ASSESSMENTS_2004), str(demo.RUNS[1]), "-m",
               "P(quant=generalised)@10", "-q", "--collection", str(demo.COLLECTION)]
    out.write(f"\nTry: {shlex.join(command)}\n")
    return 0


def _write_data(folder: str) -> int:
    from inexeval.demo import write_ipcs

    written = write_ipcs(folder)
    sys.stdout.write(f"wrote {len(written)} files into {folder}: "
                     f"{', '.join(p.name for p in written)} (the ipcs project's, MIT licence: "
                     "LICENSE)\n")
    return 0


def _legend() -> str:
    """One line per column of the tables below."""
    from inexeval.quantise import get

    lines = ["cut-off: k, the number of top-ranked results considered"]
    lines += [f"{label}: precision at k, quantisation {q}: {get(q, 'inex2003').description}"
              for label, q in QUANTISATIONS]
    lines += [("overlap: share of the top k results nested with another result of the top k "
               "(Hiemstra and Mihajlović 2005, eq. 17)"),
              ("strict, generalised (inex_eval): mean average precision over 100 recall points "
               "under that quantisation (Gövert and Kazai 2002)")]
    return "Columns:\n" + "".join(f"  {line}\n" for line in lines)
