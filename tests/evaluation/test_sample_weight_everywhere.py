"""Every public function that takes labels takes ``sample_weight``: integer weights are
repetitions of the items (the result equals that of the repeated items), real weights are
accepted where the result is defined on real masses and refused naming ``sample_weight``
where it is not, and bad weights are refused naming ``sample_weight``, everywhere.

The functions are found in ``clustermetrics.__all__`` (first parameter ``labels_true`` or
``labels``): a new one without a case here fails the first test. The registered scores are
held to the same rule by tests/table/test_sample_weight.py."""

from __future__ import annotations

import inspect
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import linkage

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.hierarchy.cuts import _level_stats
from clustermetrics.io import ContingencyBuilder
from clustermetrics.scores.spec import ScoreSpec


def _label_functions() -> dict[str, bool]:
    """Public function name -> whether it is a score function (built by the score
    decorator, which gives every score sample_weight: tests/table/test_sample_weight.py)."""
    out = {}
    for name in cm.__all__:
        obj = getattr(cm, name)
        if not callable(obj) or inspect.isclass(obj) or hasattr(obj, "replacement"):
            continue  # a deprecated alias calls its replacement, checked here
        params = list(inspect.signature(obj).parameters)
        if params[:1] in (["labels_true"], ["labels"]):
            out[name] = isinstance(getattr(obj, "spec", None), ScoreSpec)
    return out


def _same(a, b):
    """Equal results: arrays and tables by value, floats to 1e-12, tuples item by item."""
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif hasattr(a, "_asdict") and not isinstance(a, cm.Contingency):
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, float):
        assert a == pytest.approx(b, abs=1e-12, nan_ok=True)
    elif isinstance(a, tuple):
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert a == b


# name -> call(labels_true, labels_pred, **weights), and whether real weights are defined
CALLS = {
    "contingency_matrix": (lambda t, p, **w: cm.contingency_matrix(t, p, dtype=np.float64, **w),
                           True),
    "diagnose": (lambda t, p, **w: cm.diagnose(t, p, **w), True),
    "entropy": (lambda t, p, **w: cm.entropy(t, **w), True),
    "homogeneity_completeness_v_measure": (
        lambda t, p, **w: cm.homogeneity_completeness_v_measure(t, p, **w), True),
    "marxer_purwins": (lambda t, p, **w: cm.marxer_purwins(t, p, **w), True),
    "pair_counts": (lambda t, p, **w: cm.pair_counts(t, p, **w), True),
    "pair_confusion_matrix": (lambda t, p, **w: cm.pair_confusion_matrix(t, p, **w), True),
    "rand_moments": (lambda t, p, **w: cm.rand_moments(t, p, **w), False),
    "permutation_test": (lambda t, p, **w: cm.permutation_test(t, p, "ari", n_perm=20,
                                                               seed=3, **w), False),
    "evaluate": (lambda t, p, **w: dict(cm.evaluate(t, p, ["ari", "nmi"], **w)), True),
    "paired_comparison": (lambda t, p, **w: cm.paired_comparison(
        t, p, t, ["nmi"], **w).to_dict()["scores"]["nmi"]["a"], True),
    "score_hierarchy": (None, False),  # a tree, not two labelings: below
    "as_contingency": (lambda t, p, **w: cm.as_contingency(t, p, **w), True),
}


def test_every_function_of_labels_takes_sample_weight():
    functions = _label_functions()
    for name in functions:
        assert "sample_weight" in inspect.signature(getattr(cm, name)).parameters, name
    assert {name for name, is_score in functions.items() if not is_score} == set(CALLS)


cases = st.integers(1, 14).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0, 1, 2, "a"]), min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n)))


@settings(max_examples=30, deadline=None)
@given(cases)
def test_integer_weights_are_repetitions_of_the_items(case):
    t, p, w = case
    if sum(w) == 0:
        w[0] = 1
    tt = [x for x, k in zip(t, w, strict=True) for _ in range(k)]
    pp = [x for x, k in zip(p, w, strict=True) for _ in range(k)]
    for name, (call, _) in CALLS.items():
        if call is None or name == "paired_comparison":  # it leaves out items: below
            continue
        _same(call(t, p, sample_weight=w), call(tt, pp))


