"""The layer around the scores keeps its promises on generated input: seeds are checked
against what receives them, every JSON carries the intervals and the noise handling, an
option that would change nothing is refused, all-noise predictions follow one rule in
score, evaluate and compare, every form of several references gives the same report, and
user text is shown losslessly (text tables, error lines, HTML)."""

import ast
import contextlib
import csv
import dataclasses
import io
import json
import math
import os
import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import METRICS
from clustermetrics.cli import CliError, build_parser, main
from clustermetrics.cli.compare import parse_k
from clustermetrics.cli.output import as_flags
from clustermetrics.evaluation.report import Report
from clustermetrics.experiments.datasets import Dataset
from clustermetrics.inference.bootstrap import Interval
from clustermetrics.inference.noise import NOISE_MODES, NoiseSingleton, with_noise
from clustermetrics.render.tables import blocks_text
from clustermetrics.render.text import quoted_list, visible

KEYS = "ari,ami,nmi,v_measure,recovery_rate,bcubed_f,clustering_error,pair_precision"


def _cli(*argv):
    """(exit status, stdout, stderr) of the command line run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _strict(text):
    def reject(name):
        raise AssertionError(f"not strict JSON: {name}")
    return json.loads(text, parse_constant=reject)


def _one_error_line(code, out, err):
    assert code == 2 and out == ""
    assert err.startswith("clustermetrics: error: ") and err.count("\n") == 1, err
    return err[len("clustermetrics: error: "):-1]


def _same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def _close(a, b):
    """Equal to rounding: the same table with its cells in another order."""
    return _same(a, b) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# ------------------------------------------------------------------ seeds
seeds = st.one_of(st.integers(-3, 3), st.integers(2**32 - 3, 2**32 + 3),
                  st.integers(-2**80, 2**80))


def _small_data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    return Dataset("d", rng.normal(size=(20, 2)) + y[:, None] * 6, y, "two blobs")


@settings(max_examples=30, deadline=None)
@given(seeds, st.sampled_from(["compare", "recovery_study", "run_algorithm"]))
def test_algorithm_seeds_are_refused_exactly_where_scikit_learn_would(seed, entry):
    """The algorithms' seeds go to scikit-learn's random_state: refused up front, naming
    the option, exactly where scikit-learn's own check refuses them; accepted ones run."""
    from sklearn.utils import check_random_state
    from threadpoolctl import threadpool_limits

    from clustermetrics.experiments.algorithms import run_algorithm
    from clustermetrics.experiments.compare import compare
    from clustermetrics.experiments.recovery_study import recovery_study

    try:
        check_random_state(seed)
        accepted = True
    except ValueError:
        accepted = False
    data = _small_data()
    call, name = {
        "compare": (lambda: compare([data], ["kmeans"], seed=seed, metrics="ari"), "seed"),
        "recovery_study": (lambda: recovery_study([2], n_per_cluster=10, algorithms="kmeans",
                                                  seeds=[seed]), "seeds"),
        "run_algorithm": (lambda: run_algorithm("kmeans", data.X, 2, seed), "seed"),
    }[entry]
    with threadpool_limits(1):
        if accepted:
            call()
        else:
            with pytest.raises(ValueError, match=rf"^{name} must be an integer from 0 to "
                                                 r"4,294,967,295 \(scikit-learn's"):
                call()


@settings(max_examples=25, deadline=None)
@given(seeds)
def test_numpy_seeds_take_what_numpy_takes(seed):
    """The bootstrap, the chance study and the simulated data seed numpy's generator,
    which takes any non-negative integer: exactly those are accepted."""
    from clustermetrics.experiments.chance import ChanceSetup, chance_study

    try:
        np.random.SeedSequence(seed)
        accepted = True
    except (ValueError, TypeError):
        accepted = False
    calls = {
        "seed": lambda: cm.evaluate([0, 0, 1, 1], [0, 1, 1, 1], "ari", ci=0.9, n_boot=2,
                                    seed=seed),
        "chance seed": lambda: chance_study(["ari"], setups=[ChanceSetup("e", "e", 10, None, 3)],
                                            n_repeats=1, n_points=2, seed=seed),
    }
    for what, call in calls.items():
        if accepted:
            call()
        else:
            with pytest.raises(ValueError, match="seed must be a non-negative integer"):
                call()
        del what


# ------------------------------------------------------------------ JSON carries all
labels = st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 3)), min_size=2, max_size=25)


