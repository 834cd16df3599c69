"""Real-valued sample weights: every score either computes its documented meaning on the
table of real masses (checked here against pure-Python references over the weighted items)
or refuses the table naming ``sample_weight``."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import METRICS, ScoreUnavailable

WEIGHTS = st.floats(0.05, 6.0, allow_nan=False, allow_infinity=False)


@st.composite
def weighted_items(draw, max_items=12, weights=WEIGHTS):
    n = draw(st.integers(2, max_items))
    t = draw(st.lists(st.integers(0, draw(st.integers(0, 3))), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, draw(st.integers(0, 3))), min_size=n, max_size=n))
    w = draw(st.lists(weights, min_size=n, max_size=n))
    w[0] += 0.3125  # at least one non-integral weight: a real-valued table
    return t, p, w


def _masses(t, p, w):
    """Cell, class and cluster masses by summing the items' weights (math.fsum)."""
    cells, rows, cols = {}, {}, {}
    for key, bucket in (((0, 1), cells), ((0,), rows), ((1,), cols)):
        groups: dict = {}
        for item, weight in zip(zip(t, p, strict=True), w, strict=True):
            groups.setdefault(tuple(item[k] for k in key), []).append(weight)
        bucket.update({g: math.fsum(v) for g, v in groups.items()})
    return cells, rows, cols


# ----------------------------------------------------------------- pair counting
def _pairs_brute(t, p, w):
    """Pair masses over weighted items, as exact Fractions: sum_{i<j} w_i w_j over pairs
    of distinct items plus w_i (w_i - 1) / 2 for the pairs among an item's own copies
    (together in both labellings)."""
    fw = [Fraction(x) for x in w]
    a = b = c = d = Fraction(0)
    for i, j in itertools.combinations(range(len(t)), 2):
        same_t, same_p = t[i] == t[j], p[i] == p[j]
        mass = fw[i] * fw[j]
        if same_t and same_p:
            a += mass
        elif same_t:
            b += mass
        elif same_p:
            c += mass
        else:
            d += mass
    a += sum((x * (x - 1) / 2 for x in fw), Fraction(0))
    return a, b, c, d


def _sqrt(x):
    return math.sqrt(x)


PAIR_FORMULAS = {  # the published formulas in the pair masses a, b, c, d (M = a+b+c+d)
    "ri": lambda a, b, c, d: (a + d) / (a + b + c + d),
    "ari": lambda a, b, c, d: 2 * (a * d - b * c) / ((a + b) * (b + d) + (a + c) * (c + d)),
    "fmi": lambda a, b, c, d: a / _sqrt((a + b) * (a + c)),
    "pair_precision": lambda a, b, c, d: a / (a + c),
    "pair_recall": lambda a, b, c, d: a / (a + b),
    "pair_f1": lambda a, b, c, d: 2 * a / (2 * a + b + c),
    "pair_jaccard": lambda a, b, c, d: a / (a + b + c),
    "czekanowski_dice": lambda a, b, c, d: 2 * a / (2 * a + b + c),
    "kulczynski": lambda a, b, c, d: (a / (a + c) + a / (a + b)) / 2,
    "mcnemar": lambda a, b, c, d: (d - c) / _sqrt(d + c),
    "phi": lambda a, b, c, d: (a * d - b * c) / _sqrt((a + b) * (a + c) * (b + d) * (c + d)),
    "rogers_tanimoto": lambda a, b, c, d: (a + d) / (a + d + 2 * (b + c)),
    "russel_rao": lambda a, b, c, d: a / (a + b + c + d),
    "sokal_sneath1": lambda a, b, c, d: a / (a + 2 * (b + c)),
    "sokal_sneath2": lambda a, b, c, d: (a + d) / (a + d + (b + c) / 2),
    "southwood": lambda a, b, c, d: a / (b + c),
    "kendall_tau": lambda a, b, c, d: (a + d - b - c) / _sqrt((a + b + c + d) * (b + c + d)),
    "gamma": lambda a, b, c, d: (a + d - b - c) / (a + b + c + d),
    "g_plus": lambda a, b, c, d: (b + c) / (a + b + c + d),
    "afmi": lambda a, b, c, d: ((a + b + c + d) * a - (a + b) * (a + c)) / (
        _sqrt((a + b) * (a + c)) * ((a + b + c + d) - _sqrt((a + b) * (a + c)))),
}


