"""Every option of `evaluate` and `score` is honoured in every output format or refused
naming both options: all pairs of (option, value), generated from one table of options
and the refusal rules (tests/support/pairwise.py); each working combination is checked against
the library called directly, in the table, JSON and CSV formats."""

import csv
import io
import json
from pathlib import Path

import pytest
from cli_helpers import labels as read_labels
from cli_helpers import run as cli_run
from pairwise import covering_rows, names_one, refusal

import clustermetrics as cm
from clustermetrics.render.text import LINE_WIDTH

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TRUTH, PRED = EXAMPLES / "truth.txt", EXAMPLES / "pred.txt"
FORMATS = ("table", "json", "csv")
BASE_METRICS = "ari,nmi"

OPTIONS = {
    "--metrics": ["ari,clustering_error", "nmi,recovery_rate,bcubed_f"],
    "--ci": ["0.9"],
    "--n-boot": ["30"],
    "--seed": ["3"],
    "--noise-label": ["cluster3"],
    "--noise": ["singletons", "exclude"],
    "--details": ["2", "all"],
    "--reference": ["OTHER"],
    "-o": ["FILE"],
    "--format": list(FORMATS),
}

# The refused combinations (the user guide's list): each names both options.
RULES = [
    lambda r: ("--n-boot", "--ci") if "--n-boot" in r and "--ci" not in r else None,
    lambda r: ("--seed", "--ci") if "--seed" in r and "--ci" not in r else None,
    lambda r: ("--noise", "--noise-label") if "--noise" in r and "--noise-label" not in r
    else None,
    lambda r: ("--details", "--format csv") if "--details" in r and r.get("--format") == "csv"
    else None,
]

ROWS, REFUSED = covering_rows(OPTIONS, RULES)


def _other(truth):
    """A second reference: the truth with every seventh item moved to a new class."""
    return ["x" if i % 7 == 0 else t for i, t in enumerate(truth)]


def _argv(row, tmp_path):
    other = tmp_path / "other.txt"
    if not other.exists():
        other.write_text("\n".join(_other(read_labels(TRUTH))) + "\n")
    argv = ["score", TRUTH, PRED]
    if "--metrics" not in row:
        argv += ["--metrics", BASE_METRICS]
    for option, value in row.items():
        value = {"OTHER": other, "FILE": tmp_path / "out.txt"}.get(value, value)
        argv += [option, value]
    return argv


def _expected(row, tmp_path):
    truth, pred = read_labels(TRUTH), read_labels(PRED)
    refs = truth
    if "--reference" in row:
        refs = {str(TRUTH): truth, str(tmp_path / "other.txt"): _other(truth)}
    ci = float(row["--ci"]) if "--ci" in row else None
    return cm.evaluate(
        refs, pred, row.get("--metrics", BASE_METRICS),
        noise_label=row.get("--noise-label"), noise=row.get("--noise"),
        ci=ci, n_boot=int(row["--n-boot"]) if "--n-boot" in row else None,
        seed=int(row["--seed"]) if "--seed" in row else None)


def _reports(expected):
    return list(expected.reports.values()) if hasattr(expected, "reports") else [expected]


def _best_interval(expected, key):
    if hasattr(expected, "reports"):
        return expected.reports[expected.best_reference[key]].intervals[key]
    return expected.intervals[key]


def _check_table(text, row, expected):
    lines = text.splitlines()
    flat = " ".join(text.split())  # notes and captions fold at the line width

    def says(words):
        return " ".join(words.split()) in flat

    for key, value in expected.items():
        # a table wider than the line folds, repeating the key in each part
        line = " || ".join(ln for ln in lines if ln.startswith(f"  {key} "))
        assert line and f"{value: .6f}" in line
        if "--seed" in row:  # unseeded intervals differ from run to run
            iv = _best_interval(expected, key)
            assert f"[{iv.low: .6f}, {iv.high: .6f}]" in line
    if "--ci" in row:
        assert says("90% bias-corrected normal bootstrap interval")
        assert says(f"bootstrap: {row.get('--n-boot', 1000)} replicates, "
                    f"{'seed 3' if '--seed' in row else 'unseeded'}")
    else:
        assert "bootstrap" not in text
    if "--noise-label" in row:
        what = "excluded" if row.get("--noise") == "exclude" else "as singleton clusters"
        assert says(f"noise label 'cluster3': 11 of 300 points {what}")
    if "--details" in row:
        for report in _reports(expected):
            n = len(report.diagnostics.classes)
            shown = n if row["--details"] == "all" else min(2, n)
            assert f"(largest first; {shown} of {n})" in text
    else:
        assert "split errors" not in text
    if "--reference" in row:
        assert text.startswith(f"2 references: {TRUTH} (")
    assert max(map(len, lines)) <= LINE_WIDTH


