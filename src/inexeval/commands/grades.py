"""``inexeval grades ASSESSMENTS``: the five-point scale of seed 001 per topic and over topics."""

from __future__ import annotations

import argparse

NAME = "grades"
HELP = ("grade every judged element of INEX 2005-2008 assessments on the five-point scale of Pehcevski (2006) "
        "(EA, PA, BA, NA, NR) and print per-topic statistics as its Tables 4 and 5")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("assessments", metavar="ASSESSMENTS",
                        help="INEX 2005-2008 XML assessments (a file or a folder of files)")
    parser.add_argument("--summary-only", action="store_true",
                        help="print only the statistics over topics")


def _show(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def run(args: argparse.Namespace) -> int:
    from inexeval.analysis.grades import COLUMNS, GRADES, grade_statistics, summarise
    from inexeval.formats.inex_assessments import read_inex_assessments

    assessments = read_inex_assessments(args.assessments)
    per_topic = {topic: grade_statistics(ta) for topic, ta in assessments.items()}
    digits = {"Total": 0, "av_size": 0}  # as seed 001 Table 4 prints them
    if not args.summary_only:
        print("topic\tgrade\t" + "\t".join(COLUMNS))
        for topic, stats in per_topic.items():
            for grade in GRADES:
                cells = [_show(stats[grade].column(c), digits.get(c, 2)) for c in COLUMNS]
                print(f"{topic}\t{grade}\t" + "\t".join(cells))
        print()
    print(f"over {len(per_topic)} topics\tgrade\t" + "\t".join(COLUMNS))
    for grade, rows in summarise(per_topic).items():
        for statistic, row in rows.items():
            cells = [_show(row[c], digits.get(c, 2)) for c in COLUMNS]
            print(f"{statistic}\t{grade}\t" + "\t".join(cells))
    return 0