@settings(max_examples=40, deadline=None)
@given(labels, st.booleans(), st.booleans(), st.integers(1, 3))
def test_every_json_carries_intervals_and_noise(pairs, noise, ci, n_refs):
    t = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    refs = t if n_refs == 1 else {f"r{i}": t[i:] + t[:i] for i in range(n_refs)}
    report = cm.evaluate(refs, p, "ari,nmi,clustering_ratio",
                         noise_label=-1 if noise else None, ci=0.9 if ci else None,
                         n_boot=5 if ci else None, seed=1 if ci else None)
    singles = list(report.reports.values()) if n_refs > 1 else [report]
    for details in (False, True):
        data = _strict(report.to_json(details=details))
        assert data == report.to_dict(details)
        if ci:
            assert data["ci"] == 0.9 and data["n_boot"] == 5 and data["seed"] == 1
            assert set(data["intervals"]) == set(report) == set(data["skipped"])
            assert set(report.intervals) == set(report)
            for key, iv in report.intervals.items():
                got = [None if math.isnan(x) else x for x in (iv.low, iv.high)]
                assert data["intervals"][key] == got
                assert data["skipped"][key] == iv.n_skipped
        else:
            assert "intervals" not in data and report.intervals == {}
        if noise:
            assert data["noise"]["n_noise"] == p.count(-1) == report.noise.n_noise
            assert data["noise"]["mode"] == "singletons"
        else:
            assert "noise" not in data
        if n_refs == 1:
            assert data["scores"] == dict(report) or any(math.isnan(v) for v in report.values())
            continue
        assert data["references"] == list(refs)
        assert data["best_reference"] == report.best_reference
        assert data["spread"] == {k: s._asdict() for k, s in report.spread.items()}
        for name, single in zip(refs, singles, strict=True):
            own = data["reports"][name]
            assert own == single.to_dict(details)
            assert ("intervals" in own) == ci
        for key, ref in report.best_reference.items():  # the best reference's interval
            if ci:
                assert report.intervals[key] == report.reports[ref].intervals[key]
                assert report.intervals_by_reference[ref][key] == report.intervals[key]
    for top in (1, 3, "2", "all", 0):  # top without diagnostics would change nothing
        with pytest.raises(ValueError, match="top applies to the diagnostics"):
            report.to_json(top=top)
    assert report.to_dict(diagnostics=True, top=1) == _strict(
        report.to_json(diagnostics=True, top=1))


# ------------------------------------------------------------------ options refused
@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("refs")
    (root / "sub").mkdir()
    for name in ("t.txt", "c.txt", "sub/t.txt"):
        (root / name).write_text("a\na\nb\nb\n")
    (root / "p.txt").write_text("0\n0\n1\n2\n")
    (root / "l.txt").symlink_to(root / "t.txt")
    return root


SPELLINGS = {"plain": ("t.txt", "T"), "dot": ("./t.txt", "T"), "parent": ("sub/../t.txt", "T"),
             "abs": (None, "T"), "link": ("l.txt", "T"), "copy": ("c.txt", "C"),
             "sub": ("sub/t.txt", "S")}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(sorted(SPELLINGS)), min_size=1, max_size=3))
def test_reference_naming_a_file_already_scored_is_refused(folder, spellings):
    """However it is spelled (relative, ./, .., absolute, a symbolic link), a --reference
    naming TRUTH or another --reference is refused; other files are scored."""
    paths = [SPELLINGS[s][0] or str(folder / "t.txt") for s in spellings]
    files = ["T"] + [SPELLINGS[s][1] for s in spellings]
    argv = ["score", "t.txt", "p.txt", "--metrics", "ari", "--format", "json"]
    for path in paths:
        argv += ["--reference", path]
    here = os.getcwd()
    os.chdir(folder)
    try:
        code, out, err = _cli(*argv)
    finally:
        os.chdir(here)
    if len(set(files)) < len(files):
        assert "names the same file as" in _one_error_line(code, out, err)
    else:
        assert code == 0, err
        assert _strict(out)["references"] == ["t.txt", *paths]


k_parts = st.lists(st.one_of(
    st.integers(1, 30).map(lambda k: (k, k)),
    st.tuples(st.integers(1, 30), st.integers(0, 8)).map(lambda t: (t[0], t[0] + t[1]))),
    min_size=1, max_size=5)


