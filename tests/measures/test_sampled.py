"""Inferred measures on sampled qrels: equal to NIST's sample_eval.pl (run here when Perl and
the script are at hand), equal to AP and nDCG when everything is judged, and unbiased enough
over many samples of a fully judged collection (seeded)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from inexeval.cli import main
from inexeval.errors import InexevalError
from inexeval.evaluation import evaluate
from inexeval.formats.detect import detect_assessments_format, load_assessments, load_run
from inexeval.formats.sampled import sampled_qrels_lines


def _sample_eval() -> Path:
    """NIST's script, not ours to ship (no licence given): its path in $INEXEVAL_SAMPLE_EVAL.
    An optional reference, so its absence is no missing component for CI."""
    script = Path(os.environ.get("INEXEVAL_SAMPLE_EVAL", ""))
    if shutil.which("perl") is None or not script.is_file():
        pytest.skip("optional reference absent: NIST's sample_eval.pl (2011; set "
                    "INEXEVAL_SAMPLE_EVAL to its path) and perl")
    return script


def _write(tmp_path: Path, seed: int, topics: int = 4, runs: int = 3
           ) -> tuple[Path, list[Path]]:
    """Sampled qrels (strata named a, b, c, 10: string order differs from numeric; grades 0-3;
    a topic without a relevant document) and runs (ties of score; documents outside the pool;
    more than 1000 results for one topic)."""
    g = np.random.default_rng(seed)
    qrels = []
    run_lines: list[list[str]] = [[] for _ in range(runs)]
    for t in range(1, topics + 1):
        docs = [f"D{t}-{i:04d}" for i in range(1500)]
        for i, d in enumerate(docs[:400]):
            stratum, p = (("a", 1.0) if i < 20 else ("b", 0.4) if i < 100 else
                          ("c", 0.1) if i < 300 else ("10", 0.05))
            level = int(g.choice([0, 0, 1, 2, 3])) if g.random() < p else -1
            if t == topics and level > 0:
                level = 0
            qrels.append(f"{t} 0 {d} {stratum} {level}\n")
        for r in range(runs):
            n = 1200 if (t == 1 and r == 0) else int(g.integers(50, 400))
            picked = g.permutation(600 if r else 1500)[:n]
            scores = np.round(g.random(n) * 5, 1)
            run_lines[r] += [f"{t} Q0 {docs[i]} {k + 1} {s} run{r}\n"
                             for k, (i, s) in enumerate(zip(picked, scores))]
    qrels_path = tmp_path / "sampled.qrels"
    qrels_path.write_text("".join(qrels))
    paths = []
    for r, lines in enumerate(run_lines):
        paths.append(tmp_path / f"run{r}.txt")
        paths[-1].write_text("".join(lines))
    return qrels_path, paths


def _nist(script: Path, qrels: Path, run: Path, tmp_path: Path) -> dict[tuple[str, str], float]:
    """sample_eval.pl's per-topic and mean values, printed with 12 decimals instead of 4."""
    precise = tmp_path / "sample_eval_12.pl"
    precise.write_text(script.read_text(encoding="latin-1").replace("%6.4f", "%.12f"),
                       encoding="latin-1")
    out = subprocess.run(["perl", str(precise), "-q", str(qrels), str(run)], check=True,
                         capture_output=True, text=True).stdout
    values = {}
    for line in out.splitlines():
        fields = line.split()
        if fields[0] in ("infAP", "infNDCG"):
            values[(fields[0], fields[1])] = float(fields[2])
    return values


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_xinfap_and_infndcg_equal_sample_eval(tmp_path: Path, seed: int) -> None:
    script = _sample_eval()
    qrels_path, runs = _write(tmp_path, seed)
    assert detect_assessments_format(str(qrels_path)) == "sampled"
    qrels = load_assessments(qrels_path)
    for run_path in runs:
        theirs = _nist(script, qrels_path, run_path, tmp_path)
        ours = evaluate(qrels, load_run(run_path), ["xinfAP", "infNDCG"])
        name = ours.runs()[0]
        for (measure, topic), value in theirs.items():
            ours_name = "xinfAP" if measure == "infAP" else measure
            got = ours.mean(ours_name) if topic == "all" else ours.value(name, topic, ours_name)
            assert got == pytest.approx(value, abs=1e-11), (measure, topic)
        assert len(theirs) == 2 * (len(ours.topics()) + 1)


def _full(tmp_path: Path) -> tuple[Path, Path]:
    """A fully judged collection: 1 topic, 200 pooled documents, a run of 150 of them."""
    g = np.random.default_rng(4)
    levels = g.choice([0, 0, 0, 1, 2], size=200)
    qrels = tmp_path / "full.qrels"
    qrels.write_text("".join(f"7 0 d{i} {'top' if i < 40 else 'rest'} {int(v)}\n"
                             for i, v in enumerate(levels)))
    run = tmp_path / "run.txt"
    order = g.permutation(200)[:150]
    run.write_text("".join(f"7 Q0 d{i} {k + 1} {150 - k} full\n" for k, i in enumerate(order)))
    return qrels, run


