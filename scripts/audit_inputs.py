"""Audit of issue 13: generate hostile, malformed and real-but-awkward variants of the team's real
INEX files and run the real command line (``python -m inexeval.cli``) on each.

Every variant is one of:

* ``error``: exit code 2, exactly one line on stderr (``inexeval: error: ...``, under 300
  characters) naming the file (and ``FILE:LINE:`` for line formats), nothing on stdout, no
  traceback;
* ``same``: exit code 0 and the standard output of the clean input (a BOM, compression, blank
  lines, CRLF, standard input, process substitution change nothing);
* ``warning``: exit code 0 and a warning line naming the file;

and every input must be byte-identical afterwards. The bases are the real files of
``$INEXEVAL_SHARED/data`` (FOL qrels and runs, INEX 2010 qrels and topics, TREC Genomics) and the
bundled example collection (INEX 2003/2004 and 2005 XML assessments, XML runs, topics); TREC
files, element runs, indexes, pools and stores are derived from them.

    python scripts/audit_inputs.py [--work DIR] [--jobs 2] [--only CLASS] [--seed 1] [--scale 3]
                                   [--src OTHER/src]

prints one line per failure and a table class x command of passed/total.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import hashlib
import lzma
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("INEXEVAL_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data"
DEMO = REPO / "src" / "inexeval" / "demo" / "data"
ENV = {**os.environ, "PYTHONPATH": str(REPO / "src"), "INEXEVAL_SHARED": str(SHARED),
       "PYTHONHASHSEED": "0"}
CLI = [sys.executable, "-m", "inexeval.cli"]

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@dataclass
class Case:
    cls: str
    command: str
    name: str
    argv: list[str]
    expect: str  # error | same | warning | ok
    file: str | None = None
    line: int | None = None
    words: str = ""
    stdin: bytes | None = None
    shell: bool = False
    baseline: list[str] | None = None
    inputs: list[str] = field(default_factory=list)
    timeout: float = 180


@dataclass
class Outcome:
    case: Case
    ok: bool
    why: str = ""


def _digest(path: str) -> str | None:
    p = Path(path)
    try:
        if p.is_file():
            return hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_dir():
            return hashlib.sha256("".join(
                f"{f}:{hashlib.sha256(f.read_bytes()).hexdigest()}"
                for f in sorted(p.rglob("*")) if f.is_file()).encode()).hexdigest()
    except OSError:
        return None
    return None


_STORES = iter(range(10**9))


def _run(argv: list[str], stdin: bytes | None, shell: bool, timeout: float
         ) -> tuple[int, str, str]:
    store = ""
    if "@NEWSTORE" in " ".join(argv):
        store = str(Path(tempfile.gettempdir()) / f"inexeval-audit-store-{os.getpid()}-"
                    f"{next(_STORES)}.db")
        argv = [a.replace("@NEWSTORE", store) for a in argv]
    if shell:
        command = ["bash", "-c", " ".join(shlex.join(CLI) if a == "@CLI" else a for a in argv)]
    else:
        command = [*CLI, *argv]
    try:
        done = subprocess.run(command, input=stdin if stdin is not None else None,
                              stdin=None if stdin is not None else subprocess.DEVNULL,
                              capture_output=True, timeout=timeout, env=ENV, check=False)
    except subprocess.TimeoutExpired:
        return -1, "", f"TIMEOUT after {timeout} s"
    finally:
        if store:
            for leftover in Path(store).parent.glob(Path(store).name + "*"):
                leftover.unlink()
    out, err = (done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))
    if store:
        out, err = out.replace(store, "@NEWSTORE"), err.replace(store, "@NEWSTORE")
    return done.returncode, out, err


_BASELINES: dict[tuple[str, ...], tuple[int, str, str]] = {}


def check(case: Case) -> Outcome:
    watched = [a for a in case.argv if not a.startswith("-") and Path(a).exists()
               and not a.startswith("/dev/")] + case.inputs
    before = {p: _digest(p) for p in watched}
    code, out, err = _run(case.argv, case.stdin, case.shell, case.timeout)
    after = {p: _digest(p) for p in watched}
    changed = [p for p in watched if before[p] != after[p]]
    lines = [line for line in err.splitlines() if not line.startswith("indexed ")]
    if "Traceback" in err or code not in (0, 2):
        return Outcome(case, False, f"exit {code}: {err.strip()[-300:]!r}")
    if changed:
        return Outcome(case, False, f"input changed: {changed}")
    if case.expect == "error":
        if code != 2:
            return Outcome(case, False, f"exit {code}, expected 2; stderr {err[-200:]!r}")
        if len(lines) != 1:
            return Outcome(case, False, f"{len(lines)} stderr lines: {err[-400:]!r}")
        message = lines[0]
        if not message.startswith("inexeval: error: "):
            return Outcome(case, False, f"not an error line: {message[:200]!r}")
        if len(message) > 300:
            return Outcome(case, False, f"error line of {len(message)} characters")
        if out:
            return Outcome(case, False, f"stdout not empty: {out[:100]!r}")
        if case.file is not None:
            where = f"{case.file}:{case.line}: " if case.line is not None else f"{case.file}"
            if where not in message:
                return Outcome(case, False, f"expected {where!r} in {message[:250]!r}")
        if case.words and not any(w in message for w in case.words.split("|")):
            return Outcome(case, False, f"expected {case.words!r} in {message[:250]!r}")
        return Outcome(case, True)
    if code != 0:
        return Outcome(case, False, f"exit {code}: {err.strip()[-300:]!r}")
    if case.expect == "same":
        assert case.baseline is not None
        key = tuple(case.baseline)
        if key not in _BASELINES:
            _BASELINES[key] = _run(case.baseline, None, False, case.timeout)
        base = _BASELINES[key]
        for given, clean in zip(case.argv[1:] if case.shell else case.argv, case.baseline):
            if given.startswith("<("):
                out = re.sub(r"/dev/fd/[0-9]+", clean, out)
            elif given != clean:
                out = out.replace(f"({given})", f"({clean})") if given == "-" else out.replace(
                    given, clean)
        if base[0] != 0:
            return Outcome(case, False, f"baseline failed: {base[2][-200:]!r}")
        if out != base[1]:
            return Outcome(case, False, f"stdout differs from the clean input's: "
                           f"{out[:150]!r} vs {base[1][:150]!r}")
        return Outcome(case, True)
    if case.expect == "warning":
        hits = [line for line in lines if line.startswith("inexeval: warning: ")
                and (case.file is None or case.file in line) and case.words in line]
        if not hits:
            return Outcome(case, False, f"no warning naming {case.file} ({case.words!r}): "
                           f"{err[-300:]!r}")
    return Outcome(case, True)


# --- The bases ----------------------------------------------------------------------------------

class Bases:
    """Real files (read only) and files derived from them in the work folder."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.base = work / "base"
        self.base.mkdir(parents=True, exist_ok=True)
        self.qrels = DATA / "ipcs" / "INEX_Qrels.txt"
        self.qrels2010 = DATA / "inex2010" / "inex2010.qrels"
        self.run = DATA / "ipcs" / "bert_inex_converted_1.run"
        self.run2 = DATA / "ipcs" / "bert1_incontext.run"
        self.run3 = DATA / "ipcs" / "bert1_bestincontext.run"
        self.topics2010 = DATA / "inex2010" / "2010-topics.xml"
        self.topics2009 = DATA / "inex2009" / "INEX-2009-topics.xml"
        self.gold = DATA / "trec-genomics-2007" / "trecgen2007.gold.standard.tsv.txt"
        self.a2004 = DEMO / "assessments-2004"
        self.a2005 = DEMO / "assessments-2005"
        self.xml_run = DEMO / "runs" / "focused.xml"
        self.xml_run2 = DEMO / "runs" / "overlapping.xml"
        self.xml_run3 = DEMO / "runs" / "articles.xml"
        self.demo_topics = DEMO / "topics.xml"
        self.collection = DEMO / "collection"
        self.index = self.base / "collection.npz"
        self.element_run = self.base / "ideal.txt"
        self.trec_qrels = self.base / "trec.qrels"
        self.trec_run = self.base / "trec.run"
        self.trec_run2 = self.base / "trec2.run"
        self.genomics_run = self.base / "genomics.fol"
        self.navigation = self.base / "navigation.txt"
        self.pool = self.base / "pool.tsv"
        self.store = self.base / "store.db"

    def make(self) -> None:
        def cli(*argv: str | Path) -> None:
            code, _, err = _run([str(a) for a in argv], None, False, 300)
            if code != 0:
                raise SystemExit(f"preparing {argv}: {err}")

        if not self.index.exists():
            cli("index", self.collection, "-o", self.index, "--quiet")
        if not self.element_run.exists():
            cli("simulate", "ideal", self.a2004, "--collection", self.index, "-o",
                self.element_run)
        if not self.trec_qrels.exists():
            # TREC document qrels and runs derived from the real FOL files
            lines = self.qrels.read_text().splitlines()
            judged = dict.fromkeys((f[0], f[2]) for f in (line.split() for line in lines))
            self.trec_qrels.write_text("".join(f"{t} 0 {d} {1 + i % 2}\n"
                                               for i, (t, d) in enumerate(judged)))
            for source, target in ((self.run, self.trec_run), (self.run2, self.trec_run2)):
                seen: set[tuple[str, str]] = set()
                out = []
                for line in source.read_text().splitlines():
                    f = line.split()
                    if (f[0], f[2]) not in seen:
                        seen.add((f[0], f[2]))
                        out.append(" ".join(f[:6]) + "\n")
                target.write_text("".join(out))
        if not self.genomics_run.exists():
            rows = [line.split("\t") for line in
                    self.gold.read_text(encoding="latin-1").splitlines()[:3000]]
            self.genomics_run.write_text("".join(
                f"{r[0]} Q0 {r[1]} {i + 1} {1 / (i + 1)!r} g {r[2]} {max(int(r[3]), 1)}\n"
                for i, r in enumerate(rows)))
        if not self.navigation.exists():
            self.navigation.write_text(
                "# from -> to\n"
                "co/2000/r7005 /article[1]/bdy[1]/sec[4]/ss1[1]/p[2] co/2000/r7005 "
                "/article[1]/bdy[1]/sec[4] 0.5\n"
                "co/2000/r7004 /article[1]/bdy[1]/sec[4]/p[2] co/2000/r7004 - 0.25\n"
                "tc/2000/r7105 /article[1]/bdy[1]/sec[1]/p[1] tc/2000/r7105 "
                "/article[1]/bdy[1] 0.75\n")
        if not self.pool.exists():
            cli("pool", self.xml_run, self.xml_run2, self.xml_run3, "--depth", "20", "-o",
                self.pool)
        if not self.store.exists():
            cli("assess", "init", self.store, "--collection", self.collection, "--topics",
                self.demo_topics, "--pool", self.pool)