def _check_json(data, row, expected):
    multi = "--reference" in row
    assert data["best" if multi else "scores"] == dict(expected)
    if multi:
        assert data["references"] == list(expected.reports)
        assert data["best_reference"] == expected.best_reference
    if "--ci" in row:
        assert set(data["intervals"]) == set(expected)
    if "--seed" in row:
        assert data["intervals"] == {k: [_best_interval(expected, k).low,
                                         _best_interval(expected, k).high] for k in expected}
    if "--ci" in row:
        assert (data["ci"], data["n_boot"]) == (0.9, int(row.get("--n-boot", 1000)))
        assert data["seed"] == (3 if "--seed" in row else None)
    else:
        assert "intervals" not in data
    if "--noise-label" in row:
        assert data["noise"] == {"label": "cluster3", "mode": row.get("--noise", "singletons"),
                                 "n_noise": 11, "n_samples": 300}
    else:
        assert "noise" not in data
    singles = list(data["reports"].values()) if multi else [data]
    for single, report in zip(singles, _reports(expected), strict=True):
        if "--details" in row:
            n = len(report.diagnostics.classes)
            shown = n if row["--details"] == "all" else min(2, n)
            assert len(single["diagnostics"]["classes"]) == shown
        else:
            assert "diagnostics" not in single


def _check_csv(text, row, expected):
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["metric"] for r in rows] == list(expected)
    value = "best" if "--reference" in row else "value"
    assert [float(r[value]) for r in rows] == list(expected.values())
    if "--reference" in row:
        assert [r["best_reference"] for r in rows] == [expected.best_reference[k]
                                                       for k in expected]
    if "--ci" in row:
        for r in rows:
            iv = _best_interval(expected, r["metric"])
            if "--seed" in row:
                assert (float(r["ci_low"]), float(r["ci_high"])) == (iv.low, iv.high)
            assert (r["ci_level"], r["n_boot"]) == ("0.9", row.get("--n-boot", "1000"))
            assert r["seed"] == row.get("--seed", "")
    else:
        assert "ci_low" not in rows[0]
    if "--noise-label" in row:
        assert {(r["noise_label"], r["noise"], r["n_noise"]) for r in rows} == {
            ("cluster3", row.get("--noise", "singletons"), "11")}
    else:
        assert "noise_label" not in rows[0]


CHECKS = {"table": _check_table, "json": lambda text, row, expected: _check_json(
    json.loads(text, parse_constant=_reject), row, expected), "csv": _check_csv}


def _reject(name):
    raise AssertionError(f"not strict JSON: {name}")


@pytest.mark.parametrize("row", ROWS, ids=lambda r: " ".join(f"{k}={v}" for k, v in r.items()))
def test_working_combinations_show_their_effect_in_every_format(row, capsys, tmp_path):
    expected = _expected(row, tmp_path)
    for fmt in FORMATS:
        run = {**row, "--format": fmt}
        if refusal(RULES, run):
            continue
        code, out, err = cli_run(capsys, *_argv(run, tmp_path))
        assert code == 0, err
        assert "Traceback" not in err and "Warning" not in err
        if "-o" in run:
            assert out == ""
            out = (tmp_path / "out.txt").read_text(encoding="utf-8")
        CHECKS[fmt](out, run, expected)


@pytest.mark.parametrize("pair,names", REFUSED,
                         ids=[" ".join(f"{k}={v}" for k, v in p.items()) for p, _ in REFUSED])
