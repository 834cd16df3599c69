"""Scores that declare no bootstrap interval (``MetricInfo.no_bootstrap``: MARI).

Their replicates do not estimate their sampling distribution, so an interval would be a
silently wrong number: named with ``ci`` they are refused, of every score they keep their
value and get no interval, and every other score keeps its interval. The checks run over
the registry, so any score that declares it is held to the same rule.
"""

import csv
import dataclasses
import io
import json

import numpy as np
import pytest
from cli_helpers import run as _run

import clustermetrics as cm
from clustermetrics.scores.registry import METRICS

# getattr: collected (and failing test by test) on code without the declaration too
NO_INTERVAL = [k for k, m in METRICS.items() if m.no_bootstrap is not None]


def _labels(n=60, seed=3):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 3, n)
    return t, np.where(rng.random(n) < 0.3, rng.integers(0, 4, n), t)


@pytest.fixture(scope="module")
def every_score():
    """evaluate of every registered score with intervals, and its warnings."""
    t, p = _labels()
    with pytest.warns(UserWarning) as caught:
        report = cm.evaluate(t, p, ci=0.9, n_boot=5, seed=0)
    return report, [str(w.message) for w in caught]


def test_mari_gets_no_bootstrap_interval():
    """By key, not through the registry's declaration: what a user saw before was a MARI
    interval that covered the population value in 0-35 % of samples at the 95 % level."""
    t, p = _labels()
    with pytest.raises(ValueError, match="mari .* has no bootstrap interval"):
        cm.evaluate(t, p, ["ari", "mari"], ci=0.95, n_boot=10, seed=0)
    with pytest.warns(UserWarning, match="mari: no bootstrap interval"):
        report = cm.evaluate(t, p, ci=0.9, n_boot=5, seed=0)
    assert "mari" in report and "mari" not in report.intervals and "ari" in report.intervals


def test_mari_declares_no_bootstrap_interval_citing_its_estimator():
    """MARI (and only it) declares it; the reason cites the published estimator."""
    assert NO_INTERVAL == ["mari"]
    why = METRICS["mari"].no_bootstrap
    assert "disjoint item pairs" in why and "Sundqvist, Chiquet & Rigaill 2023" in why
    assert METRICS["ari"].no_bootstrap is None


@pytest.mark.parametrize("key", NO_INTERVAL)
@pytest.mark.parametrize("others", [[], ["ari", "nmi"]])
def test_named_with_ci_is_refused_naming_the_score_and_why(key, others):
    t, p = _labels()
    why = METRICS[key].no_bootstrap
    with pytest.raises(ValueError, match=rf"^{key} \(.*\) has no bootstrap interval") as exc:
        cm.evaluate(t, p, [*others, key], ci=0.95, n_boot=10, seed=0)
    assert why in str(exc.value)
    with pytest.raises(ValueError, match=f"{key} .* has no bootstrap interval"):
        cm.evaluate({"r1": t, "r2": p}, p, [key], ci=0.95, n_boot=10, seed=0)
    with pytest.raises(ValueError, match=f"{key} .* has no bootstrap interval"):
        cm.paired_comparison(t, p, t, [*others, key])
    # without ci it is an ordinary score
    assert cm.evaluate(t, p, [*others, key])[key] == METRICS[key].compute(
        cm.Contingency.from_labels(t, p))[0]


def test_every_score_keeps_the_value_and_gives_intervals_only_where_valid(every_score):
    report, warned = every_score
    t, p = _labels()
    plain = cm.evaluate(t, p, list(report))
    assert dict(report) == pytest.approx(dict(plain), nan_ok=True)
    for key in report:
        assert (key in report.intervals) == (METRICS[key].no_bootstrap is None), key
    for key in NO_INTERVAL:
        assert sum(key in line and "no bootstrap interval" in line for line in warned) == 1


def test_reports_render_a_score_without_an_interval(every_score):
    report, _ = every_score
    data = json.loads(report.to_json())
    assert data == report.to_dict()
    assert data["no_interval"] == {k: METRICS[k].no_bootstrap for k in NO_INTERVAL}
    assert set(data["intervals"]) == set(report.intervals) == set(data["skipped"])
    rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(report.to_csv()))}
    assert set(rows) == set(report)
    text = report.format()
    for key in report:
        assert (rows[key]["ci_low"] == "") == (key in NO_INTERVAL), key
    for key in NO_INTERVAL:
        # a wide table folds: the interval is in the key's row of one of the folds
        rows = [line for line in text.splitlines() if line.split()[:1] == [key]]
        assert any(row.rstrip().endswith("none") for row in rows), rows
        assert f"no bootstrap interval for {key}: {METRICS[key].no_bootstrap}" in " ".join(
            text.split())  # a note folds at the line width
    assert "<table" in report._repr_html_()


def test_several_references_leave_it_out_of_the_best_intervals():
    t, p = _labels()
    with pytest.warns(UserWarning, match="no bootstrap interval"):
        multi = cm.evaluate({"r1": t, "r2": np.roll(t, 1)}, p, ci=0.9, n_boot=5, seed=0)
    for key in NO_INTERVAL:
        assert key in multi and key not in multi.intervals
        assert all(key not in own for own in multi.intervals_by_reference.values())
        assert multi.to_dict()["no_interval"][key] == METRICS[key].no_bootstrap
        assert f"no bootstrap interval for {key}" in multi.format()
        row = next(r for r in csv.DictReader(io.StringIO(multi.to_csv()))
                   if r["metric"] == key)
        assert row["ci_low"] == ""


