"""The public API's shape, checked over every registered score and every public name: a
score is exported under its function's name, named by its direction, fully documented; a
deprecated name warns and gives the new function's value."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import clustermetrics as cm
from clustermetrics.scores.registry import METRICS

SECTIONS = ("Parameters\n----------", "Returns\n-------", "Examples\n--------",
            "References\n----------")
PUBLIC = [getattr(cm, name) for name in cm.__all__]
ALIASES = [f for f in PUBLIC if callable(f) and hasattr(f, "replacement")
           and f.__name__ != "compare_clusterings"]  # the scores' aliases (two labellings)
SCORES = {id(e.func): e.func for e in METRICS.values()}.values()


@pytest.mark.parametrize("key", list(METRICS))
def test_every_registered_function_is_exported_under_its_name(key):
    func = METRICS[key].func
    assert func.__name__ in cm.__all__
    assert getattr(cm, func.__name__) is func


@pytest.mark.parametrize("key", list(METRICS))
def test_names_follow_the_direction(key):
    entry, name = METRICS[key], METRICS[key].func.__name__
    if entry.better == "higher":
        assert name.endswith("_score"), name
    elif entry.better == "lower":
        assert name.endswith(("_error", "_distance")), name
    else:  # best at a value: neither suffix may promise a direction
        assert not name.endswith(("_score", "_error", "_distance")), name


@pytest.mark.parametrize("func", SCORES, ids=lambda f: f.__name__)
def test_every_score_has_a_full_numpydoc_docstring(func):
    doc = func.__doc__ or ""
    missing = [s.split()[0] for s in SECTIONS if s not in doc]
    assert not missing, f"{func.__name__} lacks {missing}"
    assert ">>> " in doc.split("Examples\n--------")[1]
    documented = {line.split(" : ")[0] for line in doc.splitlines() if " : " in line}
    params = set(inspect.signature(func).parameters)
    assert params <= documented, f"{func.__name__}: undocumented {params - documented}"


@pytest.mark.parametrize("func", SCORES, ids=lambda f: f.__name__)
def test_every_score_takes_labels_a_table_or_contingency(func):
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 4, 60), rng.integers(0, 5, 60)
    table = cm.Contingency.from_labels(t, p)
    by_labels = func(t, p)
    assert func(table) == by_labels
    assert func(contingency=table) == by_labels
    assert func(contingency=table.to_dense()) == by_labels


def test_there_are_deprecated_aliases_to_check():
    assert len(ALIASES) >= 20


@pytest.mark.parametrize("alias", ALIASES, ids=lambda f: f.__name__)
def test_deprecated_alias_warns_and_equals_its_replacement(alias):
    rng = np.random.default_rng(1)
    t, p = rng.integers(0, 3, 50), rng.integers(0, 4, 50)
    with pytest.warns(FutureWarning, match=alias.__name__):
        old = alias(t, p)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = alias.replacement(t, p, **alias.fixed)
    assert alias.replacement.__name__ in cm.__all__
    assert old == new
    assert "Deprecated" in alias.__doc__ and alias.replacement.__name__ in alias.__doc__


@pytest.mark.parametrize("key", list(METRICS))
def test_function_names_resolve_to_the_entry_calling_them_with_defaults(key):
    from clustermetrics.scores.registry import resolve_metrics

    entry = METRICS[key]
    params = inspect.signature(entry.func).parameters
    if all(params[k].default == v for k, v in entry.options.items()):
        assert METRICS[resolve_metrics(entry.func.__name__)[0]].func is entry.func
        assert resolve_metrics(entry.func.__name__) == [
            k for k, e in METRICS.items() if e.func is entry.func and all(
                params[o].default == v for o, v in e.options.items())][:1]


@pytest.mark.parametrize("alias", ALIASES, ids=lambda f: f.__name__)
def test_deprecated_names_resolve_as_metric_names_with_a_warning(alias):
    from clustermetrics.scores.registry import resolve_metrics

    if alias.__name__ in METRICS:  # the old function name is also a key: no warning
        return
    with pytest.warns(FutureWarning, match=alias.__name__):
        (key,) = resolve_metrics(alias.__name__)
    entry = METRICS[key]
    assert entry.func is alias.replacement and dict(entry.options) == alias.fixed
    assert not set(alias.fixed) & set(inspect.signature(alias).parameters)


DEGENERATE = [([0], [0]), ([0, 0, 0], [1, 1, 1]), ([0, 1, 2], [0, 1, 2]), ([0, 0], [0, 1]),
              ([0, 1], [0, 0]), ([0, 0, 1, 1], [0, 0, 1, 1])]


@pytest.mark.parametrize("key", list(METRICS))
def test_one_zero_denominator_policy_on_degenerate_tables(key):
    """Where a score is 0/0 it raises with force_finite=False and returns finite_value
    when given; where it is defined, neither option changes its value."""
    entry = METRICS[key]
    params = inspect.signature(entry.func).parameters
    if "force_finite" not in params:
        return
    for t, p in DEGENERATE:
        value = entry.func(t, p, **entry.options)
        try:
            strict = entry.func(t, p, force_finite=False, **entry.options)
        except cm.UndefinedMetricError:
            assert entry.func(t, p, finite_value=0.125, **entry.options) == 0.125
        else:
            assert strict == value
            assert entry.func(t, p, finite_value=0.125, **entry.options) == value


def test_compare_clusterings_is_the_paired_comparison_under_its_old_name():
    rng = np.random.default_rng(2)
    t = rng.integers(0, 3, 60)
    a, b = np.where(rng.random(60) < 0.8, t, 0), rng.integers(0, 3, 60)
    with pytest.warns(FutureWarning, match="compare_clusterings.*paired_comparison"):
        old = cm.compare_clusterings(t, a, b, "ari")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = cm.paired_comparison(t, a, b, "ari")
    assert old.to_dict() == new.to_dict()