@settings(max_examples=150, deadline=None)
@given(k_parts)
def test_k_naming_a_value_twice_is_refused(parts):
    """--k lists the runs: refused exactly when some k would run twice (brute force)."""
    text = ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in parts)
    ks = [k for lo, hi in parts for k in range(lo, hi + 1)]
    if len(set(ks)) < len(ks):
        with pytest.raises(CliError, match=r"--k names \d+ twice"):
            parse_k(text)
    else:
        assert parse_k(text) == sorted(ks)


def test_k_twice_on_the_command_line():
    message = _one_error_line(*_cli("compare", "--dataset", "iris", "--algorithms",
                                    "kmeans", "--k", "3,3"))
    assert message == "--k names 3 twice (each k is one run), got '3,3'"


@pytest.mark.parametrize("mode", NOISE_MODES)
def test_noise_without_noise_label_is_refused_by_library_and_cli(mode, folder):
    with pytest.raises(ValueError, match=f"noise '{mode}' needs noise_label"):
        cm.evaluate([0, 1], [0, 1], "ari", noise=mode)
    message = _one_error_line(*_cli("score", folder / "t.txt", folder / "p.txt",
                                    "--noise", mode))
    assert message.startswith(f"--noise '{mode}' needs --noise-label")


# ------------------------------------------------------------------ every point noise
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=20))
def test_all_noise_scores_the_singleton_table_everywhere(tmp_path_factory, truth):
    """evaluate, score and compare score N one-item clusters when every point is noise
    (noise 'singletons'), and all refuse noise 'exclude': nothing is left."""
    from clustermetrics.experiments import algorithms
    from clustermetrics.experiments.compare import compare

    n = len(truth)
    direct = cm.evaluate(truth, list(range(n)))  # the singleton table, built independently
    report = cm.evaluate(truth, [-1] * n, noise_label=-1)
    assert report.table.n_clusters == n and report.noise.n_noise == n
    assert all(_close(report[k], direct[k]) for k in METRICS)
    with pytest.raises(ValueError, match="excluding the noise points .* leaves nothing"):
        cm.evaluate(truth, [-1] * n, noise_label=-1, noise="exclude")

    folder = tmp_path_factory.mktemp("noise")
    (folder / "t.txt").write_text("".join(f"c{v}\n" for v in truth))
    (folder / "p.txt").write_text("-1\n" * n)
    code, out, err = _cli("score", folder / "t.txt", folder / "p.txt", "--noise-label", "-1",
                          "--metrics", KEYS, "--format", "json")
    assert code == 0, err
    scores = _strict(out)["scores"]
    assert all(_close(direct[k], scores[k] if scores[k] is not None else math.nan)
               for k in KEYS.split(","))
    message = _one_error_line(*_cli("score", folder / "t.txt", folder / "p.txt",
                                    "--noise-label", "-1", "--noise", "exclude"))
    assert "(--noise 'exclude') leaves nothing to score" in message

    spec = algorithms.ALGORITHMS["hdbscan"]  # an algorithm that calls every point noise
    fake = dataclasses.replace(spec, fit=lambda X, k, seed, m: algorithms.Fitted(
        np.full(X.shape[0], -1, dtype=np.int64), ""))
    data = Dataset("d", np.zeros((n, 2)), np.array(truth), "constant")
    real, algorithms.ALGORITHMS["hdbscan"] = spec, fake
    try:
        (run,) = compare([data], ["hdbscan"], noise="singletons", metrics=KEYS)
        assert run.n_clusters == n and run.note.startswith("every point is noise")
        assert all(_close(run.scores[k], direct[k]) for k in run.scores)
        with pytest.raises(ValueError, match="every point is noise, so excluding"):
            compare([data], ["hdbscan"], noise="exclude", metrics=KEYS)
        (run,) = compare([data], ["hdbscan"], noise="cluster", metrics=KEYS)  # as labelled
        assert run.n_clusters == 1
    finally:
        algorithms.ALGORITHMS["hdbscan"] = real


