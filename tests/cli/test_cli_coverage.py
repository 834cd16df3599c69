"""The coverage command and --ci-method: the library's numbers in every format, bad
values refused in one line."""

import csv
import io
import json
import math

import pytest
from cli_helpers import run

from clustermetrics import evaluate
from clustermetrics.experiments.coverage import coverage_study

SMALL = ["--shapes", "8x10", "--sizes", "300,600", "--metrics", "ari,nmi", "--tables", "4",
         "--n-boot", "20", "--population", "20000", "--seed", "3"]


def test_coverage_command_is_the_study(capsys, tmp_path):
    study = coverage_study(["8x10"], [300, 600], ["ari", "nmi"], n_tables=4, n_boot=20,
                           population=20000, seed=3)
    code, out, _ = run(capsys, "coverage", *SMALL, "--format", "json")
    assert code == 0
    # JSON writes an undefined value (NaN: every table flagged) as null
    assert json.loads(out) == [{k: None if isinstance(v, float) and math.isnan(v) else v
                                for k, v in r._asdict().items()} for r in study.rows]
    code, out, _ = run(capsys, "coverage", *SMALL, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["n"], r["metric"], r["method"]) for r in rows] == \
        [(str(r.n), r.metric, r.method) for r in study.rows]
    code, out, err = run(capsys, "coverage", *SMALL, "--report", tmp_path / "rep")
    assert code == 0 and "n=300" in out and "binomial s.e." in out
    assert (tmp_path / "rep" / "coverage.png").stat().st_size > 1000
    assert "report written" in err


@pytest.mark.parametrize("args,message", [
    (["--sizes", "1"], "--sizes: must be an integer from 2"),
    (["--shapes", "9x9"], "--shapes: unknown '9x9'"),
    (["--methods", "bootstrap-t"], "--methods: unknown 'bootstrap-t'"),
    (["--level", "95"], "--level: must be a confidence level"),
    (["--metrics", "nope"], "unknown metric 'nope'"),
])
def test_coverage_refuses_bad_values(capsys, args, message):
    code, _, err = run(capsys, "coverage", *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_score_ci_method(capsys, tmp_path):
    truth, pred = tmp_path / "t.txt", tmp_path / "p.txt"
    t = [i % 5 for i in range(200)]
    p = [(i * 7) % 6 if i % 3 == 0 else i % 5 for i in range(200)]
    truth.write_text("\n".join(map(str, t)) + "\n")
    pred.write_text("\n".join(map(str, p)) + "\n")
    for method in ("percentile", "basic", "normal", "bca"):
        code, out, _ = run(capsys, "score", truth, pred, "--metrics", "ari,nmi", "--ci",
                           "0.9", "--seed", "2", "--ci-method", method, "--format", "json")
        lib = evaluate([str(x) for x in t], [str(x) for x in p], "ari,nmi", ci=0.9,
                       n_boot=1000, seed=2, ci_method=method)
        data = json.loads(out)
        assert code == 0 and data["ci_method"] == method
        assert data["intervals"] == {k: [v.low, v.high] for k, v in lib.intervals.items()}
    code, _, err = run(capsys, "score", truth, pred, "--ci-method", "basic")
    assert code == 2 and "--ci-method applies to bootstrap intervals" in err
    code, _, err = run(capsys, "score", truth, pred, "--ci", "0.9", "--ci-method", "x")
    assert code == 2 and "--ci-method" in err
