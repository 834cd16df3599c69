"""Every command-line error path enumerated here prints one line, exits with status 2, and
speaks of the command line: its options, never the library's parameter names
(``sample_weight`` where the user wrote --weight-col) or keyword syntax (``noise=...``)."""

import argparse
import inspect
import re

import pytest
from cli_helpers import run

import clustermetrics as cm
from clustermetrics.cli.main import build_parser
from clustermetrics.io import duckdb_engine as duckdb_source
from clustermetrics.io import files, parquet

BAD_VALUES = ["x!", "-1", "0", "1e999", "", "nan", "2.5"]


def _library_names() -> set[str]:
    """The library's parameter names that cannot be prose (they hold an underscore)."""
    functions = [getattr(cm, n) for n in cm.__all__ if callable(getattr(cm, n))]
    functions += [duckdb_source.from_duckdb, parquet.from_parquet, files.read_labels]
    names = set()
    for f in functions:
        try:
            names |= set(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            continue
    return {n for n in names if "_" in n.strip("_")}


LIBRARY_NAMES = _library_names()


def _unquoted(text: str) -> str:
    return re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", text)


def _check(code, out, err):
    assert code == 2 and out == "", (code, err)
    assert err.count("\n") == 1 and err.startswith("clustermetrics: error: "), err
    words = set(re.findall(r"(?<![-\w])[a-z]\w*(?![-\w])", _unquoted(err)))
    assert not words & LIBRARY_NAMES, (words & LIBRARY_NAMES, err)
    assert not re.search(r"\w=", _unquoted(err)), err


def _typed_options():
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        for a in p._actions:
            if a.option_strings and a.nargs != 0 and (a.type or a.choices):
                yield name, a


def _refused(action, value) -> bool:
    if action.choices and value not in action.choices:
        return True
    try:
        (action.type or str)(value)
    except Exception:  # the option's own type refuses it (whatever it raises)
        return True
    return False


CASES = [(c, max(a.option_strings, key=len), v) for c, a in _typed_options()
         for v in BAD_VALUES if _refused(a, v)]


def test_the_enumeration_covers_the_commands():
    assert {c for c, _, _ in CASES} >= {"score", "compare", "paired", "chance", "coverage",
                                        "hierarchy", "demo"}


@pytest.mark.parametrize("command, flag, value", CASES)
def test_a_value_an_option_refuses(capsys, command, flag, value):
    _check(*run(capsys, command, f"{flag}={value}"))


@pytest.fixture(scope="module")
def real_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("real") / "r.csv"
    path.write_text("y,p,w\n0,0,0.5\n0,1,1.5\n1,1,2.25\n1,0,1\n2,2,0.25\n")
    return path


def _whole_item_keys():
    """The scores the library refuses on real masses, found by asking it."""
    table = cm.Contingency.from_labels([0, 0, 1], [0, 1, 1], [0.5, 1.5, 1.0])
    keys = []
    for key in cm.METRICS:
        try:
            cm.evaluate(table, metrics=[key])
        except ValueError:
            keys.append(key)
    return keys


@pytest.mark.parametrize("extra", [
    *(["--metrics", key] for key in _whole_item_keys()),
    ["--metrics", "ari", "--ci", "0.9"], ["--metrics", "ari", "--permutations", "9"],
    ["--metrics", "ari", "--significance"], ["--metrics", "ari", "--noise-label", "0"],
], ids=lambda extra: " ".join(extra))
def test_real_weights_refused_in_command_line_words(capsys, real_table, extra):
    _check(*run(capsys, "score", real_table, "--true-col", "y", "--pred-col", "p",
                "--weight-col", "w", *extra))


@pytest.mark.parametrize("argv", [
    ["score", "{real}", "--true-col", "y", "--pred-col", "p", "--weight-col", "p"],
    ["score", "{real}", "--true-col", "y", "--pred-col", "zz"],
    ["score", "{real}", "--true-col", "y", "--pred-col", "p", "--engine", "duckdb",
     "--memory-limit", "lots"],
    ["score", "{real}", "--true-col", "y", "--pred-col", "p", "--metrics", "ari,ari"],
    ["score", "{real}", "--true-col", "y", "--pred-col", "p", "--noise", "exclude"],
    ["score", "{real}", "--true-col", "y", "--pred-col", "p", "--n-boot", "5"],
])
def test_other_error_paths(capsys, real_table, argv):
    _check(*run(capsys, *[a.format(real=real_table) for a in argv]))


def test_notes_name_the_command_line_options(tmp_path, capsys):
    """A note (a warning of the library) names the command's option, not the library's
    parameter: real weights leave scores out 'from --weight-col', never 'sample_weight'."""
    from clustermetrics.cli import main

    path = tmp_path / "w.csv"
    path.write_text("t,p,w\na,x,0.5\na,x,1.5\nb,y,1\nb,x,2.25\nc,y,1\n")
    assert main(["score", str(path), "--true-col", "t", "--pred-col", "p",
                 "--weight-col", "w"]) == 0
    err = capsys.readouterr().err
    assert "note:" in err and "--weight-col" in err and "sample_weight" not in err, err
