"""EPRUM with the classical user and binary idealism is TREC precision-recall at natural recall
points (seed 004 §2, spec §8 / T-EP-6), checked against ir_measures on article-level views of
the real INEX 2010 FOL qrels."""

from __future__ import annotations

from fractions import Fraction

import ir_measures
import numpy as np
import pytest
from tests.helpers import DATA, needs_shared

from inexeval.errors import InexevalWarning
from inexeval.evaluation import Evaluator
from inexeval.measures import eprum  # noqa: F401  (registers the families)
from inexeval.model import Assessments, Run
from inexeval.model.assessments import build_topic
from inexeval.model.run import make_topic_run

pytestmark = needs_shared

QRELS = DATA / "inex2010" / "inex2010.qrels"
TOPICS = ("2010003", "2010004", "2010010", "2010014", "2010023")


def _qrels() -> dict[str, dict[str, tuple[int, int]]]:
    """``topic -> article -> (rsize, length)`` from ``topic Q0 article rsize length ...``."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    with QRELS.open(encoding="ascii") as handle:
        for line in handle:
            fields = line.split()
            if fields and fields[0] in TOPICS:
                out.setdefault(fields[0], {})[fields[2]] = (int(fields[3]), int(fields[4]))
    return out


@pytest.fixture(scope="module")
def setting() -> tuple[Assessments, Run, dict[str, list[str]]]:
    judged = _qrels()
    rng = np.random.default_rng(2010)
    topics, runs, ranked = {}, {}, {}
    for topic, articles in judged.items():
        topics[topic] = build_topic(
            topic, "fol",
            [(a, "", {"rsize": r, "length": n}) for a, (r, n) in articles.items()])
        # a derived run: judged articles in a random order, relevant ones pushed up a little,
        # with unjudged articles mixed in, cut at 400 (so some relevant ones are never found)
        names = list(articles) + [f"unjudged{topic}-{i}" for i in range(50)]
        score = rng.random(len(names)) + np.array(
            [0.3 if articles.get(a, (0, 0))[0] > 0 else 0.0 for a in names])
        order = [names[i] for i in np.argsort(-score, kind="stable")[:400]]
        ranked[topic] = order
        runs[topic] = make_topic_run(topic, order, ranks=list(range(1, len(order) + 1)))
    return Assessments(topics, "fol"), Run("derived", "document", runs), ranked


def test_average_precision_and_precision_at_k(setting: tuple[Assessments, Run,
                                                             dict[str, list[str]]]) -> None:
    assessments, run, ranked = setting
    names = ["EPRUM(nav=classical)", "EPRUM_P(nav=classical)@10",
             "EPRUM_P(nav=classical)@100", "EPRUM", "PRUM"]
    results = Evaluator(names, assessments).evaluate(run)
    qrels = [ir_measures.Qrel(t, a, int(ta.dims["rsize"][i] > 0))
             for t, ta in assessments.items() for i, a in enumerate(ta.files.tolist())]
    scored = [ir_measures.ScoredDoc(t, a, float(-r)) for t, order in ranked.items()
              for r, a in enumerate(order)]
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.AP, ir_measures.P @ 10, ir_measures.P @ 100], qrels, scored)}
    for topic in ranked:
        ap = expected[(topic, "AP")]
        assert results.value("derived", topic, names[0]) == pytest.approx(ap, abs=1e-9)
        assert results.value("derived", topic, names[1]) == pytest.approx(
            expected[(topic, "P@10")], abs=1e-9)
        assert results.value("derived", topic, names[2]) == pytest.approx(
            expected[(topic, "P@100")], abs=1e-9)
        # whole articles: the hierarchical user is the classical one; PRUM = EPRUM here
        assert results.value("derived", topic, "EPRUM") == pytest.approx(ap, abs=1e-9)
        assert results.value("derived", topic, "PRUM") == pytest.approx(ap, abs=1e-9)


def test_precision_at_each_natural_recall_point(
        setting: tuple[Assessments, Run, dict[str, list[str]]]) -> None:
    assessments, run, ranked = setting
    topic = TOPICS[0]
    relevant = {a for a, r in zip(assessments[topic].files.tolist(),
                                  assessments[topic].dims["rsize"].tolist()) if r > 0}
    t = len(relevant)
    hits = [k + 1 for k, a in enumerate(ranked[topic]) if a in relevant]
    levels = [Fraction(m, t) for m in range(1, t + 1)]
    names = [f"EPRUM(nav=classical)@{float(level)!r}" for level in levels]
    with pytest.warns(InexevalWarning, match="have no assessments"):
        results = Evaluator(names, assessments.select({topic})).evaluate(run)
    got = [results.value("derived", topic, m) for m in results.measures()]
    want = [m / hits[m - 1] if m <= len(hits) else 0.0 for m in range(1, t + 1)]
    assert len(hits) < t  # some recall points are never reached
    assert got == pytest.approx(want, abs=1e-9)
