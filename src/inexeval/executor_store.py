"""A study's inputs made once per machine for the Dask workers on it.

With ``--inputs shared`` each Dask worker makes a study's
:class:`~inexeval.executor.ReadOnWorkers` inputs itself, reading the files from their paths.
Workers of one machine would each read and code every run: on a reuse study of 1,000 runs,
16 s of each worker's CPU in a 37-s study. Instead the first worker of the machine makes
them and writes them to the machine's store; the others wait for it and load what it wrote
(a run is loaded packed, and unpacked when a task uses it). The store is a folder of the
temporary directory only this user can open (``inexeval-UID`` in ``$TMPDIR``, or the
system's), holding for a study of key ``KEY``:

* ``KEY.use``: every worker using the study holds a shared lock on it until the study is
  forgotten (its command closes its executor) or the worker ends; the last to let go removes
  the study's files, and a worker making a store removes those of studies nobody holds (their
  workers gone, or the command interrupted);
* ``KEY.lock``: held, exclusively, by the worker making the inputs or loading them;
* ``KEY.made``: the inputs, pickled, their arrays' bytes beside the pickle (mapped, not
  copied, by the workers that load them), written to a temporary name as the pickler comes to
  them (the runs packed, written and let go of one by one: :class:`Streamed`) and renamed;
* ``KEY.later``, ``KEY.later.lock``: what the first worker makes once the inputs are stored
  (a study's plan: every run scored on the full qrels, which needs the runs of every topic,
  not stored), while the others start on their tasks; one of them that needs it waits for it
  under the lock, and makes the inputs again itself if the first worker ended before.

Whatever goes wrong with the store (no temporary directory, a folder of another user or
open to others, a full disk, a file that does not load, inputs that do not pickle), the worker
makes the inputs itself: the store saves work, it never changes a result. Locks are
``flock`` locks, which the system lets go when their process ends: a worker killed while
making leaves the making to the next one waiting.
"""

from __future__ import annotations

import contextlib
import io
import logging
import mmap
import os
import pickle
import stat
import struct
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

import numpy as np

from inexeval.errors import InexevalError

try:
    import fcntl
except ImportError:  # not POSIX: no store, each worker makes the inputs
    fcntl = None  # type: ignore[assignment]

_HELD: dict[str, int] = {}
"""The ``KEY.use`` descriptors this process holds a shared lock on, by study key."""

_FOLDERS: dict[str, int] = {}
"""The store folders this process opened (by path): their files are opened relative to the
folder's descriptor, so that the folder checked is the folder used."""

_log = logging.getLogger("inexeval.executor")


def made_on_machine(key: str, make: Callable[[], Any], recipe: Any = None) -> Any:
    """The inputs of study ``key``: loaded from this machine's store if another worker made
    them, else made by ``make()`` (here, while the others wait) and stored. Inputs with an
    ``__after_stored__()`` are stored first, and what that gives (a study's plan) next, while
    the others start their tasks: where they are loaded, an object with a
    ``__reduce_stored__(later)`` (every such object is stored as it says; given None for
    inputs stored whole) is given ``later``, which waits for that part (or, if the
    worker that stored them died first, makes the inputs again from ``recipe``, a
    :class:`~inexeval.executor.ReadOnWorkers`, and takes it from them)."""
    folder = _folder() if fcntl is not None else None
    if folder is None:
        return make()
    try:
        if key not in _HELD:
            _HELD[key] = _locked(folder, f"{key}.use", fcntl.LOCK_SH)
        lock = _locked(folder, f"{key}.lock", fcntl.LOCK_EX)
    except OSError:
        return make()
    after = None
    try:
        try:
            return _load(folder, f"{key}.made")
        except FileNotFoundError:  # the first to come: made here
            pass
        except Exception as error:  # noqa: BLE001 (whatever it is, made again)
            _log.warning("the inputs stored as %s.made do not load (%s): made again", key,
                         error)
        inputs = make()
        _sweep(folder, keep=key)
        if getattr(type(inputs), "__after_stored__", None) is not None:
            with contextlib.suppress(OSError):  # taken before the others can load them
                after = _locked(folder, f"{key}.later.lock", fcntl.LOCK_EX)
        _store(folder, f"{key}.made", inputs,
               _Later(key, recipe) if after is not None else None)
    finally:
        os.close(lock)  # its lock with it: the others load the inputs
    if after is not None:
        try:
            _store(folder, f"{key}.later", inputs.__after_stored__())
        finally:
            os.close(after)
    return inputs


