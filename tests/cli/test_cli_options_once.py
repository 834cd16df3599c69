"""A single-valued option given twice is refused by the parser, for every option of every
command (argparse alone keeps the last value without a word); repeatable options still
collect every value."""

import argparse

import pytest
from cli_helpers import run

from clustermetrics.cli.main import build_parser


def _single_valued() -> list[tuple[str, argparse.Action]]:
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    return [(name, a) for name, p in sub.choices.items() for a in p._actions
            if a.option_strings and a.nargs != 0 and not isinstance(a, argparse._AppendAction)]


def _accepted(action: argparse.Action) -> str:
    """A value the option's own type accepts, so that only the repetition can fail."""
    if action.choices:
        return str(next(iter(action.choices)))
    defaults = [] if action.default is None else [str(action.default)]
    for text in [*defaults, "1", "2", "0.9", "ari", "a"]:
        try:
            (action.type or str)(text)
        except Exception:  # the type's own refusal, whichever class it raises
            continue
        return text
    raise AssertionError(f"no value found for {action.option_strings}")


OPTIONS = _single_valued()


def test_every_command_has_single_valued_options():
    assert {name for name, _ in OPTIONS} >= {"score", "compare", "paired", "chance",
                                            "coverage", "hierarchy"}
    assert len(OPTIONS) > 40


@pytest.mark.parametrize("command, action", OPTIONS,
                         ids=[f"{c} {max(a.option_strings, key=len)}" for c, a in OPTIONS])
def test_given_twice_is_one_line_exit_2(capsys, command, action):
    value = _accepted(action)
    flag = max(action.option_strings, key=len)
    short = min(action.option_strings, key=len)
    code, out, err = run(capsys, command, short, value, flag, value)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"clustermetrics: error: {flag} is given twice"), err


def test_repeatable_options_still_collect(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("y,p,q\n0,0,1\n0,1,1\n1,1,0\n")
    code, out, err = run(capsys, "score", table, "--true-col", "y", "--pred-col", "p",
                         "--pred-col", "q", "--metrics", "ari", "--format", "csv")
    assert code == 0, err
    assert [line.split(",")[0] for line in out.splitlines()] == ["pred", "p", "q"]
