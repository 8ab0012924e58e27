"""Is a run that did not contribute to the pool scored fairly? (``inexeval meta reuse``)

Leave-one-run-out and leave-one-group-out (Zobel 1998; Buckley et al. 2007; Voorhees 2018's
"leave out uniques" test). For each run, or each group of runs (``--group REGEX`` as ``pool``
has it: a run's group is the first match group of REGEX in its name), the pool is rebuilt from
the other runs exactly as the full pool was (:class:`inexeval.meta.pool.Pooling`, with
:func:`inexeval.analysis.pooling.pool_runs`; when only the first M runs of each group were
pooled, ``--runs-per-group M``, from the other pooled runs: a run that was not pooled
contributed nothing, and leaving it out changes no qrels); the units judged only because of
the left-out runs (in the full pool, not in the rebuilt one) become unjudged, and the left-out
runs are scored on those qrels. The unit is the article for FOL and TREC qrels, the element for
INEX 2002-2005 element qrels pooled by depth (:func:`inexeval.meta.pool.pool_unit`).

Per left-out run and measure (scores are means over every assessed topic, ``eval -c``):

* ``score_full``, ``score_without`` (on the qrels without its group's contribution) and
  ``difference = score_full - score_without`` (Voorhees 2018: the drop; negative when the run
  gains);
* ``rank_full``: its rank among all runs on the full qrels; ``rank_without``: the rank its
  ``score_without`` would take among the other runs' full scores (what a new system compared
  with the published results would see). Ranks are 1 for the best, ties share the best rank;
* ``unique_relevant``: the relevant units only the left-out runs (the run, or its whole group)
  contributed to the pool.

Per measure over all runs: ``mean_drop`` and ``max_drop`` of ``difference``, and
``kendall_tau``, Kendall's tau-b of the ranking by ``score_full`` against the ranking by
``score_without`` (each run scored without its own group's contribution).

Every left-out run or group is one task of an :mod:`inexeval.executor`, given out in contiguous
chunks of tasks (:func:`inexeval.executor.map_chunked`, a few per worker), each the positions of
its runs: the process that runs it rebuilds the pool without them from the runs it has coded
once (:class:`inexeval.executor.ReadOnWorkers`), after the study's plan (the runs' names and
scores on the full qrels, :class:`inexeval.meta.pool.Plan`). The output is the same bytes
whoever runs the tasks, however many at a time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from inexeval.errors import InexevalError
from inexeval.executor import Executor, ReadOnWorkers, Serial, map_chunked
from inexeval.meta.pool import (
    CodedRuns,
    Floats,
    InputReader,
    Judged,
    Keys,
    Plan,
    Pooling,
    Scoring,
    StudyInputs,
    check_pooled,
    judged_units,
    kendall_tau,
    left_out_units,
    run_names,
    say_again,
    without_units,
)
from inexeval.model import Assessments, Run


def run_groups(names: Sequence[str], group: str) -> list[str]:
    """Each run's group: the first match group of the regular expression ``group`` searched in
    its name (the whole match when it has no group), as ``pool --group`` takes it; a name
    without a match is an error."""
    try:
        pattern = re.compile(group)
    except re.error as error:
        raise InexevalError(f"--group {group!r} is not a regular expression: {error}") from None
    groups = []
    for name in names:
        match = pattern.search(name)
        if match is None:
            raise InexevalError(f"run name {name!r} does not match --group {group!r}")
        groups.append(str(match.group(1) if pattern.groups else match.group(0)))
    return groups


@dataclass(frozen=True)
class ReuseRow:
    """One left-out run under one measure (the keys of ``meta reuse --format json``)."""

    measure: str
    left_out: str
    run: str
    score_full: float
    score_without: float
    difference: float
    rank_full: int | None
    rank_without: int | None
    unique_relevant: int


RUN_COLUMNS = ("measure", "left_out", "run", "score_full", "score_without", "difference",
               "rank_full", "rank_without", "unique_relevant")


@dataclass(frozen=True)
class ReuseSummary:
    """One measure over all runs."""

    measure: str
    mean_drop: float
    max_drop: float
    kendall_tau: float


SUMMARY_COLUMNS = ("measure", "mean_drop", "max_drop", "kendall_tau")


@dataclass(frozen=True)
class Reuse:
    """The result of :func:`reuse_study`: ``runs`` by measure, then left-out run or group, then
    run; ``summary`` by measure."""

    runs: list[ReuseRow]
    summary: list[ReuseSummary]


@dataclass(frozen=True)
class _ReuseWork:
    """What every task of a reuse study needs: made once per process that runs its tasks
    (:func:`_reuse_work`); a task is the positions of its left-out runs."""

    inputs: StudyInputs
    pooling: Pooling
    coded: CodedRuns
    full_units: Mapping[str, Keys]
    judged: Mapping[str, Judged]

    @property
    def runs(self) -> Sequence[Run]:
        return self.inputs.assessed_runs

    def __after_stored__(self) -> Plan:
        """What a machine's store keeps once these are stored: the plan, made then."""
        return self.inputs.plan


def _reuse_work(reader: InputReader) -> _ReuseWork:
    """A reuse study's shared inputs: the inputs read, the runs coded, the full pool's units
    and the judged units."""
    inputs = reader.read()
    assert inputs.pooling is not None
    check_pooled(inputs.pooling, len(inputs.runs))
    coded = CodedRuns.of(inputs.runs, list(inputs.assessments), inputs.pooling)
    return _ReuseWork(inputs, inputs.pooling, coded, coded.pooled(),
                      judged_units(inputs.assessments, inputs.pooling.unit))


