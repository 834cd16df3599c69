"""Every command that takes --format gives Markdown and LaTeX: the same tables as its text
output, each a well-formed pipe table or booktabs tabular (differential: the cells of one
renderer, read back, are the cells of the other)."""

import re
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run
from table_readers import latex_tables as _latex_tables
from table_readers import markdown_tables as _markdown_tables

from clustermetrics.cli.main import build_parser
from clustermetrics.cli.output import FORMATS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TRUTH, PRED = EXAMPLES / "truth.txt", EXAMPLES / "pred.txt"


@pytest.fixture(scope="module")
def runs_csv(tmp_path_factory):
    rng = np.random.default_rng(2)
    t = rng.integers(0, 3, 90)
    a = np.where(rng.random(90) < 0.8, t, rng.integers(0, 3, 90))
    b = np.where(rng.random(90) < 0.3, t, rng.integers(0, 3, 90))
    x = t + rng.normal(0, 0.3, 90)
    path = tmp_path_factory.mktemp("runs") / "runs.csv"
    path.write_text("t,a,b,x,y\n" + "".join(
        f"{i},{j},{k},{u:.4f},{v:.4f}\n"
        for i, j, k, u, v in zip(t, a, b, x, rng.normal(0, 1, 90), strict=True)))
    return path


# the cheapest run of each command that shows its tables
ARGV = {
    "score": lambda p: ["score", TRUTH, PRED, "--metrics", "ari,nmi,recovery_rate", "--ci",
                        "0.9", "--n-boot", "20", "--seed", "1", "--significance",
                        "--details", "2"],
    "metrics": lambda p: ["metrics"],
    "paired": lambda p: ["paired", p, "--true-col", "t", "--a-col", "a", "--b-col", "b",
                         "--metrics", "ari,nmi"],
    "hierarchy": lambda p: ["hierarchy", p, "--true-col", "t", "--features", "x,y",
                            "--metrics", "ari,nmi", "--k", "2"],
    "compare": lambda p: ["compare", "--dataset", "iris", "--algorithms", "kmeans,ward",
                          "--metrics", "ari", "--quiet"],
    "demo": lambda p: ["demo", "--n-min", "2", "--n-max", "3", "--n-per-cluster", "30",
                       "--algorithms", "kmeans", "--bruteforce-max", "4", "--timing-max",
                       "30", "--quiet"],
    "chance": lambda p: ["chance", "--metrics", "ari,nmi", "--repeats", "1", "--points",
                         "2", "--experiment", "equal", "--quiet"],
    "coverage": lambda p: ["coverage", "--shapes", "8x10", "--sizes", "300", "--metrics",
                           "ari", "--tables", "2", "--n-boot", "10", "--population", "5000",
                           "--seed", "3", "--quiet"],
    "paired-calibration": lambda p: ["paired-calibration", "--trials", "1", "--classes", "3",
                                     "--keeps", "0.5", "--sizes", "30", "--metrics", "ari",
                                     "--quiet"],
}


def test_every_command_with_format_is_checked():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    having = {name for name, p in sub.choices.items()
              if any(a.dest == "format" for a in p._actions)}
    assert having == set(ARGV)
    for name in having:
        action = next(a for a in sub.choices[name]._actions if a.dest == "format")
        assert tuple(action.choices) == FORMATS and {"markdown", "latex"} <= set(FORMATS)
        assert all(f in action.help for f in FORMATS)


# columns of seconds measured: they differ from run to run
_TIMES = {"fit s", "t s", "bruteforce", "exact", "greedy"}


def _masked(tables):
    return [[table[0], *([("*" if head in _TIMES else cell)
                          for head, cell in zip(table[0], row, strict=True)]
                         for row in table[1:])] for table in tables]


@pytest.mark.parametrize("command", sorted(ARGV))
def test_markdown_and_latex_hold_the_text_tables(command, capsys, runs_csv):
    outputs = {}
    for fmt in ("table", "markdown", "latex"):
        code, out, err = run(capsys, *ARGV[command](runs_csv), "--format", fmt)
        assert code == 0, err
        outputs[fmt] = out
    markdown = _masked(_markdown_tables(outputs["markdown"]))
    latex = _masked(_latex_tables(outputs["latex"]))
    assert markdown and markdown == latex
    text = outputs["table"]
    for table in markdown:
        for row in table:
            for cell in row:
                assert cell in text or cell == "*", (cell, command)
    assert "\x1b" not in outputs["markdown"] + outputs["latex"]


def test_demo_tables_1_2_are_ready_to_paste(capsys):
    code, out, err = run(capsys, *ARGV["demo"](None), "--format", "latex")
    assert code == 0, err
    captions = re.findall(r"\\caption\{([^\n]*)\}\n", out)
    assert captions[:2] == [c for c in captions if c.startswith("Table ")][:2]
    assert captions[0].startswith("Table 1. Iteration 1 (algorithm seed")
    first = _latex_tables(out)[0]
    assert first[0] == ["n", "algorithm", "m", "exact %", "t s", "greedy %", "t s", "pseudo %"]
    assert [row[:2] for row in first[1:]] == [["2", "kmeans"], ["3", "kmeans"]]
