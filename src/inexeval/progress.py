"""Progress bars for long work (indexing, many runs, simulating): tqdm's, on stderr, only when
tqdm is installed (it is not a dependency) and stderr is a terminal; otherwise nothing."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def _tqdm(total: int | None, description: str) -> Any:
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return None
    # every update drawn (miniters=1, mininterval=0): the updates are coarse (a run, a block of
    # replicates, a test), and tqdm's adaptive miniters, learnt on fast first items, would
    # leave the bar still through the slow ones
    return tqdm(total=total, desc=description, file=sys.stderr, leave=False, miniters=1,
                mininterval=0)


def progress(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Yield ``items``, advancing a progress bar where one can be shown."""
    bar = _tqdm(total, description)
    if bar is None:
        yield from items
        return
    with bar:
        for item in items:
            yield item
            bar.update(1)


def progress_callback(description: str) -> Callable[[int, int], None] | None:
    """A ``(done, total)`` callback driving a progress bar, or None where none can be shown."""
    bar = _tqdm(None, description)
    if bar is None:
        return None

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update