def _run_names(work: _ReuseWork, _: None) -> list[str]:
    return run_names(work.inputs.runs)


def _left_out_task(work: _ReuseWork, left: tuple[int, ...] | None
                   ) -> Plan | tuple[list[str], Floats, int]:
    """The measures and the means of the left-out runs (positions ``left``) on the qrels of
    the pool rebuilt without them (runs x measures; the pool of the others found in one pass
    over the coded runs), and the relevant units only they contributed; ``left`` None, the
    study's :class:`Plan` (every run on the full qrels, a task beside the others)."""
    if left is None:
        return work.inputs.plan
    pooling = work.pooling
    everyone = range(work.coded.count) if pooling.pooled is None else pooling.pooled
    gone = set(left)
    removed = left_out_units(work.full_units,
                             work.coded.pooled([i for i in everyone if i not in gone]))
    unique = 0
    for topic, keys in removed.items():
        judged = work.judged.get(topic)
        if judged is not None and len(keys) and len(judged.keys):
            at = np.minimum(np.searchsorted(judged.keys, keys), len(judged.keys) - 1)
            unique += int(np.count_nonzero((judged.keys[at] == keys) & judged.relevant[at]))
    reduced = without_units(work.inputs.assessments, removed, pooling.unit)
    scores = work.inputs.scoring.quiet_scores(reduced, [work.runs[i] for i in left])
    return list(scores.measures), scores.means(), unique


def _ranks(scores: Floats, candidates: Floats | None = None) -> list[int | None]:
    """Competition ranks (1 best, ties the best rank) of ``candidates`` (default: ``scores``
    themselves) among ``scores``, run ``i``'s candidate compared with the others' scores."""
    candidates = scores if candidates is None else candidates
    ranks: list[int | None] = []
    for i, value in enumerate(candidates):
        if math.isnan(value):
            ranks.append(None)
            continue
        others = np.delete(scores, i)
        ranks.append(1 + int(np.count_nonzero(others[~np.isnan(others)] > value)))
    return ranks


def reuse_study(assessments: Assessments, runs: Sequence[Run], scoring: Scoring,
                pooling: Pooling, *, groups: Sequence[str] | None = None,
                executor: Executor | None = None) -> Reuse:
    """Leave each run (``groups`` None) or each group out of the pool (``groups[i]``: run
    ``i``'s group; groups in order of first appearance) and score its runs without their
    contribution; see the module docstring."""
    if len(runs) < 2:
        raise InexevalError("a reuse study needs at least two runs (one left out, one pooled)")
    if groups is not None and len(groups) != len(runs):
        raise ValueError("one group per run")
    return read_reuse_study(StudyInputs(assessments, runs, scoring, pooling),
                            groups=None if groups is None else lambda _: list(groups),
                            executor=executor)[0]


def read_reuse_study(reader: InputReader, *,
                     groups: Callable[[list[str]], list[str]] | None = None,
                     executor: Executor | None = None,
                     say: Callable[[Plan], None] | None = None) -> tuple[Reuse, Plan]:
    """:func:`reuse_study` of the inputs ``reader`` reads (on each process that runs the
    tasks, once), ``groups`` giving the runs' groups from their names; and the study's
    :class:`Plan` (``say`` is given it first)."""
    executor = executor or Serial()
    work = ReadOnWorkers(_reuse_work, reader)
    # the runs' names from the shared inputs (on a worker), then each left-out group given
    # out as the positions of its runs, and the runs' scores on the full qrels as one more task,
    # the last (on a cluster, the first worker of a machine makes them once it has stored the
    # inputs: they are ready by the time the task comes)
    try:
        [names] = executor.map(_run_names, [None], work)
        if len(names) < 2:
            raise InexevalError("a reuse study needs at least two runs (one left out, one "
                                "pooled)")
        labels = groups(names) if groups is not None else names
        sets: dict[str, list[int]] = {}
        for i, label in enumerate(labels):
            sets.setdefault(label, []).append(i)
        if len(sets) < 2:
            raise InexevalError(f"every run is in group {labels[0]!r}: leaving it out leaves "
                                "no pool (give a --group that tells the groups apart)")
        tasks = [tuple(members) for members in sets.values()]
        done = map_chunked(executor, _left_out_task, [*tasks, None], work,
                           description="left out")
    finally:
        work.forget()
    plan = done[-1]
    assert isinstance(plan, Plan)
    if say is not None:
        say(plan)
    say_again(plan)
    measures = plan.measures
    full_means = plan.full_means
    without = np.full_like(full_means, np.nan)
    unique = np.zeros(len(names), dtype=np.int64)
    for members, result in zip(tasks, done[:-1]):
        assert not isinstance(result, Plan)
        named, means, count = result
        without[list(members)] = means[:, [named.index(m) for m in measures]]
        unique[list(members)] = count
    rows: list[ReuseRow] = []
    summary: list[ReuseSummary] = []
    for m, measure in enumerate(measures):
        score_full, score_without = full_means[:, m], without[:, m]
        difference = score_full - score_without
        rank_full, rank_without = _ranks(score_full), _ranks(score_full, score_without)
        for label, indices in sets.items():
            rows.extend(ReuseRow(measure, label, names[i], float(score_full[i]),
                                 float(score_without[i]), float(difference[i]), rank_full[i],
                                 rank_without[i], int(unique[i])) for i in indices)
        defined = difference[~np.isnan(difference)]
        summary.append(ReuseSummary(
            measure, float(np.mean(defined)) if len(defined) else math.nan,
            float(np.max(defined)) if len(defined) else math.nan,
            kendall_tau(score_full, score_without)))
    return Reuse(rows, summary), plan
