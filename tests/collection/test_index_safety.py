"""Saved indexes: any damage is refused with one message, a killed ``inexeval index`` leaves no
output or a complete one, folders that cannot be read or hold no XML are errors."""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inexeval.collection.build import build_index, index_document, load_index, save_index
from inexeval.errors import FormatError, InexevalError

COLLECTION = Path(__file__).parents[1] / "data" / "ieee_sample"
DAMAGED = "not an inexeval index (or damaged): rebuild it with `inexeval index`"


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inexeval.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "index.npz"
    save_index(build_index(COLLECTION), path)
    return path


def _rewritten(saved: Path, target: Path, **changes: np.ndarray) -> Path:
    with np.load(saved) as arrays:
        content = {key: arrays[key] for key in arrays.files}
    content.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del content[key]
    np.savez(target, **{k: v for k, v in content.items() if v is not None})
    return target


def _damaged_variants(saved: Path, folder: Path) -> list[Path]:
    data = saved.read_bytes()
    with np.load(saved) as arrays:
        parent, start, end, sizes, tags = (arrays[key].astype(np.int64) for key in
                                           ("parent", "start", "end", "sizes", "tags"))
    variants = []
    for cut in (0, 10, len(data) // 3, len(data) // 2, len(data) - 30, len(data) - 1):
        variants.append(folder / f"truncated{cut}.npz")
        variants[-1].write_bytes(data[:cut])
    flipped = bytearray(data)
    for at in range(200, len(data), 997):
        flipped[at] ^= 0xFF
    variants.append(folder / "flipped.npz")
    variants[-1].write_bytes(bytes(flipped))
    variants.append(folder / "pickle.npz")
    variants[-1].write_bytes(pickle.dumps({"format": "inexeval-index"}))
    np.save(folder / "plain.npy", np.arange(5))
    variants.append(folder / "plain.npy")
    np.savez(folder / "foreign.npz", a=np.arange(3))
    variants.append(folder / "foreign.npz")
    np.savez(folder / "objects.npz", format=np.array(["inexeval-index"], dtype=object))
    variants.append(folder / "objects.npz")
    (folder / "text.npz").write_text("hello")
    variants.append(folder / "text.npz")
    with np.load(saved) as arrays:
        members = list(arrays.files)
    assert len(members) == 14
    for key in members:  # every member of the arrays file, each missing in turn
        variants.append(_rewritten(saved, folder / f"without-{key}.npz", **{key: None}))
    wrong = {
        "parent-forward": {"parent": np.where(np.arange(len(parent)) == 2, 5, parent)},
        "parent-below": {"parent": parent - 2},
        "end-before-start": {"end": start - 1},
        "sizes": {"sizes": sizes + 1},
        "tag-code": {"tags": tags + 1000},
        "float-offsets": {"start": start.astype(float)},
        "end-past-length": {"end": end + 10**6},
    }
    variants += [_rewritten(saved, folder / f"{name}.npz", **change)
                 for name, change in wrong.items()]
    return variants


def test_damaged_or_foreign_indexes_are_refused_with_one_message(saved: Path,
                                                                  tmp_path: Path) -> None:
    for variant in _damaged_variants(saved, tmp_path):
        with pytest.raises(FormatError) as caught:
            load_index(variant)
        assert caught.value.reason == DAMAGED, variant.name
        assert caught.value.file == str(variant)


def test_damaged_index_on_the_command_line(saved: Path, tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 Q0 co/2000/r7108 1 1\n")
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 co/2000/r7108 1 1.0 r\n")
    for variant in _damaged_variants(saved, tmp_path)[::3]:
        before = variant.read_bytes()
        done = _cli("eval", qrels, run, "--collection", variant)
        assert done.returncode == 2
        assert done.stderr == f"inexeval: error: {variant}: {DAMAGED}\n"
        assert variant.read_bytes() == before


def test_an_older_index_version_asks_for_a_rebuild(saved: Path, tmp_path: Path) -> None:
    old = _rewritten(saved, tmp_path / "old.npz", version=np.array([1], dtype=np.int64))
    with pytest.raises(FormatError, match="version .*rebuild it with `inexeval index`"):
        load_index(old)


def test_the_saved_index_is_uncompressed_and_round_trips(saved: Path) -> None:
    with zipfile.ZipFile(saved) as archive:
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}
    loaded, built = load_index(saved), build_index(COLLECTION)
    for name in built:
        a, b = loaded[name], built[name]
        assert list(a.paths) == list(b.paths) and a.tags == b.tags
        for field in ("parent", "depth", "start", "end", "text_ptr", "text_start", "text_end"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field


def test_paths_follow_from_parents_and_sibling_ranks() -> None:
    doc = index_document("x", b"<a><b/><c><b/><b><c/></b></c><b>t</b><ns:d xmlns:ns='u'/></a>")
    assert list(doc.paths) == ["/a[1]", "/a[1]/b[1]", "/a[1]/c[1]", "/a[1]/c[1]/b[1]",
                               "/a[1]/c[1]/b[2]", "/a[1]/c[1]/b[2]/c[1]", "/a[1]/b[2]",
                               "/a[1]/ns:d[1]"]
    assert doc.find("/a[1]/b[2]") == 6 and doc.span("/a[1]/b[2]") == (0, 1)


def test_a_folder_without_xml_documents_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    out = tmp_path.parent / f"{tmp_path.name}-out.npz"
    done = _cli("index", tmp_path, "-o", out)
    assert done.returncode == 2 and not out.exists()
    assert done.stderr.count("\n") == 1 and "no XML documents" in done.stderr


def test_an_unreadable_subfolder_is_reported_not_skipped(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # (chmod 0 does not stop root, who runs CI: make listing the folder fail as it would)
    collection = tmp_path / "c"
    shutil.copytree(COLLECTION, collection)
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str] = ".") -> object:
        if Path(path).name == "tc":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(InexevalError) as caught:
        build_index(collection)
    assert "cannot read the folder: Permission denied" in str(caught.value)
    assert caught.value.file is not None and caught.value.file.endswith("tc")


def _big_collection(folder: Path, documents: int) -> Path:
    sections = "".join(f"<sec><st>s{k}</st>" + "<p>text &amp; more text</p>" * 20 + "</sec>"
                       for k in range(20))
    for i in range(documents):
        part = folder / f"d{i % 10}"
        part.mkdir(parents=True, exist_ok=True)
        (part / f"doc{i}.xml").write_text(f"<article><fm>{i}</fm><bdy>{sections}</bdy></article>")
    return folder


STOPPED = """
import io, sys, time
import numpy as np
from inexeval.collection import build
from inexeval.cli import main

where, limit = sys.argv[1], int(sys.argv[2])
parse, savez, parsed = build._document, np.savez, [0]

def stop(what):
    print(what, file=sys.stderr, flush=True)
    time.sleep(300)

def document(file):
    parsed[0] += 1
    if where == "indexing" and parsed[0] == limit:
        stop(f"indexing {parsed[0]}")
    return parse(file)

def half_written(handle, **arrays):
    whole = io.BytesIO()
    savez(whole, **arrays)
    handle.write(whole.getvalue()[:len(whole.getvalue()) // 2])
    handle.flush()
    stop(f"writing {parsed[0]}")

build._document, np.savez = document, half_written if where == "writing" else savez
sys.exit(main(sys.argv[3:]))
"""
"""``python -c STOPPED WHERE N index ...``: ``inexeval index`` that stops (and says so on stderr)
while parsing its N-th document (``indexing``) or halfway through writing the index
(``writing``), for the test to kill it there and nowhere else."""


@pytest.mark.parametrize("where", ["indexing", "writing"])
@pytest.mark.parametrize("previous", [False, True])
def test_a_killed_index_leaves_no_output_or_the_previous_one(tmp_path: Path, where: str,
                                                             previous: bool) -> None:
    """Killed while parsing the documents or halfway through writing the index (the test
    waits for the process to say it is there, so the kill lands during that work), ``index``
    leaves no output, or the previous index byte for byte, and no partial file under the
    output's name."""
    collection = _big_collection(tmp_path / "c", 60)
    out = tmp_path / "index.npz"
    if previous:
        save_index(build_index(COLLECTION), out)
    before = out.read_bytes() if previous else None
    process = subprocess.Popen([sys.executable, "-c", STOPPED, where, "30", "index",
                                str(collection), "-o", str(out), "--quiet"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    said = process.stderr.readline()
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert said == (f"{where} 30\n" if where == "indexing" else "writing 60\n")
    assert process.returncode == -signal.SIGKILL
    if previous:
        assert out.read_bytes() == before
    else:
        assert not out.exists()
    parts = [p.name for p in tmp_path.iterdir() if p.name.startswith(".index.npz.")]
    assert len(parts) == (1 if where == "writing" else 0)  # the temporary file, never the index


def test_index_onto_a_hard_link_of_a_document_is_refused(tmp_path: Path) -> None:
    """``-o`` naming one of the collection's documents under another name (a hard link
    outside the collection) is an error before any work; the document is untouched."""
    collection = _big_collection(tmp_path / "c", 3)
    document = collection / "d1" / "doc1.xml"
    text = document.read_bytes()
    link = tmp_path / "index.npz"
    os.link(document, link)
    done = _cli("index", collection, "-o", link, "--quiet")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"inexeval: error: {link}: the output is a hard link of the "
                           f"collection's document {document} (choose another name)\n")
    assert document.read_bytes() == text and link.read_bytes() == text
    link.unlink()
    assert _cli("index", collection, "-o", link, "--quiet").returncode == 0
    assert sorted(load_index(link)) == sorted(build_index(collection))


def test_hostile_collection_documents_are_refused_or_never_expanded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY hello "WORLD">')
    bomb = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
            + "".join(f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
                      for i in range(1, 10)) + "]><lolz>&lol9;</lolz>")
    refused = {
        "bomb": bomb,
        "xxe": f'<!DOCTYPE x [<!ENTITY e SYSTEM "{secret.as_uri()}">]><x>&e;</x>',
        "internal": '<!DOCTYPE x [<!ENTITY e "text">]><x>&e;</x>',
    }
    for name, xml in refused.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "good.xml").write_text("<x>fine</x>")
        (folder / f"{name}.xml").write_text(xml)
        out = tmp_path / f"{name}.npz"
        done = _cli("index", folder, "-o", out, "--quiet")
        assert done.returncode == 2 and not out.exists(), name
        assert done.stderr.count("\n") == 1 and f"{name}.xml" in done.stderr, done.stderr
    folder = tmp_path / "external-dtd"
    folder.mkdir()
    (folder / "doc.xml").write_text(f'<!DOCTYPE x SYSTEM "{dtd.as_uri()}"><x>a&hello;b</x>')
    doc = build_index(folder)["doc"]
    assert doc.length == 3 and doc.span("/x[1]") == (0, 3)  # the reference is one character


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.floats(0, 1, exclude_max=True), mask=st.integers(1, 255),
       cut=st.booleans())