# --- Decorations of a text file: what people really have ---------------------------------------

def decorate(text: bytes, how: str, rng: random.Random) -> tuple[bytes, Callable[[int], int]]:
    """The text decorated, and how an original line number maps to the decorated one."""
    lines = text.split(b"\n")
    if text.endswith(b"\n"):
        lines = lines[:-1]
    inserted: list[int] = []
    if "blank" in how:
        for _ in range(3):
            inserted.append(rng.randrange(0, len(lines) + 1))
        for at in sorted(inserted, reverse=True):
            lines.insert(at, rng.choice([b"", b"  ", b"\t"]))
    if "trailing" in how:
        lines = [line + rng.choice([b" ", b"\t", b"  \t"]) if line.strip() else line
                 for line in lines]
    end = b"\r\n" if "crlf" in how else b"\r" if "cr" in how.split("+") else b"\n"
    data = end.join(lines) + end
    if "bom" in how:
        data = b"\xef\xbb\xbf" + data
    for kind, compress in COMPRESS.items():
        if kind in how:
            data = compress(data)
    shifts = sorted(inserted)

    def moved(line: int) -> int:
        # a blank line inserted at index i (0-based, before original line i + 1)
        return line + sum(1 for at in shifts if at < line)

    return data, moved


# --- Line formats -------------------------------------------------------------------------------

@dataclass
class LineFormat:
    name: str
    base: Path
    fields: dict[int, list[str]]  # column -> bad values (each an error)
    commands: dict[str, Callable[[str], list[str]]]  # command -> argv with the file
    skip: int = 0  # first data lines to leave alone (the first line decides the format)
    separator: str = " "
    encoding: str = "utf-8"


HUGE = ["9" * 30, "1" + "0" * 20, "-" + "9" * 25]
NOT_INTEGERS = ["abc", "1.5", "\u0662", "\uff12", "1e2", "5_0", "+", "--1", "0x10", "\u00bd"]


def line_formats(b: Bases) -> list[LineFormat]:
    q, r, r2, r3 = str(b.qrels), str(b.run), str(b.run2), str(b.run3)
    out = str(b.work / "out")
    fol_run_commands = {
        "eval": lambda f: ["eval", q, f, "--task", "focused"],
        "compare": lambda f: ["compare", q, r2, f, "--task", "focused"],
        "agree": lambda f: ["agree", q, f, r2, r3, "-m", "MAiP", "-m", "iP[0.01]"],
        "report": lambda f: ["report", q, r2, f, "--task", "focused", "-o", out + ".html"],
        "plot": lambda f: ["plot", q, r2, f, "--task", "focused", "-o", out + ".png"],
        "pool": lambda f: ["pool", r2, f, "--articles", "20"],
        "eval ": lambda f: ["eval", q, f],  # the default measures
    }
    fol_qrels_commands = {
        "eval": lambda f: ["eval", f, r, "--task", "focused"],
        "compare": lambda f: ["compare", f, r, r2, "--task", "focused"],
        "agree": lambda f: ["agree", "--judgements", f, q],
        "report": lambda f: ["report", f, r, r2, "--task", "focused", "-o", out + ".html"],
        "plot": lambda f: ["plot", f, r, r2, "--task", "focused", "-o", out + ".png"],
    }
    tq, tr, tr2 = str(b.trec_qrels), str(b.trec_run), str(b.trec_run2)
    a2004, idx = str(b.a2004), str(b.index)
    return [
        LineFormat("fol run", b.run, {
            3: ["-1", *NOT_INTEGERS, *HUGE, "9" * (3 << 20)],
            6: ["-5", "x", "1e3", "--1", "5_0", "-2", *HUGE],
            7: ["0", "-3", "abc", "1.0", "\u0663", *HUGE],
        }, fol_run_commands, skip=1),
        LineFormat("fol qrels", b.qrels, {
            3: ["-5", *NOT_INTEGERS[:4], *HUGE],
            4: ["-100", "abc", "\uff12", *HUGE],
            6: ["5", "5:", ":5", "a:b", "5:-3", "-5:3", "99999999:10", "1:" + "9" * 30,
                "\u0662:5"],
        }, fol_qrels_commands, skip=1),
        LineFormat("trec qrels", b.trec_qrels, {3: [*NOT_INTEGERS, *HUGE]}, {
            "eval": lambda f: ["eval", f, tr, "-m", "P@10"],
            "compare": lambda f: ["compare", f, tr, tr2, "-m", "P@10"],
            "agree": lambda f: ["agree", "--judgements", f, tq],
        }, skip=1),
        LineFormat("trec run", b.trec_run, {
            3: ["-1", *NOT_INTEGERS, *HUGE], 4: ["nan", "inf", "-inf", "high", "1e999"]}, {
            "eval": lambda f: ["eval", tq, f, "-m", "P@10"],
            "eval ": lambda f: ["eval", tq, f],  # the default measures
            "compare": lambda f: ["compare", tq, tr2, f, "-m", "P@10"],
            "pool": lambda f: ["pool", f, tr2, "--depth", "10"],
        }, skip=1),
        LineFormat("element run", b.element_run, {
            3: ["-1", *NOT_INTEGERS[:5], *HUGE], 4: ["nan", "inf", "x"],
            6: ["article[1]", "/article[0]", "/article[1]/sec[x]", "/article[-1]", "//p"]}, {
            "eval": lambda f: ["eval", a2004, f, "-m", "P@10"],
            "pool": lambda f: ["pool", f, str(b.xml_run), "--depth", "10"],
            "convert": lambda f: ["convert", "run", f, "--collection", idx, "-o",
                                  out + ".fol"],
            "compare": lambda f: ["compare", a2004, str(b.xml_run), f, "-m", "P@10"],
        }, skip=1),
        LineFormat("genomics", b.gold, {2: ["-5", "abc", *HUGE], 3: ["x", "\u00b2", *HUGE]}, {
            "eval": lambda f: ["eval", f, str(b.genomics_run), "-m", "passage2_AP"],
        }, skip=1, separator="\t", encoding="latin-1"),
        LineFormat("navigation", b.navigation, {
            4: ["1.5", "-0.1", "nan", "x", "9" * 400], 1: ["article[1]", "/a[0]"]}, {
            "eval": lambda f: ["eval", a2004, str(b.xml_run), "-m", "EPRUM(nav=custom)",
                               "--navigation", f, "--collection", idx],
        }, skip=1),
        LineFormat("pool tsv", b.pool, {3: ["0", "-1", "x", *HUGE], 4: ["0", "\u0662"],
                                        2: ["article[1]", "/a[0]"]}, {
            "pool": lambda f: ["pool", "--stats", f],
            "assess": lambda f: ["assess", "init", "@NEWSTORE",
                                 "--collection", idx, "--topics", str(b.demo_topics),
                                 "--pool", f],
        }, skip=1, separator="\t"),
    ]


