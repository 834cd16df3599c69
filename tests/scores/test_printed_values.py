"""Every printed value of scikit-learn's clustering-evaluation guide (as a notebook run) and
of the permetrics documentation of ReS (pair recall).

The notebook ran an old scikit-learn whose AMI normalised by the max of the entropies, so AMI
values are checked with ``average_method="max"``. Values printed with 12 digits are
compared to that precision; full-precision outputs to 1e-15.
"""

import pytest

import clustermetrics as cm

T6 = [0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize("pred, expected", [
    ([0, 0, 1, 1, 1, 2], 0.11764705882352938),
    ([1, 1, 0, 0, 3, 3], 0.24242424242424246),
    ([1, 1, 2, 0, 2, 0], 0.24242424242424246),
    ([0, 0, 1, 0, 1, 1], -0.11111111111111108),
    ([0, 0, 0, 1, 1, 2], 0.705882352941),
    ([0, 0, 0, 1, 5, 1], 0.705882352941),
    (T6, 1.0),
])
def test_notebook_ari(pred, expected):
    assert cm.adjusted_rand_score(T6, pred) == pytest.approx(expected, abs=1e-12)


def test_notebook_ari_swapped_arguments():
    # "adjusted_rand_score is symmetric: swapping the argument does not change the score"
    assert cm.adjusted_rand_score([1, 1, 0, 0, 3, 3], T6) == pytest.approx(0.24242424242424246,
                                                                        abs=1e-15)


def test_notebook_ari_independent():
    got = cm.adjusted_rand_score([0, 1, 2, 0, 3, 4, 5, 1], [1, 1, 0, 0, 2, 2, 2, 2])
    assert got == pytest.approx(-0.12903225806451613, abs=1e-15)


@pytest.mark.parametrize("true, pred, expected", [
    (T6, [0, 0, 1, 1, 2, 2], 0.2250422831983088),
    (T6, [1, 1, 0, 0, 3, 3], 0.2250422831983088),
    ([1, 1, 0, 0, 3, 3], T6, 0.2250422831983088),
    (T6, T6, 1.0),
    (T6, [0, 0, 0, 1, 1, 2], 0.571842564449),
    (T6, [0, 0, 0, 1, 5, 1], 0.57184256444862269),
    ([0, 0, 0, 1, 1, 5, 1, 1], [1, 1, 3, 5, 2, 2, 2, 2], 0.309198582275),
])
def test_notebook_ami(true, pred, expected):
    got = cm.adjusted_mutual_info_score(true, pred, average_method="max")
    assert got == pytest.approx(expected, abs=1e-12)


def test_notebook_mi_and_nmi():
    assert cm.normalized_mutual_info_score(T6, T6) == 1.0
    assert cm.mutual_info_score(T6, T6) == pytest.approx(0.69314718055994518, abs=1e-15)
    bad = cm.mutual_info_score([0, 0, 0, 1, 1, 5, 1, 1], [1, 1, 3, 5, 2, 2, 2, 2])
    assert bad == pytest.approx(0.69314718056, abs=1e-11)


@pytest.mark.parametrize("pred, h, c", [
    ([0, 0, 1, 1, 2, 2], 0.666666666667, 0.420619835714),
    ([0, 2, 2, 0, 0, 2], 0.0817041659455, 0.0817041659455),
    ([0, 1, 1, 0, 0, 1], 0.0817041659455, 0.0817041659455),
    ([0, 0, 0, 2, 2, 2], 1.0, 1.0),
])
def test_notebook_homogeneity_completeness(pred, h, c):
    assert cm.homogeneity_score(T6, pred) == pytest.approx(h, abs=1e-12)
    assert cm.completeness_score(T6, pred) == pytest.approx(c, abs=1e-12)


def test_notebook_v_measure():
    assert cm.v_measure_score(T6, [0, 0, 1, 1, 2, 2]) == pytest.approx(0.51580374297938891,
                                                                       abs=1e-15)
    hcv = cm.homogeneity_completeness_v_measure(T6, [0, 0, 0, 1, 2, 2])
    assert hcv == pytest.approx((1.0, 0.68533147896158653, 0.81328983350367623), abs=1e-15)


def test_notebook_homogeneity_is_completeness_swapped():
    pred = [0, 0, 0, 1, 2, 2]
    assert cm.homogeneity_score(T6, pred) == cm.completeness_score(pred, T6)


@pytest.mark.parametrize("true, pred, expected", [
    (T6, [0, 0, 1, 1, 2, 2], 0.47140452079103173),
    (T6, [1, 1, 0, 0, 3, 3], 0.47140452079103173),
    (T6, T6, 1.0),
    ([0, 1, 2, 0, 3, 4, 5, 1], [1, 1, 0, 0, 2, 2, 2, 2], 0.0),
])
def test_notebook_fmi(true, pred, expected):
    assert cm.fowlkes_mallows_score(true, pred) == pytest.approx(expected, abs=1e-15)


# ------------------------------------------------------------------ permetrics ReS
def test_res_over_grouping_example():
    # "Putting all points into 1 single cluster captures 100% of true pairs (Recall = 1.0)"
    assert cm.pair_recall_score([0, 0, 1, 1], [0, 0, 0, 0]) == 1.0
    # "Single Cluster Precision: ... Returns 0.333..."
    assert cm.pair_precision_score([0, 0, 1, 1], [0, 0, 0, 0]) == pytest.approx(1 / 3)


def test_res_basic_example_by_pairs():
    # y_true = [0,0,1,1,2,2], y_pred = [0,0,1,1,1,2]: true pairs (0,1),(2,3),(4,5); the
    # prediction keeps (0,1) and (2,3) but splits (4,5): ReS = 2/3.
    assert cm.pair_recall_score([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2]) == pytest.approx(2 / 3)


def test_res_is_prs_swapped():
    t, p = [0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 1, 2, 2, 0]
    assert cm.pair_recall_score(t, p) == cm.pair_precision_score(p, t)


def test_res_finite_value_convention():
    singletons = [0, 1, 2, 3]
    assert cm.pair_recall_score(singletons, [0, 0, 1, 1]) == 1.0
    assert cm.pair_recall_score(singletons, [0, 0, 1, 1], finite_value=0.5) == 0.5
    with pytest.raises(ZeroDivisionError, match="pair recall is undefined"):
        cm.pair_recall_score(singletons, [0, 0, 1, 1], force_finite=False)
    with pytest.raises(ValueError, match="pair precision is undefined"):
        cm.pair_precision_score([0, 0, 1, 1], singletons, force_finite=False)
