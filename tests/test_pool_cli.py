"""``inexeval pool`` end to end: TSV and XML outputs, groups, statistics and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from inexeval.cli import main
from inexeval.formats.pool import read_pool
from tests.helpers import DATA, needs_shared


def _run(folder: Path, name: str, results: dict[str, list[str]]) -> Path:
    """A TREC element run: per topic, ``file:path`` results in rank order."""
    lines = []
    for topic, items in results.items():
        for rank, item in enumerate(items, 1):
            file, path = item.split(":")
            lines.append(f"{topic} Q0 {file} {rank} {100 - rank} {name} {path}\n")
    path = folder / f"{name}.txt"
    path.write_text("".join(lines))
    return path


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    return [
        _run(tmp_path, "grpA-1", {"10": ["b:/article[1]/p[1]", "a:/article[1]/p[2]"],
                                  "9": ["c:/article[1]"]}),
        _run(tmp_path, "grpA-2", {"10": ["a:/article[1]/p[2]", "d:/article[1]"]}),
        _run(tmp_path, "grpB-1", {"10": ["e:/article[1]", "b:/article[1]/p[1]"]}),
    ]


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_depth_pool_tsv_sorted_by_numeric_topic_file_path(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, runs), "--depth", "1", "-o", str(out)]) == 0
    assert _lines(out) == ["9\tc\t/article[1]\t1\t1",
                           "10\ta\t/article[1]/p[2]\t1\t1",
                           "10\tb\t/article[1]/p[1]\t1\t1",
                           "10\te\t/article[1]\t1\t1"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert main(["pool", *map(str, runs), "--depth", "2", "--unit", "article",
                 "--topics", "10", "-o", str(out)]) == 0
    assert _lines(out) == ["10\ta\t\t1\t2", "10\tb\t\t1\t2", "10\td\t\t2\t1", "10\te\t\t1\t1"]


def test_runs_per_group(runs: list[Path], tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, runs), "--depth", "2", "--runs-per-group", "1",
                 "--group", r"^(grp\w)-", "-o", str(out)]) == 0
    assert "grpA-2.txt: not pooled: more than 1 runs of its group" in capsys.readouterr().err
    assert "d" not in {line.split("\t")[1] for line in _lines(out)}


def test_articles_and_inex_format(runs: list[Path], tmp_path: Path) -> None:
    folder = tmp_path / "pools"
    assert main(["pool", *map(str, runs), "--articles", "2", "--format", "inex",
                 "-o", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["pool-10.xml", "pool-9.xml"]
    root = etree.parse(str(folder / "pool-10.xml")).getroot()
    # round 1: b (grpA-1), a (grpA-2): 2 articles, the pool is complete before grpB-1's e
    assert root.get("topic") == "10"
    assert [f.get("name") for f in root] == ["a", "b"]
    assert [len(f) for f in root] == [0, 0]


def test_stats_with_and_without_runs(runs: list[Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, runs), "--depth", "2", "--unit", "article", "-o",
                 str(out)]) == 0
    capsys.readouterr()
    assert main(["pool", "--stats", str(out), *map(str, runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in lines}
    # topic 10: a, b (A-1, B-1), d, e (B-1); topic 9: c
    assert table[("units", "10")] == "4" and table[("units", "9")] == "1"
    assert table[("unique", "10")] == "2"
    assert (table[("unique.grpA-1", "10")], table[("unique.grpA-2", "10")],
            table[("unique.grpB-1", "10")]) == ("0", "1", "1")
    assert table[("unique.grpA-1", "9")] == "1"
    assert table[("units", "median")] == "2.5" and table[("units", "total")] == "5"
    assert table[("unique.grpA-1", "total")] == "1"
    assert main(["pool", "--stats", str(out)]) == 0
    assert "unique.grpA-1" not in capsys.readouterr().out


@needs_shared
def test_real_run_article_pool(tmp_path: Path) -> None:
    run = DATA / "ipcs" / "bert_inex_converted_1.run"
    out = tmp_path / "pool.tsv"
    assert main(["pool", str(run), str(DATA / "ipcs" / "bert1_bestincontext.run"),
                 "--articles", "25", "-o", str(out)]) == 0
    pool = read_pool(out)
    assert pool.unit == "article" and len(pool) == 60
    assert all(len(tp.articles) == len(tp) == 25 for tp in pool.values())
    assert all(1 <= r <= 2 for tp in pool.values() for r in tp.runs)
    assert list(pool) == sorted(pool, key=int)


@needs_shared
@pytest.mark.parametrize(("extra", "message"), [
    ([], "give --depth K, --articles N or --strategy NAME"),
    (["--depth", "1", "--group", "x"], "--runs-per-group and --group go together"),
    (["FOL", "--depth", "1", "--unit", "element"], "--unit element pools element runs only"),
    (["--depth", "1", "--format", "inex"], "give the folder with -o"),
    (["--depth", "1", "--group", "(", "--runs-per-group", "1"], "not a regular expression"),
    (["--depth", "0"], "is not at least 1"),
    (["--depth", "1", "--articles", "2"], "not allowed with argument"),
])
def test_bad_requests(runs: list[Path], extra: list[str], message: str,
                      capsys: pytest.CaptureFixture[str]) -> None:
    fol = str(DATA / "ipcs" / "bert1_bestincontext.run")
    args = [fol if a == "FOL" else a for a in extra]
    try:
        code = main(["pool", *map(str, runs), *args])
    except SystemExit as stop:  # argparse
        code = int(stop.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.startswith("inexeval: error:")
    assert err.count("\n") == 1


def test_output_over_an_input_is_refused(runs: list[Path],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    before = runs[0].read_bytes()
    assert main(["pool", *map(str, runs), "--depth", "1", "-o", str(runs[0])]) == 2
    assert "would overwrite" in capsys.readouterr().err
    assert runs[0].read_bytes() == before


def test_stats_of_a_bad_pool_or_other_runs(runs: list[Path], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("10\ta\t\t1\t1\n10\tb\t\t1\n")
    assert main(["pool", "--stats", str(bad)]) == 2
    assert f"{bad}:2: 4 tab-separated fields" in capsys.readouterr().err
    good = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, runs), "--depth", "2", "-o", str(good)]) == 0
    assert main(["pool", "--stats", str(good), str(runs[0])]) == 2
    assert "give the pooled runs" in capsys.readouterr().err
    assert main(["pool", "--stats", str(good), "--depth", "2"]) == 2


def test_inex_format_never_writes_over_an_input(runs: list[Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    named = runs[0].rename(tmp_path / "pool-10.xml")  # a run that looks like an output
    before = named.read_bytes()
    assert main(["pool", str(named), *map(str, runs[1:]), "--depth", "1", "--format", "inex",
                 "-o", str(tmp_path)]) == 2
    assert "would overwrite" in capsys.readouterr().err
    assert named.read_bytes() == before
    assert main(["pool", *map(str, runs[1:]), "--depth", "1", "--format", "inex",
                 "-o", str(runs[1])]) == 2
    assert "this is a file" in capsys.readouterr().err


def _doc_run(folder: Path, name: str, docs: str) -> Path:
    path = folder / f"{name}.txt"
    path.write_text("".join(f"1 Q0 {d} {i} {10 - i} {name}\n" for i, d in enumerate(docs, 1)))
    return path


def test_strategies_from_the_command_line(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """r1 = a b c d, r2 = e a f g; relevant b c e: the orders of tests/analysis/
    test_strategies.py, written in judging order."""
    r1, r2 = _doc_run(tmp_path, "r1", "abcd"), _doc_run(tmp_path, "r2", "eafg")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 0\n1 0 b 1\n1 0 c 1\n1 0 e 1\n1 0 f 0\n")
    out = tmp_path / "pool.tsv"

    def files(*extra: str) -> str:
        assert main(["pool", str(r1), str(r2), "--depth", "3", *extra, "-o", str(out)]) == 0
        return "".join(line.split("\t")[1] for line in _lines(out))

    assert files("--strategy", "depth") == "abcef"  # today's --depth 3 pool, sorted
    assert files("--strategy", "depth", "--budget", "5") == "aebcf"
    assert files("--strategy", "take", "--budget", "2") == "ae"
    assert files("--strategy", "mtf", "--qrels", str(qrels)) == "aefbc"
    assert files("--strategy", "mtf") == "aebcf"  # the static start: depth order
    assert _lines(out)[0] == "1\ta\t\t1\t2"
    for strategy in ("bandit", "hedge"):
        assert len(files("--strategy", strategy, "--qrels", str(qrels), "--budget", "3")) == 3
    assert main(["pool", str(r1), str(r2), "--strategy", "depth", "-o", str(out)]) == 0
    default = out.read_text()
    assert main(["pool", str(r1), str(r2), "--depth", "100", "-o", str(out)]) == 0
    assert out.read_text() == default
    assert main(["pool", str(r1), str(r2), "--strategy", "round-robin", "--budget", "3",
                 "-o", str(out)]) == 0
    rr = out.read_text()
    assert main(["pool", str(r1), str(r2), "--articles", "3", "-o", str(out)]) == 0
    assert out.read_text() == rr
    capsys.readouterr()


@pytest.mark.parametrize(("extra", "message"), [
    (["--strategy", "mtf", "--budget", "2"], "needs --qrels to simulate it"),
    (["--depth", "2", "--budget", "2"], "--budget goes with --strategy"),
    (["--strategy", "take", "--qrels", "QRELS"], "reads no judgements"),
    (["--strategy", "round-robin"], "needs --budget N"),
    (["--strategy", "take", "--articles", "2"], "--articles is the round-robin strategy"),
    (["--strategy", "take", "--rbp-p", "1.5", "--fusion", "rbp"], "not strictly between"),
])
def test_bad_strategy_requests(runs: list[Path], extra: list[str], message: str,
                               tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("10 0 a 1\n")
    args = [str(qrels) if a == "QRELS" else a for a in extra]
    assert main(["pool", *map(str, runs), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("inexeval: error:") and err.count("\n") == 1


def test_stratified_sample_and_its_simulated_qrels(tmp_path: Path) -> None:
    """Fused (rrf) ranks of r1 = a b c d, r2 = e a f g at depth 4: a e b c f d g; strata 1-2
    whole and 3-7 at 0.4: 2 of the 5 drawn, each with probability 2/5."""
    r1, r2 = _doc_run(tmp_path, "r1", "abcd"), _doc_run(tmp_path, "r2", "eafg")
    out = tmp_path / "sample.tsv"
    args = ["pool", str(r1), str(r2), "--depth", "4", "--sample", "stratified", "--strata",
            "1-2:1,3-7:0.4"]
    assert main([*args, "-o", str(out)]) == 0
    rows = [line.split("\t") for line in _lines(out)]
    assert [r[1] for r in rows] == list("aebcfdg")
    assert [r[5] for r in rows] == ["1-2"] * 2 + ["3-7"] * 5
    assert [r[6] for r in rows] == ["1.0"] * 2 + ["0.4"] * 5
    assert [r[7] for r in rows][:2] == ["1", "1"] and [r[7] for r in rows].count("1") == 4
    qrels = tmp_path / "full.qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 1\n1 0 e 0\n1 0 f 1\n1 0 g 0\n")
    sampled = tmp_path / "sampled.qrels"
    assert main([*args, "--qrels", str(qrels), "--format", "sampled-qrels",
                 "-o", str(sampled)]) == 0
    full = {line.split()[2]: line.split()[3] for line in _lines(qrels)}
    for row, line in zip(rows, _lines(sampled)):
        fields = line.split()
        assert fields[:4] == ["1", "0", row[1], row[5]]
        assert fields[4] == (full[row[1]] if row[7] == "1" else "-1")
    assert main([*args, "--strata", "3-1:0.5"]) == 2


def test_strategies_and_samples_read_fol_qrels(tmp_path: Path) -> None:
    """On FOL qrels an article with relevant characters is relevant (level 1 when a sample is
    filled); topics the qrels do not judge are left out of the sampled qrels."""
    r1, r2 = _doc_run(tmp_path, "r1", "abcd"), _doc_run(tmp_path, "r2", "eafg")
    fol = tmp_path / "fol.qrels"
    fol.write_text("1 Q0 a 0 100\n1 Q0 b 10 100 -1 0:10\n1 Q0 c 5 50 -1 1:5\n"
                   "1 Q0 e 7 70 -1 0:7\n1 Q0 f 0 80\n")
    out = tmp_path / "pool.tsv"
    assert main(["pool", str(r1), str(r2), "--depth", "3", "--strategy", "mtf", "--qrels",
                 str(fol), "-o", str(out)]) == 0
    # relevant b c e: as the TREC case of test_strategies_from_the_command_line
    assert "".join(line.split("\t")[1] for line in _lines(out)) == "aefbc"
    assert main(["pool", str(r1), str(r2), "--depth", "4", "--sample", "stratified",
                 "--strata", "1-7:1", "--qrels", str(fol), "--format", "sampled-qrels",
                 "-o", str(out)]) == 0
    assert _lines(out) == ["1 0 a 1-7 0", "1 0 e 1-7 1", "1 0 b 1-7 1", "1 0 c 1-7 1",
                           "1 0 f 1-7 0", "1 0 d 1-7 0", "1 0 g 1-7 0"]


def test_statap_sample_from_the_command_line(tmp_path: Path) -> None:
    r1, r2 = _doc_run(tmp_path, "r1", "abcd"), _doc_run(tmp_path, "r2", "eafg")
    out = tmp_path / "sample.tsv"
    assert main(["pool", str(r1), str(r2), "--depth", "4", "--sample", "statap", "--budget",
                 "3", "-o", str(out)]) == 0
    rows = [line.split("\t") for line in _lines(out)]
    assert sorted(r[1] for r in rows) == list("abcdefg")
    assert rows[0][1] == "a"  # the highest AP prior: rank 1 and rank 2
    drawn = sum(int(r[7]) for r in rows)
    assert 2 <= drawn <= 4
    assert main(["pool", str(r1), str(r2), "--sample", "statap"]) == 2
    assert main(["pool", str(r1), str(r2), "--sample", "statap", "--budget", "2",
                 "--strata", "1-2:1"]) == 2
