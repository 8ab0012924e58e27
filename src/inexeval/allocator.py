"""The C allocator's settings for the batch commands that read runs a part at a time
(``inexeval trec_eval`` and ``inexeval eval``).

Such a command makes and drops arrays of megabytes for every part of every run. glibc's
``malloc`` serves a block above its mmap threshold with fresh pages from the kernel and gives
them back when the block is freed, so that each new array is page-faulted in again: on ten TREC
runs of 200,000 lines, a quarter of ``inexeval trec_eval``'s CPU time was the kernel's (0.33 of
1.29 s with two processes). With a fixed, higher mmap threshold and trim threshold the freed
blocks stay in the heap and are reused (0.14 s of the kernel's). Peak memory does not grow: a
freed block is reused, not kept beside a new one. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
"""Blocks up to this size come from the heap (glibc's own ceiling for the threshold)."""
TRIM_THRESHOLD = 128 << 20
"""Free memory at the top of the heap kept for reuse, up to this size."""


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process (and the processes it forks);
    whether they were set."""
    mallopt = _glibc("mallopt", ctypes.c_int, ctypes.c_int)
    return mallopt is not None and bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def give_back_freed_memory() -> bool:
    """Return the heap's free memory to the kernel (glibc's ``malloc_trim``), e.g. before
    forking workers, whose new arrays would otherwise be made in copies of this process's free
    pages; whether it could be asked."""
    trim = _glibc("malloc_trim", ctypes.c_size_t)
    if trim is not None:
        trim(0)
    return trim is not None


def _glibc(name: str, *argtypes: type) -> Any:
    """The C library's function ``name`` taking ``argtypes`` (None off Linux or without it)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    function.argtypes = list(argtypes)
    return function
