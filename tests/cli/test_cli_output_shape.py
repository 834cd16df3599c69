"""What the commands print reads alike: one rule for p-values, notes about what a command
wrote after its tables, and lines of at most 100 characters where runs add columns."""

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run

from clustermetrics import METRICS
from clustermetrics.render.text import LINE_WIDTH, pvalue_text

# three significant digits, or below the floor
P_RULE = re.compile(r"^(?:< 0\.001|1\.00|0\.[1-9]\d\d|0\.0[1-9]\d\d|0\.00[1-9]\d\d|undefined)$")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 200)
    runs = {name: np.where(rng.random(200) < keep, y, rng.integers(0, 4, 200))
            for name, keep in (("kmeans", 0.8), ("gmm", 0.5), ("ward", 0.1))}
    path = tmp_path_factory.mktemp("runs") / "runs.csv"
    pd.DataFrame({"y": y, **runs}).to_csv(path, index=False)
    return path


def _p_cells(text: str) -> list[str]:
    """Every p-value a text table shows: the cells under a header naming p-value."""
    cells = []
    for block in text.split("\n\n"):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if not re.match(r"\s*(?:metric|score)  ", line):  # a table's header
                continue
            for m in re.finditer(r"p-value", line):
                start = line.rfind("  ", 0, m.start()) + 2
                for row in lines[i + 1:]:
                    if row.split()[:1] and row.split()[0] not in METRICS:  # the notes
                        break
                    cell = re.split(r" {2,}| ± ", row[start:].strip() + "  ")[0]
                    if cell and cell != "-":
                        cells.append(cell)
    return cells


def test_pvalue_rule():
    assert [pvalue_text(p) for p in (0.5, 0.04762, 0.0012, 1e-4, 0.0, 1.0)] == [
        "0.500", "0.0476", "0.00120", "< 0.001", "< 0.001", "1.00"]
    assert all(P_RULE.match(pvalue_text(p)) for p in np.linspace(0, 1, 1001))


def test_every_command_prints_pvalues_by_the_one_rule(capsys, table):
    """The analytic test printed "< 1e-300", the permutation test four digits, the paired
    test three: now one rule everywhere."""
    outputs = [
        run(capsys, "score", table, "--true-col", "y", "--pred-col", "kmeans", "--metrics",
            "ari,ri,nmi", "--significance", "--permutations", "20", "--seed", "1"),
        run(capsys, "score", table, "--true-col", "y", "--pred-col", "kmeans", "--pred-col",
            "ward", "--metrics", "ari", "--significance", "--permutations", "20",
            "--seed", "1"),
        run(capsys, "paired", table, "--true-col", "y", "--a-col", "kmeans", "--b-col", "gmm",
            "--metrics", "ari,nmi,vi")]
    seen = []
    for code, out, err in outputs:
        assert code == 0, err
        seen += _p_cells(out)
    assert len(seen) >= 10 and "< 0.001" in seen
    assert [c for c in seen if not P_RULE.match(c)] == []


def test_report_note_follows_the_tables(tmp_path):
    """With stdout and stderr in one pipe (a log file), "report written" comes last."""
    done = subprocess.run(
        [sys.executable, "-m", "clustermetrics", "chance", "--metrics", "ari", "--repeats",
         "1", "--points", "2", "--experiment", "equal", "--report", str(tmp_path / "r")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert done.returncode == 0, done.stdout
    lines = done.stdout.rstrip("\n").splitlines()
    assert "ari" in done.stdout and lines[-1].startswith("clustermetrics: report written to")


def test_runs_with_intervals_fit_the_line_width(capsys, table):
    """Three runs with intervals, z, p and permutation p ran to ~190 characters a line:
    the table folds into tables of one kind of column, the notes wrap."""
    code, out, err = run(capsys, "score", table, "--true-col", "y", "--pred-col", "kmeans",
                         "--pred-col", "gmm", "--pred-col", "ward", "--metrics", "ari,nmi",
                         "--ci", "0.95", "--n-boot", "20", "--seed", "0", "--significance",
                         "--permutations", "10")
    assert code == 0, err
    assert max(map(len, out.splitlines())) <= LINE_WIDTH, out
    for name in ("kmeans", "gmm", "ward"):
        assert f"{name} 95% interval" in out and f"{name} permutation p-value" in out
    assert out.count("bias-corrected normal intervals") == 1


# every option of `score` that adds a column, a note or a table to its text output
_WIDENING = {
    "intervals": ["--ci", "0.95", "--n-boot", "10", "--seed", "0"],
    "significance": ["--significance"],
    "permutations": ["--permutations", "5"],
    "details": ["--details", "all"],
    "noise": ["--noise-label", "0", "--noise", "singletons"],
}


def _widest_keys():
    """The scores whose key, and whose name, are the longest: the widest rows."""
    by_key = max(METRICS, key=len)
    by_name = max(METRICS, key=lambda k: len(METRICS[k].name))
    return ",".join(dict.fromkeys(["ari", by_key, by_name]))


@pytest.mark.parametrize("runs", [1, 3])
@pytest.mark.parametrize("references", [1, 2])
@pytest.mark.parametrize("ci_method", ["bca", "normal"])
def test_every_option_combination_of_score_fits_the_line_width(capsys, table, runs,
                                                                references, ci_method):
    """Each combination of the options that widen `score`'s text (intervals, z and p,
    permutation p, diagnostics, noise handling; one or several runs and references): no
    line over 100 characters. A single run with every option was 142 wide."""
    import itertools

    true_cols, pred_cols = ["y", "kmeans"][:references], ["gmm", "ward", "kmeans"][:runs]
    base = ["score", table, *itertools.chain.from_iterable(("--true-col", c) for c in true_cols),
            *itertools.chain.from_iterable(("--pred-col", c) for c in pred_cols),
            "--metrics", _widest_keys()]
    if references > 1 and runs > 1:
        code, _, err = run(capsys, *base)
        assert code == 2 and "not both" in err
        return
    base += ["--ci-method", ci_method]
    for chosen in itertools.product([False, True], repeat=len(_WIDENING)):
        extra = [a for on, args in zip(chosen, _WIDENING.values(), strict=True) if on
                 for a in args]
        if ci_method != "normal" and "--ci" not in extra:
            continue  # the method applies to intervals
        code, out, err = run(capsys, *base, *extra)
        if code == 2 and "applies to" in err:
            continue  # a combination the command refuses, naming both options
        assert code == 0, (extra, err)
        wide = [line for line in out.splitlines() if len(line) > LINE_WIDTH]
        assert not wide, (extra, wide)
