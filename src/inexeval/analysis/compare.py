"""Comparing systems: paired significance tests of runs on the per-topic values of ``eval``.

:func:`compare` evaluates runs with the same evaluator as ``inexeval eval -c`` (or the official
task evaluator with ``task``) and :func:`compare_results` compares per-topic values already
evaluated. The comparison is paired over all assessed topics, a run without results for a topic
scoring 0 on it; a topic where a measure is undefined for either run of a pair (None or NaN:
nothing relevant under a strict quantisation) is left out of that pair's comparison, and
``n_topics`` says how many remained.

The result, :class:`Comparison`, is the API the reports and plots build on:

- ``rows``: one :class:`ComparisonRow` per measure, test and compared run (or pair of runs with
  ``all_pairs``), its fields exactly the CSV/JSON columns :data:`COLUMNS`, in that order;
- ``per_topic[measure][run][topic]``: every run's value on every assessed topic (None where
  undefined); ``means[measure][run]``: the mean over the topics where it is defined (the
  ``eval -c`` mean); ``topics``: the assessed topics in natural order;
- ``runs`` (baseline first), ``measures``, ``baseline`` (None with ``all_pairs``), ``tests``,
  ``correction``, ``alpha``, ``permutations``, ``seed``, ``wilcoxon`` (the Wilcoxon test's
  rule, :data:`WILCOXON_RULE_TEXT`) and ``header`` (the sentence saying how topics were
  paired, and with the Wilcoxon test which rule gave its p-values);
- ``significant(row)``: +1 / -1 / 0 for a row significantly better / worse / neither at
  ``alpha`` after correction; ``to_dict()``, ``to_dataframe()`` (pandas, imported on use) and
  ``to_latex()``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from inexeval.analysis import choices, significance
from inexeval.comparison import Comparison, ComparisonRow, PerTopic
from inexeval.errors import InexevalError
from inexeval.model import Assessments, Run
from inexeval.results import Results
from inexeval.scores import Scores, describe_rule, geometric_measures

# Official task means whose per-topic values have their own name.
_PER_TOPIC_NAME = {"MAiP": "AiP", "MAgP": "AgP"}

def header(n_topics: int, rule: str = "all") -> str:
    """The sentence saying how the comparison pairs topics: their number and the averaging rule
    (:func:`inexeval.scores.describe_rule`)."""
    return (f"paired over {describe_rule(rule, n_topics)}; a topic where a measure is undefined "
            "is left out of that measure's comparison")


WILCOXON_RULE_TEXT = {
    "scipy": "Wilcoxon p-values by scipy.stats.wilcoxon's default rule (zeros dropped; exact with "
             "at most 50 differences and no zeros or tied |d|, enumerated with at most 13, else "
             "the normal approximation without continuity correction)",
    "r": "Wilcoxon p-values by R's wilcox.test defaults (zeros dropped; exact below 50 "
         "differences with no zeros or tied |d|, else the normal approximation with continuity "
         "correction)",
}
"""The sentence naming the Wilcoxon test's rule (:func:`inexeval.analysis.significance.wilcoxon`)
in a comparison's header."""


def achieved_power(row: ComparisonRow, alpha: float) -> float:
    """The achieved power of a comparison (Sakai 2016, "Statistical significance, power, and
    sample sizes: a systematic review of SIGIR and TOIS, 2006-2015", SIGIR): the power of the
    two-sided paired t test at level ``alpha`` with the pair's ``row.n_topics`` topics and its
    own standardised mean difference ``d = row.effect_size`` (= t / sqrt(n)), from the
    noncentral t with n - 1 degrees of freedom and noncentrality sqrt(n) |d|: R's
    ``pwr.t.test(type = "paired")``, statsmodels' ``TTestPower``. The pooled V_E of several
    runs belongs to the design of a topic set (``meta topics``), not to one comparison. NaN
    when undefined: fewer than two topics, or no effect size (differences that are one
    non-zero constant)."""
    from scipy import stats

    n, d = row.n_topics, row.effect_size
    if n < 2 or math.isnan(d):
        return math.nan
    critical = stats.t.isf(alpha / 2, n - 1)
    noncentrality = math.sqrt(n) * abs(d)
    return float(stats.nct.sf(critical, n - 1, noncentrality)
                 + stats.nct.cdf(-critical, n - 1, noncentrality))


