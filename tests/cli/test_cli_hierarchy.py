"""The ``hierarchy`` command: best cuts printed, the curve page written, bad input one line."""

import json
import math

import numpy as np
import pytest
from cli_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn.datasets import load_iris

import clustermetrics as cm


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c"], 20)
    X = rng.normal(size=(60, 2)) + np.repeat([[0, 0], [6, 0], [0, 6]], 20, axis=0)
    path = tmp_path / "d.csv"
    rows = [f"{float(a)!r},{float(b)!r},{c}\n" for (a, b), c in zip(X, y, strict=True)]
    path.write_text("x,y,label\n" + "".join(rows))
    Z = linkage(X, "average")
    np.save(tmp_path / "Z.npy", Z)
    (tmp_path / "truth.txt").write_text("\n".join(y) + "\n")
    return path, X, y, Z


def test_data_file_best_cuts(capsys, data, tmp_path):
    path, X, y, Z = data
    code, out, err = run(capsys, "hierarchy", path, "--true-col", "label", "--method",
                         "average", "--metrics", "ari,ami", "--format", "json",
                         "--report", tmp_path / "rep")
    assert code == 0, err
    got = json.loads(out)
    want = max(range(1, 61), key=lambda k: (cm.adjusted_rand_score(
        y, fcluster(Z, k, "maxclust")), -k))
    assert got["best"]["ari"]["n_clusters"] == want
    assert got["best"]["ari"]["value"] == pytest.approx(
        cm.adjusted_rand_score(y, fcluster(Z, want, "maxclust")), abs=1e-12)
    assert got["computed_only_at"]["ami"] == sorted({3, want})
    assert (tmp_path / "rep" / "hierarchy_curves.png").stat().st_size > 1000


def test_linkage_and_truth_files(capsys, data, tmp_path):
    code, out, err = run(capsys, "hierarchy", "--linkage", tmp_path / "Z.npy", "--truth",
                         tmp_path / "truth.txt", "--metrics", "ari,nmi")
    assert code == 0, err
    assert "best n_clusters" in out and "nmi" in out


@pytest.mark.parametrize("argv, message", [
    ([], "give DATA"),
    (["--linkage", "Z.npy"], "--linkage needs --truth"),
    (["d.csv"], "--true-col"),
    (["--linkage", "truth.txt", "--truth", "truth.txt"], "not a numpy .npy file"),
    (["--linkage", "Z.npy", "--truth", "truth.txt", "--method", "ward"], "applies to DATA"),
    (["d.csv", "--true-col", "label", "--k", "0"], "--k: must be a positive integer"),
    (["d.csv", "--true-col", "label", "--k", "999"], "--k must"),
    (["--linkage", "Z.npy", "--truth", "short.txt"], "--truth has 2"),
    (["d.csv", "--true-col", "label", "--metrics", "nope"], "unknown metric"),
])
def test_bad_input_is_one_line(capsys, data, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "short.txt").write_text("a\nb\n")
    code, out, err = run(capsys, "hierarchy", *argv)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_compare_curves_beside_the_run_at_true_k(capsys, tmp_path):
    code, out, err = run(capsys, "compare", "--dataset", "iris", "--algorithms",
                         "kmeans,average", "--curves", "--metrics", "ari", "--format", "json",
                         "--report", tmp_path / "rep")
    assert code == 0, err
    runs = {r["algorithm"]: r for r in json.loads(out)}
    assert "curve" not in runs["kmeans"]
    curve = runs["average"]["curve"]["best"]["ari"]
    iris = load_iris()
    Z = linkage(iris.data, "average")
    values = [cm.adjusted_rand_score(iris.target, fcluster(Z, k, "maxclust"))
              for k in range(1, 151)]
    assert curve["value"] == pytest.approx(max(values), abs=1e-12)
    assert curve["at_true_k"] == pytest.approx(runs["average"]["scores"]["ari"], abs=1e-12)
    assert (tmp_path / "rep" / "hierarchy_0.png").exists()
    code, _, err = run(capsys, "compare", "--dataset", "iris", "--algorithms", "kmeans",
                       "--curves")
    assert code == 2 and "--curves applies to ward and average" in err


# ------------------------------------------------------------------ options that do not apply
def _parquet(tmp_path, X, y):
    import pandas as pd

    path = tmp_path / "d.parquet"
    pd.DataFrame({"x": X[:, 0], "y": X[:, 1], "label": y}).to_parquet(path)
    return path


