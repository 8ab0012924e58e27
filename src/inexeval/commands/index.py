"""``inexeval index DIR -o INDEX``: index a collection's XML documents once and save the index."""

from __future__ import annotations

import argparse
import sys

from inexeval.cli import positive

NAME = "index"
HELP = "index the XML documents of a collection folder and save the index to one file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="DIR", help="collection folder (every *.xml below it)")
    parser.add_argument("-o", "--output", metavar="INDEX", required=True,
                        help="file to write the index to, exactly as named (no suffix is "
                        "added; the file is a NumPy .npz archive)")
    parser.add_argument("--jobs", type=positive, default=1, metavar="N",
                        help="index the documents in N worker processes (default 1; the index "
                        "is the same)")
    parser.add_argument("--quiet", action="store_true",
                        help="do not report progress (a progress bar on a terminal with tqdm "
                        "installed, else a line every 1000 documents)")


def _progress(done: int, total: int) -> None:
    if done == total or done % 1000 == 0:
        print(f"indexed {done}/{total} documents", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from inexeval.collection.build import (
        build_index,
        check_index_output,
        element_count,
        save_index,
    )
    from inexeval.outputs import check_output

    check_output(args.output, args.folder)
    check_index_output(args.output, args.folder)
    from inexeval.progress import progress_callback

    report = None if args.quiet else progress_callback("indexing") or _progress
    index = build_index(args.folder, progress=report, jobs=args.jobs)
    save_index(index, args.output)
    elements = element_count(index)
    print(f"{index.num_docs} documents, {elements} elements -> {args.output}")
    return 0