# ------------------------------------------------------------------ several references
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(2, 10), st.data())
def test_every_form_of_several_references_gives_the_same_report(n_refs, n, data):
    """Rows (lists, tuples, a 2-D array) and named columns (dict, pandas, polars,
    pyarrow) are the same references."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    rows = [data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
            for _ in range(n_refs)]
    pred = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    names = data.draw(st.lists(st.text(min_size=1, max_size=5), min_size=n_refs,
                               max_size=n_refs, unique=True))
    by_row = [cm.evaluate(form, pred, KEYS) for form in (
        [list(r) for r in rows], [tuple(r) for r in rows], tuple(list(r) for r in rows),
        np.array(rows), [np.array(r) for r in rows])]
    columns = dict(zip(names, rows, strict=True))
    by_name = [cm.evaluate(form, pred, KEYS) for form in (
        columns, pd.DataFrame(columns), pl.DataFrame(columns), pa.table(columns))]
    first = by_row[0]
    for m in by_row + by_name:
        assert [r.table for r in m.reports.values()] == [r.table for r in first.reports.values()]
        assert all(_same(m[k], first[k]) for k in first) and m.spread.keys() == first.spread.keys()
    for m in by_row:
        assert list(m.reports) == [f"reference {i + 1}" for i in range(n_refs)]
        assert m.best_reference == first.best_reference
    for m in by_name:
        assert list(m.reports) == names
        assert m.best_reference == {k: names[int(r.split()[-1]) - 1]
                                    for k, r in first.best_reference.items()}


# ------------------------------------------------------------------ user text
def _decode(shown):
    """The text ``visible`` showed, read back as the Python string literal it is."""
    return ast.literal_eval('"' + shown.replace('"', '\\"') + '"')


@settings(max_examples=300, deadline=None)
@given(st.text(st.one_of(st.sampled_from("\\\n\r\t\x1b\x00\u2028\u202e\u2066 \"'n"),
                         st.characters(exclude_categories=("Cs",)))))
def test_visible_is_lossless_and_one_line(text):
    """Text tables show every label as the body of a Python string literal: it reads back
    to the label (so `a` newline `b` and the characters `a\\nb` differ), and it holds no
    character that breaks the line or reorders it."""
    shown = visible(text)
    assert _decode(shown) == text
    assert not any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in "\u202e\u2066"
                   for ch in shown)
    # a label in a text table (unfolded: at the line width a wide label folds it)
    table = blocks_text(cm.diagnose([text, text], [0, 1]).blocks(1), width=sys.maxsize)
    assert f"\n  {shown} " in table and len(table.splitlines()) == 7


column_names = st.text(st.one_of(
    st.sampled_from(" ,\\\n\t\x1b\u2028\u202e\"'$"),
    st.characters(exclude_categories=("Cs",), exclude_characters="\x00\r\ufeff")),
    max_size=6)


@settings(max_examples=40, deadline=None)
@given(st.lists(column_names, min_size=2, max_size=4).filter(
    lambda h: "zz" not in h and any(h)))
def test_error_line_lists_columns_losslessly(tmp_path_factory, head):
    """A missing column's error names every column as a Python literal on one line:
    nothing collapsed or dropped, and the list reads back to the header."""
    table = tmp_path_factory.mktemp("cols") / "t.csv"
    with table.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([head, ["v"] * len(head)])
    message = _one_error_line(*_cli("score", table, "--true-col", "zz",
                                    "--pred-col", "x"))
    assert message.startswith(f"{table} has no column 'zz' (--true-col); columns are: ")
    listed = message.split("; columns are: ", 1)[1]
    assert listed == visible(quoted_list(head), backslash=False)
    assert ast.literal_eval(f"[{listed}]") == head


def test_library_parameters_are_shown_as_the_flags_of_the_command():
    """Every parameter a subcommand's flag sets is renamed where a library message names
    it, and only there (not inside a quoted column or file name)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command, subparser in sub.choices.items():
        flags = {a.dest: max(a.option_strings, key=len) for a in subparser._actions
                 if a.option_strings and a.dest != "help"}
        for dest, flag in flags.items():
            message = f"x.csv has no column {dest!r} ({dest}); ({dest} 'v')"
            assert as_flags(message, flags) == \
                f"x.csv has no column {dest!r} ({flag}); ({flag} 'v')", (command, dest)
            if "_" in dest:
                assert as_flags(f"{dest} 'x' is bad", flags) == f"{flag} 'x' is bad"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.integers(-1, 3), st.tuples(st.just(-1), st.integers(0, 3)),
                          st.sampled_from(["noise(-1)#0", "noise(-1)#1"])), min_size=2,
                max_size=20))
