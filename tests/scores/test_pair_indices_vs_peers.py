"""Pair-counting indices against an O(N^2) pair enumeration with textbook formulas
(exact fractions), against the peers that define them (permetrics, genieclust, clusim), and
MARI against a direct enumeration of pairs of disjoint pairs and aricode's R formula."""

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from pair_reference import enumerate_pairs

import clustermetrics as cm
from clustermetrics.scores import pair_chance
from clustermetrics.scores import pair_counting as px


def _fr(x, y):
    return Fraction(x, y)


def _textbook(a, b, c, d):
    """The published formulas, written independently of the module (None = undefined)."""
    m = a + b + c + d
    out = {
        "czekanowski_dice": _fr(2 * a, 2 * a + b + c) if 2 * a + b + c else None,
        "kulczynski": (_fr(a, a + c) + _fr(a, a + b)) / 2 if a + c and a + b else None,
        "rogers_tanimoto": _fr(a + d, a + d + 2 * (b + c)) if m else None,
        "russel_rao": _fr(a, m) if m else None,
        "sokal_sneath1": _fr(a, a + 2 * (b + c)) if a + b + c else None,
        "sokal_sneath2": _fr(a + d, a + d + Fraction(b + c, 2)) if m else None,
        "southwood": _fr(a, b + c) if b + c else None,
        "gamma": 2 * _fr(a + d, m) - 1 if m else None,
        "g_plus": 1 - _fr(a + d, m) if m else None,
    }
    den = (a + b) * (a + c) * (b + d) * (c + d)
    out["phi"] = (a * d - b * c) / math.sqrt(den) if den else None
    out["mcnemar"] = (d - c) / math.sqrt(d + c) if d + c else None
    out["kendall_tau"] = ((a + d) - (b + c)) / math.sqrt(m * (m - a)) if m - a > 0 else None
    if (a + b) * (a + c):
        fm = a / math.sqrt((a + b) * (a + c))
        efm = math.sqrt((a + b) * (a + c)) / m
        out["afmi"] = (fm - efm) / (1 - efm) if efm != 1 else None
    else:
        out["afmi"] = None
    return out


FUNCS = {
    "czekanowski_dice": px.czekanowski_dice_score, "kulczynski": px.kulczynski_score,
    "rogers_tanimoto": px.rogers_tanimoto_score, "russel_rao": px.russel_rao_score,
    "sokal_sneath1": px.sokal_sneath1_score, "sokal_sneath2": px.sokal_sneath2_score,
    "southwood": px.southwood_score, "gamma": px.gamma_score, "g_plus": px.g_plus_distance,
    "phi": px.phi_score, "mcnemar": px.mcnemar_score, "kendall_tau": px.kendall_tau_score,
    "afmi": px.adjusted_fowlkes_mallows_score,
}


def _random_cases(count, seed, n_max=40):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, n_max))
        t = rng.integers(0, int(rng.integers(1, 7)), n)
        noise = rng.integers(0, int(rng.integers(1, 7)), n)
        p = np.where(rng.random(n) < rng.random(), t, noise)
        yield t, p


def test_against_textbook_formulas_on_random_inputs():
    checked = dict.fromkeys(FUNCS, 0)
    for t, p in _random_cases(250, seed=11):
        expected = _textbook(*enumerate_pairs(t.tolist(), p.tolist()))
        for key, func in FUNCS.items():
            if expected[key] is None:
                continue
            assert func(t, p) == pytest.approx(float(expected[key]), rel=1e-12, abs=1e-12), key
            checked[key] += 1
    assert min(checked.values()) > 100, checked


@pytest.mark.parametrize("t, p", [
    ([0], [0]), ([0, 1, 2], [5, 6, 7]), ([0, 0, 0], [1, 1, 1]), ([0, 0, 1], [0, 1, 1]),
    ([0, 1, 2, 3], [0, 0, 0, 0]), ([0, 0, 0, 0], [0, 1, 2, 3]),
])
def test_degenerate_inputs_are_finite_and_follow_the_documented_rule(t, p):
    a, b, c, d = enumerate_pairs(t, p)
    for key, func in FUNCS.items():
        value = func(t, p)
        assert type(value) is float and not math.isnan(value), key
    if b == 0 and c == 0:  # agreement on every pair: perfect similarity values
        for key in ("czekanowski_dice", "kulczynski", "rogers_tanimoto", "sokal_sneath1",
                    "sokal_sneath2", "gamma", "phi", "afmi"):
            assert FUNCS[key](t, p) == 1.0, key
        assert px.g_plus_distance(t, p) == 0.0