def test_every_damaged_byte_is_refused_or_harmless(saved: Path, at: float, mask: int,
                                                   cut: bool) -> None:
    """A changed or missing byte anywhere: the index is refused with the one message, or (a
    byte of zip bookkeeping that the data does not depend on) loads to the same arrays."""
    data = bytearray(saved.read_bytes())
    where = int(at * len(data))
    if cut:
        data = data[:where]
    else:
        data[where] ^= mask
    damaged = saved.with_name("damaged.npz")
    damaged.write_bytes(bytes(data))
    try:
        index = load_index(damaged)
    except FormatError as error:
        assert error.reason == DAMAGED
        return
    assert not cut
    original = load_index(saved)
    assert list(index) == list(original)
    for name in original:
        assert list(index[name].paths) == list(original[name].paths)
        assert np.array_equal(index[name].start, original[name].start)
        assert np.array_equal(index[name].text_end, original[name].text_end)


def test_an_array_header_claiming_terabytes_is_refused(saved: Path) -> None:
    with zipfile.ZipFile(saved) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    huge = saved.with_name("huge.npz")
    with zipfile.ZipFile(huge, "w") as target:
        for info, content in entries:
            if info.filename == "parent.npy":
                shape = content[content.index(b"'shape': (") + 10:content.index(b",)")]
                content = content.replace(b"(" + shape + b",)", b"(" + b"9" * 14 + b",)", 1)
            target.writestr(info, content)
    with pytest.raises(FormatError, match="not an inexeval index"):
        load_index(huge)