def test_refused_combinations_name_both_options(pair, names, capsys, tmp_path):
    code, out, err = cli_run(capsys, *_argv(pair, tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("clustermetrics: error: ") and err.count("\n") == 1
    assert names_one(names, err), (names, err)


def test_the_table_covers_every_pair():
    """The generated rows and refusals exercise every pair of the option table."""
    from pairwise import pairs

    for pair in pairs(OPTIONS):
        covered = any(all(r.get(k) == v for k, v in pair.items()) for r in ROWS)
        assert covered or any(p == pair for p, _ in REFUSED), pair


# ----------------------------------------------------------------- the library's side
API_OPTIONS = {
    "metrics": ["ari,clustering_error"],
    "noise_label": [-1],
    "noise": ["singletons", "exclude"],
    "ci": [0.8],
    "n_boot": [25],
    "seed": [5],
    "references": [2],
    "progress": ["count"],
}
API_RULES = [
    lambda r: ("n_boot", "ci") if "n_boot" in r and "ci" not in r else None,
    lambda r: ("seed", "ci") if "seed" in r and "ci" not in r else None,
    lambda r: ("noise", "noise_label") if "noise" in r and "noise_label" not in r else None,
]
API_ROWS, API_REFUSED = covering_rows(API_OPTIONS, API_RULES)
T = [0, 0, 0, 1, 1, 1, 2, 2, 2, 2]
P = [0, 0, -1, 1, 1, -1, 2, 2, 1, -1]


def _call(row, calls=None):
    kwargs = {k: v for k, v in row.items() if k not in ("references", "progress")}
    if "progress" in row:
        kwargs["progress"] = lambda done, total: calls.append((done, total))
    truth = [T, [0] * 5 + [1] * 5] if "references" in row else T
    return cm.evaluate(truth, P, **{"metrics": "ari,nmi", **kwargs})


@pytest.mark.parametrize("row", API_ROWS)
def test_evaluate_combinations_take_effect(row):
    calls = []
    report = _call(row, calls)
    singles = list(report.reports.values()) if "references" in row else [report]
    assert list(report) == row.get("metrics", "ari,nmi").split(",")
    data = json.loads(report.to_json(details=True), parse_constant=_reject)
    csv_rows = list(csv.DictReader(io.StringIO(report.to_csv())))
    for single in singles:
        assert (single.noise is not None) == ("noise_label" in row)
        if "noise_label" in row:
            assert single.noise.mode == row.get("noise", "singletons")
            assert single.table.n_samples == (7 if row.get("noise") == "exclude" else 10)
            assert data["noise"]["mode"] == csv_rows[0]["noise"] == single.noise.mode
        if "ci" in row:
            n_boot = row.get("n_boot", 1000)
            assert {iv.n_boot for iv in single.intervals.values()} == {n_boot}
            assert single.bootstrap.seed == row.get("seed")
            assert data["n_boot"] == n_boot == int(csv_rows[0]["n_boot"])
            assert f"bootstrap: {n_boot} replicates" in str(report)
        else:
            assert single.intervals == {} and "ci_low" not in csv_rows[0]
    if "seed" in row:  # the seed is honoured: the same seed, the same intervals
        assert _call(row, []).to_json(details=True) == report.to_json(details=True)
    if "progress" in row and "ci" in row:  # one call per replicate of each reference
        n_boot = row.get("n_boot", 1000)
        assert calls == [(b, n_boot) for b in range(1, n_boot + 1)] * len(singles)


@pytest.mark.parametrize("pair,names", API_REFUSED)
def test_evaluate_refuses_naming_both_options(pair, names):
    with pytest.raises(ValueError) as info:
        _call(pair, [])
    assert names_one(names, str(info.value)), (names, info.value)


@pytest.mark.parametrize("bad, message", [
    ({"seed": "x"}, "seed must be a non-negative integer"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"seed": 1.5}, "seed must be a non-negative integer"),
    ({"n_boot": 10**7}, "n_boot must be an integer from 2 to 1,000,000"),
    ({"progress": 3}, "progress must be a callable"),
])
def test_evaluate_refuses_bad_values_by_name(bad, message):
    with pytest.raises(ValueError, match=message):
        cm.evaluate(T, P, "ari", ci=0.9, **bad)