def test_paired_comparison_scores_are_those_of_the_repeated_items():
    t, p, w = [0, 0, 1, 1, 2], [0, 1, 1, 1, 2], [3, 1, 2, 1, 2]
    tt, pp = np.repeat(t, w), np.repeat(p, w)
    got = cm.paired_comparison(t, p, t, ["nmi", "ari"], sample_weight=w)
    want = cm.paired_comparison(tt, pp, tt, ["nmi", "ari"])
    for key in ("nmi", "ari"):
        assert got[key].a == want[key].a and got[key].b == want[key].b


@pytest.mark.parametrize("name", sorted(k for k, (call, _) in CALLS.items() if call))
def test_real_weights_are_used_or_refused_naming_sample_weight(name):
    call, defined = CALLS[name]
    t, p, w = [0, 0, 1, 1, 2], [0, 1, 1, 1, 2], [0.5, 1.25, 2.0, 1.0, 0.75]
    if defined:
        call(t, p, sample_weight=w)
        return
    with pytest.raises(ValueError, match="sample_weight"):
        call(t, p, sample_weight=w)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("weights, words", [
    ([1, -1, 1, 1, 1], "holds 1 negative weights"), ([1, float("nan"), 1, 1, 1], "NaN"),
    ([1, 1], "different lengths"), (3, "one weight per"), ([0, 0, 0, 0, 0], "0 for every"),
])
def test_bad_weights_are_refused_naming_sample_weight(name, weights, words):
    call, _ = CALLS[name]
    t, p = [0, 0, 1, 1, 2], [0, 1, 1, 1, 2]
    if call is None:
        def call(t, p, **w):
            return cm.score_hierarchy(t, linkage(np.arange(5.0)[:, None], "ward"), ["ari"],
                                      **w)
        if words == "0 for every":
            words = "0 for point 0"
    with pytest.raises(ValueError, match="sample_weight") as info:
        call(t, p, sample_weight=weights)
    assert words in str(info.value)


def _repeated_tree(children: np.ndarray, w: list[int]) -> np.ndarray:
    """The tree of the repeated points, written here independently of the library: each
    point's copies are merged first (a chain), then the tree's merges join the points'
    nodes. Its last N - 1 merges are the tree's, so its cuts into k <= N clusters are the
    tree's cuts, each point's copies where the point is."""
    n, total = len(w), sum(w)
    merges, node_of = [], []
    start = 0
    for k in w:
        node = start
        for c in range(1, k):
            merges.append((node, start + c))
            node = total + len(merges) - 1
        node_of.append(node)
        start += k
    first = len(merges)
    for a, b in children.tolist():
        merges.append(tuple(node_of[x] if x < n else total + first + (x - n) for x in (a, b)))
    return np.array(merges, dtype=np.int64).reshape(-1, 2)


UPDATABLE = cm.updatable_metrics()


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.integers(1, 4), min_size=n, max_size=n),
    st.lists(st.floats(-5, 5), min_size=n, max_size=n))))
def test_hierarchy_weights_are_repetitions_of_the_points(case):
    truth, w, x = case
    children = linkage(np.array(x)[:, None], "single")[:, :2].astype(np.int64)
    n = len(truth)
    got = cm.score_hierarchy(truth, children, [*UPDATABLE, "ami"], k=[1, n],
                             sample_weight=w)
    want = cm.score_hierarchy(np.repeat(truth, w), _repeated_tree(children, w),
                              [*UPDATABLE, "ami"], n_clusters=range(1, n + 1), k=[1, n])
    assert got.n_clusters.tolist() == want.n_clusters.tolist() == list(range(1, n + 1))
    for key in UPDATABLE:
        np.testing.assert_allclose(got.values[key], want.values[key], rtol=1e-12,
                                   atol=1e-12, err_msg=key)
    for c in (1, n):  # the score that is not updatable, where both computed it
        assert got.values["ami"][c - 1] == pytest.approx(want.values["ami"][c - 1],
                                                         abs=1e-12)


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(1, 50), min_size=n, max_size=n),
    st.randoms(use_true_random=False))))