@settings(max_examples=60, deadline=None)
@given(weighted_items())
def test_pair_counting_on_real_weights_is_the_formula_on_pair_masses(items):
    t, p, w = items
    table = cm.Contingency.from_labels(t, p, sample_weight=w)
    assume(table.real_valued)  # masses adding up to whole numbers: an integer table
    a, b, c, d = _pairs_brute(t, p, w)
    assume(abs(a) > 1e-9)  # the sign of TP decides; the cell masses are rounded sums
    if a < 0:  # cells weighing less than an item: a negative pair mass, refused
        with pytest.raises(ScoreUnavailable, match="sample_weight counts items"):
            cm.rand_score(t, p, sample_weight=w)
        return
    for x, y in zip(cm.pair_counts(table), (a, b, c, d), strict=True):
        assert float(x) == pytest.approx(float(y), rel=1e-12, abs=1e-12)
    for key, formula in PAIR_FORMULAS.items():
        if b == 0 and c == 0 or a == 0:  # agreement on every pair, or no pair in both:
            continue  # the scores' documented conventions (tested on integer tables)
        try:
            want = float(formula(a, b, c, d))
        except (ZeroDivisionError, ValueError):  # 0/0: the score's own convention
            continue
        got = METRICS[key].func(t, p, sample_weight=w, **METRICS[key].options)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), key


# ----------------------------------------------------------------- information
def _info_brute(t, p, w):
    cells, rows, cols = _masses(t, p, w)
    n = math.fsum(w)
    h_t = -math.fsum(m / n * math.log(m / n) for m in rows.values())
    h_p = -math.fsum(m / n * math.log(m / n) for m in cols.values())
    mi = math.fsum(m / n * math.log(m * n / (rows[(i,)] * cols[(j,)]))
                   for (i, j), m in cells.items())
    h_t_given_p = math.fsum(m / n * math.log(cols[(j,)] / m) for (i, j), m in cells.items())
    chi2 = n * (math.fsum(m * m / (rows[(i,)] * cols[(j,)]) for (i, j), m in cells.items()) - 1)
    return mi, h_t, h_p, h_t_given_p, chi2


INFO_FORMULAS = {
    "mi": lambda mi, ht, hp: mi,
    "nmi": lambda mi, ht, hp: mi / ((ht + hp) / 2),
    "nmi_geometric": lambda mi, ht, hp: mi / math.sqrt(ht * hp),
    "nmi_min": lambda mi, ht, hp: mi / min(ht, hp),
    "nmi_max": lambda mi, ht, hp: mi / max(ht, hp),
    "nmi_joint": lambda mi, ht, hp: mi / (ht + hp - mi),
    "homogeneity": lambda mi, ht, hp: mi / ht,
    "completeness": lambda mi, ht, hp: mi / hp,
    "v_measure": lambda mi, ht, hp: 2 * mi / (ht + hp),
    "vi": lambda mi, ht, hp: ht + hp - 2 * mi,
    "nvi": lambda mi, ht, hp: (ht + hp - 2 * mi) / (ht + hp - mi),
    "nid": lambda mi, ht, hp: 1 - mi / max(ht, hp),
}


@settings(max_examples=60, deadline=None)
@given(weighted_items())
def test_information_scores_are_those_of_the_weighted_joint_distribution(items):
    t, p, w = items
    mi, ht, hp, ht_given_p, chi2 = _info_brute(t, p, w)
    for key, formula in INFO_FORMULAS.items():
        try:
            want = formula(mi, ht, hp)
        except ZeroDivisionError:
            continue
        if min(ht, hp) < 1e-9 and key != "mi":  # near 0/0: conventions, not the formula
            continue
        got = METRICS[key].func(t, p, sample_weight=w, **METRICS[key].options)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), key
    assert cm.cluster_entropy_error(t, p, sample_weight=w) == \
        pytest.approx(ht_given_p, rel=1e-9, abs=1e-12)
    assert cm.chi2_score(t, p, sample_weight=w) == pytest.approx(chi2, rel=1e-9, abs=1e-9)