class _Later:
    """What a worker that stored a study's inputs makes next (:func:`made_on_machine`), where
    they are loaded: called, it waits for it, and loads it."""

    def __init__(self, key: str, recipe: Any) -> None:
        self.key, self.recipe = key, recipe

    def __call__(self) -> Any:
        folder = _folder() if fcntl is not None else None
        if folder is not None:
            try:
                lock = _locked(folder, f"{self.key}.later.lock", fcntl.LOCK_SH)
            except OSError:
                pass
            else:
                try:
                    return _load(folder, f"{self.key}.later")
                except FileNotFoundError:  # not made: made here
                    pass
                except Exception as error:  # noqa: BLE001 (whatever it is, made here)
                    _log.warning("what was stored as %s.later does not load (%s)", self.key,
                                 error)
                finally:
                    os.close(lock)
        if self.recipe is None:
            raise InexevalError("the worker that stored the study's inputs ended before "
                                "making the rest")
        _log.warning("the worker that stored the study's inputs ended first: made again")
        return self.recipe.make(self.recipe.source).__after_stored__()


def forget(keys: Iterable[str]) -> None:
    """Let go of the studies ``keys`` (their command is over); the last worker of the machine
    to let go removes their files."""
    for key in keys:
        use = _HELD.pop(key, None)
        if use is None:
            continue
        try:
            fcntl.flock(use, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another worker still holds it
            pass
        else:
            folder = _folder()
            if folder is not None and _same(use, folder, f"{key}.use"):
                _remove(folder, key)
        finally:
            os.close(use)


def forget_others(key: str) -> None:
    """Let go of every study but ``key`` (this worker was given another study)."""
    forget([held for held in list(_HELD) if held != key])


def store_folder() -> Path | None:
    """This user's store folder of the temporary directory, made if need be; None when it
    cannot be made, or is not a folder of this user's alone (a link, another owner, open to
    others)."""
    try:
        folder = Path(tempfile.gettempdir()) / f"inexeval-{os.getuid()}"
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, 0o700)
        status = os.lstat(folder)
    except OSError:
        return None
    return folder if _private(status) else None


def _private(status: os.stat_result) -> bool:
    return (stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid()
            and not status.st_mode & 0o077)


def _folder() -> int | None:
    """A descriptor of :func:`store_folder` (opened once, without following a link, and
    checked as opened); None without one."""
    path = store_folder()
    if path is None:
        return None
    opened = _FOLDERS.get(str(path))
    if opened is not None:
        with contextlib.suppress(OSError):
            now, then = os.lstat(path), os.fstat(opened)
            if (now.st_ino, now.st_dev) == (then.st_ino, then.st_dev):
                return opened
        os.close(opened)
        del _FOLDERS[str(path)]
    try:
        opened = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    if not _private(os.fstat(opened)):
        os.close(opened)
        return None
    _FOLDERS[str(path)] = opened
    return opened


def _locked(folder: int, name: str, how: int) -> int:
    """A descriptor of the file ``name`` of ``folder`` (made if need be), locked ``how``: the
    file that is there once locked (one removed while this waited is opened again)."""
    while True:
        opened = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                         dir_fd=folder)
        try:
            fcntl.flock(opened, how)
            if _same(opened, folder, name):
                return opened
        except BaseException:
            os.close(opened)
            raise
        os.close(opened)


def _same(opened: int, folder: int, name: str) -> bool:
    """Whether the descriptor ``opened`` is of the file ``name`` of ``folder`` now."""
    try:
        now = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    then = os.fstat(opened)
    return (now.st_ino, now.st_dev) == (then.st_ino, then.st_dev)


