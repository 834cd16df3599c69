"""Every option of `compare`, `demo` and `chance` is honoured in every output format (table,
JSON, CSV and the HTML report) or refused naming both options: all pairs of (option,
value), generated from one table per command and its refusal rules (tests/support/pairwise.py),
each working combination checked against the library called directly.

Plots are replaced by a stub PNG here (their text is tested in test_user_text.py), so a
report costs milliseconds."""

import csv
import html
import io
import json
import re

import numpy as np
import pytest
from cli_helpers import run as cli_run
from pairwise import covering_rows, names_one, pairs, refusal

from clustermetrics.cli.demo import timing_ns as _timing_ns
from clustermetrics.experiments import plots
from clustermetrics.experiments.chance import SETUPS, chance_study
from clustermetrics.experiments.compare import compare, table_metrics
from clustermetrics.experiments.datasets import load_dataset, read_dataset
from clustermetrics.experiments.recovery_study import recovery_study
from clustermetrics.experiments.timing import bruteforce_timing, scaling_timing

FORMATS = ("table", "json", "csv")
STUB_PNG = b"\x89PNG stub"


@pytest.fixture(autouse=True)
def _stub_plots(monkeypatch):
    monkeypatch.setattr(plots, "_png", lambda fig: STUB_PNG)


@pytest.fixture(autouse=True)
def _one_thread():
    """k-means on a few hundred points is 5x faster without OpenMP threads on 2 cores."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def _halo_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("halo-cache")


@pytest.fixture(autouse=True)
def _halo_cache_env(_halo_cache, monkeypatch):
    """The simulated halo's cache in a temporary directory shared by this module's runs."""
    monkeypatch.setenv("CLUSTERMETRICS_CACHE", str(_halo_cache))


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    points = tmp_path / "points.csv"
    points.write_text("x,y,z,species\n" + "".join(
        f"{rng.normal(c * 4):.4f},{rng.normal():.4f},{rng.normal():.4f},s{c}\n"
        for c in [0, 1, 2] * 15))
    return {"POINTS": points, "DIR": tmp_path / "report", "FILE": tmp_path / "out.txt"}


def _argv(command, row, base, files):
    argv = [command]
    if callable(base):
        base = base(row)
    for option, value in base.items():
        if option not in row and not (option == "--dataset" and "--data" in row):
            argv += [option, value]
    for option, value in row.items():
        if value is True:
            argv.append(option)
        else:
            argv += [option, str(files.get(value, value))]
        if option == "--data" and command == "compare":  # demo's --data names its data
            argv += ["--label-col", "species"]
    return argv


def _run_all_formats(command, row, base, files, capsys, rules):
    """{format: output} for every format the rules allow; every run exits 0, prints no
    traceback nor warning line, and writes the report when asked (in the row's own format
    only: the page does not depend on the format)."""
    outputs = {}
    for fmt in sorted(FORMATS, key=lambda f: f != row.get("--format")):
        run = {**row, "--format": fmt}
        if "html" in outputs:
            run = {k: v for k, v in run.items() if k not in ("--report", "--show")}
        if refusal(rules, run):
            continue
        code, out, err = cli_run(capsys, *_argv(command, run, base, files))
        assert code == 0, err
        assert "Traceback" not in err and "Warning:" not in err, err
        assert [ln for ln in err.splitlines() if "report written" not in ln] == [], err
        if "-o" in run:
            assert out == ""
            out = files["FILE"].read_text(encoding="utf-8")
        outputs[fmt] = out
        if "--report" in run:
            outputs["html"] = (files["DIR"] / "index.html").read_text(encoding="utf-8")
            assert err == f"clustermetrics: report written to {files['DIR'] / 'index.html'}\n"
    return outputs


def _check_refused(command, pair, firing, base, files, capsys):
    code, out, err = cli_run(capsys, *_argv(command, pair, base, files))
    assert code == 2 and out == "", err
    assert err.startswith("clustermetrics: error: ") and err.count("\n") == 1, err
    assert names_one(firing, err), (firing, err)


def _table_row(text, first_cells):
    """The table line whose first cells are ``first_cells``."""
    found = [ln.split() for ln in text.splitlines()
             if ln.split()[:len(first_cells)] == first_cells]
    assert len(found) == 1, (first_cells, text)
    return found[0]


def _ids(rows):
    return [" ".join(f"{k}={v}" for k, v in r.items()) for r in rows]


# ------------------------------------------------------------------------ compare
COMPARE = {
    "--dataset": ["iris", "wine,blobs", "halo"],
    "--data": ["POINTS"],
    "--features": ["x,y"],
    "--sep": [","],
    "--algorithms": ["kmeans,hdbscan", "ward,birch", "hdbscan"],
    "--k": ["2-3"],
    "--n-clusters": ["3"],
    "--n-per-cluster": ["30"],
    "--overlap": ["2"],
    "--standardize": [True],
    "--noise": ["exclude", "cluster"],
    "--drop-noise": [True],
    "--max-pairwise": ["40"],
    "--metrics": ["ari,bcubed_f"],
    "--seed": ["3"],
    "--show": ["kmeans"],
    "--report": ["DIR"],
    "--quiet": [True],
    "-o": ["FILE"],
    "--format": list(FORMATS),
}
_SIMULATED = {"overlapping": {"--n-clusters", "--n-per-cluster", "--overlap"},
              "halo": {"--n-clusters", "--n-per-cluster"},
              "blobs": {"--n-clusters", "--n-per-cluster"}}
SMALL = "40"  # points per simulated cluster when the row does not say: fast runs


def COMPARE_BASE(row):  # noqa: N802  (a base of options, computed from the row)
    base = {"--algorithms": "kmeans"}
    if any(d in _SIMULATED for d in _datasets(row)):
        base["--n-per-cluster"] = SMALL
    return base


def _datasets(r):
    if "--data" in r:
        return []
    return r.get("--dataset", "overlapping").split(",")


def _algorithms(r):
    return r.get("--algorithms", "kmeans").split(",")


def _simulated_rule(option):
    def rule(r):
        if option in r and not any(option in _SIMULATED.get(d, ()) for d in _datasets(r)):
            return (option, "--data" if "--data" in r else "--dataset")
        return None
    return rule


COMPARE_RULES = [
    lambda r: ("--data", "--dataset") if "--data" in r and "--dataset" in r else None,
    lambda r: ("--features", "--data") if "--features" in r and "--data" not in r else None,
    lambda r: ("--sep", "--data") if "--sep" in r and "--data" not in r else None,
    *(_simulated_rule(o) for o in ("--n-clusters", "--n-per-cluster", "--overlap")),
    lambda r: ("--seed", "--algorithms") if "--seed" in r and not any(
        d in _SIMULATED for d in _datasets(r)) and _algorithms(r) == ["hdbscan"] else None,
    lambda r: ("--k", "--algorithms") if "--k" in r and _algorithms(r) == ["hdbscan"]
    else None,
    lambda r: ("--max-pairwise", "--algorithms") if "--max-pairwise" in r and "ward" not in
    _algorithms(r) else None,
    lambda r: ("--drop-noise", "--noise") if "--drop-noise" in r and r.get("--noise") not in
    (None, "exclude") else None,
    lambda r: ("--noise", "--algorithms") if "--noise" in r and "hdbscan" not in
    _algorithms(r) else None,
    lambda r: ("--drop-noise", "--algorithms") if "--drop-noise" in r and "hdbscan" not in
    _algorithms(r) else None,
    lambda r: ("--show", "--report") if "--show" in r and "--report" not in r else None,
    lambda r: ("--show", "--algorithms") if "--show" in r and r["--show"] not in
    _algorithms(r) else None,
]
COMPARE_ROWS, COMPARE_REFUSED = covering_rows(COMPARE, COMPARE_RULES)


def _expected_runs(row, files):
    seed = int(row.get("--seed", 0))
    if "--data" in row:
        features = row["--features"].split(",") if "--features" in row else None
        datasets = [read_dataset(files["POINTS"], "species", feature_cols=features,
                               sep=row.get("--sep"))]
    else:
        datasets = [load_dataset(n, n_clusters=int(row.get("--n-clusters", 5)),
                                 n_per_cluster=int(row.get("--n-per-cluster", SMALL)),
                                 overlap=float(row.get("--overlap", 1)), seed=seed)
                    for n in _datasets(row)]
    if "--standardize" in row:
        datasets = [d._replace(X=(d.X - d.X.mean(0)) / np.where(d.X.std(0) > 0, d.X.std(0), 1))
                    for d in datasets]
    noise = "exclude" if "--drop-noise" in row else row.get("--noise", "cluster")
    k = sorted({int(v) for v in range(2, 4)}) if "--k" in row else None
    return compare(datasets, _algorithms(row), k=k, seed=seed, noise=noise,
                   metrics=row.get("--metrics"), max_pairwise=int(row.get("--max-pairwise",
                                                                          5000)))


_RUN_FIELDS = ("dataset", "algorithm", "seed", "k", "n_samples", "n_classes", "n_clusters",
               "note", "scores")


@pytest.mark.parametrize("row", COMPARE_ROWS, ids=_ids(COMPARE_ROWS))
def test_compare_combinations_show_their_effect_everywhere(row, files, capsys):
    outputs = _run_all_formats("compare", row, COMPARE_BASE, files, capsys, COMPARE_RULES)
    expected = _expected_runs(row, files)
    want = [{f: r.to_dict()[f] for f in _RUN_FIELDS} for r in expected]
    if "json" in outputs:
        data = json.loads(outputs["json"], parse_constant=_reject)
        assert [{f: r[f] for f in _RUN_FIELDS} for r in data] == want
    if "csv" in outputs:
        got = list(csv.DictReader(io.StringIO(outputs["csv"])))
        assert [[r[f] for f in _RUN_FIELDS[:-1]] for r in got] == [
            ["" if w[f] is None else str(w[f]) for f in _RUN_FIELDS[:-1]] for w in want]
        assert [{k: float(r[k]) for k in w["scores"]} for r, w in zip(got, want,
                                                                       strict=True)] \
            == [w["scores"] for w in want]
    if "table" in outputs:
        shown = table_metrics(expected, row["--metrics"].split(",") if "--metrics" in row
                              else None)
        for r in expected:
            line = _table_row(outputs["table"], [r.dataset, r.algorithm,
                                                 "-" if r.k is None else str(r.k)])
            assert line[3:5] == [str(r.n_clusters), str(r.n_samples)]
            assert line[6:6 + len(shown)] == [f"{r.scores[k]:.3f}" for k in shown]
            if r.note:
                flat = " ".join(outputs["table"].split())  # notes fold at the line width
                assert f"{r.dataset} / {r.algorithm}" in flat and \
                    " ".join(r.note.split()) in flat
    if "--report" in row:
        page = outputs["html"]
        chosen = row.get("--show")
        assert (f"Chosen run: {chosen} on" if chosen else "Chosen run: ") in page
        headers = set(re.findall(r"<th[^>]*>([^<]*)</th>", page))
        for r in expected:
            assert html.escape(f"{r.dataset} {r.algorithm}" + (
                "" if r.k is None else f" k={r.k}"), quote=False) in headers


@pytest.mark.parametrize("pair,firing", COMPARE_REFUSED, ids=_ids(p for p, _ in
                                                                   COMPARE_REFUSED))
def test_compare_refusals_name_both_options(pair, firing, files, capsys):
    _check_refused("compare", pair, firing, COMPARE_BASE, files, capsys)


# ------------------------------------------------------------------------ demo
DEMO = {
    "--n-min": ["3"],
    "--n-max": ["3"],
    "--n-per-cluster": ["25"],
    "--overlap": ["2"],
    "--data": ["halo"],
    "--algorithms": ["kmeans,hdbscan", "average"],
    "--seeds": ["4,5"],
    "--data-seed": ["2"],
    "--bruteforce-max": ["4"],
    "--timing-max": ["30"],
    "--max-pairwise": ["30"],
    "--show": ["kmeans"],
    "--report": ["DIR"],
    "--quiet": [True],
    "-o": ["FILE"],
    "--format": list(FORMATS),
}
DEMO_BASE = {"--n-min": "2", "--n-max": "2", "--n-per-cluster": "20", "--algorithms": "kmeans",
             "--seeds": "0", "--bruteforce-max": "3", "--timing-max": "10"}


def _demo(r, option):
    return r.get(option, DEMO_BASE.get(option))


DEMO_RULES = [
    lambda r: ("--overlap", "--data") if "--overlap" in r and "--data" in r else None,
    lambda r: ("--n-min", "--n-max") if int(_demo(r, "--n-min")) > int(_demo(r, "--n-max"))
    else None,
    lambda r: ("--max-pairwise", "--algorithms") if "--max-pairwise" in r and "average" not in
    _demo(r, "--algorithms") else None,
    lambda r: ("--show", "--report") if "--show" in r and "--report" not in r else None,
    lambda r: ("--show", "--algorithms") if "--show" in r and r["--show"] not in
    _demo(r, "--algorithms").split(",") else None,
]
DEMO_ROWS, DEMO_REFUSED = covering_rows(DEMO, DEMO_RULES)


@pytest.mark.parametrize("row", DEMO_ROWS, ids=_ids(DEMO_ROWS))
def test_demo_combinations_show_their_effect_everywhere(row, files, capsys):
    outputs = _run_all_formats("demo", row, DEMO_BASE, files, capsys, DEMO_RULES)
    n_min, n_max = int(_demo(row, "--n-min")), int(_demo(row, "--n-max"))
    seeds = [int(s) for s in _demo(row, "--seeds").split(",")]
    per, overlap = int(_demo(row, "--n-per-cluster")), float(row.get("--overlap", 1))
    data_seed = int(row.get("--data-seed", 0))
    data = row.get("--data", "overlapping")
    study = recovery_study(range(n_min, n_max + 1), n_per_cluster=per,
                           algorithms=_demo(row, "--algorithms"), seeds=seeds,
                           data_seed=data_seed, overlap=overlap,
                           max_pairwise=int(row.get("--max-pairwise", 5000)), data=data)
    data_note = "simulated stellar halo" if data == "halo" else f"overlap {overlap:g}"
    timing = {(t.n, t.method): t.rate for t in bruteforce_timing(
        range(2, int(_demo(row, "--bruteforce-max")) + 1)) + scaling_timing(
        _timing_ns(int(_demo(row, "--timing-max"))))}
    want = [[{f: r.to_dict()[f] for f in _RUN_FIELDS} for r in t] for t in study.runs]
    if "json" in outputs:
        data = json.loads(outputs["json"], parse_constant=_reject)
        assert [[{f: r[f] for f in _RUN_FIELDS} for r in t] for t in data["tables"]] == want
        assert {(t["n"], t["method"]): t["rate"] for t in data["timing"]} == timing
        assert data["settings"] == study.settings()
    if "csv" in outputs:
        got = list(csv.DictReader(io.StringIO(outputs["csv"])))
        runs = [r for r in got if r["kind"] == "run"]
        assert [(int(r["table"]), r["algorithm"], r["seed"], r["n_classes"], r["n_clusters"],
                 float(r["recovery_rate"])) for r in runs] == [
            (i + 1, w["algorithm"], str(w["seed"]), str(w["n_classes"]),
             str(w["n_clusters"]), w["scores"]["recovery_rate"])
            for i, t in enumerate(want) for w in t]
        assert {(int(r["n"]), r["method"]): float(r["rate"]) for r in got
                if r["kind"] == "timing"} == timing
        assert {(r["n_per_cluster"], r["overlap"], r["data_seed"]) for r in got} == {
            (str(per), str(overlap), str(data_seed))}
    if "table" in outputs:
        text = outputs["table"]
        for i, seed in enumerate(seeds):
            assert (f"Table {i + 1}. Iteration {i + 1} (algorithm seed {seed}; {per:,} points "
                    f"per cluster, {data_note}, data seed {data_seed})") in text
        for t in study.runs:
            for r in t:
                assert [str(r.n_classes), r.algorithm, str(r.n_clusters)] in [
                    ln.split()[:3] for ln in text.splitlines()]
        timing_rows = {ln.split()[0] for ln in text.split("Time of the recovery rate")[1]
                       .splitlines() if ln.split() and ln.split()[0].isdigit()}
        assert timing_rows == {str(n) for n, _ in timing}
    if "--report" in row:
        assert f"Chosen run: {row.get('--show', '')}" in outputs["html"]
        assert html.escape(f"{data_note}, data seed {data_seed}") in outputs["html"]


@pytest.mark.parametrize("pair,firing", DEMO_REFUSED, ids=_ids(p for p, _ in DEMO_REFUSED))
def test_demo_refusals_name_both_options(pair, firing, files, capsys):
    _check_refused("demo", pair, firing, DEMO_BASE, files, capsys)


def test_demo_paper_size_sets_the_points_and_refuses_n_per_cluster(files, capsys):
    base = {k: v for k, v in DEMO_BASE.items() if k != "--n-per-cluster"}
    code, out, err = cli_run(capsys, *_argv("demo", {"--paper-size": True, "--format": "json"},
                                            base, files))
    assert code == 0, err
    assert json.loads(out)["settings"]["n_per_cluster"] == 10_000
    _check_refused("demo", {"--paper-size": True, "--n-per-cluster": "30"},
                   [("--paper-size", "--n-per-cluster")], base, files, capsys)


# ------------------------------------------------------------------------ chance
CHANCE = {
    "--metrics": ["ari,nmi,mi"],
    "--repeats": ["3"],
    "--points": ["4"],
    "--experiment": ["equal", "fixed"],
    "--seed": ["7"],
    "--report": ["DIR"],
    "--quiet": [True],
    "-o": ["FILE"],
    "--format": list(FORMATS),
}
CHANCE_BASE = {"--metrics": "ari,ri", "--repeats": "1", "--points": "2"}
CHANCE_ROWS, CHANCE_REFUSED = covering_rows(CHANCE, [])


@pytest.mark.parametrize("row", CHANCE_ROWS, ids=_ids(CHANCE_ROWS))
def test_chance_combinations_show_their_effect_everywhere(row, files, capsys):
    outputs = _run_all_formats("chance", row, CHANCE_BASE, files, capsys, [])
    setups = [s for s in SETUPS if row.get("--experiment", "both") in ("both", s.key)]
    seed = int(row.get("--seed", 42))
    curves = chance_study(row.get("--metrics", CHANCE_BASE["--metrics"]), setups=setups,
                          n_repeats=int(row.get("--repeats", 1)),
                          n_points=int(row.get("--points", 2)), seed=seed)
    want = [r for c in curves for r in c.to_rows()]
    if "json" in outputs:
        assert json.loads(outputs["json"], parse_constant=_reject) == want
    if "csv" in outputs:
        got = list(csv.DictReader(io.StringIO(outputs["csv"])))
        assert [(r["experiment"], int(r["k"]), r["metric"], float(r["mean"]), int(r["repeats"]),
                 int(r["seed"])) for r in got] == [
            (w["experiment"], w["k"], w["metric"], w["mean"], w["repeats"], w["seed"])
            for w in want]
    if "table" in outputs:
        for c in curves:
            assert (f"{c.setup.title} (n_samples = {c.setup.n_samples}; mean of "
                    f"{c.n_repeats} draws per k, seed {seed})") in " ".join(
                        outputs["table"].split())  # a caption folds at the line width
            for m in c.mean:
                line = _table_row(outputs["table"], [m])
                assert [v for v in line if v != "yes"][1:1 + len(c.ks)] == [
                    f"{v:.3f}" for v in c.mean[m]]
    if "--report" in row:
        assert "Chance level of every score" in outputs["html"]
        assert f"seed {seed})" in outputs["html"]


def test_the_tables_cover_every_pair():
    for options, rows, refused in ((COMPARE, COMPARE_ROWS, COMPARE_REFUSED),
                                   (DEMO, DEMO_ROWS, DEMO_REFUSED),
                                   (CHANCE, CHANCE_ROWS, CHANCE_REFUSED)):
        for pair in pairs(options):
            assert any(all(r.get(k) == v for k, v in pair.items()) for r in rows) or \
                any(p == pair for p, _ in refused), pair


def _reject(name):
    raise AssertionError(f"not strict JSON: {name}")