def test_paired_comparison_of_every_score_leaves_it_out_with_a_warning():
    t, p = _labels()
    with pytest.warns(UserWarning, match="no bootstrap interval"):
        result = cm.paired_comparison(t, p, np.roll(p, 1), None)
    compared = set(result.to_dict()["scores"])
    assert compared and not compared & set(NO_INTERVAL)
    assert all(any(key in note for note in result.notes) for key in NO_INTERVAL)
    assert all(key in str(result) for key in NO_INTERVAL)  # the text says what was left out


def test_the_rule_follows_the_declaration_not_the_key(monkeypatch):
    """A score declaring no interval is treated as MARI is: FMI declared so here."""
    fmi = METRICS["fmi"]

    def declared(*args, **kwargs):
        return fmi.func(*args, **kwargs)
    declared.spec = dataclasses.replace(fmi.spec, no_bootstrap="a test reason")
    monkeypatch.setitem(METRICS, "fmi", dataclasses.replace(fmi, func=declared))
    t, p = _labels()
    with pytest.raises(ValueError, match="fmi .* has no bootstrap interval.*a test reason"):
        cm.evaluate(t, p, ["ari", "fmi"], ci=0.9, n_boot=5, seed=0)
    report = cm.evaluate(t, p, ["ari", "fmi"])  # without ci: scored
    assert report["fmi"] == fmi.compute(cm.Contingency.from_labels(t, p))[0]


def _files(tmp_path):
    t, p = _labels()
    paths = tmp_path / "t.txt", tmp_path / "p.txt"
    for path, labels in zip(paths, (t, p), strict=True):
        path.write_text("\n".join(map(str, labels)) + "\n")
    return paths


@pytest.mark.parametrize("key", NO_INTERVAL)
def test_cli_refuses_it_named_with_ci_in_one_line(capsys, tmp_path, key):
    truth, pred = _files(tmp_path)
    code, out, err = _run(capsys, "score", truth, pred, "--metrics", f"ari,{key}",
                          "--ci", "0.95")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"{key} (" in err and "has no bootstrap interval (--ci)" in err
    code, _, err = _run(capsys, "paired", truth, pred, pred, "--metrics", key)
    assert code == 2 and "has no bootstrap interval" in err


def test_cli_every_score_with_ci_notes_it(capsys, tmp_path):
    truth, pred = _files(tmp_path)
    code, out, err = _run(capsys, "score", truth, pred, "--ci", "0.9", "--n-boot", "5",
                          "--seed", "0")
    assert code == 0
    for key in NO_INTERVAL:
        assert f"no bootstrap interval for {key}:" in out
        assert f"note: {key}: no bootstrap interval" in err
    code, out, _ = _run(capsys, "score", truth, pred, "--ci", "0.9", "--n-boot", "5",
                        "--seed", "0", "--format", "json")
    data = json.loads(out)
    assert code == 0 and set(NO_INTERVAL) <= set(data["scores"])
    assert not set(NO_INTERVAL) & set(data["intervals"])


# every command that draws bootstrap intervals, with what it needs to reach the check and
# the option that names the score (a command with a bootstrap option but no case fails
# the first test)
INTERVAL_COMMANDS = {
    "score": (["{t}", "{p}", "--ci", "0.9", "--metrics", "ari,{key}"], "--ci"),
    "paired": (["{t}", "{p}", "{p}", "--metrics", "{key}"], "--ci"),
    "coverage": (["--tables", "2", "--metrics", "ari,{key}"], "--metrics"),
    "compare": (["--dataset", "iris", "--algorithms", "kmeans", "--paired", "{key}"],
                "--paired"),
    "paired-calibration": (["--trials", "1", "--metrics", "ari,{key}"], "--metrics"),
}


def test_every_command_that_draws_intervals_has_a_case():
    import argparse

    from clustermetrics.cli.main import build_parser

    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    drawing = {name for name, p in sub.choices.items()
               if any(a.dest in ("ci", "n_boot", "paired", "alpha") for a in p._actions)}
    assert drawing == set(INTERVAL_COMMANDS)


@pytest.mark.parametrize("key", NO_INTERVAL)
@pytest.mark.parametrize("command", sorted(INTERVAL_COMMANDS))
def test_every_command_refuses_it_named_before_any_work(capsys, tmp_path, key, command):
    """The review's sample: `coverage --metrics mari` reported a MARI interval."""
    truth, pred = _files(tmp_path)
    argv, option = INTERVAL_COMMANDS[command]
    code, out, err = _run(capsys, command, *[a.format(t=truth, p=pred, key=key)
                                             for a in argv])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert f"{key} ({METRICS[key].name}) has no bootstrap interval ({option})" in err


@pytest.mark.parametrize("key", NO_INTERVAL)
def test_coverage_study_refuses_it_named_and_leaves_it_out_of_every_score(key):
    from clustermetrics.experiments.coverage import coverage_study

    with pytest.raises(ValueError, match=rf"^{key} \(.*\) has no bootstrap interval "
                                         r"\(metrics\)"):
        coverage_study(["8x10"], [100], ["ari", key], n_tables=2, n_boot=5,
                       population=1000)
    with pytest.warns(UserWarning, match=f"{key}: no bootstrap interval"):
        result = coverage_study(["8x10"], [100], None, methods=["normal"], n_tables=2,
                                n_boot=5, population=1000)
    assert {row.metric for row in result.rows} == {k for k in METRICS if k not in NO_INTERVAL}