class Streamed:
    """Items a store writes one by one (:func:`_store`): each pickled, its arrays written, and
    let go of before the next is made (``items`` may make them as they are asked for: a
    thousand runs packed at once for the store were a copy of them all, taken in fresh
    memory); loaded as a tuple. Pickled anywhere else, a tuple."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return tuple, (tuple(self.items),)


_MAGIC = b"inexeval-store-2"
_HEAD = struct.Struct("<16sQQ")
"""A stored file: ``_MAGIC``, the offset and the length of its table; its regions, each at an
offset that is a multiple of :data:`_ALIGN` (the pickle's out-of-band buffers, the items of a
:class:`Streamed`, each its buffers then its pickle, and the pickle last); the table, numbers
``<u8``: the number of regions, each region's offset and length, the pickle's region, the
number of its buffers and their regions."""
_ALIGN = 64


class _Writer:
    """Regions written one after another to the file ``out`` (after room for the head)."""

    def __init__(self, out: int) -> None:
        self.out, self.at = out, _HEAD.size
        self.places: list[tuple[int, int]] = []
        _written(out, [bytes(_HEAD.size)])

    def region(self, data: Any) -> int:
        """``data`` (bytes-like) written as the next region; its number."""
        view = memoryview(data).cast("B")
        start = _aligned(self.at)
        _written(self.out, [bytes(start - self.at), view])  # one call, padding and data
        self.places.append((start, view.nbytes))
        self.at = start + view.nbytes
        return len(self.places) - 1

    def finish(self, pickled: int, buffers: list[int]) -> None:
        """The table written, and the head that says where it is."""
        table = np.array([len(self.places), *(n for place in self.places for n in place),
                          pickled, len(buffers), *buffers], dtype="<u8").tobytes()
        _written(self.out, [table])
        head = _HEAD.pack(_MAGIC, self.at, len(table))
        if os.pwrite(self.out, head, 0) != len(head):
            raise OSError("the head of the store's file was not written whole")


def _store(folder: int, name: str, inputs: Any, later: _Later | None = None) -> None:
    """``inputs`` pickled to ``name`` (a temporary name, then renamed), their arrays' bytes
    out of the pickle (protocol 5's buffers, written as the pickler gives them), to be mapped,
    not copied, where they are loaded (:func:`_load`); an object with ``__reduce_stored__``
    stored as that says, given ``later``; a :class:`Streamed` written item by item. On any
    failure, not stored (said in the worker's log: each worker makes them)."""
    temporary = f"{name}.{os.getpid()}.tmp"
    made = False
    try:
        opened = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600, dir_fd=folder)
        made = True
        try:
            writer = _Writer(opened)
            pickled = io.BytesIO()
            storing = _Storing(pickled, later, writer)
            storing.dump(inputs)
            writer.finish(writer.region(pickled.getbuffer()), storing.buffers)
        finally:
            os.close(opened)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except Exception as error:  # noqa: BLE001 (whatever it is, the inputs are not stored)
        _log.warning("the study's inputs are not stored for this machine's other workers "
                     "(%s): each makes them", error)
        if made:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)


def _written(opened: int, parts: list[Any]) -> None:
    """``parts`` (bytes-like) written to the descriptor ``opened`` by one ``writev`` (more if
    it writes less: a short write resumed)."""
    views = [view for view in (memoryview(part).cast("B") for part in parts) if view.nbytes]
    while views:
        done = os.writev(opened, views)
        while views and done >= views[0].nbytes:
            done -= views.pop(0).nbytes
        if views and done:
            views[0] = views[0][done:]