# ----------------------------------------------------------------- matching, B-cubed, ECS
def _matching_brute(t, p, w):
    cells, rows, cols = _masses(t, p, w)
    n = math.fsum(w)
    classes, clusters = sorted(k[0] for k in rows), sorted(k[0] for k in cols)
    mass = {(i, j): cells.get((i, j), 0.0) for i in classes for j in clusters}
    purity = math.fsum(max(mass[i, j] for i in classes) for j in clusters) / n
    inverse = math.fsum(max(mass[i, j] for j in clusters) for i in classes) / n
    small, large = (classes, clusters) if len(classes) <= len(clusters) else (clusters, classes)
    best = 0.0
    for image in itertools.permutations(large, len(small)):
        pairs = zip(small, image, strict=True) if small is classes else \
            zip(image, small, strict=True)
        best = max(best, math.fsum(mass[i, j] for i, j in pairs))
    # per item, each with its weight: B-cubed precision / recall and element-centric sim.
    prec = math.fsum(wi * cells[ti, pi] / cols[(pi,)] for ti, pi, wi in zip(t, p, w, strict=True))
    rec = math.fsum(wi * cells[ti, pi] / rows[(ti,)] for ti, pi, wi in zip(t, p, w, strict=True))
    ecs = math.fsum(wi * cells[ti, pi] / max(rows[(ti,)], cols[(pi,)])
                    for ti, pi, wi in zip(t, p, w, strict=True))
    return {"purity": purity, "inverse_purity": inverse, "clustering_accuracy": best / n,
            "bcubed_precision": prec / n, "bcubed_recall": rec / n, "ecs": ecs / n}


@settings(max_examples=60, deadline=None)
@given(weighted_items(max_items=10))
def test_matching_bcubed_and_ecs_take_the_masses_as_overlaps(items):
    t, p, w = items
    for key, want in _matching_brute(t, p, w).items():
        got = METRICS[key].func(t, p, sample_weight=w, **METRICS[key].options)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), key


def _real_keys():
    return [k for k, e in METRICS.items() if e.real_weights is not None]


SCALE_FREE = [k for k in _real_keys() if METRICS[k].family != "pair counting"
              and k != "chi2"]


@settings(max_examples=25, deadline=None)
@given(weighted_items(weights=st.integers(1, 24).map(lambda k: k / 8)),
       st.sampled_from([0.37, 3.0, 1e-3]))
def test_dyadic_weights_equal_repetition_of_the_scaled_items(items, c):
    """Weights k/8 (+ 5/16 on the first) times 16 are integers: a scale-free score of the
    weights is the score of the items repeated 16 w times, and of the weights times c."""
    t, p, w = items
    tt = [x for x, k in zip(t, w, strict=True) for _ in range(int(16 * k))]
    pp = [x for x, k in zip(p, w, strict=True) for _ in range(int(16 * k))]
    for key in SCALE_FREE:
        e = METRICS[key]
        got = e.compute(cm.Contingency.from_labels(t, p, sample_weight=w))[0]
        assert got == pytest.approx(e.compute(cm.Contingency.from_labels(tt, pp))[0],
                                    rel=1e-9, abs=1e-12), key
        scaled = e.compute(cm.Contingency.from_labels(t, p, sample_weight=[c * x for x in w]))
        assert scaled[0] == pytest.approx(got, rel=1e-9, abs=1e-12), key
    assert cm.chi2_score(t, p, sample_weight=w) == pytest.approx(
        cm.chi2_score(tt, pp) / 16, rel=1e-9, abs=1e-9)  # chi2 grows with the total mass


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_integer_weights_given_as_floats_are_repetition(data):
    n = data.draw(st.integers(1, 15))
    t = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    p = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    w = data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    tt = [x for x, k in zip(t, w, strict=True) for _ in range(k)]
    pp = [x for x, k in zip(p, w, strict=True) for _ in range(k)]
    table = cm.Contingency.from_labels(t, p, sample_weight=[float(x) for x in w])
    assert not table.real_valued and table == cm.Contingency.from_labels(tt, pp)
    # masses that add up to whole numbers give an integer table too
    halves = cm.Contingency.from_labels(t + t, p + p, sample_weight=[x / 2 for x in w] * 2)
    assert not halves.real_valued and halves == cm.Contingency.from_labels(t, p,
                                                                           sample_weight=w)
    for key in ("ari", "ami", "nmi", "recovery_rate", "bcubed_f"):
        e = METRICS[key]
        assert e.func(t, p, sample_weight=[float(x) for x in w], **e.options) == \
            pytest.approx(e.func(tt, pp, **e.options), abs=1e-12)


