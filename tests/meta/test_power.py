"""Discriminative power: ASLs recomputed here from the definitions (spec §1-§2), with the same
replicate matrix and random stream, one replicate at a time; block and executor independence."""

import math

import numpy as np
import pytest

from inexeval.analysis import significance
from inexeval.errors import InexevalError
from inexeval.executor import Processes
from inexeval.meta.power import (
    discriminative_power,
    power_study,
    read_replicate_matrix,
    replicate_matrix,
)
from inexeval.scores import Scores


def make_scores(runs: int = 6, topics: int = 15, measures: int = 2, seed: int = 3,
                grid: float | None = None) -> Scores:
    rng = np.random.default_rng(seed)
    values = rng.random((runs, 1, measures)) * 0.4 + rng.random((runs, topics, measures)) * 0.6
    if grid:  # scores on a grid (as P@10's): many tied statistics
        values = np.round(values / grid) * grid
    return Scores(tuple(f"r{i}" for i in range(runs)), tuple(str(t + 1) for t in range(topics)),
                  tuple(f"M{k}" for k in range(measures)), values,
                  np.ones((runs, topics), dtype=bool), "all")


def t_of(z: np.ndarray) -> float:
    mean = float(np.mean(z))
    sd = float(np.std(z, ddof=1))
    if sd == 0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / (sd / math.sqrt(len(z)))


def reaches(value: float, observed: float) -> bool:
    return value >= (observed - 1e-9 * max(1.0, observed) if math.isfinite(observed)
                     else observed)


def bootstrap_by_definition(x: np.ndarray, matrix: np.ndarray, alpha: float
                            ) -> tuple[list[float], float]:
    m = x.shape[1]
    asl, required = [], []
    keep = math.ceil(round(alpha * len(matrix), 9))
    for a in range(m):
        for b in range(a + 1, m):
            z = x[:, a] - x[:, b]
            w = z - z.mean()
            observed = abs(t_of(z))
            stars = [(abs(t_of(w[r])), abs(float(np.mean(w[r])))) for r in matrix]
            asl.append(sum(reaches(t, observed) for t, _ in stars) / len(matrix))
            ordered = sorted(range(len(stars)), key=lambda k: -stars[k][0])  # stable
            required.append(stars[ordered[keep - 1]][1])
    return asl, max(required)


@pytest.mark.parametrize("grid", [None, 0.1])
def test_bootstrap_asl_is_the_definition(grid: float | None) -> None:
    scores = make_scores(grid=grid)
    result = discriminative_power(scores, "M1", replicates=400, seed=11, alpha=0.05)
    x = scores.matrix("M1")[2].T
    asl, required = bootstrap_by_definition(x, replicate_matrix(11, 15, 400), 0.05)
    assert result.asl.tolist() == pytest.approx(asl, abs=1e-12)
    assert result.difference_required == pytest.approx(required, abs=1e-12)
    assert result.significant == sum(p < 0.05 for p in asl)
    assert result.discriminative_power == result.significant / 15
    assert result.pairs[:2] == ((0, 1), (0, 2)) and result.n_topics == 15
    assert result.delta.tolist() == pytest.approx((result.mean_a - result.mean_b).tolist())


def test_replicate_matrix_is_numpys_and_is_read_from_a_file(tmp_path) -> None:
    matrix = replicate_matrix(5, 15, 50)
    assert (matrix == np.random.default_rng(5).integers(0, 15, size=(50, 15))).all()
    path = tmp_path / "replicates.txt"
    np.savetxt(path, matrix, fmt="%d")
    assert (read_replicate_matrix(path, 15) == matrix).all()
    scores = make_scores()
    given = discriminative_power(scores, "M0", replicates_given=read_replicate_matrix(path, 15))
    drawn = discriminative_power(scores, "M0", replicates=50, seed=5)
    assert given.asl.tolist() == drawn.asl.tolist() and given.replicates == 50