class _Storing(pickle.Pickler):
    """Protocol 5, each out-of-band buffer written by ``writer`` as it comes (their regions in
    ``buffers``), each item of a :class:`Streamed` pickled and written by itself; an object
    with ``__reduce_stored__`` pickled as it says, given ``later``."""

    def __init__(self, out: IO[bytes], later: _Later | None, writer: _Writer) -> None:
        self.buffers: list[int] = []
        self.later, self.writer = later, writer
        super().__init__(out, protocol=5, buffer_callback=self._buffer)

    def _buffer(self, buffer: pickle.PickleBuffer) -> None:
        self.buffers.append(self.writer.region(buffer.raw()))

    def _region(self, buffer: pickle.PickleBuffer) -> None:
        self.writer.region(buffer.raw())

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Streamed:
            return _streamed, (self._items(obj),)
        stored = getattr(type(obj), "__reduce_stored__", None)
        return NotImplemented if stored is None else stored(obj, self.later)

    def _items(self, streamed: Streamed) -> list[tuple[int, int, int]]:
        """Each item pickled by itself, its buffers then its pickle written, and let go of
        (its pickler's memo with it); where they are: (pickle, first buffer, buffers)."""
        records = []
        for item in streamed.items:
            first = len(self.writer.places)
            pickled = io.BytesIO()
            pickle.Pickler(pickled, protocol=5, buffer_callback=self._region).dump(item)
            del item
            buffers = len(self.writer.places) - first
            records.append((self.writer.region(pickled.getbuffer()), first, buffers))
        return records


def _streamed(records: list[tuple[int, int, int]]) -> tuple[Any, ...]:
    """A :class:`Streamed`'s items: :class:`_Loading` loads them (named here for the pickle)."""
    raise pickle.UnpicklingError("a stored study's items load from its file only")


class _Loading(pickle.Unpickler):
    """Loads what :class:`_Storing` stored, over the file's ``regions`` (mapped)."""

    def __init__(self, data: Any, buffers: list[memoryview], regions: list[memoryview]
                 ) -> None:
        super().__init__(io.BytesIO(data), buffers=buffers)
        self.regions = regions

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "_streamed"):
            return self._items
        return super().find_class(module, name)

    def _items(self, records: list[tuple[int, int, int]]) -> tuple[Any, ...]:
        return tuple(pickle.loads(self.regions[at], buffers=self.regions[first:first + count])
                     for at, first, count in records)


def _aligned(offset: int) -> int:
    return -(-offset // _ALIGN) * _ALIGN


def _load(folder: int, name: str) -> Any:
    """What :func:`_store` stored as ``name``: the arrays map the file (copy on write: the
    workers of the machine share its pages, and a worker that writes to an array writes to a
    copy of the page), the rest unpickled (from this user's own folder)."""
    opened = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    try:
        mapped = mmap.mmap(opened, 0, access=mmap.ACCESS_COPY)
    finally:
        os.close(opened)
    view = memoryview(mapped)
    magic, at, length = _HEAD.unpack_from(view)
    if magic != _MAGIC:
        raise ValueError("not a stored study")
    table = np.frombuffer(view[at:at + length], dtype="<u8").tolist()
    count = table[0]
    regions = [view[table[1 + 2 * k]:table[1 + 2 * k] + table[2 + 2 * k]]
               for k in range(count)]
    pickled, buffers = table[1 + 2 * count], table[3 + 2 * count:]
    if len(buffers) != table[2 + 2 * count]:
        raise ValueError("a stored study's table does not hold")
    return _Loading(regions[pickled], [regions[k] for k in buffers], regions).load()


def _sweep(folder: int, keep: str) -> None:
    """Remove the files of the studies no worker holds (but ``keep``): those whose ``.use``
    no worker has locked, and those left without a ``.use`` (which a worker makes first)."""
    with contextlib.suppress(OSError):
        names = os.listdir(folder)
        used = {name[:-4] for name in names if name.endswith(".use")}
        for name in names:
            key, _, suffix = name.partition(".")
            if key == keep or key in _HELD:
                continue
            if suffix != "use":
                if key not in used:
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=folder)
                continue
            try:
                use = os.open(name, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            except OSError:
                continue
            try:
                fcntl.flock(use, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if _same(use, folder, name):
                    _remove(folder, key)
            except OSError:  # held: in use
                pass
            finally:
                os.close(use)


def _remove(folder: int, key: str) -> None:
    """The files of study ``key`` removed (those of a worker's unfinished writing too), its
    ``.use`` last (the caller holds it, locked exclusively)."""
    with contextlib.suppress(OSError):
        for name in sorted(os.listdir(folder), key=lambda name: name.endswith(".use")):
            if name.startswith(f"{key}."):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder)
