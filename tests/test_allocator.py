"""The C allocator's settings of the batch commands (inexeval.allocator)."""

from __future__ import annotations

import platform
import subprocess
import sys


def test_the_thresholds_are_set_where_glibc_is_and_nothing_breaks_elsewhere() -> None:
    # in a process of its own: the settings are process-wide
    code = ("from inexeval.allocator import give_back_freed_memory, keep_freed_memory\n"
            "import numpy as np\n"
            "print(keep_freed_memory(), give_back_freed_memory())\n"
            "blocks = [np.ones(1 << 20) for _ in range(64)]\n"  # heap blocks of 8 MiB, reused
            "del blocks\n"
            "print(give_back_freed_memory(), float(np.ones(1 << 22).sum()))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert done.stdout.split() == [str(glibc), str(glibc), str(glibc), str(float(1 << 22))]