@pytest.mark.parametrize("command", [["hierarchy", "{p}", "--true-col", "label"],
                                     ["compare", "--data", "{p}", "--label-col", "label"]])
def test_sep_with_a_parquet_table_is_refused(capsys, data, tmp_path, command):
    path, X, y, Z = data
    parquet = _parquet(tmp_path, X, y)
    argv = [str(a).format(p=parquet) for a in command]
    code, out, err = run(capsys, *argv, "--sep", ";")
    assert code == 2 and err.count("\n") == 1, err
    assert f"--sep applies to delimited text files; {parquet} is Parquet" in err


def _subcommands():
    from clustermetrics.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices


# the least each command with --metrics needs to get to reading it
METRICS_ARGV = {
    "score": ["t.txt", "t.txt"],
    "paired": ["t.txt", "t.txt", "t.txt"],
    "chance": ["--repeats", "2"],
    "coverage": ["--tables", "2"],
    "paired-calibration": ["--trials", "1", "--classes", "3", "--keeps", "0.5",
                           "--sizes", "30"],
    "compare": ["--dataset", "iris"],
    "hierarchy": ["d.csv", "--true-col", "label"],
}


def test_every_command_with_metrics_is_checked():
    having = {name for name, p in _subcommands().items()
              if any(a.dest == "metrics" for a in p._actions)}
    assert having == set(METRICS_ARGV)


@pytest.mark.parametrize("command", sorted(METRICS_ARGV))
@pytest.mark.parametrize("metrics", ["", " ", ",", "ari,"])
def test_an_empty_metric_name_is_refused_by_every_command(capsys, data, tmp_path, monkeypatch,
                                                          command, metrics):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text("a\nb\nb\n")
    code, out, err = run(capsys, command, *METRICS_ARGV[command], f"--metrics={metrics}")
    assert code == 2 and "unknown metric ''" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_values_at_the_asked_cuts_are_printed(capsys, data, fmt):
    path, X, y, Z = data
    asked = [5, 10]
    code, out, err = run(capsys, "hierarchy", path, "--true-col", "label", "--method",
                         "average", "--metrics", "ari,ami", "--k", ",".join(map(str, asked)),
                         "--format", fmt)
    assert code == 0, err
    want = {(key, k): f(y, fcluster(Z, k, "maxclust"))
            for key, f in (("ari", cm.adjusted_rand_score),
                           ("ami", cm.adjusted_mutual_info_score)) for k in [3, *asked]}
    if fmt == "json":
        best = json.loads(out)["best"]
        got = {(key, int(k)): v for key in ("ari", "ami") for k, v in best[key]["at_k"].items()}
    elif fmt == "csv":
        import csv
        import io

        rows = list(csv.DictReader(io.StringIO(out)))
        got = {(r["score"], k): float(r["value_at_true_k" if k == 3 else f"value_at_k={k}"])
               for r in rows for k in [3, *asked]}
    else:
        lines = out.splitlines()
        assert lines[1].split()[-7:] == ["at", "k=3", "at", "k=5", "at", "k=10", "better"]
        got = {(line.split()[0], k): float(line.split()[-4 + i])
               for line in lines[2:4] for i, k in enumerate([3, *asked])}
    assert set(got) == set(want)
    for key, value in got.items():
        assert value == pytest.approx(want[key], abs=1e-12 if fmt != "table" else 5e-5), key


# ------------------------------------------------------- hints name the command's options
def test_hints_name_only_the_options_of_the_command():
    """A library hint advising a parameter (``drop_null=True skips ...``, as the parameter
    or as any command's flag) is kept, spelled as the flag, where the command has it, and
    left out where it does not."""
    from clustermetrics.cli.main import _flags_of, _options_of_every_command, build_parser
    from clustermetrics.cli.output import as_flags

    parser = build_parser()
    others = _options_of_every_command(parser)
    every = {dest: flag for c in _subcommands() for dest, flag in
             _flags_of(parser, c).items()}
    for command in _subcommands():
        flags = _flags_of(parser, command)
        for dest, flag in every.items():
            if "_" not in dest:
                continue
            for said in (f"{dest}=True", dest, flag):
                message = as_flags(f"x.txt line 2 is empty (missing; {said} skips such rows)",
                                   flags, others)
                if dest in flags:
                    assert message == (f"x.txt line 2 is empty (missing; {flags[dest]} skips "
                                       "such rows)"), (command, said)
                else:
                    assert message == "x.txt line 2 is empty (missing)", (command, said)


