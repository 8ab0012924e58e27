"""``inexeval convert``: element runs and INEX 2005-2008 highlighting assessments to FOL."""

from __future__ import annotations

import argparse

NAME = "convert"
HELP = "turn an element run into a FOL passage run, or 2005-2008 assessments into FOL qrels"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=("run", "assessments"), help="what INPUT is")
    parser.add_argument("input", metavar="INPUT", help="element run (INEX XML or TREC-like), or "
                        "INEX 2005-2008 assessments (file or folder)")
    parser.add_argument("--collection", metavar="DIR|INDEX", required=True,
                        help="the XML documents, or an index saved by `inexeval index`")
    parser.add_argument("-o", "--output", metavar="FILE", required=True, help="FOL file to write")
    parser.add_argument("--run-format", metavar="FORMAT", help="override run format detection")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from inexeval.collection.build import load_collection
    from inexeval.convert import element_run_to_passages, highlights_to_fol
    from inexeval.errors import InexevalError
    from inexeval.formats.detect import load_assessments, load_run
    from inexeval.formats.fol import write_fol_qrels, write_fol_run
    from inexeval.outputs import check_output

    for path in (args.input, args.collection):
        if path != "-" and not Path(path).exists():
            raise InexevalError("no such file or folder", path)
    check_output(args.output, args.input, args.collection)
    collection = load_collection(args.collection)
    if args.what == "run":
        converted = element_run_to_passages(load_run(args.input, args.run_format), collection)
        write_fol_run(converted, args.output)
        count = sum(len(r) for r in converted.values())
        print(f"{count} results of {len(converted)} topics -> {args.output}")
    else:
        qrels = highlights_to_fol(load_assessments(args.input), collection)
        write_fol_qrels(qrels, args.output)
        count = sum(len(t) for t in qrels.values())
        print(f"{count} judged documents of {len(qrels)} topics -> {args.output}")
    return 0