def per_topic_values(results: Results, measures: Sequence[str], runs: Sequence[str] | None = None,
                     topics: Sequence[str] | None = None) -> PerTopic:
    """``{measure: {run: {topic: value}}}`` from evaluated results (evaluate with ``complete``
    so that every assessed topic has a value); NaN becomes None (undefined). The official
    task means ``MAiP``/``MAgP`` take their per-topic values from ``AiP``/``AgP``."""
    runs = list(runs if runs is not None else results.runs())
    wanted = {m: m for m in measures}  # per-topic rows of -m MAiP without --task are MAiP
    wanted.update({_PER_TOPIC_NAME[m]: m for m in measures if m in _PER_TOPIC_NAME})
    out: PerTopic = {m: {r: {} for r in runs} for m in measures}
    for row in results.rows:
        measure = wanted.get(row.measure)
        if measure is None or row.run not in out[measure]:
            continue
        value = row.value
        out[measure][row.run][row.topic] = None if value is None or math.isnan(value) else value
    for m in measures:
        if not any(any(v is not None for v in values.values()) for values in out[m].values()):
            raise InexevalError(f"measure {m} has no per-topic values")
        if topics is not None:
            out[m] = {r: {t: out[m][r].get(t) for t in topics} for r in runs}
    return out


def _mean(values: Iterable[float | None], geometric: bool = False) -> float | None:
    defined = [v for v in values if v is not None]
    if not defined:
        return None
    mean = math.fsum(defined) / len(defined)
    return math.exp(mean) if geometric else mean


def geometric_note(measures: Iterable[str]) -> str:
    """The sentence saying how the means of ``gm_map``-like measures are shown and what their
    tests run on ("" if there is none)."""
    found = geometric_measures(measures)
    if not found:
        return ""
    return (f"{', '.join(found)}: each run's mean is the geometric mean (the exponential of the "
            "mean per-topic logarithm, as trec_eval gives it) and its delta the difference of "
            "those; the tests, intervals and effect sizes are on the per-topic logarithms")


def mean_scores(per_topic: PerTopic) -> dict[str, dict[str, float | None]]:
    """``{measure: {run: mean}}``: each run's mean over the topics where the measure is defined
    (the ``eval -c`` mean; None if defined on none); for ``gm_map`` and ``gm_bpref``, whose
    per-topic values are logarithms, the exponential of that mean (trec_eval's value)."""
    geometric = set(geometric_measures(per_topic))
    return {m: {r: _mean(values.values(), m in geometric) for r, values in runs.items()}
            for m, runs in per_topic.items()}


def compare_results(
    results: Results,
    measures: Sequence[str],
    *,
    baseline: str | None = None,
    tests: Sequence[str] = ("t",),
    correction: str = "none",
    all_pairs: bool = False,
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 42,
    topics: Sequence[str] | None = None,
    power: bool = False,
    wilcoxon: str = "scipy",
) -> Comparison:
    """Compare the runs of ``results`` (per-topic values of every assessed topic, as
    ``Evaluator(..., complete=True)`` gives them) under ``measures``, named as the results
    name them (``inex_eval(quant=strict)`` is compared, and reported, as ``inex_eval``).

    ``baseline``: the run the others are compared with (default: the first); ``all_pairs``:
    every pair of runs instead (no baseline; the ``tukey`` and ``randomised-tukey`` tests need
    it). ``tests``: names from :data:`inexeval.analysis.choices.TESTS`; ``correction``:
    one of :data:`~inexeval.analysis.choices.CORRECTIONS`, applied per measure and test
    across its comparisons; ``permutations`` (B) and ``seed``: the randomised and bootstrap
    tests'. ``topics``: the assessed topics (default: those of the results). ``power``: fill
    each row's ``power`` (:func:`achieved_power`, from the pair's own effect size).
    ``wilcoxon``: how the Wilcoxon test finds its p-value, ``scipy`` (scipy.stats.wilcoxon's
    default rule) or ``r`` (R's wilcox.test defaults); see
    :func:`inexeval.analysis.significance.wilcoxon`.
    """
    from inexeval.measures.registry import canonical_name

    tests = list(dict.fromkeys(tests))
    listed = set(results.measures())
    measures = list(dict.fromkeys(m if m in listed else canonical_name(m) for m in measures))
    runs = results.runs()
    check_request(tests, correction, all_pairs=all_pairs, permutations=permutations,
                  baseline=baseline, runs=runs, wilcoxon=wilcoxon)
    if topics is None:
        topics = list(dict.fromkeys(t for run in runs
                                    for t in results.topics_evaluated.get(run, [])))
    if not topics:
        raise InexevalError("no assessed topic to compare the runs on")
    per_topic = per_topic_values(results, measures, runs, topics)
    return _compare(per_topic, runs, list(topics), measures, baseline=baseline, tests=tests,
                    correction=correction, all_pairs=all_pairs, alpha=alpha,
                    permutations=permutations, seed=seed, rule="all", power=power,
                    wilcoxon=wilcoxon)


