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
from inexeval.experiment import RunOutcome
from inexeval.formats.bioasq import BioasqFile, looks_like_bioasq, read_bioasq
from inexeval.measures.bioasq import DEFAULT_VERSION, MEASURES, check_version, evaluate_bioasq

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


def bioasq_study(args: Any) -> BioasqStudy:
    """The :class:`BioasqStudy` of ``eval``'s arguments; an option that does not apply to
    BioASQ files is an error."""
    from inexeval.options import check_unused

    check_unused(args, {"task": None, "collection": None, "num_docs": None, "topics": None,
                        "topic_file": None, "implicit": "on", "strict": False,
                        "assessments_format": None, "run_format": None, "order": None,
                        "keep_repeats": False, "limit": None, "navigation": None,
                        "ideal_run": None, "jobs": 1}, set(),
                 "BioASQ JSON files")
    if args.format in ("official", "scores", "trec_eval"):
        raise InexevalError(f"--format {args.format} is not made for BioASQ JSON files (trec, "
                            "csv, json, table or latex)")
    version = DEFAULT_VERSION if args.bioasq_version is None else args.bioasq_version
    return BioasqStudy(args.assessments, args.runs, args.measure, version)
