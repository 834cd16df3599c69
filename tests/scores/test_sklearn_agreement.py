"""Drop-in compatibility: same names, signatures and values as scikit-learn 1.9.1, to the
bounds docs/guide/scikit-learn.md states ("Deviations from scikit-learn 1.9"), on
generated label pairs of
every shape of ``label_shapes``, plus the deliberate deviations.

The bounds were measured by ``tests/support/sklearn_agreement_study.py`` against the 40-digit
reference ``tests/support/decimal_reference.py``; the tests below check the stated bounds, and
check against the same reference that where we differ from scikit-learn, ours is exact:

* pair counting (ARI, Rand index, FMI): within 2 ulp (scikit-learn rounds the numerator
  and denominator of ARI to float before dividing, ours is correctly rounded);
* information (MI, NMI, homogeneity, completeness, V-measure): within 8 eps ln N / D, D the
  entropy the score divides by (1 nat for MI); both sides round MI and the entropies;
* AMI: within 2 eps N^2 / (mean(H) - E[MI]), scikit-learn's error (its E[MI] sums log-gamma
  differences of numbers of size N log N); ours is within 1e-14 / (mean(H) - E[MI]) of the
  exact value, and exactly 1.0 where the formula is 0/0 (see test_deviation_ami_zero_over_zero).
"""

import math
from decimal import Decimal

import decimal_reference as ref
import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from label_shapes import QUADRATIC, SHAPES
from sklearn import metrics as skm

import clustermetrics as cm

EPS = 2.0 ** -52
AVERAGES = ["arithmetic", "geometric", "min", "max"]
PAIR_SCORES = ["rand_score", "adjusted_rand_score", "fowlkes_mallows_score"]
PLAIN = PAIR_SCORES + ["mutual_info_score", "homogeneity_score", "completeness_score",
                       "v_measure_score"]
MEANS = {"arithmetic": lambda a, b: (a + b) / 2, "geometric": lambda a, b: math.sqrt(a * b),
         "min": min, "max": max}


def test_sklearn_version():
    assert sklearn.__version__ == "1.9.1"