def compare_scores(
    scores: Scores,
    measures: Sequence[str] | None = None,
    *,
    baseline: str | None = None,
    tests: Sequence[str] = ("t",),
    correction: str = "none",
    all_pairs: bool = False,
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 42,
    power: bool = False,
    wilcoxon: str = "scipy",
) -> Comparison:
    """Compare the runs of ``scores`` (:class:`inexeval.scores.Scores`) under ``measures``
    (default all of them), over the topics of their averaging rule (under ``answered``, each
    pair over the topics both runs answer); the other arguments as for
    :func:`compare_results`."""
    tests = list(dict.fromkeys(tests))
    measures = list(dict.fromkeys(measures if measures is not None else scores.measures))
    runs = list(scores.runs)
    check_request(tests, correction, all_pairs=all_pairs, permutations=permutations,
                  baseline=baseline, runs=runs, wilcoxon=wilcoxon)
    if not scores.topics:
        raise InexevalError("no assessed topic to compare the runs on")
    included = scores.included()
    per_topic: PerTopic = {}
    for m in measures:
        _, _, matrix = scores.matrix(m)
        per_topic[m] = {
            run: {t: (None if not included[i, j] or math.isnan(matrix[i, j])
                      else float(matrix[i, j])) for j, t in enumerate(scores.topics)}
            for i, run in enumerate(runs)}
        if not any(v is not None for values in per_topic[m].values() for v in values.values()):
            raise InexevalError(f"measure {m} has no per-topic values")
    return _compare(per_topic, runs, list(scores.topics), measures, baseline=baseline,
                    tests=tests, correction=correction, all_pairs=all_pairs, alpha=alpha,
                    permutations=permutations, seed=seed, rule=scores.rule, power=power,
                    wilcoxon=wilcoxon)


def _compare(per_topic: PerTopic, runs: list[str], topics: list[str], measures: list[str], *,
             baseline: str | None, tests: list[str], correction: str, all_pairs: bool,
             alpha: float, permutations: int, seed: int, rule: str,
             power: bool = False, wilcoxon: str = "scipy") -> Comparison:
    if baseline is not None:
        runs = [baseline, *(r for r in runs if r != baseline)]
        per_topic = {m: {r: values[r] for r in runs} for m, values in per_topic.items()}
    from inexeval.progress import progress

    rows: list[ComparisonRow] = []
    work = [(measure, test) for measure in measures for test in tests]
    for measure, test in progress(work, "tests", len(work)):
        values = per_topic[measure]
        settings = (test, permutations, seed, wilcoxon)
        found = (_all_pairs(values, runs, topics, measure, settings) if all_pairs else
                 _against_baseline(values, runs, topics, measure, settings))
        adjusted = significance.adjust([r.p_value for r in found], correction)
        found = [r._replace(p_adjusted=p) for r, p in zip(found, adjusted)]
        if power:
            found = [r._replace(power=achieved_power(r, alpha)) for r in found]
        rows.extend(found)
    means = mean_scores(per_topic)
    geometric = geometric_note(measures)
    return Comparison(rows=rows, per_topic=per_topic, means=means, topics=list(topics),
                      runs=runs, measures=list(measures),
                      baseline=None if all_pairs else runs[0], tests=tests,
                      correction=correction, alpha=alpha, permutations=permutations, seed=seed,
                      header=header(len(topics), rule) + (
                          f"; {WILCOXON_RULE_TEXT[wilcoxon]}" if "wilcoxon" in tests else "")
                      + (f"; {geometric}" if geometric else ""),
                      rule=rule, power=power, wilcoxon=wilcoxon)


