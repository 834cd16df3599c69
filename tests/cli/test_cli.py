"""The command line: outputs agree with the library, every error is one line + exit 2."""

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import labels as _labels
from cli_helpers import run as _run
from sklearn.metrics import adjusted_rand_score as sk_ari

import clustermetrics as cm
from clustermetrics.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def test_score_two_files_json_agrees_with_library_and_sklearn(capsys):
    code, out, err = _run(capsys, "score", EXAMPLES / "truth.txt", EXAMPLES / "pred.txt",
                          "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    t, p = _labels(EXAMPLES / "truth.txt"), _labels(EXAMPLES / "pred.txt")
    expected = cm.evaluate(t, p)
    assert data["scores"] == pytest.approx(dict(expected), abs=0)
    assert data["scores"]["ari"] == pytest.approx(sk_ari(t, p), abs=1e-12)
    assert data["n_samples"] == len(t)
    assert data["details"]["recovery_rate"]["matching"]


def test_score_table_from_csv_columns(capsys):
    code, out, _ = _run(capsys, "score", EXAMPLES / "labels.csv", "--true-col", "species",
                        "--pred-col", "cluster", "--metrics", "ari,nmi")
    assert code == 0
    with open(EXAMPLES / "labels.csv") as fh:
        rows = list(csv.DictReader(fh))
    ari = cm.adjusted_rand_score([r["species"] for r in rows], [r["cluster"] for r in rows])
    assert f"{ari:.6f}" in out
    assert out.splitlines()[0] == f"N = {len(rows)}, 4 classes, 4 clusters"
    # a header naming the columns the CSV names too (metric key, score name, value)
    assert out.splitlines()[1].split() == ["metric", "score", "value"]
    assert len(out.splitlines()) == 4


def test_tsv_csv_output_and_output_file(tmp_path, capsys):
    table = tmp_path / "data.tsv"
    table.write_text("t\tp\tother\na\tx\t1\na\tx\t2\nb\ty\t3\nb\tx\t4\n")
    target = tmp_path / "out.csv"
    code, out, _ = _run(capsys, "score", table, "--true-col", "t", "--pred-col", "p",
                        "--format", "csv", "--metrics", "ri,pair_precision", "-o", target)
    assert code == 0 and out == ""
    rows = list(csv.reader(target.read_text().splitlines()))
    assert rows[0] == ["metric", "value"]
    assert float(rows[1][1]) == cm.rand_score(list("aabb"), list("xxyx"))
    assert float(rows[2][1]) == cm.pair_precision_score(list("aabb"), list("xxyx"))


def test_labels_are_exact_strings(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("01\n1\n01\n1\n")
    (tmp_path / "p.txt").write_text("a\na\nb\nb\n")
    code, out, _ = _run(capsys, "score", tmp_path / "t.txt", tmp_path / "p.txt", "--format",
                        "json", "--metrics", "ari")
    assert code == 0
    assert json.loads(out)["n_classes"] == 2  # "01" and "1" differ


def test_header_option(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("truth\na\na\nb\n")
    (tmp_path / "p.txt").write_text("pred\n1\n1\n2\n")
    code, out, _ = _run(capsys, "score", tmp_path / "t.txt", tmp_path / "p.txt", "--header",
                        "--format", "json", "--metrics", "ari")
    assert code == 0 and json.loads(out)["scores"]["ari"] == 1.0


def test_sep_option_and_trailing_blank_lines(tmp_path, capsys):
    table = tmp_path / "data.txt"
    table.write_text("t;p\na;x\na;x\nb;y\nb;x\n\n\n")
    code, out, err = _run(capsys, "score", table, "--true-col", "t", "--pred-col", "p",
                          "--sep", ";", "--format", "json", "--metrics", "ari")
    assert code == 0, err
    assert json.loads(out)["n_samples"] == 4
    assert json.loads(out)["scores"]["ari"] == pytest.approx(sk_ari(list("aabb"),
                                                                     list("xxyx")), abs=1e-15)


def test_only_line_ends_split_labels(tmp_path, capsys):
    # str.splitlines() would cut "a\u2028b" in two and make the files unequal in length
    (tmp_path / "t.txt").write_text("a\u2028b\nc\n", encoding="utf-8")
    (tmp_path / "p.txt").write_text("x\ny\n")
    code, out, err = _run(capsys, "score", tmp_path / "t.txt", tmp_path / "p.txt",
                          "--format", "json", "--metrics", "ari")
    assert code == 0, err
    assert json.loads(out)["n_samples"] == 2


def test_help_and_version_return_zero(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"clustermetrics {cm.__version__}"
    assert main(["score", "--help"]) == 0
    assert "--true-col" in capsys.readouterr().out


def test_metrics_listing(capsys):
    code, out, _ = _run(capsys, "metrics")
    assert code == 0
    for key in cm.METRICS:
        assert any(line.split()[0] == key for line in out.splitlines()[1:])
    # the listing is wider than a line: it folds, the key heading each part
    heads = [line for line in out.splitlines() if line.startswith("key ")]
    assert len(heads) >= 2 and heads[-1].split()[-1] == "reference"
    assert cm.METRICS["ari"].reference in out
    code, out, _ = _run(capsys, "metrics", "--format", "json")
    listed = json.loads(out)
    assert [row["key"] for row in listed] == list(cm.METRICS)
    assert listed[0]["lower"] == cm.METRICS[listed[0]["key"]].lower
    code, out, _ = _run(capsys, "metrics", "--format", "csv")
    assert out.splitlines()[0].startswith("key,name,family,lower,upper")


def _write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("setup, argv, message", [
    (lambda d: None, ["score", "{d}/missing.txt", "{d}/missing2.txt"], "no such file"),
    (lambda d: _write(d, "t.txt", b"\x89PNG\x00\x01\xff\xfe", "wb"),
     ["score", "{d}/t.txt", "{d}/t.txt"], "is not UTF-8 text"),
    (lambda d: _write(d, "t.txt", ""), ["score", "{d}/t.txt", "{d}/t.txt"], "is empty"),
    (lambda d: (_write(d, "t.txt", "a\nb\nc\n"), _write(d, "p.txt", "x\ny\n")),
     ["score", "{d}/t.txt", "{d}/p.txt"], "t.txt has 3 labels but {d}/p.txt has 2"),
    (lambda d: _write(d, "c.csv", "a,b\n1,2\n"),
     ["score", "{d}/c.csv", "--true-col", "a", "--pred-col", "z"],
     "has no column 'z' (--pred-col); columns are: 'a', 'b'"),
    (lambda d: _write(d, "c.csv", "a,b\n1,2\n3\n"),
     ["score", "{d}/c.csv", "--true-col", "a", "--pred-col", "b"],
     "line 3 has 1 fields but the header has 2"),
    (lambda d: _write(d, "c.csv", "a,b\n1,2\n,4\n"),
     ["score", "{d}/c.csv", "--true-col", "a", "--pred-col", "b"],
     "line 3: column 'a' is empty"),
    (lambda d: (_write(d, "t.txt", "a\n\nb\n"), _write(d, "p.txt", "x\ny\nz\n")),
     ["score", "{d}/t.txt", "{d}/p.txt"], "t.txt line 2 is empty"),
    (lambda d: (_write(d, "t.txt", "a,b\nc,d\n"), _write(d, "p.txt", "x\ny\n")),
     ["score", "{d}/t.txt", "{d}/p.txt"], "line 1 has 2 fields; expected one label per row"),
    (lambda d: _write(d, "c.csv", "a,b\n1,2\n"), ["score", "{d}/c.csv"],
     "a single file needs --true-col and --pred-col"),
    (lambda d: None, ["score", "x", "y", "--metrics", "ari,bogus"], "unknown metric 'bogus'"),
    (lambda d: None, ["score", "x", "y", "--format", "xml"], "invalid choice: 'xml'"),
    (lambda d: None, ["frobnicate"], "invalid choice: 'frobnicate'"),
    (lambda d: None, [], "the following arguments are required: COMMAND"),
    (lambda d: None, ["score", "{d}", "{d}"], "is a directory"),
    (lambda d: _write(d, "t.txt", "a\x00b\nc\n"), ["score", "{d}/t.txt", "{d}/t.txt"],
     "contains NUL bytes"),
    # a quoted cell spanning lines 2-3: the blank label is on physical line 4
    (lambda d: _write(d, "c.csv", 't,p,note\na,x,"two\nlines"\n,y,z\n'),
     ["score", "{d}/c.csv", "--true-col", "t", "--pred-col", "p"],
     "c.csv line 4: column 't' is empty"),
    (lambda d: None, ["metrics", "--format", "yaml"], "invalid choice: 'yaml'"),
    (lambda d: (_write(d, "t.txt", "a\nb\n"), _write(d, "p.txt", "x\ny\n")),
     ["score", "{d}/t.txt", "{d}/p.txt", "-o", "{d}"], "Is a directory"),
])
def test_errors_are_one_line_with_status_2(tmp_path, capsys, setup, argv, message):
    setup(tmp_path)
    code, out, err = _run(capsys, *[a.format(d=tmp_path) for a in argv])
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("clustermetrics: error: ")
    assert message.format(d=tmp_path) in lines[0]
    assert "Traceback" not in err


def _subprocess(*argv):
    return subprocess.run(list(argv), capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_python_dash_m_entry_point():
    res = _subprocess(sys.executable, "-m", "clustermetrics", "score", "examples/truth.txt",
                      "examples/pred.txt", "--metrics", "ari", "--format", "json")
    assert res.returncode == 0, res.stderr
    t, p = _labels(EXAMPLES / "truth.txt"), _labels(EXAMPLES / "pred.txt")
    assert json.loads(res.stdout)["scores"]["ari"] == cm.adjusted_rand_score(t, p)


def test_console_script_and_error_status():
    script = Path(sys.executable).with_name("clustermetrics")
    res = _subprocess(str(script), "--version")
    assert res.returncode == 0 and res.stdout.strip() == f"clustermetrics {cm.__version__}"
    res = _subprocess(str(script), "score", "nope.txt", "nope.txt")
    assert res.returncode == 2
    assert res.stderr.strip() == "clustermetrics: error: nope.txt: no such file"


def test_import_stays_light():
    """The library and the CLI import numpy and scipy only: optional extras, numba and
    scipy.optimize load when a call needs them."""
    heavy = ("pandas", "polars", "pyarrow", "matplotlib", "sklearn", "numba", "duckdb",
             "pyspark", "scipy.optimize")
    for module in ("clustermetrics", "clustermetrics.cli"):
        code = (f"import sys, {module}; "
                f"print([m for m in {heavy!r} if m in sys.modules])")
        res = _subprocess(sys.executable, "-c", code)
        assert res.stdout.strip() == "[]", (module, res.stdout, res.stderr)


def test_example_files_are_consistent():
    t, p = _labels(EXAMPLES / "truth.txt"), _labels(EXAMPLES / "pred.txt")
    assert len(t) == len(p) == 300
    assert np.unique(t).size == 4


def _numeric_options():
    """(command, required positionals, flag, every option's parameter name) for each
    option of every command that takes a number."""
    import argparse

    from clustermetrics.cli.main import build_parser

    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    for command, parser in sub.choices.items():
        positionals = [a for a in parser._actions if not a.option_strings and a.nargs is None]
        dests = {a.dest for a in parser._actions if a.option_strings}
        for action in parser._actions:
            if action.option_strings and action.type not in (None, str) and \
                    action.nargs is None:
                yield command, len(positionals), max(action.option_strings, key=len), sorted(dests)


@pytest.mark.parametrize("command, n_files, flag, dests",
                         list(_numeric_options()), ids=lambda v: str(v)[:30])
@pytest.mark.parametrize("bad", ["-1", "nan", "x"])
def test_bad_numbers_are_named_by_their_flags(tmp_path, capsys, monkeypatch, command,
                                              n_files, flag, dests, bad):
    """A bad number is refused in the command line's words: the flag, never the library's
    parameter name or its Python-only alternatives (None, numpy generators)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text("0\n0\n1\n1\n2\n2\n")
    uses = {"score": ["--permutations", "9", "--ci", "0.9"]}.get(command, [])  # all checked
    assert main([command, *["t.txt"] * n_files, *uses, flag, bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err, err
    assert "numpy" not in err and "None" not in err, err
    for dest in dests:
        assert not re.search(rf"(?<![-\w]){dest} must", err), err
