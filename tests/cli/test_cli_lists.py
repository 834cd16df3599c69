"""Every command reads a comma-separated option the same way: a value given twice (after
parsing: ``ari`` and ``adjusted_rand_score`` are one score, ``07`` and ``7`` one number) is
refused, before any work, in one line ``OPTION names VALUE twice``, exit status 2; so is
a bad value, naming the option. The options are found in the parser: a new comma list
without a case here fails the first test."""

from __future__ import annotations

import argparse

import pytest
from cli_helpers import run

from clustermetrics.cli.main import build_parser


def _list_options() -> set[tuple[str, str]]:
    """(command, option) of every option whose help says it takes a comma-separated
    list (or a comma list)."""
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    return {(name, max(a.option_strings, key=len)) for name, p in sub.choices.items()
            for a in p._actions
            if a.help and ("comma-separated" in a.help or "comma list" in a.help
                           or "a list N,M" in a.help)}


# (the least the command needs to get to reading the option, a value, how the message
# names the value given twice)
CASES = {
    ("score", "--metrics"): (["t.txt", "t.txt"], "ari,adjusted_rand_score", "'ari'"),
    ("paired", "--metrics"): (["t.txt", "t.txt", "t.txt"], "nmi,NMI", "'nmi'"),
    ("chance", "--metrics"): (["--repeats", "2"], "ari,nmi,ari", "'ari'"),
    ("coverage", "--metrics"): (["--tables", "2"], "ari,ari", "'ari'"),
    ("coverage", "--shapes"): (["--tables", "2"], "8x10,30x40,8x10", "'8x10'"),
    ("coverage", "--sizes"): (["--tables", "2"], "100,0100", "100"),
    ("coverage", "--methods"): (["--tables", "2"], "normal, normal", "'normal'"),
    ("paired-calibration", "--metrics"): (["--trials", "1"], "ari,ARI", "'ari'"),
    ("paired-calibration", "--classes"): (["--trials", "1"], "3,03", "3"),
    ("paired-calibration", "--keeps"): (["--trials", "1"], "0.5,0.50", "0.5"),
    ("paired-calibration", "--sizes"): (["--trials", "1"], "30,030", "30"),
    ("compare", "--metrics"): (["--dataset", "iris"], "ari,ari", "'ari'"),
    ("compare", "--dataset"): ([], "iris,iris", "'iris'"),
    ("compare", "--algorithms"): (["--dataset", "iris"], "kmeans,kmeans", "'kmeans'"),
    ("compare", "--features"): (["--data", "d.csv", "--label-col", "label"], "x,x", "'x'"),
    ("compare", "--k"): (["--dataset", "iris", "--algorithms", "kmeans"], "2-4,3", "3"),
    ("demo", "--algorithms"): ([], "kmeans,kmeans", "'kmeans'"),
    ("demo", "--seeds"): ([], "0,1,0", "0"),
    ("hierarchy", "--metrics"): (["d.csv", "--true-col", "label"], "ari,ari", "'ari'"),
    ("hierarchy", "--k"): (["d.csv", "--true-col", "label"], "2,3,2", "2"),
    ("hierarchy", "--features"): (["d.csv", "--true-col", "label"], "x,y,x", "'x'"),
}


def test_every_comma_list_option_has_a_case():
    assert _list_options() == set(CASES)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text("a\nb\nb\n")
    (tmp_path / "d.csv").write_text("x,y,label\n" + "".join(
        f"{i},{i % 3},{'ab'[i % 2]}\n" for i in range(12)))


@pytest.mark.parametrize("command, option", sorted(CASES))
def test_a_value_given_twice_is_refused_in_one_line(capsys, files, command, option):
    argv, value, shown = CASES[command, option]
    code, out, err = run(capsys, command, *argv, f"{option}={value}")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{option} names {shown} twice" in err, err


@pytest.mark.parametrize("command, option", sorted(CASES))
def test_an_empty_or_unknown_value_names_the_option(capsys, files, command, option):
    argv, value, _ = CASES[command, option]
    first = value.split(",")[0]
    for bad in (f"{first},", f"{first},nope-0"):
        code, out, err = run(capsys, command, *argv, f"{option}={bad}")
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert option in err, err