def test_a_bad_replicate_matrix_names_its_line(tmp_path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("0 1 2\n0 1 3\n")
    with pytest.raises(InexevalError, match=r"bad.txt:2: topic index 3 is outside 0-2"):
        read_replicate_matrix(path, 3)
    path.write_text("0 1\n")
    with pytest.raises(InexevalError, match=r"bad.txt:1: a replicate has 2 topic indices"):
        read_replicate_matrix(path, 3)
    path.write_text("0 x 1\n")
    with pytest.raises(InexevalError, match=r"bad.txt:1: 'x' is not a topic index"):
        read_replicate_matrix(path, 3)


def test_randomised_tukey_is_the_definition() -> None:
    scores = make_scores(runs=5, topics=9)
    result = discriminative_power(scores, "M0", method="randomised-tukey", replicates=300,
                                  seed=4)
    x = scores.matrix("M0")[2].T
    n, m = x.shape
    uniforms = np.random.default_rng(4).random((300, n, m))
    ranges = []
    for k in range(300):
        permuted = np.array([x[j, np.argsort(uniforms[k, j])] for j in range(n)])
        means = permuted.mean(axis=0)
        ranges.append(means.max() - means.min())
    means = x.mean(axis=0)
    expected = [sum(reaches(r, abs(means[a] - means[b])) for r in ranges) / 300
                for a in range(m) for b in range(a + 1, m)]
    assert result.asl.tolist() == pytest.approx(expected, abs=1e-12)
    assert result.difference_required == pytest.approx(sorted(ranges)[-15], abs=1e-12)


def test_degenerate_pairs() -> None:
    values = np.zeros((3, 6, 1))
    values[1, :, 0] = 0.25  # b - a = 0.25 on every topic: t infinite, every t* 0
    scores = Scores(("a", "b", "c"), tuple("123456"), ("M",), values,
                    np.ones((3, 6), dtype=bool), "all")
    result = discriminative_power(scores, "M", replicates=100)
    assert result.asl.tolist() == [0.0, 1.0, 0.0]  # a-b constant, a-c zero, b-c constant


def test_differences_constant_up_to_rounding_are_constant() -> None:
    """Issue 32, item 12: x + 0.1 against x differs by 0.1 up to rounding on every topic: the
    documented ASL of a constant non-zero difference, 0 (not 0.024 from t* of rounding noise),
    as significance.constant decides; x + 1e-13 against x (a zero difference up to rounding)
    has ASL 1."""
    x = np.random.default_rng(4).random(10)
    z = (x + 0.1) - x
    assert np.ptp(z) > 0 and significance.constant(z)
    values = np.stack([x + 0.1, x, x + 1e-13])[:, :, None]
    scores = Scores(("a", "b", "c"), tuple(str(t) for t in range(10)), ("M",), values,
                    np.ones((3, 10), dtype=bool), "all")
    result = discriminative_power(scores, "M", replicates=1000, seed=1)
    assert result.asl.tolist() == [0.0, 0.0, 1.0]  # a-b, a-c constant; b-c zero


@pytest.mark.parametrize("method", ["bootstrap", "randomised-tukey"])
def test_blocks_and_processes_change_no_number(method: str) -> None:
    scores = make_scores(runs=7, topics=12, measures=3, grid=0.05)
    whole = power_study(scores, method=method, replicates=250, seed=8, block=250)
    for block, executor in ((1, None), (7, None), (64, Processes(2)), (100_000, None)):
        parts = power_study(scores, method=method, replicates=250, seed=8, block=block,
                            executor=executor)
        for a, b in zip(whole, parts):
            assert a.asl.tolist() == b.asl.tolist()
            assert a.difference_required == b.difference_required


def test_pair_chunks_change_no_number(monkeypatch) -> None:
    from inexeval.meta import power

    scores = make_scores(runs=7, topics=12, measures=2, grid=0.05)
    whole = power_study(scores, replicates=300, seed=8)
    monkeypatch.setattr(power, "KEPT", 15 * 4)  # ⌈αB⌉ = 15: chunks of 4 pairs
    assert power.pair_chunks(21, 15) == [(0, 4), (4, 8), (8, 12), (12, 16), (16, 20), (20, 21)]
    for a, b in zip(whole, power_study(scores, replicates=300, seed=8, block=64)):
        assert a.asl.tolist() == b.asl.tolist()
        assert a.difference_required == b.difference_required


def test_undefined_scores_are_refused() -> None:
    values = np.full((2, 3, 1), 0.5)
    values[1, 2, 0] = math.nan
    scores = Scores(("a", "b"), ("1", "2", "3"), ("M",), values,
                    np.ones((2, 3), dtype=bool), "all")
    with pytest.raises(InexevalError, match="M is undefined for run b on topic 3"):
        discriminative_power(scores, "M")
