"""``inexeval index`` against lxml parsing the same files (issue 12, goal 3).

Times, each the minimum of three: lxml parsing every file (``etree.parse``), ``inexeval index``
as a user runs it (a subprocess, index saved), and loading the saved index. Any folder: files
``*.xml`` below it are indexed; a folder of other XML files (``--suffix .page``) is linked into a
temporary folder under ``.xml`` names first. A real collection: the 13,131 GNOME help pages of
Debian's ``gnome-user-docs`` package::

    cd /tmp && apt-get download gnome-user-docs && dpkg -x gnome-user-docs*.deb gud
    python benchmarks/index_vs_lxml.py /tmp/gud/usr/share/help --suffix .page
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lxml import etree


def best_of_three(work: Callable[[], object]) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def linked(folder: Path, suffix: str, into: Path) -> Path:
    """``into``, holding ``NAME.xml`` for every ``NAME{suffix}`` below ``folder``: a hard link
    (a plain file to whoever lists the folder), or a copy across file systems."""
    for file in folder.rglob(f"*{suffix}"):
        target = into / file.relative_to(folder).with_suffix(".xml")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(file.resolve(), target)
        except OSError:
            shutil.copyfile(file, target)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--suffix", default=".xml", help="file name ending of the documents")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder
        if args.suffix != ".xml":
            folder = linked(args.folder, args.suffix, Path(tmp) / "collection")
        files = sorted(folder.rglob("*.xml"))
        lxml_parse = best_of_three(lambda: [etree.parse(str(f)) for f in files])
        output = Path(tmp) / "index.npz"
        command = [sys.executable, "-m", "inexeval.cli", "index", str(folder), "-o", str(output),
                   "--quiet"]
        index = best_of_three(lambda: subprocess.run(command, check=True,
                                                     stdout=subprocess.DEVNULL))
        from inexeval.collection.build import load_index

        load = best_of_three(lambda: load_index(output))
        size = os.path.getsize(output)
    print(f"{len(files)} files: lxml parse {lxml_parse:.2f} s, inexeval index {index:.2f} s "
          f"({index / lxml_parse:.2f}x), index file {size / 2**20:.1f} MiB, load {load:.3f} s")


if __name__ == "__main__":
    main()