# ----------------------------------------------------------------- refusals
def test_every_score_computes_or_refuses_real_masses_naming_sample_weight():
    t, p, w = [0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 2, 0], [0.5, 1.25, 2, 0.7, 1, 3]
    table = cm.Contingency.from_labels(t, p, sample_weight=w)
    refused = set()
    for key, e in METRICS.items():
        if e.real_weights is not None:
            assert math.isfinite(e.compute(table)[0]) or key == "southwood", key
            continue
        with pytest.raises(ScoreUnavailable, match="the table holds real-valued masses"):
            e.compute(table)
        with pytest.raises(ValueError, match="sample_weight"):
            e.func(t, p, sample_weight=w, **e.options)
        refused.add(key)
    assert {"ami", "smi", "rmi", "sri", "mari"} <= refused
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = cm.evaluate(t, p, sample_weight=w)
    # one warning names every score that needs whole items, with each one's reason
    assert len(caught) == 1, [str(x.message) for x in caught]
    message = str(caught[0].message)
    assert sorted(message.split(" left out: ")[0].split(", ")) == sorted(refused)
    assert "the table holds real-valued masses" in message and "\n" not in message
    for key in refused:
        assert METRICS[key].spec.needs in message, key
    assert set(report.keys()) == set(METRICS) - refused
    with pytest.raises(ScoreUnavailable, match="sample_weight"):
        cm.evaluate(t, p, ["ari", "ami"], sample_weight=w)
    with pytest.raises(ScoreUnavailable, match="random_model='num'"):
        cm.adjusted_rand_score(t, p, sample_weight=w, random_model="num")


def test_cells_lighter_than_one_item_refuse_pair_counting_in_one_warning():
    """Pair counting refuses a table whose TP mass is negative; evaluate of every score
    then warns once, naming every pair-counting score it left out."""
    t, p, w = ["a", "a", "b", "b", "b"], [0, 0, 0, 1, 1], [0.5, 0.25, 0.2, 0.25, 0.75]
    table = cm.Contingency.from_labels(t, p, sample_weight=w)
    pair = set()
    for key, e in METRICS.items():
        if e.real_weights is None:
            continue
        try:
            e.compute(table)
        except ScoreUnavailable as exc:
            assert "weigh too little" in str(exc), key
            pair.add(key)
    assert {"ari", "ri", "fmi", "pair_f1"} <= pair
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = cm.evaluate(t, p, sample_weight=w)
    light = [str(x.message) for x in caught if "weigh too little" in str(x.message)]
    assert len(caught) == 2 and len(light) == 1, [str(x.message) for x in caught]
    assert sorted(light[0].split(" left out: ")[0].split(", ")) == sorted(pair)
    assert not pair & set(report.keys()) and "nmi" in report


@pytest.mark.parametrize("option", [dict(ci=0.9), dict(significance=True), dict(n_perm=9),
                                    dict(noise_label=2)])
def test_evaluate_refuses_resampling_and_tests_on_real_masses(option):
    with pytest.raises(ValueError, match="the table holds real-valued masses"):
        cm.evaluate([0, 0, 1, 1], [0, 1, 2, 2], "ari", sample_weight=[0.5, 1, 1, 2],
                    **option)