def test_everything_sampled_gives_ap_and_ndcg(tmp_path: Path) -> None:
    qrels_path, run_path = _full(tmp_path)
    results = evaluate(load_assessments(qrels_path), load_run(run_path),
                       ["xinfAP", "infNDCG", "statAP", "AP", "nDCG"])
    # xinfAP: every document above is pooled and sampled, so only the smoothing (1e-5, 3e-5)
    # separates the estimated precision from the precision
    assert results.mean("xinfAP") == pytest.approx(results.mean("AP"), abs=2e-5)
    assert results.mean("statAP") == pytest.approx(results.mean("AP"), abs=1e-12)
    # infNDCG's ideal stops at the estimated count of each grade: the same as nDCG's here
    assert results.mean("infNDCG") == pytest.approx(results.mean("nDCG"), abs=1e-12)


def test_the_expectation_over_samples_is_the_full_measure(tmp_path: Path) -> None:
    """400 stratified samples (top stratum whole, the rest at 30%): the mean of each estimate
    lies within three standard errors of the fully judged value (seeded)."""
    qrels_path, run_path = _full(tmp_path)
    full_qrels, run = load_assessments(qrels_path), load_run(run_path)
    truth = evaluate(full_qrels, run, ["AP", "nDCG"])
    ta = full_qrels["7"]
    levels = ta.dim("relevance")
    rest = np.flatnonzero(ta.dim("stratum") == "rest")
    g = np.random.default_rng(9)
    estimates: dict[str, list[float]] = {"xinfAP": [], "infNDCG": [], "statAP": []}
    for i in range(400):
        kept = levels.copy()
        dropped = g.choice(rest, size=len(rest) - int(0.3 * len(rest)), replace=False)
        kept[dropped] = -1
        text = "".join(f"7 0 {f} {s} {int(v)}\n"
                       for f, s, v in zip(ta.files, ta.dim("stratum"), kept))
        sample = tmp_path / f"s{i % 2}.qrels"
        sample.write_text(text)
        results = evaluate(load_assessments(sample), run, list(estimates))
        for name, values in estimates.items():
            values.append(float(results.mean(name) or 0.0))
    for name, full in (("xinfAP", "AP"), ("statAP", "AP"), ("infNDCG", "nDCG")):
        drawn = np.array(estimates[name])
        error = drawn.std(ddof=1) / np.sqrt(len(drawn))
        assert abs(drawn.mean() - float(truth.mean(full) or 0.0)) < 3 * error, name


def test_statap_variance_is_the_variance_over_samples(tmp_path: Path) -> None:
    """The jackknife variance, averaged over 200 seeded samples, is within 25% of the variance
    of statAP over those samples; everything sampled, it is 0."""
    qrels_path, run_path = _full(tmp_path)
    full_qrels, run = load_assessments(qrels_path), load_run(run_path)
    assert evaluate(full_qrels, run, ["statAP_var"]).mean("statAP_var") == 0.0
    ta = full_qrels["7"]
    levels = ta.dim("relevance")
    rest = np.flatnonzero(ta.dim("stratum") == "rest")
    g = np.random.default_rng(9)
    values, variances = [], []
    for _ in range(200):
        kept = levels.copy()
        kept[g.choice(rest, size=len(rest) - int(0.3 * len(rest)), replace=False)] = -1
        sample = tmp_path / "s.qrels"
        sample.write_text("".join(f"7 0 {f} {s} {int(v)}\n"
                                  for f, s, v in zip(ta.files, ta.dim("stratum"), kept)))
        results = evaluate(load_assessments(sample), run, ["statAP", "statAP_var"])
        values.append(float(results.mean("statAP") or 0.0))
        variances.append(float(results.mean("statAP_var") or 0.0))
    assert np.mean(variances) == pytest.approx(np.var(values, ddof=1), rel=0.25)


def test_sampled_qrels_written_as_read(tmp_path: Path) -> None:
    qrels_path, _ = _write(tmp_path, 5, topics=2, runs=1)
    assert "".join(sampled_qrels_lines(load_assessments(qrels_path))) == qrels_path.read_text()


def test_five_column_fol_qrels_are_not_taken_for_sampled(tmp_path: Path) -> None:
    fol = tmp_path / "fol.qrels"
    fol.write_text("1 Q0 123 0 456\n")
    assert detect_assessments_format(str(fol)) == "fol"


@pytest.mark.parametrize(("text", "message"), [
    ("1 0 d1 a x\n", "bad.qrels:1: rel 'x' is not an integer"),
    ("1 0 d1 a 1\n1 0 d1 b 0\n", "bad.qrels:2: topic '1' lists 'd1' twice"),
])
def test_bad_sampled_qrels(tmp_path: Path, text: str, message: str,
                           capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "bad.qrels"
    qrels.write_text(text)
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    assert main(["eval", str(qrels), str(run), "-m", "xinfAP",
                 "--assessments-format", "sampled"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_inferred_measures_need_strata(tmp_path: Path) -> None:
    qrels = tmp_path / "plain.qrels"
    qrels.write_text("1 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    with pytest.raises(InexevalError, match="need sampled qrels"):
        evaluate(load_assessments(qrels), load_run(run), ["xinfAP"])