def check_request(tests: Sequence[str], correction: str, *, all_pairs: bool, permutations: int,
                  baseline: str | None = None, runs: Sequence[str] | None = None,
                  wilcoxon: str = "scipy") -> None:
    """Refuse a comparison that cannot be made, before anything is evaluated: an unknown test
    or correction, an all-pairs test without ``all_pairs``, ``all_pairs`` with a baseline, fewer
    than one permutation, an unknown Wilcoxon rule or one other than the default without the
    Wilcoxon test (it would be ignored); with the run names, fewer than two runs or an unknown
    baseline."""
    if runs is not None:
        if len(runs) < 2:
            raise InexevalError(f"comparing needs at least two runs, not {len(runs)}")
        if baseline is not None and baseline not in runs:
            raise InexevalError(f"unknown baseline {baseline!r} (the runs are "
                                f"{', '.join(runs)})")
    if all_pairs and baseline is not None:
        raise InexevalError("--all-pairs compares every pair of runs: it takes no baseline")
    if not tests:
        raise InexevalError("no test asked for")
    unknown = [t for t in tests if t not in choices.TESTS]
    if unknown:
        raise InexevalError(f"unknown test {', '.join(unknown)} (one of "
                            f"{', '.join(choices.TESTS)})")
    needs_pairs = [t for t in tests if t in choices.ALL_PAIRS_TESTS]
    if needs_pairs and not all_pairs:
        raise InexevalError(f"the {', '.join(needs_pairs)} test compares all pairs of runs: "
                            "add --all-pairs")
    if correction not in choices.CORRECTIONS:
        raise InexevalError(f"unknown correction {correction} (one of "
                            f"{', '.join(choices.CORRECTIONS)})")
    if permutations < 1:
        raise InexevalError(f"the number of permutations must be at least 1, not {permutations}")
    if wilcoxon not in choices.WILCOXON_RULES:
        raise InexevalError(f"unknown --wilcoxon {wilcoxon!r} (one of "
                            f"{', '.join(choices.WILCOXON_RULES)})")
    if wilcoxon != choices.WILCOXON_RULES[0] and "wilcoxon" not in tests:
        raise InexevalError(f"--wilcoxon {wilcoxon} is the rule of the Wilcoxon test: add "
                            "--test wilcoxon")