def test_noise_excluded_works_on_real_masses():
    t, p, w = [0, 0, 1, 1, 1], [5, 5, -1, 7, 7], [0.5, 1.5, 2.0, 0.25, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = cm.evaluate(t, p, "nmi", sample_weight=w, noise_label=-1, noise="exclude")
    keep = [i for i in range(5) if p[i] != -1]
    assert got["nmi"] == cm.normalized_mutual_info_score(
        [t[i] for i in keep], [p[i] for i in keep], sample_weight=[w[i] for i in keep])


@pytest.mark.parametrize("weights, message", [
    ([1, float("inf"), 0.5], "sample_weight holds 1 infinite weights"),
    ([1, -0.5, 0.5], "sample_weight holds 1 negative weights"),
    ([1, float("nan"), 0.5], "sample_weight holds 1 NaN weights"),
    ([0.5, None, 1], "sample_weight"),
    ([1e200, 0.5, 1], "sample_weight adds up to 1e\\+200: real-valued weights must total"),
    ([1e-200, 1.5e-200, 0], "sample_weight adds up to 2.5e-200"),
    ([2.0**64, 1, 1], "sample_weight adds up to 18446744073709551618, more than 2\\*\\*63 - 1"),
])
def test_bad_real_weights_are_refused(weights, message):
    with pytest.raises(ValueError, match=message):
        cm.normalized_mutual_info_score([0, 0, 1], [0, 1, 1], sample_weight=weights)


def test_real_counts_build_the_same_table_from_counts_and_matrix():
    t = cm.Contingency.from_labels(["a", "a", "b"], [0, 1, 1], sample_weight=[0.5, 1.5, 2.25])
    assert t == cm.Contingency.from_counts(["a", "a", "b"], [0, 1, 1], [0.5, 1.5, 2.25])
    assert t == cm.Contingency.from_matrix(t.to_dense(), ["a", "b"], [0, 1])
    assert t == cm.Contingency.from_group_counts(np.array(["a", "a", "b"]),
                                                 np.array([0, 1, 1]),
                                                 np.array([0.5, 1.5, 2.25]))
    assert t.to_dense().dtype == np.float64 and t.n_samples == 4.25
    assert (t + t).counts.tolist() == [1.0, 3.0, 4.5]


@pytest.mark.parametrize("call", [
    lambda t: cm.permutation_test(t, metric="nmi", n_perm=9),
    lambda t: cm.rand_moments(t),
    lambda t: cm.with_noise(t, 1),
    lambda t: METRICS["ari"].significance(t),
    lambda t: METRICS["sri"].significance(t),
])
def test_chance_models_and_resampling_refuse_real_masses(call):
    table = cm.Contingency.from_labels([0, 0, 1, 1], [0, 1, 1, 1], sample_weight=[0.5, 1, 2, 1])
    with pytest.raises(ValueError, match=r"holds real-valued masses \(from sample_weight"):
        call(table)


@pytest.mark.parametrize("key", sorted(METRICS))
def test_refusals_of_real_counts_do_not_blame_absent_weights(key):
    """A table of real counts, no sample_weight anywhere: a score (or its analytic null)
    that needs whole items says the table holds real-valued masses."""
    table = cm.Contingency.from_counts([0, 1, 1], [0, 1, 0], [1.5, 2.5, 0.25])
    calls = [METRICS[key].compute]
    if METRICS[key].significance is not None:
        calls.append(METRICS[key].significance)
    for call in calls:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(table)
        except ScoreUnavailable as exc:
            assert "sample_weight has" not in str(exc), str(exc)
            assert "the table holds real-valued masses" in str(exc), str(exc)


def test_evaluate_note_on_real_counts_names_the_table():
    table = cm.Contingency.from_counts([0, 1, 1], [0, 1, 0], [1.5, 2.5, 0.25])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cm.evaluate(table)
    text = " ".join(str(w.message) for w in caught)
    assert "left out" in text and "the table holds real-valued masses" in text
    assert "sample_weight has" not in text


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("weights", [[1, 2, 3, 4, 1], [0.5, 2, 3.25, 4, 1]])
def test_narrow_float_weights_are_read_without_warnings(dtype, weights):
    """float16/float32 weights and counts score as their float64 values, with no numpy
    warning (2**63 overflows float16 in a comparison)."""
    truth, pred = [0, 0, 1, 1, 2], [0, 1, 1, 1, 2]
    wide = np.array(weights, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        narrow = cm.Contingency.from_labels(truth, pred, sample_weight=np.array(weights, dtype))
        counts = cm.Contingency.from_counts([0, 1, 1], [0, 1, 0], np.array(weights[:3], dtype))
        assert cm.rand_score(narrow) == cm.rand_score(truth, pred, sample_weight=wide)
    assert cm.rand_score(counts) == cm.rand_score(
        cm.Contingency.from_counts([0, 1, 1], [0, 1, 0], wide[:3]))