def test_noise_singletons_never_collide_with_real_labels(pred):
    """Real labels that look like a singleton's name (a tuple (-1, 0), the text
    'noise(-1)#0') stay distinct clusters."""
    pred = [*pred, -1]  # the noise label is used
    p = np.empty(len(pred), dtype=object)
    p[:] = pred
    truth = list(range(len(pred)))
    table, info = with_noise(cm.Contingency.from_labels(truth, p), -1)
    real = {v for v in pred if not (isinstance(v, int) and v == -1)}
    clusters = table.cluster_labels.tolist()
    assert info.n_noise == sum(isinstance(v, int) and v == -1 for v in pred)
    assert table.n_clusters == len(real) + info.n_noise == len(set(clusters))
    singles = [c for c in clusters if isinstance(c, NoiseSingleton)]
    assert len(singles) == info.n_noise
    assert not any(s == r or r == s for s in singles for r in real)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(2, 40), st.floats(0, 1)), min_size=1, max_size=4))
def test_footnote_only_when_a_row_carries_the_star(specs):
    """Undefined intervals print 'undefined', not '*': the '*' footnote follows the rows."""
    keys = list(METRICS)[:len(specs)]
    intervals = {k: Interval(0.1, 0.2, 0.9, n_boot, round(share * n_boot))
                 for k, (n_boot, share) in zip(keys, specs, strict=True)}
    report = Report(cm.Contingency.from_labels([0, 1], [0, 1]), dict.fromkeys(keys, 0.5),
                    {}, {}, intervals=intervals)
    lines = report.format().splitlines()
    rows = lines[2:2 + len(keys)]
    starred = any(line.endswith("*") for line in rows)
    assert starred == any(line.startswith("* ") for line in lines)
    assert starred == any(0.1 * iv.n_boot < iv.n_skipped < iv.n_boot
                          for iv in intervals.values())
    assert sum("undefined" in line for line in rows) == \
        sum(iv.n_skipped == iv.n_boot for iv in intervals.values())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=12),
       st.integers(1, 2))
def test_counts_in_summaries_agree_in_number(pairs, n_refs):
    t = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    table = cm.Contingency.from_labels(t, p)
    c, k = table.n_classes, table.n_clusters
    expected = (f"N = {len(t)}, {c} class{'' if c == 1 else 'es'}, "
                f"{k} cluster{'' if k == 1 else 's'}")
    assert str(cm.evaluate(t, p, "ari")).splitlines()[0] == expected
    head = str(cm.evaluate([t] * n_refs, p, "ari")).splitlines()[0]
    assert head.startswith(f"{n_refs} reference{'' if n_refs == 1 else 's'}: ")


def test_metrics_json_is_strict_and_matches_the_registry():
    code, out, err = _cli("metrics", "--format", "json")
    assert code == 0, err
    rows = _strict(out)
    assert [r["key"] for r in rows] == list(METRICS)
    for row, entry in zip(rows, METRICS.values(), strict=True):
        for side in ("lower", "upper"):  # an unbounded end is null, as the JSON rule says
            bound = getattr(entry, side)
            assert row[side] == (bound if math.isfinite(bound) else None)


def test_html_data_section_names_the_file_once(tmp_path):
    """The report's Data section: the file's name once, then what it holds."""
    from threadpoolctl import threadpool_limits

    from clustermetrics.experiments import plots
    from clustermetrics.experiments.compare import compare
    from clustermetrics.experiments.datasets import read_dataset
    from clustermetrics.experiments.html import write_report
    from clustermetrics.experiments.pages import compare_sections

    path = tmp_path / "pts.csv"
    path.write_text("x,y,lab\n" + "".join(f"{i % 2 * 5 + i / 10},{i % 3},{'ab'[i % 2]}\n"
                                          for i in range(12)))
    here = os.getcwd()
    os.chdir(tmp_path)
    real, plots._png = plots._png, lambda fig: b"\x89PNG stub"  # the page, not the plots
    try:
        for spelled in ("pts.csv", str(path)):
            data = read_dataset(spelled, "lab")
            with threadpool_limits(1):
                runs = compare([data], ["kmeans"], metrics=["ari"])
            page = write_report(tmp_path / "r", "t", compare_sections(runs, {data.name: data}))
            html = page.read_text(encoding="utf-8")
            section = html[html.index('<h2 id="data">'):]
            paragraph = section[section.index("<p>") + 3:section.index("</p>")]
            assert paragraph.startswith("pts.csv: 12 rows, 2 features, labels in column")
            assert paragraph.count("pts.csv") == (1 if spelled == "pts.csv" else 2)
    finally:
        plots._png = real
        os.chdir(here)
