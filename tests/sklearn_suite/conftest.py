"""Collection hooks of the scikit-learn suite: deselect the documented deviations, refuse
skips, print one summary line, and (for the harness's self-test) record what ran."""

import json
import os

import pytest
from sklearn_rewrite import SKLEARN_VERSION, deviation_of, sklearn_id

RECORD_ENV = "CLUSTERMETRICS_SKLEARN_SUITE_RECORD"
_state = {"collected": [], "deselected": [], "outcomes": {}}


def pytest_configure(config):
    # scikit-learn's sklearn/metrics/tests/test_common.py (test_common.py imports a helper
    # from it) uses the marker of pytest-run-parallel, declared in scikit-learn's conftest
    config.addinivalue_line("markers", "thread_unsafe: scikit-learn's marker (pytest-run-parallel)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    kept, deselected = [], []
    for item in items:
        test_id = sklearn_id(item)
        if test_id is not None:
            _state["collected"].append(test_id)
            found = deviation_of(test_id)
            if found is not None and not found[1].replace:
                _state["deselected"].append(test_id)
                deselected.append(item)
                continue
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    test_id = sklearn_id(item)
    if test_id is not None and report.skipped:
        # a test that skips itself checks nothing: it must run, or be deselected with a reason
        report.outcome = "failed"
        report.longrepr = (f"scikit-learn's {test_id} skipped itself ({call.excinfo.value}); "
                           "make it run or list it in sklearn_deviations.DEVIATIONS")
    if test_id is not None and (report.when == "call" or report.outcome != "passed"):
        _state["outcomes"][test_id] = report.outcome
    return report


def pytest_terminal_summary(terminalreporter):
    outcomes = list(_state["outcomes"].values())
    if outcomes or _state["deselected"]:
        terminalreporter.write_line(
            f"scikit-learn {SKLEARN_VERSION} cluster-metric tests run against clustermetrics: "
            f"{outcomes.count('passed')} passed, {outcomes.count('failed')} failed, "
            f"{len(_state['deselected'])} deselected (tests/sklearn_suite/sklearn_deviations.py)")


def pytest_sessionfinish():
    path = os.environ.get(RECORD_ENV)
    if path:
        with open(path, "w") as f:
            json.dump(_state, f)