def _split(line: str, separator: str) -> list[str]:
    return line.split("\t") if separator == "\t" else line.split()


def line_cases(b: Bases, rng: random.Random, scale: int) -> Iterator[Case]:
    decorations = ["plain", "blank", "bom", "crlf", "gzip", "bzip2", "xz", "blank+gzip",
                   "bom+crlf+xz", "stdin", "procsub", "trailing+blank"]
    for fmt in line_formats(b):
        text = fmt.base.read_bytes().decode(fmt.encoding)
        lines = text.splitlines()
        data_lines = [i for i, line in enumerate(lines) if line.strip() and
                      not line.startswith("#")][fmt.skip:]
        commands = list(fmt.commands)
        folder = b.work / re.sub(r"\W", "_", fmt.name)
        folder.mkdir(exist_ok=True)
        n = 0
        # accepted although wrong / tracebacks: every bad value of every field
        for column, values in fmt.fields.items():
            for value in [*values, "y" * 500]:  # a long field is quoted short
                for _ in range(scale):
                    n += 1
                    row = rng.choice(data_lines)
                    fields = _split(lines[row], fmt.separator)
                    if column >= len(fields):
                        fields += ["0"] * (column + 1 - len(fields))
                    fields[column] = value
                    mutated = list(lines)
                    mutated[row] = fmt.separator.join(fields)
                    how = rng.choice(decorations)
                    command = commands[n % len(commands)]
                    cls = "tracebacks" if value in HUGE or len(value) > 1000 else "accepted"
                    yield from _line_case(fmt, folder, n, mutated, row + 1, how, command, cls,
                                          rng, f"{fmt.name}: column {column + 1} = "
                                          f"{value[:20]!r}")
        # shapes: extra, missing column, indented, empty first field, control, latin-1
        shapes = ["extra column", "missing column", "indented", "empty topic", "nul",
                  "control", "latin-1", "long line", "utf-16"]
        for shape in shapes:
            for _ in range(scale):
                n += 1
                row = rng.choice(data_lines)
                mutated = list(lines)
                line = mutated[row]
                sep = fmt.separator
                mutated[row] = {
                    "extra column": line + sep + "7", "missing column": sep.join(
                        _split(line, sep)[:-2]), "indented": " " + line,
                    "empty topic": sep + sep.join(_split(line, sep)[1:]),
                    "nul": line[:3] + "\x00" + line[3:], "control": line[:3] + "\x07" + line[3:],
                    "latin-1": line[:3] + "\udce9" + line[3:],
                    "long line": line + sep + "x" * (2 << 20),
                    "utf-16": line,
                }[shape]
                if shape == "missing column" and fmt.name == "fol qrels":
                    mutated[row] = sep.join(_split(line, sep)[:4])
                if shape == "extra column" and fmt.name in ("fol qrels", "navigation"):
                    mutated[row] = line + sep + ("5:5" if fmt.name == "fol qrels" else "x")
                    if fmt.name == "fol qrels":
                        continue  # extra passages are legitimate
                if shape == "indented" and fmt.name in ("genomics", "pool tsv", "navigation",
                                                        "trec qrels"):
                    continue  # these formats strip fields
                if shape == "latin-1" and fmt.encoding != "utf-8":
                    continue  # Latin-1 is this format's encoding
                if shape == "utf-16":
                    how = "utf16"
                    yield from _line_case(fmt, folder, n, mutated, None, how,
                                          commands[n % len(commands)], "one input layer", rng,
                                          f"{fmt.name}: {shape}")
                    continue
                how = rng.choice(decorations)
                yield from _line_case(fmt, folder, n, mutated, row + 1, how,
                                      commands[n % len(commands)],
                                      "resources" if shape == "long line" else "accepted", rng,
                                      f"{fmt.name}: {shape}")
        # inputs people really have: the same numbers
        for how in ["bom", "crlf", "cr", "blank", "trailing", "gzip", "bzip2", "xz",
                    "bom+crlf+blank+gzip", "stdin", "procsub", "trailing+blank+xz"]:
            n += 1
            command = commands[n % len(commands)]
            if command in ("report", "plot"):
                command = commands[0]
            clean = fmt.commands[command](str(fmt.base))
            yield from _line_case(fmt, folder, n, lines, None, how, command, "refused real", rng,
                                  f"{fmt.name}: {how}", baseline=clean)


def _line_case(fmt: LineFormat, folder: Path, n: int, lines: list[str], line: int | None,
               how: str, command: str, cls: str, rng: random.Random, name: str,
               baseline: list[str] | None = None) -> Iterator[Case]:
    text = "\n".join(lines) + "\n"
    if how == "utf16":
        data, moved = text.encode("utf-16"), (lambda k: k)
    else:
        data, moved = decorate(text.encode(fmt.encoding, "surrogateescape"),
                               how.replace("stdin", "").replace("procsub", ""), rng)
    path = folder / f"v{n}.txt"
    path.write_bytes(data)
    argv = fmt.commands[command](str(path))
    expected_line = moved(line) if line is not None else None
    if cls == "one input layer":
        expected_line = None
    expect = "same" if baseline is not None else "error"
    if "stdin" in how:
        argv = [("-" if a == str(path) else a) for a in argv]
        yield Case(cls, command.strip(), name + f" [{how}]", argv, expect, "-", expected_line,
                   stdin=data, baseline=baseline)
    elif "procsub" in how:
        shell = ["@CLI", *(f"<(cat {shlex.quote(str(path))})" if a == str(path)
                           else shlex.quote(a) for a in argv)]
        yield Case(cls, command.strip(), name + f" [{how}]", shell, expect, "/dev/fd/", None,
                   shell=True, baseline=baseline, inputs=[str(path)])
    else:
        yield Case(cls, command.strip(), name + f" [{how}]", argv, expect, str(path), expected_line,
                   baseline=baseline)


# --- XML formats --------------------------------------------------------------------------------