def test_mcnemar_is_on_counts_as_clustercrit():
    # truth: 2 classes of 3; prediction: 3 clusters of 2 -> a=2, b=4, c=1, d=8
    t, p = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]
    assert enumerate_pairs(t, p) == (2, 4, 1, 8)
    assert px.mcnemar_score(t, p) == pytest.approx(7 / 3, rel=1e-15)
    assert px.mcnemar_score(p, t) == pytest.approx((8 - 4) / math.sqrt(12), rel=1e-15)


def _brute_mari(t, p):
    """Direct definition: E[a] estimated from ordered pairs of disjoint pairs."""
    n = len(t)
    pairs = list(itertools.combinations(range(n), 2))
    tog_t = [q for q in pairs if t[q[0]] == t[q[1]]]
    tog_p = [q for q in pairs if p[q[0]] == p[q[1]]]
    disjoint = sum(1 for q1 in tog_t for q2 in tog_p if not set(q1) & set(q2))
    a = sum(1 for q in tog_t if p[q[0]] == p[q[1]])
    k = math.comb(n - 2, 2)
    expected = Fraction(disjoint, k)
    return (a - expected) / (Fraction(len(tog_t) + len(tog_p), 2) - expected)


def test_mari_against_enumeration_of_disjoint_pairs():
    seen = 0
    for t, p in _random_cases(60, seed=5, n_max=14):
        if len(t) < 4:
            continue
        a, b, c, _ = enumerate_pairs(t.tolist(), p.tolist())
        if b == 0 and c == 0:
            continue
        try:
            expected = float(_brute_mari(t.tolist(), p.tolist()))
        except ZeroDivisionError:
            continue
        assert pair_chance.modified_adjusted_rand_score(t, p) == pytest.approx(expected, abs=1e-12)
        seen += 1
    assert seen > 30


def test_mari_is_near_zero_for_independent_labellings_and_one_when_identical():
    rng = np.random.default_rng(3)
    values = [pair_chance.modified_adjusted_rand_score(rng.integers(0, 4, 300),
                                                       rng.integers(0, 4, 300))
              for _ in range(40)]
    assert abs(np.mean(values)) < 0.01
    assert pair_chance.modified_adjusted_rand_score([0, 0, 1, 1, 2], [2, 2, 0, 0, 1]) == 1.0


def test_exact_at_large_n_beyond_int64_products():
    # 2 classes of 2e9 items each, prediction moves 1 item: products exceed 2**63
    from clustermetrics import Contingency
    big = 2_000_000_000
    table = Contingency.from_counts([0, 0, 1], [0, 1, 1], [big, 1, big - 1])
    a = math.comb(big, 2) + math.comb(big - 1, 2)
    b = 2 * math.comb(big, 2) - a
    c = math.comb(big + 1, 2) + math.comb(big - 1, 2) - a
    m = math.comb(2 * big, 2)
    d = m - a - b - c
    assert px.gamma_score(table) == float(Fraction(a + d - b - c, m))
    assert px.sokal_sneath1_score(table) == float(Fraction(a, a + 2 * (b + c)))


# ----------------------------------------------------------------------------- peers
def _permetrics(t, p):
    import permetrics as pm
    return pm.ClusteringMetric(y_true=np.asarray(t), y_pred=np.asarray(p))


PERMETRICS = {
    "czekanowski_dice": "czekanowski_dice_score", "phi": "phi_score",
    "rogers_tanimoto": "rogers_tanimoto_score", "russel_rao": "russel_rao_score",
    "sokal_sneath1": "sokal_sneath1_score", "sokal_sneath2": "sokal_sneath2_score",
    "kendall_tau": "tau_score", "gamma": "gamma_score", "g_plus": "gplus_score",
    "kulczynski": "kulczynski_score",
}


def test_against_permetrics_where_defined():
    for t, p in _random_cases(80, seed=21):
        a, b, c, d = enumerate_pairs(t.tolist(), p.tolist())
        if a == 0 or b + c == 0 or min(a + b, a + c, b + d, c + d) == 0:
            continue  # zero-denominator conventions differ (documented)
        cm = _permetrics(t, p)
        for key, name in PERMETRICS.items():
            assert FUNCS[key](t, p) == pytest.approx(getattr(cm, name)(), abs=1e-9), key
        assert px.phi_score(t, p) == pytest.approx(cm.hubert_gamma_score(), abs=1e-9)
        # permetrics MNS uses pair proportions: ours / sqrt(M)
        m = a + b + c + d
        assert px.mcnemar_score(t, p) / math.sqrt(m) == pytest.approx(
            cm.mc_nemar_score(), abs=1e-9)


def test_afmi_against_genieclust():
    from genieclust import compare_partitions as gc
    for t, p in _random_cases(150, seed=8):
        a, b, c, _ = enumerate_pairs(t.tolist(), p.tolist())
        if len(set(t.tolist())) < 2 or len(set(p.tolist())) < 2 or b + c == 0:
            continue  # genieclust gives NaN when every pair agrees (we: 1.0)
        assert px.adjusted_fowlkes_mallows_score(t, p) == pytest.approx(
            gc.adjusted_fm_score(t, p), abs=1e-12)


