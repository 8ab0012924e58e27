"""Writing outputs safely: never over an input, never half-written.

Every file inexeval writes goes through :func:`atomic_output`: the content is written to a
temporary file in the target's folder and renamed over the target only when writing succeeded,
so a killed or failed command leaves either no output or the previous one, never a partial file.
:func:`check_output` refuses a target that is one of the inputs (also through a hard link or a
symbolic link: device and inode are compared) or lies inside an input folder, and a target whose
folder does not exist. :func:`fingerprint` gives an input's size and SHA-256, so that a report
says which files it was made from.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from inexeval.errors import InexevalError


def check_output(output: str | Path, *inputs: str | Path | None, folder: bool = False) -> Path:
    """The output path, checked: not empty, its folder exists, it is none of the inputs, and it
    is not an existing folder unless ``folder`` (an output of one file per topic)."""
    if str(output) == "":
        raise InexevalError("the output file name is empty", "-o")
    target = Path(output)
    if not folder and target.is_dir():
        raise InexevalError("the output is a folder, not a file", output)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        # the folder's end shown (its start is the output's, named before the message): cut at
        # its start, a long path kept the folders that exist and lost the one that does not
        shown = str(parent) if len(str(parent)) <= 80 else "..." + str(parent)[-77:]
        raise InexevalError(f"the output folder {shown} does not exist", output)
    resolved = target.resolve()
    target_stat = _stat(target)
    for given in inputs:
        if given is None or str(given) in ("", "-"):
            continue
        source = Path(given)
        source_resolved = source.resolve()
        same_file = target_stat is not None and (source_stat := _stat(source)) is not None and (
            (source_stat.st_dev, source_stat.st_ino) == (target_stat.st_dev, target_stat.st_ino))
        inside = source_resolved.is_dir() and source_resolved in resolved.parents
        if same_file or resolved == source_resolved or inside:
            raise InexevalError(f"the output would overwrite or write into the input {given}",
                                output)
    return target


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


@contextlib.contextmanager
def atomic_output(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """A file object to write ``path`` through: a temporary file in the same folder, renamed over
    ``path`` when the ``with`` block ends without an exception and removed otherwise. ``mode`` is
    ``"w"`` (UTF-8 text with ``\\n`` line ends) or ``"wb"``. A target that exists and is not a
    regular file (``/dev/null``, a pipe) is written directly: renaming over it would replace
    the device."""
    path = Path(path)
    target = _stat(path)
    if target is not None and stat.S_ISDIR(target.st_mode):
        raise InexevalError("the output is a folder, not a file", path)
    if target is not None and not stat.S_ISREG(target.st_mode):
        with _direct(path, mode) as device:
            yield device
        return
    folder = path.parent if str(path.parent) else Path(".")
    try:
        import tempfile

        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as error:
        raise InexevalError(f"cannot write: {error.strerror or error}", path) from None
    try:
        handle: IO[Any] = (os.fdopen(fd, "wb") if mode == "wb"
                           else os.fdopen(fd, "w", encoding="utf-8", newline="\n"))
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except OSError as error:
        _remove(temporary)
        raise InexevalError(f"cannot write: {error.strerror or error}", path) from None
    except BaseException:
        _remove(temporary)
        raise


@contextlib.contextmanager
def _direct(path: Path, mode: str) -> Iterator[IO[Any]]:
    try:
        with (open(path, "wb") if mode == "wb"
              else open(path, "w", encoding="utf-8", newline="\n")) as handle:
            yield handle
    except OSError as error:
        raise InexevalError(f"cannot write: {error.strerror or error}", path) from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_folder(folder: str | Path, files: Mapping[str, bytes],
                 *inputs: str | Path | None) -> None:
    """Write ``files`` (name -> content) into ``folder``, created if absent (its parent must
    exist), each file through :func:`atomic_output` and checked by :func:`check_output`."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InexevalError("the output is one file per topic into a folder, and this is a file",
                            folder)
    check_output(folder, *inputs, folder=True)
    folder.mkdir(exist_ok=True)
    targets = {name: check_output(folder / name, *inputs) for name in files}
    for name, content in files.items():
        with atomic_output(targets[name], "wb") as out:
            out.write(content)


def fingerprint(path: str | Path) -> tuple[int, str] | None:
    """The size in bytes and the SHA-256 (hex) of an input, read in blocks of 1 MiB; None for
    standard input (``-``), a pipe or a device, which were read once already; a folder
    (per-topic assessments, a collection) counts the bytes of every file below it, and its
    digest is the SHA-256 of one line per file in name order, ``relative/path<TAB>size<TAB>
    file's SHA-256``, so renaming, changing or adding a file changes it. Says which input a
    report was made from, as ``sha256sum`` would (the same digest for a file)."""
    import hashlib

    if str(path) == "-":
        return None
    path = Path(path)
    if path.is_dir():
        lines = []
        total = 0
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            size, digest = _file_fingerprint(file)
            total += size
            lines.append(f"{file.relative_to(path).as_posix()}\t{size}\t{digest}\n")
        return total, hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
    found = _stat(path)
    if found is None or not stat.S_ISREG(found.st_mode):
        return None
    return _file_fingerprint(path)


def _file_fingerprint(path: Path) -> tuple[int, str]:
    import hashlib

    digest = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
                size += len(block)
    except OSError as error:
        raise InexevalError(f"cannot read: {error.strerror or error}", path) from None
    return size, digest.hexdigest()


def note(text: str) -> None:
    """One line on stderr, as the command line's notes are (``inexeval: ...``)."""
    print(f"inexeval: {text}", file=sys.stderr)


def wrote(target: str | os.PathLike[str]) -> None:
    """``-o``'s one line on stderr: every command says what it wrote, and its size."""
    note(f"wrote {target} ({os.path.getsize(target):,} bytes)")


def write_output(output: str | None, text: str | bytes, *inputs: str | None) -> None:
    """Print ``text``, or write it to ``output`` atomically (never over an input) and say so
    in one line on stderr."""
    if output is None:
        sys.stdout.write(text if isinstance(text, str) else text.decode())
        return
    target = check_output(output, *inputs)
    with atomic_output(target, "wb" if isinstance(text, bytes) else "w") as handle:
        handle.write(text)
    wrote(target)