@pytest.mark.parametrize("argv, hint", [
    (["hierarchy", "--linkage", "Z.npy", "--truth", "blank.txt"], None),
    (["paired", "blank.txt", "blank.txt", "blank.txt"], None),
    (["paired", "table.csv", "--true-col", "t", "--a-col", "a", "--b-col", "a"], None),
    (["score", "blank.txt", "blank.txt"], "--drop-null"),
    (["score", "table.csv", "--true-col", "t", "--pred-col", "a"], "--drop-null"),
])
def test_missing_label_hints_end_to_end(capsys, data, tmp_path, monkeypatch, argv, hint):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "blank.txt").write_text("a\n" * 30 + "\n" + "b\n" * 29)
    (tmp_path / "table.csv").write_text("t,a\nx,\ny,z\n")
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err
    assert "drop_null" not in err
    assert ("--drop-null" in err) == (hint is not None), err


# ------------------------------------------------------------------ the report's plot
def _drawn(monkeypatch, n_clusters, values, best):
    """(panel titles, scores drawn per panel, x tick labels) of hierarchy_plot, rendered."""
    from clustermetrics.experiments import plots

    seen = {}

    def capture(fig):
        fig.canvas.draw()
        seen["axes"] = [ax for ax in fig.axes if ax.axison]
        seen["panels"] = [(ax.get_title(), [t.get_text() for t in ax.get_legend().get_texts()])
                          for ax in seen["axes"]]
        seen["ticks"] = [t.get_text() for ax in seen["axes"] for t in
                         ax.get_xticklabels(minor=False) + ax.get_xticklabels(minor=True)]
        return b"\x89PNG"

    monkeypatch.setattr(plots, "_png", capture)
    plots.hierarchy_plot(n_clusters, values, best, 2, "t")
    return seen


def _range_class(key):
    e = cm.METRICS[key]
    return (math.isfinite(e.upper), e.lower >= 0 if math.isfinite(e.upper) else e.family)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(list(cm.METRICS)), min_size=1, max_size=40, unique=True),
       st.integers(2, 400))
def test_every_score_is_drawn_in_a_panel_of_its_range(keys, n):
    import _pytest.monkeypatch

    from clustermetrics.experiments.plots import HIERARCHY_LINES
    from clustermetrics.hierarchy.cuts import BestCut

    rng = np.random.default_rng(n)
    ks = np.arange(1, n + 1)
    values = {key: rng.random(n) for key in keys}
    best = {key: BestCut(int(ks[int(np.argmax(v))]), float(v.max())) for key, v in
            values.items()}
    with _pytest.monkeypatch.MonkeyPatch.context() as mp:
        seen = _drawn(mp, ks, values, best)
    drawn = [key for _, panel in seen["panels"] for key in panel]
    assert sorted(drawn) == sorted(keys)  # every score, once
    for title, panel in seen["panels"]:
        assert len(panel) <= HIERARCHY_LINES
        assert len({_range_class(k) for k in panel}) == 1, (title, panel)
        if not math.isfinite(cm.METRICS[panel[0]].upper):
            assert "unbounded" in title
    for tick in seen["ticks"]:  # plain numbers: mathtext is off, so no raw markup
        assert "$" not in tick and "\\" not in tick, tick
        assert tick == "" or float(tick) == float(tick), tick


@pytest.mark.parametrize("n", [2, 3, 7, 120, 5000])
def test_tick_labels_are_plain_numbers(monkeypatch, n):
    from clustermetrics.hierarchy.cuts import BestCut

    ks = np.arange(1, n + 1)
    seen = _drawn(monkeypatch, ks, {"ari": np.linspace(0, 1, n)}, {"ari": BestCut(n, 1.0)})
    labels = [t for t in seen["ticks"] if t]
    assert labels and all("$" not in t and "\\" not in t for t in labels), labels
    if n == 2:  # less than a decade: its ends are labelled
        assert {float(t) for t in labels} >= {1.0, 2.0}, labels


def test_report_draws_every_default_score(capsys, data, tmp_path, monkeypatch):
    from clustermetrics.experiments import plots

    legends = []

    def capture(fig):
        legends.extend(t.get_text() for ax in fig.axes if ax.get_legend() is not None
                       for t in ax.get_legend().get_texts())
        return b"\x89PNG"

    monkeypatch.setattr(plots, "_png", capture)
    path, X, y, Z = data
    code, out, err = run(capsys, "hierarchy", path, "--true-col", "label",
                         "--report", tmp_path / "rep")
    assert code == 0, err
    assert sorted(legends) == sorted([*cm.updatable_metrics(), "ami"])