def xml_cases(b: Bases, rng: random.Random) -> Iterator[Case]:
    folder = b.work / "xml"
    folder.mkdir(exist_ok=True)
    idx, out = str(b.index), str(b.work / "out")
    a2004_91 = (b.a2004 / "topic-91.xml").read_text()
    a2005_91 = (b.a2005 / "topic-91.xml").read_text()
    run = b.xml_run.read_text()
    topics = b.demo_topics.read_text()
    n = 0

    def variant(text: str | bytes, suffix: str = ".xml") -> Path:
        nonlocal n
        n += 1
        path = folder / f"v{n}{suffix}"
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        return path

    def assessments_2004(path: Path) -> list[tuple[str, list[str]]]:
        return [("eval", ["eval", str(path), str(b.xml_run), "-m", "P@10"]),
                ("simulate", ["simulate", "ideal", str(path), "--collection", idx, "-o",
                              out + ".ideal"]),
                ("compare", ["compare", str(path), str(b.xml_run), str(b.xml_run2), "-m",
                             "P@10"]),
                ("agree", ["agree", "--judgements", str(path), str(b.a2004 / "topic-91.xml")])]

    def assessments_2005(path: Path) -> list[tuple[str, list[str]]]:
        return [("eval", ["eval", str(path), str(b.xml_run), "-m", "P@10"]),
                ("grades", ["grades", str(path)]),
                ("convert", ["convert", "assessments", str(path), "--collection", idx, "-o",
                             out + ".qrels"]),
                ("simulate", ["simulate", "grades", str(path), "--collection", idx, "-o",
                              out + "-grades"])]

    def runs(path: Path) -> list[tuple[str, list[str]]]:
        return [("eval", ["eval", str(b.a2004), str(path), "-m", "P@10"]),
                ("pool", ["pool", str(path), str(b.xml_run2), "--depth", "10"]),
                ("convert", ["convert", "run", str(path), "--collection", idx, "-o",
                             out + ".fol"]),
                ("compare", ["compare", str(b.a2004), str(b.xml_run2), str(path), "-m",
                             "P@10"])]

    def topic_files(path: Path) -> list[tuple[str, list[str]]]:
        return [("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "P@10", "--topic-file",
                          str(path)]),
                ("pool", ["pool", str(b.xml_run), "--depth", "5", "--topic-file", str(path)]),
                ("assess", ["assess", "init", "@NEWSTORE", "--collection",
                            idx, "--topics", str(path), "--pool", str(b.pool)])]

    dtd = '<?xml version="1.0"?>\n<!DOCTYPE assessments SYSTEM "assessments.dtd">\n'
    first_record = "<path path='/article[1]' exhaustiveness='3' specificity='1'/>"
    bad_2004: list[tuple[str, str, str, int | None]] = [
        ("topic empty", "topic='91'", "topic=''", None),
        ("topic blank", "topic='91'", "topic='  '", None),
        ("topic spaced", "topic='91'", "topic='9 1'", None),
        ("e fullwidth", first_record, first_record.replace("'3'", "'\uff13'"), 3),
        ("e arabic", first_record, first_record.replace("'3'", "'\u0663'"), 3),
        ("e huge", first_record, first_record.replace("'3'", "'" + "3" * 30 + "'"), 3),
        ("e negative", first_record, first_record.replace("'3'", "'-3'"), 3),
        ("s superscript", first_record, first_record.replace("'1'", "'\u00b9'"), 3),
        ("bad path", first_record, first_record.replace("/article[1]", "article"), 3),
        ("path index 0", first_record, first_record.replace("/article[1]", "/article[0]"), 3),
        ("duplicate", first_record, first_record + "\n" + first_record, 4),
        ("invalid pair", first_record, first_record.replace("'3'", "'0'"), 3),
        ("truncated", "", "", None),
        ("entity in topic", "topic='91'", "topic='9&x;1'", None),
        ("entity in file", "file='co/2000/r7005'", "file='co/2000/r7&x;005'", None),
        ("declared entity", "", "", None),
        ("latin-1 without declaration", "", "", None),
        ("not xml", "", "", None),
        ("other root", "", "", None),
    ]
    for name, old, new, line in bad_2004:
        text = a2004_91.replace(old, new, 1) if old else a2004_91
        if name.startswith("entity"):
            text = dtd + text
            line = None
        elif name == "truncated":
            text = a2004_91[: len(a2004_91) // 2]
        elif name == "declared entity":
            text = '<!DOCTYPE a [<!ENTITY x "y">]>\n' + a2004_91
        elif name == "latin-1 without declaration":
            text = a2004_91.replace("co/2000/r7005", "co/2000/r7005\udce9", 1)
        elif name == "not xml":
            text = "\x00\x01binary" * 100
        elif name == "other root":
            text = "<topics/>"
        data = text.encode("utf-8", "surrogateescape")
        for how in ("plain", rng.choice(["gzip", "bzip2", "xz", "bom"])):
            if how == "bom":
                data2 = b"\xef\xbb\xbf" + data
            elif how in COMPRESS:
                data2 = COMPRESS[how](data)
            else:
                data2 = data
            path = variant(data2)
            for command, argv in assessments_2004(path):
                yield Case("accepted", command, f"2004 assessments: {name} [{how}]", argv,
                           "error", str(path), line)
    # 2002 assessments (ISO-8859-1, relevance x coverage)
    a2002 = (REPO / "tests" / "data" / "formats" / "assessments-2002.xml").read_bytes()
    record = b'relevance="2" coverage="E"'
    for name, new2002 in (("relevance arabic", 'relevance="\u0662" coverage="E"'),
                          ("relevance huge", 'relevance="' + "2" * 30 + '" coverage="E"'),
                          ("coverage bad", 'relevance="2" coverage="Q"'),
                          ("invalid pair", 'relevance="0" coverage="E"'),
                          ("file empty", None)):
        data = (a2002.replace(b'file="co/2000/r7108"', b'file=" "') if new2002 is None else
                a2002.replace(record, new2002.encode("latin-1", "xmlcharrefreplace")))
        path = variant(data)
        yield Case("accepted", "eval", f"2002 assessments: {name}",
                   ["eval", str(path), str(b.xml_run), "-m", "P@10"], "error", str(path),
                   None if new2002 is None else 4)
    # a folder of per-topic files with one bad file: the error names that file
    bad_folder = folder / "a2004-folder"
    if not bad_folder.exists():
        shutil.copytree(b.a2004, bad_folder)
        (bad_folder / "topic-92.xml").write_text((b.a2004 / "topic-92.xml").read_text().replace(
            "exhaustiveness='3'", "exhaustiveness='\uff13'", 1))
    yield Case("accepted", "eval", "assessment folder with one bad file",
               ["eval", str(bad_folder), str(b.xml_run), "-m", "P@10"], "error",
               str(bad_folder / "topic-92.xml"))
    # collection documents: not UTF-8, a declared entity, truncated: named with --collection
    for name, damage in (("not utf-8", lambda d: d.replace(b"<p>", b"<p>\xe9", 1)),
                         ("entity declaration", lambda d: b'<!DOCTYPE a [<!ENTITY x "y">]>\n' + d),
                         ("binary", lambda d: b"\x00" * 100)):
        coll = folder / f"coll-{name.replace(' ', '-')}"
        if not coll.exists():
            shutil.copytree(b.collection, coll)
            doc = coll / "co" / "2000" / "r7003.xml"
            doc.write_bytes(damage(doc.read_bytes()))
        for command, argv in (("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "P@10",
                                        "--collection", str(coll)]),
                              ("index", ["index", str(coll), "-o", out + ".npz"])):
            yield Case("accepted", command, f"collection document: {name}", argv, "error",
                       str(coll / "co" / "2000" / "r7003.xml"))
    # 2005 assessments
    element = '<element path="/article[1]" exhaustivity="1" size="2420" rsize="1062"/>'
    bad_2005 = [
        ("size huge", element, element.replace('"2420"', '"' + "9" * 30 + '"'), 10),
        ("rsize negative", element, element.replace('"1062"', '"-1"'), 10),
        ("exhaustivity 3", element, element.replace('exhaustivity="1"', 'exhaustivity="3"'), 10),
        ("size arabic", element, element.replace('"2420"', '"\u0662420"'), 10),
        ("topic spaced", 'topic="91"', 'topic="9 1"', None),
        ("passage size negative", 'size="170"/>', 'size="-170"/>', 4),
        ("passage bad xpointer", 'start="/article[1]/bdy[1]/sec[1]/p[1]/text()[1].0"',
         'start="article/text()[0]"', 4),
    ]
    for name, old, new, line in bad_2005:
        path = variant(a2005_91.replace(old, new, 1))
        for command, argv in assessments_2005(path):
            yield Case("accepted", command, f"2005 assessments: {name}", argv, "error",
                       str(path), line)
    # 2005 paths not in the collection: reported (warning) with --collection
    moved = a2005_91.replace('path="/article[1]/bdy[1]/sec[1]"', 'path="/article[1]/bdy[1]/sec[9]"')
    path = variant(moved)
    yield Case("accepted", "eval", "2005 assessments: element not in the collection",
               ["eval", str(path), str(b.xml_run), "-m", "P@10", "--collection", idx],
               "warning", str(path), words="not in the collection")
    # runs
    result = "<result><file>co/2000/r7005</file><path>/article[1]/bdy[1]/sec[4]/ss1[1]/p[2]</path><rank>1</rank></result>"
    bad_runs = [
        ("rank negative", "<rank>1</rank>", "<rank>-1</rank>"),
        ("rank fullwidth", "<rank>1</rank>", "<rank>\uff11</rank>"),
        ("rank huge", "<rank>1</rank>", "<rank>" + "9" * 30 + "</rank>"),
        ("rank float", "<rank>1</rank>", "<rank>1.5</rank>"),
        ("rsv nan", "<rank>1</rank>", "<rank>1</rank><rsv>nan</rsv>"),
        ("rsv inf", "<rank>1</rank>", "<rank>1</rank><rsv>-inf</rsv>"),
        ("no file", "<file>co/2000/r7005</file>", ""),
        ("bad path", "<path>/article[1]/bdy[1]/sec[4]/ss1[1]/p[2]</path>", "<path>p[2]</path>"),
        ("topic empty", 'topic-id="91"', 'topic-id=""'),
        ("topic spaced", 'topic-id="91"', 'topic-id="9 1"'),
        ("entity in file", "<file>co/2000/r7005</file>", "<file>co/2000/r&x;7005</file>"),
    ]
    for name, old, new in bad_runs:
        text = run.replace(old, new, 1)
        if "entity" in name:
            text = '<?xml version="1.0"?>\n<!DOCTYPE inex-submission SYSTEM "s.dtd">\n' + text
        line = None if ("topic" in name or "entity" in name) else 4
        assert result in run or old in run
        path = variant(text)
        for command, argv in runs(path):
            yield Case("accepted", command, f"xml run: {name}", argv, "error", str(path), line)
    # a run sharing no topic with the assessments
    path = variant(run.replace('topic-id="91"', 'topic-id="991"').replace(
        'topic-id="92"', 'topic-id="992"').replace('topic-id="93"', 'topic-id="993"'))
    for command, argv in runs(path):
        if command in ("eval", "compare"):
            yield Case("accepted", command, "xml run: no assessed topic", argv, "error",
                       str(path), words="no topic of the run is assessed")
    # topic files
    for name, old, new in [("topic empty", 'topic_id="91"', 'topic_id=""'),
                           ("topic spaced", 'topic_id="91"', 'topic_id="9 1"'),
                           ("entity", 'topic_id="91"', 'topic_id="9&x;1"'),
                           ("truncated", "</topics>", "</topi"),
                           ("not utf-8", "Demo topic.", "D\udce9mo topic.")]:
        text = topics.replace(old, new, 1)
        if name == "entity":
            text = '<?xml version="1.0"?>\n<!DOCTYPE topics SYSTEM "t.dtd">\n' + text.split(
                "\n", 1)[1]
        path = variant(text.encode("utf-8", "surrogateescape"))
        for command, argv in topic_files(path):
            yield Case("accepted", command, f"topic file: {name}", argv, "error", str(path))
    # real inputs: BOM and compression of XML give the same output
    for how in ("bom", "gzip", "bzip2", "xz", "crlf", "stdin"):
        for kind, base, make in (("2004 assessments", b.a2004 / "topic-91.xml",
                                  assessments_2004),
                                 ("xml run", b.xml_run, runs),
                                 ("topic file", b.demo_topics, topic_files),
                                 ("2010 topics", b.topics2010, None)):
            data = base.read_bytes()
            if how == "bom":
                data = b"\xef\xbb\xbf" + data
            elif how == "crlf":
                data = data.replace(b"\n", b"\r\n")
            elif how in COMPRESS:
                data = COMPRESS[how](data)
            path = variant(data)
            if make is None:
                argv = ["pool", str(b.run), "--articles", "5", "--topic-file", str(path)]
                clean = ["pool", str(b.run), "--articles", "5", "--topic-file", str(base)]
                pairs = [("pool", argv, clean)]
            else:
                pairs = [(c, a, make(base)[i][1]) for i, (c, a) in enumerate(make(path))
                         if c not in ("simulate", "convert", "assess")]
            for command, argv, clean in pairs:
                if how == "stdin":
                    argv = ["-" if a == str(path) else a for a in argv]
                    if "-" not in argv or command in ("agree",):
                        continue
                    yield Case("refused real", command, f"{kind} [{how}]", argv, "same",
                               stdin=data, baseline=clean)
                else:
                    yield Case("refused real", command, f"{kind} [{how}]", argv, "same",
                               baseline=clean)


