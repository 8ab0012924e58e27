"""``inexeval eval GOLD.json SYSTEM.json...``: BioASQ task B snippet measures
(:mod:`inexeval.measures.bioasq`) of system files against a golden file
(:mod:`inexeval.formats.bioasq`), with ``eval``'s output.

:class:`BioasqStudy` is what ``eval`` prints from (its ``note``, ``outcomes``,
``warn_coverage`` and ``assessments``, as an :class:`~inexeval.experiment.Experiment` has them):
one outcome per system file, a file that cannot be read reported and the others still printed.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from inexeval.errors import InexevalError, MeasureError, warn
from inexeval.formats.bioasq import BioasqFile, read_bioasq
from inexeval.formats.probes import looks_like_bioasq
from inexeval.measures.bioasq import DEFAULT_VERSION, MEASURES, check_version, evaluate_bioasq
from inexeval.outcomes import RunOutcome
from inexeval.scores import Scores

__all__ = ["BioasqStudy", "looks_like_bioasq"]


class BioasqStudy:
    """The golden file, the system files, the measures (default: all five, announced in
    :attr:`note`) and the evaluator's version (``-e``) of a BioASQ evaluation."""

    def __init__(self, golden: str, systems: Sequence[str], measures: Iterable[str] = (),
                 version: int = DEFAULT_VERSION) -> None:
        from inexeval.measures.registry import parse_measures
        from inexeval.options import check_given_once

        self.version = check_version(version)
        check_given_once(list(systems))
        chosen = [str(m) for m in parse_measures(list(measures))]
        wrong = [m for m in chosen if m not in MEASURES]
        if wrong:
            raise MeasureError(f"{', '.join(wrong)} cannot score BioASQ JSON files; the BioASQ "
                               f"snippet measures are {', '.join(MEASURES)}")
        self.note = "" if chosen else (f"inexeval: measures for BioASQ snippets (version "
                                       f"{self.version}): {', '.join(MEASURES)} (choose with "
                                       "-m)\n")
        self.measures = chosen or list(MEASURES)
        self.golden = read_bioasq(golden)
        self.assessments = BioasqFile(self.golden.source, {
            q: question for q, question in self.golden.questions.items()
            if question.snippets or self.version != 9})
        """The golden questions scored (``-e 9`` leaves out those without snippets)."""
        self.systems = list(systems)

    def outcomes(self, *, complete: bool = False, per_topic: bool = True,
                 official: bool = False) -> Iterator[RunOutcome]:
        """Each system file's results, in order; ``complete``: every golden question, one the
        system does not answer scoring 0 (by default left out, as BioASQ's evaluator does)."""
        from inexeval.model.run import distinct_names

        names = distinct_names([Path(s).stem for s in self.systems], self.systems)
        for source, name in zip(self.systems, names):
            outcome = RunOutcome(source)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    system = read_bioasq(source)
                    answered = [q for q in system if q in self.assessments.questions]
                    if not any(q in self.golden.questions for q in system):
                        raise InexevalError("no question of the system file is in the golden "
                                            "file", source)
                    extra = sum(q not in self.golden.questions for q in system)
                    if extra:
                        warn(f"{extra} question(s) of the system file are not in the golden "
                             "file and are ignored", source)
                    outcome.results = evaluate_bioasq(self.golden, system, self.measures,
                                                      self.version, name, complete)
                    outcome.answered = answered
                except InexevalError as error:
                    if error.file is not None and Path(error.file) != Path(source):
                        raise
                    outcome.error = str(error)
            outcome.warnings = [w.message for w in caught]
            yield outcome

    def warn_coverage(self, answered: Iterable[str]) -> None:
        """One warning when the system files answer fewer than half the golden questions."""
        assessed = len(self.assessments)
        covered = len(set(answered) & set(self.assessments.questions))
        if assessed and covered * 2 < assessed:
            warn(f"the system files answer {covered} of the {assessed} golden questions: the "
                 "others are left out of the means, as BioASQ's evaluator does (-c counts them "
                 "as 0)", self.assessments.source)


