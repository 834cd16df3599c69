"""The scikit-learn suite harness can fail: scikit-learn's tests run on OUR functions, a wrong
function is caught, and every difference from scikit-learn's files is listed and documented."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sklearn
import sklearn_deviations as dev
import sklearn_rewrite as suite
import test_sklearn_common
import test_sklearn_supervised

import clustermetrics as cm

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
STUB_MODULES = {"test_supervised": test_sklearn_supervised, "test_common": test_sklearn_common}

# Every metric name scikit-learn 1.9.1's two test modules import that must be ours.
OURS = {
    "adjusted_mutual_info_score", "adjusted_rand_score", "completeness_score",
    "contingency_matrix", "entropy", "_entropy", "expected_mutual_information",
    "fowlkes_mallows_score", "homogeneity_completeness_v_measure", "homogeneity_score",
    "mutual_info_score", "normalized_mutual_info_score", "pair_confusion_matrix", "rand_score",
    "v_measure_score",
}


def _imported_metrics(module):
    """local name -> scikit-learn name, for the metric imports of scikit-learn's file."""
    source = suite.sklearn_test_file(module).read_text()
    return {alias.asname or alias.name: alias.name
            for node in suite.metric_imports(source) for alias in node.names}


def _expected(name):
    if name in dev.ADAPTERS:
        return dev.ADAPTERS[name][0]
    return getattr(cm, dev.ALIASES.get(name, name))


def test_installed_sklearn_is_the_version_the_deviations_were_written_for():
    assert sklearn.__version__ == suite.SKLEARN_VERSION


@pytest.mark.parametrize("module", suite.STUBS.values())
def test_imported_metrics_resolve_to_clustermetrics(module):
    loaded = suite.load(module)
    ours = set()
    for local, name in _imported_metrics(module).items():
        obj = getattr(loaded, local)
        if name in dev.KEPT:
            assert obj.__module__.startswith("sklearn."), name
            continue
        assert obj is _expected(name), name
        assert obj.__module__.startswith(("clustermetrics.", "sklearn_deviations")), name
        ours.add(name)
    assert ours == OURS & set(_imported_metrics(module).values())
    assert ours  # both modules import some of our metrics


def test_every_listed_metric_is_imported_by_the_sklearn_tests():
    imported = set()
    for module in suite.STUBS.values():
        imported |= set(_imported_metrics(module).values())
    assert imported == OURS | set(dev.KEPT)


@pytest.mark.parametrize("module", suite.STUBS.values())
def test_stubs_expose_every_sklearn_test_with_our_metrics(module):
    tree = ast.parse(suite.sklearn_test_file(module).read_text())
    defined = {node.name for node in tree.body
               if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}
    exposed = {name for name in vars(STUB_MODULES[module]) if name.startswith("test_")}
    assert exposed == defined and len(defined) >= 10
    rewritten = vars(suite.load(module))
    for name in exposed:
        assert getattr(STUB_MODULES[module], name).__globals__ is rewritten


def test_every_deviation_is_documented():
    text = (ROOT / "docs" / "guide" / "scikit-learn.md").read_text()
    start = text.index("# Deviations from scikit-learn 1.9")
    end = text.find("\n#", start + 1) % (len(text) + 1)  # the section may end the file
    section = " ".join(text[start:end].split())
    reasons = {d.reason for d in dev.DEVIATIONS.values()} | set(dev.KEPT.values())
    reasons |= {reason for _, reason in dev.ADAPTERS.values()}
    for reason in reasons:
        assert " ".join(reason.split()) in section, reason


def test_a_deviation_patch_must_match_sklearn_source(monkeypatch):
    bad = dev.Deviation(dev.EMPTY_INPUT, replace=(("assert no_such_statement()", "pass"),))
    monkeypatch.setitem(dev.DEVIATIONS, "test_supervised.py::test_entropy", bad)
    source = suite.sklearn_test_file("test_supervised").read_text()
    with pytest.raises(RuntimeError, match="found 0 times, expected once"):
        suite.apply_deviations(source, "test_supervised.py")


@pytest.fixture(scope="module")
def mutant_run(tmp_path_factory):
    """scikit-learn's suite run in a fresh process with a wrong adjusted_rand_score."""
    record = tmp_path_factory.mktemp("sklearn-suite") / "record.json"
    env = dict(os.environ, **{suite.MUTANT_ENV: "adjusted_rand_score",
                              "CLUSTERMETRICS_SKLEARN_SUITE_RECORD": str(record)})
    stubs = [str(HERE / name) for name in suite.STUBS]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *stubs], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    return proc, json.loads(record.read_text())


def test_a_wrong_adjusted_rand_score_is_caught(mutant_run):
    proc, record = mutant_run
    failed = {t for t, outcome in record["outcomes"].items() if outcome != "passed"}
    # the Rand index passes the tests of perfect matches, symmetry and bounds, but not
    # scikit-learn's known ARI values nor its chance-level check
    assert failed == {"test_supervised.py::test_non_consecutive_labels",
                      "test_supervised.py::test_adjustment_for_chance"}, proc.stdout[-3000:]
    assert proc.returncode == 1


def test_the_sklearn_tests_ran(mutant_run):
    _, record = mutant_run
    ran = set(record["collected"]) - set(record["deselected"])
    assert set(record["outcomes"]) == ran
    # the figures the documentation quotes: 117 run (115 pass with the wrong ARI), 64 deselected
    assert (len(ran), len(record["deselected"])) == (117, 64)
    assert list(record["outcomes"].values()).count("passed") == 115


def test_every_deviation_names_a_collected_sklearn_test(mutant_run):
    _, record = mutant_run
    matches = {key: {t for t in record["collected"] if key in (t, t.split("[", 1)[0])}
               for key in dev.DEVIATIONS}
    assert all(matches.values()), [key for key, hits in matches.items() if not hits]
    deselected = set().union(*(hits for key, hits in matches.items()
                               if not dev.DEVIATIONS[key].replace))
    assert set(record["deselected"]) == deselected
