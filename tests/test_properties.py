"""Properties of the whole pipeline (files -> readers -> measures) on random inputs."""

from __future__ import annotations

import random
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inexeval import evaluate
from inexeval.errors import InexevalWarning
from inexeval.formats.detect import load_assessments, load_run

MEASURES = ["P@5", "P(quant=generalised)@10", "overlap@5", "overlap@20", "inex_eval",
            "inex_eval(quant=generalised,ties=score)", "inex_eval(quant=sog)@0.5"]
PATHS = ["/article[1]", "/article[1]/bdy[1]", "/article[1]/bdy[1]/sec[1]",
         "/article[1]/bdy[1]/sec[1]/p[1]", "/article[1]/bdy[1]/sec[1]/p[2]",
         "/article[1]/bdy[1]/sec[2]", "/article[1]/bdy[1]/sec[10]"]
PAIRS = [(0, 0)] + [(e, s) for e in (1, 2, 3) for s in (1, 2, 3)]


def write_case(folder: Path, seed: int, shuffle_seed: int | None) -> tuple[Path, Path]:
    rng = random.Random(seed)
    records = [(f"d{d}", p, rng.choice(PAIRS)) for d in range(4) for p in PATHS
               if rng.random() < 0.6]
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(records)
    qrels = folder / f"qrels-{shuffle_seed}.xml"
    lines = ["<assessments topic='7'>"]
    for f, p, (e, s) in records:
        lines.append(f"<file file='{f}'><path path='{p}' exhaustiveness='{e}' "
                     f"specificity='{s}'/></file>")
    qrels.write_text("\n".join(lines + ["</assessments>"]) + "\n")
    run = folder / "run.txt"
    results = [(f"d{rng.randrange(5)}", rng.choice(PATHS)) for _ in range(rng.randint(0, 30))]
    run.write_text("".join(f"7 Q0 {f} {i} {rng.choice((1.0, 2.0, 3.0))} r {p}\n"
                           for i, (f, p) in enumerate(results, 1)))
    return qrels, run


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_shuffled_assessments_bounded_and_repeatable(tmp_path: Path, seed: int,
                                                     shuffle: int) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    qrels_a, run_path = write_case(folder, seed, None)
    qrels_b, _ = write_case(folder, seed, shuffle)
    with warnings.catch_warnings():  # a generated run may repeat results or miss topics
        warnings.filterwarnings("ignore", ".*(duplicated result|have no assessments)",
                                InexevalWarning)
        run = load_run(run_path) if run_path.read_text() else None
        if run is None or not len(load_assessments(qrels_a)):
            return
        first = evaluate(load_assessments(qrels_a), run, MEASURES, num_docs=50)
        shuffled = evaluate(load_assessments(qrels_b), run, MEASURES, num_docs=50)
        again = evaluate(load_assessments(qrels_a), run, MEASURES, num_docs=50)
    assert first.rows == again.rows
    assert [(r.measure, r.value) for r in first.rows] == \
        [(r.measure, r.value) for r in shuffled.rows]
    for row in first.rows:
        assert row.value is None or 0.0 <= row.value <= 1.0 + 1e-12


def test_iter_calc_yields_topic_measure_value() -> None:
    from inexeval import demo, iter_calc

    qrels = load_assessments(demo.ASSESSMENTS_2004)
    rows = list(iter_calc(qrels, load_run(demo.RUNS[1]), ["P@5", "overlap@5"]))
    assert len(rows) == 6
    for topic, measure, value in rows:
        assert topic in qrels and measure in ("P@5", "overlap@5") and 0 <= value <= 1