# --- Tracebacks: indexes, devices, pipes, stores ----------------------------------------------

def index_cases(b: Bases, rng: random.Random) -> Iterator[Case]:
    import numpy as np

    folder = b.work / "index"
    folder.mkdir(exist_ok=True)
    good = b.index.read_bytes()
    variants: dict[str, bytes] = {
        "empty": b"", "text": b"hello\n", "random": bytes(rng.randrange(256) for _ in range(4096)),
        "gzip of index": gzip.compress(good), "zip of other": b"",
        "pickle npz": b"", "missing key": b"", "wrong dtype": b"", "old version": b"",
        "bad parent": b"", "foreign npz": b"",
    }
    for cut in (10, 100, len(good) // 3, len(good) // 2, len(good) - 30, len(good) - 1):
        variants[f"truncated at {cut}"] = good[:cut]
    # a flipped byte of an array's data must be refused (zip bookkeeping such as a time stamp
    # may change without harm: tests/collection/test_index_safety.py covers every byte)
    data_bytes = []
    with zipfile.ZipFile(b.index) as archive:
        for info in archive.infolist():
            at = info.header_offset + 26  # the local header's name and extra field lengths
            start = (info.header_offset + 30 + int.from_bytes(good[at:at + 2], "little")
                     + int.from_bytes(good[at + 2:at + 4], "little"))
            data_bytes.extend(range(start, start + info.compress_size))
    for at in rng.sample(data_bytes, 6):
        damaged = bytearray(good)
        damaged[at] ^= 0xFF
        variants[f"byte {at} flipped"] = bytes(damaged)
    with np.load(b.index, allow_pickle=False) as saved:
        arrays = {k: saved[k] for k in saved.files}

    def npz(**changes: object) -> bytes:
        path = folder / "tmp.npz"
        data = {**arrays, **changes}
        data = {k: v for k, v in data.items() if v is not None}
        with open(path, "wb") as handle:
            np.savez(handle, **data)
        return path.read_bytes()

    variants["missing key"] = npz(text_counts=None)
    variants["wrong dtype"] = npz(parent=arrays["parent"].astype(np.float64))
    variants["old version"] = npz(version=np.array([1], dtype=np.int64))
    variants["bad parent"] = npz(parent=arrays["parent"][::-1].copy())
    variants["pickle npz"] = npz(names=np.array([object()], dtype=object))
    variants["foreign npz"] = npz(format=np.frombuffer(b"other", dtype=np.uint8))
    zipped = folder / "other.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("a.txt", "x")
    variants["zip of other"] = zipped.read_bytes()
    out = str(b.work / "out")
    for n, (name, data) in enumerate(variants.items()):
        path = folder / f"i{n}.npz"
        path.write_bytes(data)
        p = str(path)
        commands = [
            ("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "P@10", "--collection", p]),
            ("convert", ["convert", "run", str(b.xml_run), "--collection", p, "-o",
                         out + ".fol"]),
            ("simulate", ["simulate", "ideal", str(b.a2004), "--collection", p, "-o",
                          out + ".ideal"]),
            ("assess", ["assess", "init", "@NEWSTORE", "--collection", p,
                        "--topics", str(b.demo_topics), "--pool", str(b.pool)]),
            ("compare", ["compare", str(b.a2004), str(b.xml_run), str(b.xml_run2), "-m",
                         "P@10", "--collection", p]),
        ]
        for command, argv in commands:
            if command in ("assess", "compare") and n % 3:
                continue
            yield Case("tracebacks", command, f"index: {name}", argv, "error", p,
                       words="not an inexeval index" if name != "old version" else "version")


def device_cases(b: Bases) -> Iterator[Case]:
    """/dev/zero, a folder, a FIFO without writer, a missing file for every file argument of
    every command."""
    out = str(b.work / "out")
    fifo = b.work / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    q, r, r2 = str(b.qrels), str(b.run), str(b.run2)
    idx = str(b.index)
    templates: list[tuple[str, list[str]]] = [
        ("eval", ["eval", "@", r, "--task", "focused"]),
        ("eval", ["eval", q, "@", "--task", "focused"]),
        ("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "P@10", "--topic-file", "@"]),
        ("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "EPRUM(nav=custom)",
                  "--collection", idx, "--navigation", "@"]),
        ("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "P@10", "--collection", "@"]),
        ("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "EPRUM(ideal_list=given)",
                  "--collection", idx, "--ideal-run", "@"]),
        ("compare", ["compare", q, r, "@", "--task", "focused"]),
        ("agree", ["agree", q, r, r2, "@", "-m", "MAiP", "-m", "iP[0.01]"]),
        ("agree", ["agree", "--judgements", q, "@"]),
        ("agree", ["agree", q, r, r2, "-m", "MAiP", "--assessments-b", "@"]),
        ("report", ["report", q, r, "@", "--task", "focused", "-o", out + ".html"]),
        ("plot", ["plot", "@", r, r2, "--task", "focused", "-o", out + ".png"]),
        ("pool", ["pool", r, "@", "--articles", "5"]),
        ("pool", ["pool", "--stats", "@"]),
        ("pool", ["pool", r, "--articles", "5", "--topic-file", "@"]),
        ("convert", ["convert", "run", "@", "--collection", idx, "-o", out + ".fol"]),
        ("convert", ["convert", "assessments", str(b.a2005), "--collection", "@", "-o",
                     out + ".qrels"]),
        ("index", ["index", "@", "-o", out + ".npz"]),
        ("simulate", ["simulate", "ideal", "@", "--collection", idx, "-o", out + ".ideal"]),
        ("simulate", ["simulate", "ideal", str(b.a2004), "--collection", "@", "-o",
                      out + ".ideal"]),
        ("grades", ["grades", "@"]),
        ("assess", ["assess", "init", "@NEWSTORE", "--collection", idx,
                    "--topics", "@", "--pool", str(b.pool)]),
        ("assess", ["assess", "init", "@NEWSTORE", "--collection", idx,
                    "--topics", str(b.demo_topics), "--pool", "@"]),
        ("assess", ["assess", "export", "@", "-o", out + ".fol"]),
        ("assess", ["assess", "stats", "@"]),
    ]
    for command, template in templates:
        for name, target in (("/dev/zero", "/dev/zero"), ("fifo", str(fifo)),
                             ("missing", str(b.work / "absent.txt")),
                             ("folder", str(b.work / "index")),
                             ("empty", str(b.work / "empty.txt"))):
            (b.work / "empty.txt").write_bytes(b"")
            if name == "folder" and ("index" in template or "--collection" in
                                     template[template.index("@") - 1:template.index("@")]):
                continue  # a folder is what these take
            if name == "folder" and template[0] == "eval" and template.index("@") == 1:
                continue  # a folder of per-topic assessments
            if name == "folder" and template[:2] == ["agree", "--judgements"]:
                continue
            if name == "folder" and "--assessments-b" in template:
                continue
            if name == "empty" and template[0] == "index":
                continue
            argv = [target if a == "@" else a for a in template]
            if name == "fifo":
                argv = ["timeout", "60", "@CLI"] + [shlex.quote(a) for a in argv]
                yield Case("tracebacks", command, f"{name} as {template[template.index('@') - 1]}",
                           argv, "error", target, shell=True,
                           timeout=90)
                continue
            yield Case("tracebacks", command, f"{name} as {template[template.index('@') - 1]}",
                       argv, "error", target)


def store_cases(b: Bases, rng: random.Random) -> Iterator[Case]:
    folder = b.work / "stores"
    folder.mkdir(exist_ok=True)
    good = b.store.read_bytes()
    variants = {"text": b"not a database\n", "truncated": good[: len(good) // 2],
                "header only": good[:100], "random": bytes(rng.randrange(256) for _ in range(8192)),
                "gzip": gzip.compress(good)}
    for table in ("users", "topics", "judgements"):  # a schema byte that is not UTF-8
        at = good.index(f"CREATE TABLE {table}".encode()) + 3
        variants[f"schema of {table} damaged"] = good[:at] + b"\xff" + good[at + 1:]
    for n, (name, data) in enumerate(variants.items()):
        path = folder / f"s{n}.db"
        path.write_bytes(data)
        for command, argv in (("assess", ["assess", "export", str(path), "-o",
                                          str(b.work / "out.fol")]),
                              ("assess", ["assess", "stats", str(path)])):
            yield Case("tracebacks", command, f"store: {name}", argv, "error", str(path))


def collection_cases(b: Bases) -> Iterator[Case]:
    """Folders of XML documents: none, damaged, unreadable (as another user)."""
    folder = b.work / "collections"
    empty = folder / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    textonly = folder / "textonly"
    textonly.mkdir(exist_ok=True)
    (textonly / "a.txt").write_text("x")
    broken = folder / "broken"
    if not broken.exists():
        shutil.copytree(b.collection, broken)
        doc = next(broken.rglob("*.xml"))
        doc.write_bytes(doc.read_bytes()[:200])
    out = str(b.work / "out")
    for name, path, words in (("empty folder", empty, "no XML"), ("no xml", textonly, "no XML"),
                              ("truncated document", broken, "malformed")):
        for command, argv in (
                ("index", ["index", str(path), "-o", out + ".npz"]),
                ("eval", ["eval", str(b.a2004), str(b.xml_run), "-m", "P@10", "--collection",
                          str(path)]),
                ("convert", ["convert", "run", str(b.xml_run), "--collection", str(path), "-o",
                             out + ".fol"])):
            yield Case("accepted", command, f"collection: {name}", argv, "error", str(path),
                       words=words)


# --- Outputs ------------------------------------------------------------------------------------

def output_cases(b: Bases) -> Iterator[Case]:
    folder = b.work / "outputs"
    folder.mkdir(exist_ok=True)
    q, r2 = str(b.qrels), str(b.run2)
    idx = str(b.index)
    copy_run = folder / "run.xml"
    shutil.copy(b.xml_run, copy_run)
    copy_fol = folder / "run.fol"
    shutil.copy(b.run, copy_fol)
    copy_a = folder / "a2004.xml"
    shutil.copy(b.a2004 / "topic-91.xml", copy_a)
    copy_pool = folder / "pool.tsv"
    shutil.copy(b.pool, copy_pool)
    hard, soft = folder / "hard", folder / "soft"
    hard.mkdir(exist_ok=True)
    soft.mkdir(exist_ok=True)
    commands: list[tuple[str, list[str], Path]] = [
        ("convert", ["convert", "run", str(copy_run), "--collection", idx, "-o", "@"], copy_run),
        ("simulate", ["simulate", "ideal", str(copy_a), "--collection", idx, "-o", "@"], copy_a),
        ("index", ["index", str(b.collection), "-o", "@"], b.collection / "co" / "2000" /
         "r7000.xml"),
        ("pool", ["pool", str(copy_fol), r2, "--articles", "5", "-o", "@"], copy_fol),
        ("pool", ["pool", "--stats", str(copy_pool), "-o", "@"], copy_pool),
        ("compare", ["compare", q, str(copy_fol), r2, "--task", "focused", "-o", "@"], copy_fol),
        ("agree", ["agree", q, str(copy_fol), r2, str(b.run3), "-m", "MAiP", "-m", "iP[0.01]",
                   "-o", "@"], copy_fol),
        ("report", ["report", q, str(copy_fol), r2, "--task", "focused", "-o", "@"], copy_fol),
        ("plot", ["plot", q, str(copy_fol), r2, "--task", "focused", "-o", "@"], copy_fol),
        ("assess", ["assess", "export", str(b.store), "-o", "@", "--format", "json"], b.store),
    ]
    full = "/dev/full"
    for i, (command, template, victim) in enumerate(commands):
        suffix = {"report": ".html", "plot": ".png"}.get(command, ".out")
        link = hard / f"l{i}{suffix}"
        if command == "index":
            yield Case("outputs", command, "-o inside the input folder",
                       [str(b.collection / "co" / "out.npz") if a == "@" else a
                        for a in template], "error", str(b.collection / "co" / "out.npz"))
        else:
            if not link.exists():
                os.link(victim, link)
            yield Case("outputs", command, "-o a hard link to an input",
                       [str(link) if a == "@" else a for a in template], "error", str(link),
                       inputs=[str(victim)])
            symlink = soft / f"s{i}{suffix}"
            if not symlink.exists() and not symlink.is_symlink():
                symlink.symlink_to(victim)
            yield Case("outputs", command, "-o a symbolic link to an input",
                       [str(symlink) if a == "@" else a for a in template], "error",
                       str(symlink), inputs=[str(victim)])
        yield Case("outputs", command, "-o ''", ["" if a == "@" else a for a in template],
                   "error", None)
        yield Case("outputs", command, "-o /dev/full",
                   [full if a == "@" else a for a in template], "error", full)
        missing = folder / "absent" / "deeper" / f"out{suffix}"
        yield Case("outputs", command, "-o in a missing folder",
                   [str(missing) if a == "@" else a for a in template], "error",
                   str(missing.parent), words="does not exist")
        if command not in ("simulate",):
            yield Case("outputs", command, "-o an existing folder",
                       [str(folder) if a == "@" else a for a in template], "error",
                       str(folder))


# --- Conflicting options ------------------------------------------------------------------------

def option_cases(b: Bases) -> Iterator[Case]:
    q, r, r2, r3 = str(b.qrels), str(b.run), str(b.run2), str(b.run3)
    tq, tr = str(b.trec_qrels), str(b.trec_run)
    out = str(b.work / "out")
    link = b.work / "outputs" / "run-link.fol"
    if not link.exists() and not link.is_symlink():
        link.parent.mkdir(exist_ok=True)
        link.symlink_to(b.run)
    conflicts: list[tuple[str, list[str], str]] = [
        ("eval", ["eval", q, r, "--table", "--format", "json"], "--table"),
        ("eval", ["eval", q, r, "--table", "--format", "csv"], "--table"),
        ("eval", ["eval", q, r, "--table", "-q"], "-q"),
        ("eval", ["eval", q, r, "--format", "latex", "-q"], "-q"),
        ("eval", ["eval", q, r, "--digits", "18"], "--digits"),
        ("eval", ["eval", q, r, "--digits", "-1"], "--digits"),
        ("eval", ["eval", q, r, "--topics", ""], "--topics"),
        ("eval", ["eval", q, r, "--topics", ","], "--topics"),
        ("eval", ["eval", q, r, "--topics", "1,2"], "--topics"),
        ("eval", ["eval", tq, tr, "-m", "P@10", "--num-docs", "3"], "--num-docs"),
        ("eval", ["eval", q, r, r], "twice|more than once"),
        ("eval", ["eval", q, r, str(link)], "twice|more than once"),
        ("eval", ["eval", q, r, "--topic-file", str(b.topics2010)], "--topic-file"),
        ("eval", ["eval", tq, tr, "-m", "P@10", "--topic-file", str(b.topics2010)],
         "--topic-file"),
        ("eval", ["eval", q, r, "-m", "MAiP", "--topic-file", str(b.topics2010)],
         "--topic-file"),
        ("eval", ["eval", "-", "-", "--task", "focused"], "standard input"),
        ("eval", ["eval", q, r, "-m", "P@10", "--jobs", "0"], "--jobs"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--digits", "40"], "--digits"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--topics", ""], "--topics"),
        ("compare", ["compare", q, r, r, "--task", "focused"], "twice|more than once"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--alpha", "2"], "--alpha"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--baseline", "nope"],
         "--baseline"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--topic-file",
                     str(b.topics2010)], "--topic-file"),
        ("agree", ["agree", q, r, r2, r3, "-m", "MAiP", "-m", "iP[0.01]", "--digits", "99"],
         "--digits"),
        ("agree", ["agree", q, r, r2, r2, "-m", "MAiP", "-m", "iP[0.01]"], "twice|more than once"),
        ("agree", ["agree", "--judgements", q, q, "-m", "MAiP"], "-m"),
        ("report", ["report", q, r, r2, "--task", "focused", "-o", out + ".html", "--digits",
                    "30"], "--digits"),
        ("report", ["report", q, r, r, "--task", "focused", "-o", out + ".html"], "twice|more than once"),
        ("plot", ["plot", q, r, r2, "--task", "focused", "-o", out + ".png", "--topics", ""],
         "--topics"),
        ("plot", ["plot", q, r, r, "--task", "focused", "-o", out + ".png"], "twice|more than once"),
        ("pool", ["pool", r, r, "--articles", "5"], "twice|more than once"),
        ("pool", ["pool", r, "--articles", "5", "--topics", ""], "--topics"),
        ("pool", ["pool", "--stats", str(b.pool), "--depth", "3"], "--depth"),
        ("simulate", ["simulate", "random", str(b.a2004), "--collection", str(b.index), "-o",
                      out + ".r", "--move", "1.5"], "1.5"),
        ("simulate", ["simulate", "ideal", str(b.a2004), "--collection", str(b.index), "-o",
                      out + ".r", "--move", "0.5"], "--move"),
        ("simulate", ["simulate", "ideal", str(b.a2004), "--collection", str(b.index), "-o",
                      out + ".r", "--quant", "nope"], "nope"),
        ("index", ["index", str(b.work / "collections" / "empty"), "-o", out + ".npz"],
         "no XML"),
        ("eval", ["eval", q, r, "--task", "focused", "--beta", "2"], "--beta"),
        ("eval", ["eval", q, r, "-m", "MAiP", "--exact-buckets"], "--exact-buckets"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--irr", "3"], "--irr"),
        ("eval", ["eval", q, r2, "--task", "relevant-in-context", "--beta", "nan"], "beta"),
        ("pool", ["pool", r, "--depth", "3", "--group", "(", "--runs-per-group", "1"], "--group"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--test", "nope"], "nope"),
        ("compare", ["compare", q, r, r2, "--task", "focused", "--num-docs", "5"], "--num-docs"),
        ("plot", ["plot", q, r, r2, "--kind", "scatter", "-m", "MAiP", "-o", out + ".png"],
         "two"),
        ("agree", ["agree", q, r, r2, "-m", "MAiP", "-o", out + ".txt"], "two measures"),
        ("simulate", ["simulate", "grades", str(b.a2005), "--collection", str(b.index), "-o",
                      out + "-g", "--sort-key", "size"], "--sort-key"),
    ]
    for command, argv, words in conflicts:
        yield Case("conflicting options", command, " ".join(argv[3:])[:60] or argv[1], argv,
                   "error", None, words=words)
    # a batch where one run is bad: the good ones printed, the bad one reported, exit 2
    bad = b.work / "outputs" / "bad.run"
    bad.write_text(b.run.read_text().replace(" Q0 ", " Q0 x ", 1))
    yield Case("conflicting options", "eval", "batch with one bad run",
               ["eval", q, r, str(bad), r2, "--task", "focused"], "batch", str(bad))


# --- The Python API -----------------------------------------------------------------------------

API = r'''
import sys, warnings, inexeval
from inexeval.errors import InexevalError
warnings.simplefilter("ignore")
q, r, missing = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []
def expect(label, kind, call, words=""):
    try:
        call()
    except kind as error:
        if words not in str(error):
            failures.append(f"{label}: {kind.__name__} without {words!r}: {error}")
    except BaseException as error:
        failures.append(f"{label}: {kind.__name__} expected, got {type(error).__name__}: "
                        f"{str(error)[:150]}")
    else:
        failures.append(f"{label}: {kind.__name__} expected, nothing raised")
qrels, run = inexeval.load_assessments(q), inexeval.load_run(r)
one = inexeval.evaluate(qrels, run, "MAiP")
if {row.measure for row in one.rows} - {"MAiP", "AiP"}:
    failures.append(f"one measure as a string: {sorted({row.measure for row in one.rows})}")
for label, call in (("calc_aggregate(str, qrels, run)", lambda: inexeval.calc_aggregate("MAiP", qrels, run)),
                    ("calc_aggregate(str, path, path)", lambda: inexeval.calc_aggregate("MAiP", q, r)),
                    ("calc_aggregate(qrels, run, str)", lambda: inexeval.calc_aggregate(qrels, run, "MAiP"))):
    try:
        agg = call()
        if [str(m) for m in agg] != ["MAiP"]:
            failures.append(f"{label}: {agg}")
    except BaseException as error:
        failures.append(f"{label}: {type(error).__name__}: {error}")
if len(list(inexeval.iter_calc(qrels, run, "MAiP"))) == 0:
    failures.append("iter_calc one string gave nothing")
inexeval.Evaluator("MAiP", qrels)
E, T = InexevalError, TypeError
expect("load_run(missing)", E, lambda: inexeval.load_run(missing), missing)
expect("load_assessments(missing)", E, lambda: inexeval.load_assessments(missing), missing)
expect("evaluate(missing qrels)", E, lambda: inexeval.evaluate(missing, r, "MAiP"), missing)
expect("evaluate(missing run)", E, lambda: inexeval.evaluate(q, missing, "MAiP"), missing)
expect("evaluate([run, missing])", E, lambda: inexeval.evaluate(q, [r, missing], "MAiP"), missing)
expect("load_collection(missing)", E, lambda: inexeval.load_collection(missing), missing)
expect("compare(missing run)", E, lambda: inexeval.compare(q, [r, missing], ["MAiP"]), missing)
expect("evaluate(collection=missing)", E, lambda: inexeval.evaluate(qrels, run, "MAiP", collection=missing), missing)
expect("unknown measure", E, lambda: inexeval.evaluate(qrels, run, "NoSuchMeasure"), "NoSuchMeasure")
expect("no measure", E, lambda: inexeval.evaluate(qrels, run, []))
expect("measures=10", T, lambda: inexeval.evaluate(qrels, run, 10))
expect("measures with None", T, lambda: inexeval.evaluate(qrels, run, ["MAiP", None]))
expect("run=3.5", T, lambda: inexeval.evaluate(qrels, 3.5, "MAiP"))
expect("qrels=None", T, lambda: inexeval.evaluate(None, run, "MAiP"))
expect("load_run(7)", T, lambda: inexeval.load_run(7))
expect("load_run(bytes)", T, lambda: inexeval.load_run(b"run"))
expect("load_assessments(None)", T, lambda: inexeval.load_assessments(None))
expect("load_collection(3)", T, lambda: inexeval.load_collection(3))
expect("Evaluator.evaluate(3)", T, lambda: inexeval.Evaluator("MAiP", qrels).evaluate(3))
expect("num_docs='10'", T, lambda: inexeval.evaluate(qrels, run, "MAiP", num_docs="10"))
expect("num_docs=-3", E, lambda: inexeval.evaluate(qrels, run, "MAiP", num_docs=-3), "num_docs")
expect("order='nope'", E, lambda: inexeval.evaluate(qrels, run, "MAiP", order="nope"), "nope")
expect("limit=-1", E, lambda: inexeval.evaluate(qrels, run, "MAiP", limit=-1), "limit")
expect("limit=1.5", T, lambda: inexeval.evaluate(qrels, run, "MAiP", limit=1.5))
expect("complete='yes'", T, lambda: inexeval.evaluate(qrels, run, "MAiP", complete="yes"))
expect("unknown option", T, lambda: inexeval.evaluate(qrels, run, "MAiP", nonsense=1))
expect("compare(runs=str)", T, lambda: inexeval.compare(q, r, "MAiP"))
expect("compare(test=nope)", E, lambda: inexeval.compare(q, [r, r], "MAiP", test="nope"), "nope")
expect("load_run(fmt=nope)", E, lambda: inexeval.load_run(r, fmt="nope"), "nope")
expect("load_assessments(fmt=nope)", E, lambda: inexeval.load_assessments(q, fmt="nope"), "nope")
expect("dict qrels with str grade", E, lambda: inexeval.evaluate({"1": {"d": "x"}}, {"1": {"d": 1.0}}, "P@1"), "x")
expect("dict run with str score", E, lambda: inexeval.evaluate({"1": {"d": 1}}, {"1": {"d": "high"}}, "P@1"), "high")
expect("dict qrels huge grade", E, lambda: inexeval.evaluate({"1": {"d": 10**30}}, {"1": {"d": 1.0}}, "P@1"))
for failure in failures:
    print(failure)
'''


def api_cases(b: Bases) -> Iterator[Case]:
    script = b.work / "api_check.py"
    script.write_text(API)
    yield Case("python api", "api", "argument checks",
               ["@API", str(script), str(b.qrels), str(b.run), str(b.work / "absent.run")],
               "api")


# --- Running ------------------------------------------------------------------------------------

def run_case(case: Case) -> Outcome:
    if case.expect == "api":
        done = subprocess.run([sys.executable, *case.argv[1:]], capture_output=True, text=True,
                              env=ENV, timeout=300, check=False)
        problems = done.stdout.strip() + ("\n" + done.stderr.strip() if done.returncode else "")
        return Outcome(case, not problems.strip(), problems.strip())
    if case.expect == "batch":
        code, out, err = _run(case.argv, None, False, case.timeout)
        errors = [line for line in err.splitlines() if line.startswith("inexeval: error:")]
        runs_printed = {line.split("\t")[0] for line in out.splitlines()}
        ok = code == 2 and len(runs_printed) == 2 and case.file is not None and any(
            case.file in e for e in errors) and "Traceback" not in err
        return Outcome(case, ok, "" if ok else f"exit {code}, printed {runs_printed}, {err!r}")
    return check(case)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="run only the classes whose name contains this")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scale", type=int, default=1, help="variants per bad value")
    parser.add_argument("--list", action="store_true", help="list the cases, run nothing")
    parser.add_argument("--src", type=Path, default=REPO / "src",
                        help="the inexeval sources to audit (default: this repository's)")
    args = parser.parse_args()
    ENV["PYTHONPATH"] = str(args.src.resolve())
    work = args.work or Path(tempfile.mkdtemp(prefix="inexeval-audit-"))
    work.mkdir(parents=True, exist_ok=True)
    bases = Bases(work)
    bases.make()
    rng = random.Random(args.seed)
    cases = [*line_cases(bases, rng, args.scale), *xml_cases(bases, rng),
             *index_cases(bases, rng), *device_cases(bases), *store_cases(bases, rng),
             *collection_cases(bases), *output_cases(bases), *option_cases(bases),
             *api_cases(bases)]
    if args.only:
        cases = [c for c in cases if args.only in c.cls or args.only in c.command]
    if args.list:
        for c in cases:
            print(c.cls, c.command, c.name, c.argv)
        return 0
    print(f"{len(cases)} variants in {work}", file=sys.stderr)
    totals: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    failed = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for outcome in pool.map(run_case, cases):
            c = outcome.case
            totals[(c.cls, c.command)]["total"] += 1
            if outcome.ok:
                totals[(c.cls, c.command)]["passed"] += 1
            else:
                failed += 1
                print(f"FAIL [{c.cls}] {c.command}: {c.name}: {outcome.why}\n"
                      f"     argv: {' '.join(c.argv)[:300]}", flush=True)
    classes = sorted({k[0] for k in totals})
    commands = sorted({k[1] for k in totals})
    print("\nclass".ljust(22) + "".join(c[:9].rjust(10) for c in commands))
    for cls in classes:
        cells = []
        for command in commands:
            t = totals.get((cls, command))
            cells.append((f"{t['passed']}/{t['total']}" if t else "").rjust(10))
        print(cls.ljust(21) + "".join(cells))
    print(f"\n{len(cases) - failed} of {len(cases)} variants pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