def test_compiled_weighted_loop_equals_python_loop(case):
    truth, w, random = case
    n = len(truth)
    x = np.array([random.random() for _ in range(n)])
    children = linkage(x[:, None], "average")[:, :2].astype(np.int64)
    codes = np.unique(truth, return_inverse=True)[1].astype(np.int64)
    sizes = np.zeros(codes.max() + 1, dtype=np.int64)
    np.add.at(sizes, codes, w)
    weights = np.array(w, dtype=np.int64)
    old = _kernels.set_kernels("numpy")
    try:
        plain = _level_stats(codes, sizes, children, weights)
    finally:
        _kernels.set_kernels("numba")
    try:
        compiled = _level_stats(codes, sizes, children, weights)
    finally:
        _kernels.set_kernels(old)
    for a, b in zip(plain, compiled, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n),
    # a weight past the limit, or small ones (a total near the limit would allocate 1 GiB)
    st.lists(st.one_of(st.integers(1, 4), st.integers(2**25 - 4, 2**32 // 16)),
             min_size=n, max_size=n))))
def test_hierarchy_weights_far_beyond_the_points_are_refused_before_allocating(case):
    # the entropy terms are tables indexed by count: a huge total of few points was a
    # MemoryError (2**31 on 4 points asked numpy for 16 GiB); it is refused up front,
    # with nothing large allocated
    truth, w = case
    n = len(truth)
    children = np.array([[0, 1], *[[i, n + i - 2] for i in range(2, n)]], dtype=np.int64)
    limit = max(2**25, 4 * n)
    if sum(w) > limit:
        tracemalloc.start()
        try:
            with pytest.raises(ValueError, match=f"^sample_weight adds up to {sum(w)}, "
                                                 f"more than .* = {limit}"):
                cm.score_hierarchy(truth, children, ["ari", "nmi"], sample_weight=w)
            assert tracemalloc.get_traced_memory()[1] < 2**20
        finally:
            tracemalloc.stop()
    else:
        cm.score_hierarchy(truth, children, ["ari", "nmi"], sample_weight=w)
    # the scores that are not updatable are computed at the named cuts in O(N) memory,
    # whatever the total
    cut = cm.score_hierarchy(truth, children, ["ami"], n_clusters=[2], sample_weight=w)
    assert cut.cut_only_at == [2]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["dict", "set", "empty-dict"]),
       st.sampled_from(["evaluate", "from_labels", "from_counts", "score_hierarchy",
                        "builder"]))
def test_unordered_weights_are_refused_as_weights(container, entry):
    # a dict of weights has no item order: the message names the argument and what its
    # values are (weights, counts), not labels
    values = {"dict": {0: 1, 1: 2, 2: 3}, "set": {1, 2, 3}, "empty-dict": {}}[container]
    calls = {
        "evaluate": (lambda: cm.evaluate([0, 0, 1], [0, 1, 1], ["ari"], sample_weight=values),
                     "sample_weight", "weight"),
        "from_labels": (lambda: cm.Contingency.from_labels([0, 0, 1], [0, 1, 1], values),
                        "sample_weight", "weight"),
        "from_counts": (lambda: cm.Contingency.from_counts([0, 0, 1], [0, 1, 1], values),
                        "counts", "count"),
        "score_hierarchy": (lambda: cm.score_hierarchy([0, 0, 1], [[0, 1], [2, 3]], ["ari"],
                                                       sample_weight=values),
                            "sample_weight", "weight"),
        "builder": (lambda: ContingencyBuilder().update([0, 0, 1], [0, 1, 1], values),
                    "sample_weight", "weight"),
    }
    call, name, noun = calls[entry]
    with pytest.raises(ValueError, match=f"^{name} must be a 1-D sequence of one {noun} per "
                                         "item, got a (mapping|set)"):
        call()