@st.composite
def shaped(draw, min_n=1, max_n=150, shapes=None, max_k=None):
    """(labels_true, labels_pred) of a shape of label_shapes."""
    shape = draw(st.sampled_from(shapes or sorted(SHAPES)))
    n = draw(st.integers(min_n, max_n))
    k = draw(st.integers(1, min(n, max_k or n)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return SHAPES[shape](rng, n, k)


def _singletons(x):
    return len(np.unique(x)) == len(x)


def zero_over_zero(t, p, average):
    """MI = E[MI] = the chosen mean of the entropies in theory: AMI's formula is 0/0."""
    return (_singletons(t) or _singletons(p)) and (
        average == "min" or (_singletons(t) and _singletons(p)))


def information_bound(n, divisor):
    return 8 * EPS * math.log(n) / (divisor if divisor > 0 else 1.0)


def information_divisors(t, p):
    """score -> (value name, entropy it divides by) for the information family."""
    h_true, h_pred = cm.entropy(t), cm.entropy(p)
    out = {"mi": 1.0, "homogeneity": h_true, "completeness": h_pred,
           "v_measure": (h_true + h_pred) / 2}
    out.update({f"nmi_{avg}": MEANS[avg](h_true, h_pred) for avg in AVERAGES})
    return out


def information_scores(lib, t, p):
    h, c, v = lib.homogeneity_completeness_v_measure(t, p)
    out = {"mi": lib.mutual_info_score(t, p), "homogeneity": h, "completeness": c,
           "v_measure": v}
    out.update({f"nmi_{avg}": lib.normalized_mutual_info_score(t, p, average_method=avg)
                for avg in AVERAGES})
    return out


def ami_denominator(t, p, average):
    """mean(H) - E[MI] (ours: its E[MI] is exact to 1e-15)."""
    return MEANS[average](cm.entropy(t), cm.entropy(p)) - cm.expected_mutual_info_score(t, p)


def check_pair_scores(t, p):
    for name in PAIR_SCORES:
        ours, theirs = getattr(cm, name)(t, p), getattr(skm, name)(t, p)
        assert type(ours) is float
        if name == "fowlkes_mallows_score" and _singletons(t) and _singletons(p):
            assert (ours, theirs) == (1.0, 0.0)  # the documented deviation
            continue
        assert abs(ours - theirs) <= 2 * math.ulp(ours), name


def check_information_scores(t, p):
    ours, theirs = information_scores(cm, t, p), information_scores(skm, t, p)
    for name, divisor in information_divisors(t, p).items():
        assert type(ours[name]) is float
        assert abs(ours[name] - theirs[name]) <= information_bound(len(t), divisor), name


def check_ami(t, p):
    n_labels = len(np.unique(t)), len(np.unique(p))
    for average in AVERAGES:
        ours = cm.adjusted_mutual_info_score(t, p, average_method=average)
        theirs = skm.adjusted_mutual_info_score(t, p, average_method=average)
        assert type(ours) is float
        if 1 in n_labels:  # a single class or cluster: the conventions 1.0 and 0.0, exactly
            assert ours == theirs == (1.0 if n_labels == (1, 1) else 0.0)
        elif zero_over_zero(t, p, average):
            assert ours == 1.0
        else:
            bound = 2 * EPS * len(t) ** 2 / ami_denominator(t, p, average)
            assert abs(ours - theirs) <= bound, average


@settings(max_examples=150, deadline=None)
@given(shaped())
def test_pair_scores_match_to_two_ulp(pair):
    check_pair_scores(*pair)


@settings(max_examples=150, deadline=None)
@given(shaped())
def test_information_scores_match(pair):
    check_information_scores(*pair)


@settings(max_examples=150, deadline=None)
@given(shaped())
def test_ami_matches_up_to_sklearn_expected_mi_error(pair):
    check_ami(*pair)


@settings(max_examples=6, deadline=None)
@given(shaped(min_n=1000, max_n=100_000, max_k=60,
              shapes=tuple(sorted(set(SHAPES) - QUADRATIC))))
def test_large_inputs_match(pair):
    check_pair_scores(*pair)
    check_information_scores(*pair)
    check_ami(*pair)


@settings(max_examples=60, deadline=None)
@given(shaped(max_n=120))
def test_ours_is_the_exact_side(pair):
    """Against the 40-digit reference: AMI within 1e-14 / (mean(H) - E[MI]), the
    information scores within 8 eps ln N / D, the pair scores correctly rounded."""
    t, p = pair
    table = ref.Table.of(t.tolist(), p.tolist())
    for average in AVERAGES:
        ours = cm.adjusted_mutual_info_score(t, p, average_method=average)
        exact = ref.adjusted_mutual_info(table, average)
        if zero_over_zero(t, p, average) and min(len(table.a), len(table.b)) > 1:
            assert ours == 1.0 and exact == 1  # eps / eps, exactly
            continue
        den = ami_denominator(t, p, average) if min(len(table.a), len(table.b)) > 1 else 1.0
        assert ref.error(ours, exact) <= 1e-14 / den, average
    h, c, v = ref.homogeneity_completeness_v(table)
    exact = {"mi": ref.mutual_info(table), "homogeneity": h, "completeness": c,
             "v_measure": v}
    exact.update({f"nmi_{avg}": ref.normalized_mutual_info(table, avg) for avg in AVERAGES})
    ours = information_scores(cm, t, p)
    for name, divisor in information_divisors(t, p).items():
        assert ref.error(ours[name], exact[name]) <= information_bound(len(t), divisor), name
    for name, value in [("adjusted_rand_score", ref.adjusted_rand(table)),
                        ("rand_score", ref.rand(table))]:
        ours = getattr(cm, name)(t, p)
        assert ref.error(ours, value) <= math.ulp(ours) / 2, name


@settings(max_examples=100, deadline=None)
@given(shaped(), st.floats(0, 5))
def test_v_measure_beta_matches(pair, beta):
    t, p = pair
    ours = cm.homogeneity_completeness_v_measure(t, p, beta=beta)
    try:
        theirs = skm.homogeneity_completeness_v_measure(t, p, beta=beta)
    except ZeroDivisionError:  # beta = 0 with completeness 0: we return the limit, 0.0
        assert beta == 0 and ours[1] == 0.0 and ours[2] == 0.0
        return
    h_true, h_pred = cm.entropy(t), cm.entropy(p)
    smaller = min(h for h in (h_true, h_pred, 1.0) if h > 0)
    for x, y in zip(ours, theirs, strict=True):
        assert abs(x - y) <= information_bound(len(t), smaller)
    assert cm.v_measure_score(t, p, beta=beta) == ours[2]


@settings(max_examples=100, deadline=None)
@given(shaped())
def test_matrices_and_entropy_match(pair):
    t, p = pair
    assert np.array_equal(cm.pair_confusion_matrix(t, p), skm.pair_confusion_matrix(t, p))
    assert np.array_equal(cm.contingency_matrix(t, p), skm.cluster.contingency_matrix(t, p))
    from sklearn.metrics.cluster._supervised import _entropy
    assert abs(cm.entropy(t) - _entropy(t)) <= 4 * EPS * math.log(max(len(t), 3))


def test_string_labels_match():
    rng = np.random.default_rng(1)
    t = rng.choice(["cat", "dog", "eel", "fox"], 300)
    p = rng.choice(["a", "b", "c"], 300)
    check_pair_scores(t, p)
    check_information_scores(t, p)
    check_ami(t, p)


def test_contingency_keyword_of_mutual_info():
    t, p = [0, 0, 1, 1, 2], [1, 1, 0, 0, 0]
    m = skm.cluster.contingency_matrix(t, p)
    assert cm.mutual_info_score(None, None, contingency=m) == pytest.approx(
        skm.mutual_info_score(None, None, contingency=m), abs=1e-15)
    table = cm.Contingency.from_labels(t, p)
    assert cm.mutual_info_score(None, None, contingency=table) == cm.mutual_info_score(t, p)


def test_deviation_empty_input_raises():
    assert skm.adjusted_rand_score([], []) == 1.0
    for name in PLAIN + ["normalized_mutual_info_score", "adjusted_mutual_info_score"]:
        with pytest.raises(ValueError, match="labels_true is empty"):
            getattr(cm, name)([], [])
    with pytest.raises(ValueError, match="labels is empty"):
        cm.entropy([])


def test_deviation_fmi_identical_singletons():
    t = [0, 1, 2, 3]
    assert skm.fowlkes_mallows_score(t, t) == 0.0
    assert cm.fowlkes_mallows_score(t, t) == 1.0
    # only one side all singletons: no pair is together in both, so 0.0 like scikit-learn
    assert cm.fowlkes_mallows_score(t, [0, 0, 1, 1]) == 0.0


def test_deviation_ami_zero_over_zero():
    # all singletons against pairs: MI = E[MI] = H(pred) = min(H(true), H(pred)), so the
    # numerator and denominator are both 0; scikit-learn's clamps make that eps/eps = 1.0 in
    # exact arithmetic, but its float evaluation divides two rounding errors
    t, p = [0, 1, 2, 3], [0, 0, 1, 1]
    assert skm.adjusted_mutual_info_score(t, p, average_method="min") == -1.0
    assert cm.adjusted_mutual_info_score(t, p, average_method="min") == 1.0
    table = ref.Table.of(t, p)
    assert ref.mutual_info(table) - ref.expected_mutual_info(table) < Decimal("1e-38")
    assert ref.adjusted_mutual_info(table, "min") == 1


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 300), st.integers(0, 2**32 - 1), st.booleans())
def test_deviation_ami_zero_over_zero_is_one(n, seed, both):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    p = rng.permutation(n) if both else rng.integers(0, rng.integers(2, n + 1), n)
    if len(np.unique(p)) == 1:
        return
    for average in AVERAGES if both else ["min"]:
        assert cm.adjusted_mutual_info_score(t, p, average_method=average) == 1.0
        assert cm.adjusted_mutual_info_score(p, t, average_method=average) == 1.0


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([float, np.float16, np.float32, np.float64, np.longdouble, Decimal]),
       st.sampled_from(["list", "array", "object array"]),
       st.sampled_from(["inf", "-inf", "nan"]), st.integers(1, 20), st.data())