def _paired(values: dict[str, dict[str, float | None]], run: str, other: str,
            topics: Sequence[str], measure: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    kept = [t for t in topics if values[run][t] is not None and values[other][t] is not None]
    if not kept:
        raise InexevalError(f"{measure}: no topic where both {run} and {other} have a value")
    a = np.array([values[run][t] for t in kept], dtype=np.float64)
    b = np.array([values[other][t] for t in kept], dtype=np.float64)
    return a, b


@functools.cache
def _geometric(measure: str) -> bool:
    return bool(geometric_measures([measure]))


def _row(measure: str, test: str, run: str, other: str, a: np.ndarray[Any, Any],
         b: np.ndarray[Any, Any], result: significance.TestResult) -> ComparisonRow:
    d = a - b
    delta = float(np.mean(a) - np.mean(b))
    sd = float(np.std(d, ddof=1)) if len(d) > 1 else math.nan
    if abs(delta) < significance.TIE and (sd == 0 or math.isnan(sd)):
        effect = 0.0
    else:
        effect = math.nan if significance.constant(d) else delta / sd
    mean, baseline_mean = float(np.mean(a)), float(np.mean(b))
    if _geometric(measure):  # the values are logarithms: show trec_eval's geometric means
        mean, baseline_mean = math.exp(mean), math.exp(baseline_mean)
        delta = mean - baseline_mean
    return ComparisonRow(
        measure=measure, test=test, run=run, baseline=other, n_topics=len(d),
        mean=mean, baseline_mean=baseline_mean, delta=delta,
        p_value=result.p_value, p_adjusted=result.p_value, ci_low=result.ci_low,
        ci_high=result.ci_high, effect_size=effect,
        wins=int(np.sum(d >= significance.TIE)), ties=int(np.sum(np.abs(d) < significance.TIE)),
        losses=int(np.sum(d <= -significance.TIE)))


TestSettings = tuple[str, int, int, str]
"""A test's name, its permutations, seed and Wilcoxon rule."""


def _against_baseline(values: dict[str, dict[str, float | None]], runs: Sequence[str],
                      topics: Sequence[str], measure: str, settings: TestSettings
                      ) -> list[ComparisonRow]:
    test, permutations, seed, _ = settings
    baseline = runs[0]
    pairs = [(run, *_paired(values, run, baseline, topics, measure)) for run in runs[1:]]
    if test == "randomised":
        results = _randomised(pairs, permutations, seed)
    else:
        results = [_one_test(settings, a - b) for _, a, b in pairs]
    return [_row(measure, test, run, baseline, a, b, result)
            for (run, a, b), result in zip(pairs, results)]


def _randomised(pairs: list[tuple[str, Any, Any]], permutations: int,
                seed: int) -> list[significance.TestResult]:
    """The randomised test of many comparisons: the same sign flips per number of topics, one
    matrix product per block of flips for all comparisons with that many topics."""
    out: dict[int, significance.TestResult] = {}
    by_size: dict[int, list[int]] = {}
    for i, (_, a, _) in enumerate(pairs):
        by_size.setdefault(len(a), []).append(i)
    for members in by_size.values():
        differences = np.column_stack([pairs[i][1] - pairs[i][2] for i in members])
        for i, result in zip(members, significance.randomised_many(differences, permutations,
                                                                   seed)):
            out[i] = result
    return [out[i] for i in range(len(pairs))]


def _one_test(settings: TestSettings, d: Any) -> significance.TestResult:
    test, permutations, seed, wilcoxon = settings
    if test == "bootstrap":
        return significance.bootstrap(d, permutations, seed)
    if test == "randomised":
        return significance.randomised(d, permutations, seed)
    if test == "wilcoxon":
        return significance.wilcoxon(d, wilcoxon)
    return significance.PAIRED[test](d)


def _all_pairs(values: dict[str, dict[str, float | None]], runs: Sequence[str],
               topics: Sequence[str], measure: str, settings: TestSettings
               ) -> list[ComparisonRow]:
    test, permutations, seed, _ = settings
    if test in choices.ALL_PAIRS_TESTS:
        kept = [t for t in topics if all(values[r][t] is not None for r in runs)]
        if len(kept) < 2:
            raise InexevalError(f"{measure}: the {test} test needs at least two topics where "
                                "every run has a value")
        matrix = np.array([[values[r][t] for r in runs] for t in kept], dtype=np.float64)
        found = (significance.tukey_hsd(matrix) if test == "tukey"
                 else significance.randomised_tukey(matrix, permutations, seed))
        return [_row(measure, test, runs[p.a], runs[p.b], matrix[:, p.a], matrix[:, p.b],
                     p.result) for p in found]
    rows = []
    for i, run in enumerate(runs):
        for other in runs[i + 1:]:
            a, b = _paired(values, run, other, topics, measure)
            rows.append(_row(measure, test, run, other, a, b, _one_test(settings, a - b)))
    return rows


def check_runs(assessments: Assessments, runs: Sequence[Run]) -> None:
    """Refuse runs that cannot be compared: none with results for an assessed topic, or two
    with the same name."""
    assessed = set(assessments)
    if not any(assessed & set(r.topics) for r in runs):
        raise InexevalError("no topic in common: none of the runs has results for an assessed "
                            "topic", assessments.source)
    names = [r.name for r in runs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InexevalError(f"the run {repeated[0]} is given more than once")


def comparable_measures(measures: Sequence[str] | None, task: str | None) -> list[str]:
    """The measures to compare, by their canonical names: ``measures`` parsed, or under an
    official ``task`` its per-topic measures or their means ``MAiP``/``MAgP`` (default
    :data:`inexeval.defaults.HEADLINE`, the official tables' measures)."""
    from inexeval.errors import MeasureError
    from inexeval.measures.registry import parse_measures

    if task is None:
        if not measures:
            raise InexevalError("name the measures to compare (-m) or an official task (--task)")
        return list(dict.fromkeys(str(m) for m in parse_measures(list(measures))))
    if not measures:
        from inexeval.defaults import HEADLINE

        return list(HEADLINE[task])
    from inexeval.measures.focused import measure_names

    per_topic = measure_names(task, per_topic=True)
    offered = [*per_topic, *(mean for mean, name in _PER_TOPIC_NAME.items() if name in per_topic)]
    mean_of = {name: mean for mean, name in _PER_TOPIC_NAME.items()}
    names = [mean_of.get(m, m) if m in offered else str(parse_measures([m])[0])
             for m in measures]
    missing = [m for m in names if m not in offered]
    if missing:
        raise MeasureError(f"not a per-topic measure of task {task}: {', '.join(missing)} (it "
                           f"has {', '.join(offered)})")
    return list(dict.fromkeys(names))