def bioasq_study(args: Any, per_question: bool = False) -> BioasqStudy:
    """The :class:`BioasqStudy` of ``eval``'s (or ``compare``'s) arguments; an option that does
    not apply to BioASQ files is an error. ``per_question`` (``--format scores``, a comparison): the measures
    with per-question values, not ``bioasq_snippet_GMAP`` (a mean only)."""
    from inexeval.options import check_unused

    check_unused(args, {"task": None, "collection": None, "num_docs": None, "topics": None,
                        "topic_file": None, "implicit": "on", "strict": False,
                        "assessments_format": None, "run_format": None, "order": None,
                        "keep_repeats": False, "limit": None, "navigation": None,
                        "ideal_run": None, "jobs": 1}, set(),
                 "BioASQ JSON files")
    if args.format in ("official", "trec_eval"):
        raise InexevalError(f"--format {args.format} is not made for BioASQ JSON files (trec, "
                            "csv, json, table, latex or scores)")
    given = getattr(args, "bioasq_version", None)
    version = DEFAULT_VERSION if given is None else given
    measures = list(args.measure or [])
    if per_question:
        if GMAP in measures:
            raise MeasureError(f"{GMAP} is a mean only (the geometric mean of the questions' "
                               "average precision): it has no per-question value to save or "
                               "pair; use bioasq_snippet_MAP")
        if not measures:
            study = BioasqStudy(args.assessments, args.runs, [m for m in MEASURES if m != GMAP],
                                version)
            study.note = (f"inexeval: measures for BioASQ snippets (version {study.version}): "
                          f"{', '.join(study.measures)} ({GMAP}, a mean only, has no "
                          "per-question value; choose with -m)\n")
            return study
    return BioasqStudy(args.assessments, args.runs, measures, version)


GMAP = "bioasq_snippet_GMAP"


def bioasq_scores(args: Any) -> tuple[BioasqStudy, Scores, dict[str, list[str]]]:
    """The study of the arguments, the per-question scores of its system files under the
    comparison's rule (``any``, ``-c``: ``all``) and the questions each system answers; a
    system file that cannot be read is an error."""
    from inexeval.results import together

    study = bioasq_study(args, per_question=True)
    held: list[tuple[str, Any]] = []
    answered: list[list[str]] = []
    for outcome in study.outcomes(complete=args.c):
        for message in outcome.warnings:
            warnings.warn(message, stacklevel=1)
        if outcome.error is not None:
            raise InexevalError(outcome.error)
        assert outcome.results is not None
        held.append((outcome.source, outcome.results))
        answered.append(list(outcome.answered))
    merged = together(held)
    by_run = dict(zip(merged.runs(), answered))
    return study, Scores.from_results(merged, rule="all" if args.c else "any",
                                      answered=by_run), by_run


def compare_bioasq(args: Any, tests: list[str], command: str) -> int:
    """``inexeval compare`` (and ``report``) on a BioASQ golden file and system files, paired
    over the questions as ``compare`` pairs topics (and ``meta power`` does): the golden
    questions some system answers, one a system does not answer scoring 0 (``-c``: every golden
    question); the measures with per-question values (not ``bioasq_snippet_GMAP``)."""
    import sys

    from inexeval.analysis.choices import PERMUTATIONS
    from inexeval.analysis.compare import compare_scores
    from inexeval.outputs import write_output
    from inexeval.report.comparison import render_comparison

    if args.meta:
        raise InexevalError("--meta is not available on BioASQ JSON files: save the scores "
                            "(inexeval eval --format scores -o FILE) for inexeval meta power "
                            "--scores FILE")
    if getattr(args, "ranks", 50) != 50:
        raise InexevalError("--ranks not used by BioASQ JSON files: leave it out")
    study, scores, answered = bioasq_scores(args)
    compared = compare_scores(scores, study.measures, baseline=args.baseline, tests=tests,
                              correction=args.correction, all_pairs=args.all_pairs,
                              alpha=args.alpha, permutations=PERMUTATIONS
                              if args.permutations is None else args.permutations,
                              seed=args.seed, power=args.power, wilcoxon=args.wilcoxon)
    sys.stderr.write(study.note)
    if args.format == "html":
        import shlex

        from inexeval.report import html
        from inexeval.version import package_version

        page = html.from_comparison(
            compared, title=f"Evaluation report: {', '.join(compared.measures)}",
            subtitle=(f"{len(compared.runs)} system files, BioASQ evaluator version "
                      f"{study.version}; golden file {Path(args.assessments).name}"),
            command=shlex.join(getattr(args, "argv", ["inexeval", command])),
            version=package_version(), digits=args.digits, created=html.report_date(),
            files=[html.InputFile.of("assessments", args.assessments),
                   *(html.InputFile.of(f"run {name}", path)
                     for name, path in zip(scores.runs, args.runs))],
            inputs=[(name, path, len(answered[name]))
                    for name, path in zip(scores.runs, args.runs)],
            rule=scores.rule, n_assessed=len(study.assessments))
        text = html.render(page)
    else:
        text = render_comparison(compared, args.format, args.digits)
    write_output(args.output, text, args.assessments, *args.runs)
    return 0