def test_non_finite_labels_are_refused_like_sklearn(kind, container, special, n, data):
    """scikit-learn refuses +-inf and NaN labels (check_array); so do we, naming the
    argument, for a float of any type in any container (NaN is a missing label)."""
    labels = [kind(float(i % 3)) if kind is not Decimal else Decimal(i % 3) for i in range(n)]
    labels[data.draw(st.integers(0, n - 1))] = kind(special)
    if container == "array":
        labels = np.array(labels, dtype=object if kind is Decimal else kind)
    elif container == "object array":
        labels = np.array(labels, dtype=object)
    problem = "missing labels" if special == "nan" else "infinity"
    for name in ["adjusted_rand_score", "adjusted_mutual_info_score", "v_measure_score"]:
        with pytest.raises(ValueError, match=f"labels_pred contains .*{problem}"):
            getattr(cm, name)(list(range(n)), labels)
        with pytest.raises(ValueError, match=f"labels_true contains .*{problem}"):
            getattr(cm, name)(labels, list(range(n)))
    if kind in (float, np.float64) and container != "object array":
        with pytest.raises(ValueError, match="NaN|infinity"):
            skm.adjusted_rand_score(list(range(n)), labels)


@pytest.mark.parametrize("name", ["normalized_mutual_info_score",
                                  "adjusted_mutual_info_score"])
def test_bad_average_method(name):
    with pytest.raises(ValueError, match="average_method must be one of"):
        getattr(cm, name)([0, 1], [0, 1], average_method="median")


def test_bad_beta():
    with pytest.raises(ValueError, match="beta must be a finite number >= 0"):
        cm.v_measure_score([0, 1], [0, 1], beta=-1.0)
