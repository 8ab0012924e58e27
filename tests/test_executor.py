"""The executor: results in task order and bit-identical seeded output on any executor."""

from __future__ import annotations

import numpy as np
import pytest

from inexeval.errors import InexevalError
from inexeval.executor import Processes, Serial, blocks, make_executor, task_seeds


def _draw(shared: dict[str, int], task: tuple[int, np.random.SeedSequence]) -> list[float]:
    index, seed = task
    rng = np.random.default_rng(seed)
    return [index, *rng.random(shared["n"]).tolist()]


def _tasks(n: int) -> list[tuple[int, np.random.SeedSequence]]:
    return list(enumerate(task_seeds(7, n)))


def test_processes_give_the_serial_results_in_task_order() -> None:
    serial = Serial().map(_draw, _tasks(9), {"n": 3})
    assert [row[0] for row in serial] == list(range(9))
    assert Processes(3).map(_draw, _tasks(9), {"n": 3}) == serial
    assert make_executor(jobs=2).map(_draw, _tasks(9), {"n": 3}) == serial


def test_a_task_seed_does_not_depend_on_how_many_tasks_follow() -> None:
    assert Serial().map(_draw, _tasks(3), {"n": 2}) == Serial().map(_draw, _tasks(8), {"n": 2})[:3]


def test_blocks_cover_by_index() -> None:
    assert list(blocks(10, 4)) == [(0, 4), (4, 8), (8, 10)]
    assert list(blocks(0, 4)) == []
    with pytest.raises(InexevalError):
        list(blocks(3, 0))
    with pytest.raises(InexevalError, match="--jobs"):
        Processes(0)


def test_a_local_dask_cluster_gives_the_same_bytes() -> None:
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    from inexeval.executor import DaskExecutor

    with DaskExecutor("local:2") as cluster:
        assert cluster.map(_draw, _tasks(9), {"n": 3}) == Serial().map(_draw, _tasks(9), {"n": 3})


def test_bad_scheduler_addresses_are_errors() -> None:
    pytest.importorskip("distributed", reason="needs distributed (pip install '.[dask]')")
    from inexeval.executor import DaskExecutor

    with pytest.raises(InexevalError, match="local:N"):
        DaskExecutor("local:x")