def _clusim(labels):
    from clusim.clustering import Clustering
    return Clustering(elm2clu_dict={i: [int(v)] for i, v in enumerate(labels)})


def test_southwood_and_pearson_against_clusim():
    import clusim.sim as sim
    for t, p in _random_cases(40, seed=4):
        a, b, c, d = enumerate_pairs(t.tolist(), p.tolist())
        c1, c2 = _clusim(t), _clusim(p)
        assert px.southwood_score(t, p) == pytest.approx(sim.southwood_index(c1, c2), abs=1e-12)
        den = (a + b) * (a + c) * (b + d) * (c + d)
        if den:
            # clusim's pearson_correlation lacks the square root (docs/metric-notes.md)
            assert sim.pearson_correlation(c1, c2) == pytest.approx(
                (a * d - b * c) / den, abs=1e-15)
            assert px.phi_score(t, p) == pytest.approx((a * d - b * c) / math.sqrt(den))


def _aricode_mari(t, p):
    """aricode's R ``MARI`` (jchiquet/aricode, R/aricode.R), transcribed line by line."""
    nij, ni, nj = Counter(zip(t, p, strict=True)), Counter(t), Counter(p)
    n = len(t)
    stot = sum(math.comb(v, 2) for v in nij.values())
    srow = sum(math.comb(v, 2) for v in ni.values())
    scol = sum(math.comb(v, 2) for v in nj.values())
    t1 = 2 * n
    t2 = sum(v * ni[i] * nj[j] for (i, j), v in nij.items())
    t3 = -sum(v * v for v in nij.values()) - sum(v * v for v in ni.values()) \
        - sum(v * v for v in nj.values())
    expected = Fraction(srow * scol - stot - (t1 + t2 + t3), 6 * math.comb(n, 4))
    expected *= math.comb(n, 2)
    maximum = Fraction(srow + scol, 2)
    if srow == stot == scol:
        return None  # every pair agrees: aricode gives 1 or 0/0; our convention is tested above
    if expected == maximum and stot != 0:
        return 1.0
    return float((stot - expected) / (maximum - expected))


def test_mari_against_aricode_source_formula():
    seen = 0
    for t, p in _random_cases(150, seed=12, n_max=200):
        if len(t) < 4:
            continue
        try:
            expected = _aricode_mari(t.tolist(), p.tolist())
        except ZeroDivisionError:
            continue
        if expected is None:
            continue
        assert pair_chance.modified_adjusted_rand_score(t, p) == pytest.approx(expected, abs=1e-12)
        seen += 1
    assert seen > 100


def test_mari_exact_beyond_int64_with_aricode_formula_on_counts():
    from clustermetrics import Contingency
    rows, cols = [0, 0, 1, 1, 2], [0, 1, 1, 2, 2]
    counts = [3_000_000_000, 7, 2_000_000_001, 5, 999_999_999]
    table = Contingency.from_counts(rows, cols, counts)
    ni, nj = Counter(), Counter()
    for r, c, v in zip(rows, cols, counts, strict=True):
        ni[r] += v
        nj[c] += v
    n = sum(counts)
    stot = sum(math.comb(v, 2) for v in counts)
    srow = sum(math.comb(v, 2) for v in ni.values())
    scol = sum(math.comb(v, 2) for v in nj.values())
    t2 = sum(v * ni[r] * nj[c] for r, c, v in zip(rows, cols, counts, strict=True))
    t3 = -sum(v * v for v in counts) - sum(v * v for v in ni.values()) \
        - sum(v * v for v in nj.values())
    expected = Fraction(srow * scol - stot - (2 * n + t2 + t3), 6 * math.comb(n, 4))
    expected *= math.comb(n, 2)
    want = (stot - expected) / (Fraction(srow + scol, 2) - expected)
    assert pair_chance.modified_adjusted_rand_score(table) == float(want)


def test_mari_large_n_path_is_exact():
    # N >= 2e6 takes the per-class path; compare with the per-cell sum in Python integers
    rng = np.random.default_rng(8)
    matrix = rng.integers(0, 10_000, (40, 30)) * (rng.random((40, 30)) < 0.6)
    table = cm.Contingency.from_matrix(matrix)
    assert table.n_samples > 2_000_000
    n, a, b = table.counts, table.class_sizes[table.rows], table.cluster_sizes[table.cols]
    expected = sum(x * ((y - 1) * (z - 1) - (x - 1))
                   for x, y, z in zip(n.tolist(), a.tolist(), b.tolist(), strict=True))
    assert pair_chance._sum_n_ab(table) == expected
