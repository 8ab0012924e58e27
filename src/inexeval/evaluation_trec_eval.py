"""``inexeval eval`` on TREC qrels and TREC document runs when every measure asked is one that
trec_eval's code computes on the whole ranked list (issue 33): the qrels are read by
``inexeval trec_eval``'s reader into its :class:`~inexeval.measures.trec_eval.Judgements`, and
each run's topics are scored all at once by its kernels
(:func:`inexeval.measures.trec_eval.evaluate`), without eval's own assessments and without a
kernel call per topic and measure. The measures are those of the general path, by the same
code: every per-topic value is the general path's to the last bit
(tests/measures/test_one_engine.py), and the results are made as
:func:`inexeval.evaluation_trec.evaluate_file` makes them (the run read with eval's checks, a
topic's rows in the evaluator's order, the topics in their natural order, the same warnings),
so that every layout of ``eval`` prints the same bytes.

:func:`trec_eval_study` says when this is taken: TREC qrels in a file that trec_eval's reader
reads, with ids of printable ASCII; measures of trec_eval's families (:data:`~inexeval.
measures.trec.SPECS`, and P on levels) at one relevance level, none of them ``RR@k`` (a cut
list); no option that changes the lists (``--limit``, ``--order``, ``--topics``, a collection,
``--keep-repeats``). A run it cannot take (standard input,
a line eval's reader refuses or warns about, a document retrieved twice, a topic that resumes
after others, no assessed topic) goes the general way on its own, as
:func:`~inexeval.evaluation_trec.evaluate_file` sends it there.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from inexeval.errors import InexevalError, MeasureError


def trec_eval_study(args: argparse.Namespace, fmt: str) -> TrecEvalStudy | None:
    """The study of ``eval``'s arguments (measures as :func:`~inexeval.commands.eval.
    _trec_eval_names` leaves them) by trec_eval's reader and kernels, or None for the general
    path (:class:`~inexeval.experiment.Experiment`); ``fmt``: the layout."""
    if (fmt == "official" or args.task or not args.measure
            or args.assessments_format not in (None, "trec") or args.run_format not in (None, "trec")
            or args.order is not None or args.limit is not None or args.keep_repeats
            or args.strict or args.implicit != "on"  # (refused on TREC qrels by the experiment)
            or any(getattr(args, name) is not None for name in (
                "collection", "num_docs", "topics", "topic_file", "navigation", "ideal_run"))
            or args.assessments == "-" or not Path(args.assessments).is_file()):
        return None
    from inexeval.formats.detect import detect_assessments_format
    from inexeval.options import check_given_once

    try:
        if detect_assessments_format(args.assessments) != "trec":
            return None
    except InexevalError:
        return None  # told by the general path
    asked = _trec_eval_measures(args.measure)
    if asked is None:
        return None
    check_given_once(list(args.runs))  # as the experiment does, after the measures
    from inexeval.trec_eval_runs import Later

    # the qrels read in a thread while the first run's first part is (as inexeval trec_eval
    # reads them): qrels that trec_eval's reader refuses, or ids that are not printable ASCII,
    # send the whole study the general way when it first needs them
    path = args.assessments
    return TrecEvalStudy(args, Later(lambda: _judgements(path)), *asked)


def _judgements(path: str) -> Any:
    """The qrels as trec_eval's reader reads them, or None for the general path: a problem
    that eval's reader tells itself (or qrels it reads where trec_eval refuses), or ids that
    are not printable ASCII (eval compares ids as text)."""
    from inexeval.formats.trec_columns import read_trec_eval_qrels
    from inexeval.measures.trec_eval import judgements

    try:
        judged = judgements(read_trec_eval_qrels(path))
    except InexevalError:
        return None
    if not (_printable(judged.columns.topics) and _printable(judged.columns.documents)):
        return None
    return judged


def _trec_eval_measures(texts: Iterable[Any]) -> tuple[list[Any], list[Any], int] | None:
    """The measures as the evaluator holds them (parsed, each once), each one's trec_eval
    measure (:class:`~inexeval.measures.trec_eval.Chosen`, as
    :func:`~inexeval.measures.trec.trec_kernel` chooses it) and their one relevance level;
    None when a measure is not computed by trec_eval's code on the whole list or the levels
    differ."""
    from inexeval.measures.registry import parse_measures
    from inexeval.measures.trec import SPECS, Spec
    from inexeval.measures.trec_eval import chosen_measure

    try:
        measures = list(dict.fromkeys(parse_measures(list(texts))))
    except MeasureError:
        return None  # told by the general path
    chosen: list[Any] = []
    levels: set[int] = set()
    for m in measures:
        settings = m.settings
        if m.family.name == "P" and settings["quant"] == "strict" and not settings["binarise"]:
            spec = Spec(None, "P")  # trec_eval's P (measures.cutoff's PRECISION)
        elif m.family.name in SPECS:
            spec = SPECS[m.family.name]
        else:
            return None
        try:
            if m.cutoff is None and spec.plain is not None:
                chosen.append(chosen_measure(spec.plain, spec.text(settings)))
            elif m.cutoff is not None and spec.cut not in (None, "recip_rank"):
                chosen.append(chosen_measure(str(spec.cut), repr(m.cutoff)))
            else:
                return None
        except MeasureError:
            return None
        levels.add(settings["rel"])
    if len(levels) != 1:
        return None
    return measures, chosen, levels.pop()


def _printable(ids: npt.NDArray[np.bytes_]) -> bool:
    """Whether every id (NUL-padded byte strings) is printable ASCII without blanks."""
    raw = np.ascontiguousarray(ids).view(np.uint8)
    return bool((((raw > 32) & (raw < 127)) | (raw == 0)).all())


class TrecEvalStudy:
    """What ``eval`` reads of an :class:`~inexeval.experiment.Experiment` (``assessments``:
    the assessed topics; :meth:`outcomes`, :meth:`warn_coverage`, ``note``, ``task``), its
    runs evaluated by trec_eval's kernels."""

    task = None

    def __init__(self, args: argparse.Namespace, judged: Any, measures: list[Any],
                 chosen: list[Any], level: int) -> None:
        self.args = args
        self._judged = judged  # the Judgements, or a Later of them (None: the general way)
        self._topics: tuple[list[str], set[str]] | None = None
        self._experiment: Any = None  # the experiment, when the qrels send the study there
        self.measures = measures
        self.chosen = chosen
        self.level = level

    @property
    def judged(self) -> Any:
        """The qrels (waited for while they are read); :class:`_General` when they send the
        study the general way."""
        from inexeval.trec_eval_runs import Later

        judged = self._judged  # read once: the thread reading ahead asks too
        if isinstance(judged, Later):
            judged = judged.value()
            self._judged = judged
        if judged is None:
            raise _General
        return judged

    def _assessed_topics(self) -> tuple[list[str], set[str]]:
        if self._topics is None:
            listed = [t.decode("ascii") for t in self.judged.topics.tolist()]
            self._topics = listed, set(listed)
        return self._topics

    @property
    def assessments(self) -> list[str]:
        """The assessed topics, in the qrels' order."""
        if self._experiment is not None:
            return list(self._experiment.assessments)
        return self._assessed_topics()[0]

    @property
    def assessed(self) -> set[str]:
        return self._assessed_topics()[1]

    @property
    def note(self) -> str:
        return "" if self._experiment is None else str(self._experiment.note)

    def warn_coverage(self, answered: Iterable[str]) -> None:
        if self._experiment is not None:
            self._experiment.warn_coverage(answered)
            return
        from inexeval.outcomes import warn_coverage

        warn_coverage(self.assessed, answered, self.judged.columns.source)

    def __getstate__(self) -> dict[str, Any]:
        """What a worker process is sent: the qrels read (not the thread reading them)."""
        self._qrels_read()
        return dict(self.__dict__)

    def settled(self) -> TrecEvalStudy | None:
        """The study once its qrels are read (waiting for them), or None when they send it
        the general way: for what must be told after the qrels' problems and before any run
        is read (an output that cannot be written)."""
        return self if self._qrels_read() else None

    def _qrels_read(self) -> bool:
        """Whether the qrels go trec_eval's way (waiting while they are read)."""
        try:
            return self.judged is not None
        except _General:
            return False

    def outcomes(self, *, complete: bool = False, per_topic: bool = True,
                 official: bool = False) -> Iterator[Any]:
        """Each run's :class:`~inexeval.outcomes.RunOutcome`, in the order given (``--jobs
        N``: from N forked processes, in blocks, as the experiment gives them out); every run
        the general way (:class:`~inexeval.experiment.Experiment`) when the qrels send the
        study there."""
        from inexeval.progress import progress

        runs = list(self.args.runs)
        if ((self.args.jobs != 1 or not runs or runs[0] == "-" or not Path(runs[0]).is_file())
                and not self._qrels_read()):  # known before any run (none is read ahead)
            yield from self._the_general_way(complete, per_topic, official)
            return
        if self.args.jobs == 1 or "-" in runs:
            given: Iterator[Any] = (self._outcome(path, complete, per_topic) for path in runs)
        else:
            from inexeval.executor import blocks, make_executor

            executor = make_executor(self.args.jobs)
            given = (outcome for start, stop in blocks(len(runs), max(32, 8 * self.args.jobs))
                     for outcome in executor.map(_outcome_of, runs[start:stop],
                                                 (self, complete, per_topic)))
        try:
            yield from progress(given, "runs", len(runs))
        except _General:  # met by the first run, before any outcome
            yield from self._the_general_way(complete, per_topic, official)

    def _the_general_way(self, complete: bool, per_topic: bool, official: bool
                         ) -> Iterator[Any]:
        from inexeval.cli_args import experiment

        self._experiment = experiment(self.args)
        yield from self._experiment.outcomes(complete=complete, per_topic=per_topic,
                                          official=official)

    def _outcome(self, path: str, complete: bool, per_topic: bool) -> Any:
        from inexeval.evaluation_trec import GiveUp
        from inexeval.outcomes import RunOutcome

        outcome = RunOutcome(path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                outcome.results, outcome.answered = self._evaluate(path, complete)
            except (GiveUp, InexevalError):
                return self._general(path, complete, per_topic)
        outcome.warnings = [w.message for w in caught]
        return outcome

    def _evaluate(self, path: str, complete: bool) -> tuple[Any, list[str]]:
        from inexeval.evaluation_trec import GiveUp, answered_topics, screened_parts
        from inexeval.measures.registry import measure_groups
        from inexeval.measures.trec_eval import evaluate
        from inexeval.results import Results, Row
        from inexeval.scores import topic_key
        from inexeval.trec_eval_runs import BLOCK, PART_LINES, ReadAhead

        if path == "-" or not Path(path).is_file():
            raise GiveUp
        order: list[str] = []
        # the topics assessed looked up as the parts come (the qrels may still be read)
        parts = screened_parts(path, None, _Assessed(self), order, lines=PART_LINES,
                               block=BLOCK)
        # the next part read in a thread while one is evaluated, unless worker processes take
        # the processors (as inexeval trec_eval does)
        ahead = ReadAhead(parts) if self.args.jobs == 1 else None
        try:
            got = evaluate(self.judged, parts if ahead is None else ahead, self.chosen,
                           complete=complete, relevance_level=self.level)
        finally:
            if ahead is not None:
                ahead.close()
        answered = answered_topics(order, self.assessed, path)
        values = {str(m): [float(v) for v in e.values[:, 0].tolist()]
                  for m, e in zip(self.measures, got.measures)}
        at = {topic: i for i, topic in enumerate(got.topics)}
        evaluated = sorted(at, key=topic_key)
        names = [str(m) for ms in measure_groups(self.measures).values() for m in ms]
        name = got.run_id
        results = Results(aggregates={str(m): m.family.aggregate for m in self.measures})
        results.topics_evaluated[name] = evaluated
        results.extend([Row(name, topic, measure, values[measure][at[topic]])
                        for topic in evaluated for measure in names])
        return results, answered

    def _general(self, path: str, complete: bool, per_topic: bool) -> Any:
        """The run evaluated the general way (an experiment of this one run)."""
        from inexeval.cli_args import experiment

        one = argparse.Namespace(**{**vars(self.args), "runs": [path]})
        return next(iter(experiment(one).outcomes(complete=complete, per_topic=per_topic)))


class _General(Exception):
    """The qrels send the study the general way (:class:`~inexeval.experiment.Experiment`)."""


class _Assessed:
    """A study's assessed topics, as a container read when first asked (in the thread that
    reads the run ahead, while the qrels may still be read in another)."""

    def __init__(self, study: TrecEvalStudy) -> None:
        self._study = study

    def __contains__(self, topic: object) -> bool:
        return topic in self._study.assessed


def _outcome_of(shared: tuple[TrecEvalStudy, bool, bool], path: str) -> Any:
    """One run's outcome, in a worker process."""
    study, complete, per_topic = shared
    return study._outcome(path, complete, per_topic)
