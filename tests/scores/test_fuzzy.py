"""The scores of soft memberships against their definitions written out over all item
pairs in exact rational arithmetic (Fractions), the chance expectations against an
enumeration of every permutation, the crisp reductions against our Rand index and ARI
and scikit-learn's, and registry-wide properties over MEMBERSHIP_METRICS."""

from __future__ import annotations

import inspect
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score as sk_ari
from sklearn.metrics import rand_score as sk_rand

import clustermetrics as cm
from clustermetrics.scores import fuzzy
from clustermetrics.scores.fuzzy import MEMBERSHIP_METRICS
from clustermetrics.table.membership import Memberships

ONE, HALF = Fraction(1), Fraction(1, 2)


# ------------------------------------------------------------------ the definitions
def together(row_i, row_j):
    """Hullermeier et al.'s E(i, j) = 1 - ||u_i - u_j||_1 / 2."""
    return ONE - sum(abs(a - b) for a, b in zip(row_i, row_j, strict=True)) * HALF


def ndc_ref(u, v):
    pairs = list(itertools.combinations(range(len(u)), 2))
    return ONE - sum(abs(together(u[i], u[j]) - together(v[i], v[j]))
                     for i, j in pairs) / len(pairs)


def aci_ref(u, v):
    pairs = list(itertools.combinations(range(len(u)), 2))
    a = [together(u[i], u[j]) for i, j in pairs]
    b = [together(v[i], v[j]) for i, j in pairs]
    observed = sum(abs(x - y) for x, y in zip(a, b, strict=True))
    expected = sum(abs(x - y) for x in a for y in b) / len(pairs)
    return ONE - observed / expected


def campello_counts_ref(u, v, tnorm):
    t = min if tnorm == "minimum" else (lambda x, y: x * y)

    def same(p, i, j):
        return max(t(p[i][k], p[j][k]) for k in range(len(p[i])))

    def apart(p, i, j):
        ks = range(len(p[i]))
        return max((t(p[i][k], p[j][m]) for k in ks for m in ks if k != m), default=0)
    a = b = c = d = Fraction(0)
    for i, j in itertools.combinations(range(len(u)), 2):
        vv, xx, yy, zz = same(u, i, j), apart(u, i, j), same(v, i, j), apart(v, i, j)
        a, b, c, d = a + t(vv, yy), b + t(vv, zz), c + t(xx, yy), d + t(xx, zz)
    return a, b, c, d


def campello_rand_ref(u, v, tnorm="minimum"):
    a, b, c, d = campello_counts_ref(u, v, tnorm)
    return (a + d) / (a + b + c + d)


def campello_ari_ref(u, v, tnorm="minimum"):
    a, b, c, d = campello_counts_ref(u, v, tnorm)
    return 2 * (a * d - b * c) / (b * b + c * c + 2 * a * d + (a + d) * (b + c))


def bonding(u):
    return [[sum(x * y for x, y in zip(ri, rj, strict=True)) for rj in u] for ri in u]


def normalised(a):
    total = sum(map(sum, a))
    squares = sum(x * x for row in a for x in row)
    return [[total / squares * x for x in row] for row in a]


def fri_of(na, nb):
    """Andrews et al.'s FRI of two normalised bondings, as their R code writes it."""
    n = len(na)
    s = sum(x * y + (1 - x) * (1 - y)
            for ra, rb in zip(na, nb, strict=True) for x, y in zip(ra, rb, strict=True))
    return (s - n) / (n * (n - 1))


def fri_ref(u, v):
    return fri_of(normalised(bonding(u)), normalised(bonding(v)))


def fari_ref(u, v):
    """FARI with E[FRI] by enumerating every permutation of V's items (n <= 6)."""
    na, nb = normalised(bonding(u)), normalised(bonding(v))
    n = len(u)
    perms = list(itertools.permutations(range(n)))
    expected = sum(fri_of(na, [[nb[p[i]][p[j]] for j in range(n)] for i in range(n)])
                   for p in perms) / len(perms)
    return (fri_of(na, nb) - expected) / (1 - expected)


REFERENCES = {"fuzzy_rand": ndc_ref, "adjusted_fuzzy_rand": aci_ref,
              "campello_rand": campello_rand_ref, "campello_adjusted_rand": campello_ari_ref,
              "frobenius_rand": fri_ref, "frobenius_adjusted_rand": fari_ref}


# ------------------------------------------------------------------ generated memberships
@st.composite
def rational_membership(draw, n, kind):
    """n rows of Fractions summing to 1: crisp one-hot rows, two clusters, or several;
    rows drawn from a small pool so that items repeat (the distinct-row collapse)."""
    k = {"crisp": draw(st.integers(1, 3)), "two": 2, "many": draw(st.integers(3, 4))}[kind]
    if kind == "crisp":
        pool = [[Fraction(int(c == j)) for c in range(k)] for j in range(k)]
    else:
        pool = []
        for _ in range(draw(st.integers(1, 4))):
            w = draw(st.lists(st.integers(0, 4), min_size=k, max_size=k).filter(any))
            pool.append([Fraction(x, sum(w)) for x in w])
    return [pool[draw(st.integers(0, len(pool) - 1))] for _ in range(n)]


@st.composite
def membership_pair(draw, max_n=6):
    n = draw(st.integers(2, max_n))
    kinds = st.sampled_from(["crisp", "two", "many"])
    return (draw(rational_membership(n, draw(kinds))),
            draw(rational_membership(n, draw(kinds))))


def as_float(u):
    return np.array([[float(x) for x in row] for row in u])


def defined(ref, u, v):
    try:
        return ref(u, v)
    except ZeroDivisionError:
        return None


@pytest.mark.parametrize("key", list(MEMBERSHIP_METRICS))
@settings(max_examples=60, deadline=None)
@given(pair=membership_pair())
def test_every_score_is_its_definition_over_all_pairs(key, pair):
    u, v = pair
    want = defined(REFERENCES[key], u, v)
    got = MEMBERSHIP_METRICS[key].func(as_float(u), as_float(v))
    if want is None:  # a 0/0: the documented convention
        assert got == 1.0
    else:
        assert got == pytest.approx(float(want), abs=1e-12)


BODIES = {"fuzzy_rand": fuzzy._fuzzy_rand,
          "adjusted_fuzzy_rand": lambda m: fuzzy._adjusted_fuzzy_rand(m, None),
          "campello_rand": lambda m: fuzzy._campello_rand(m, "minimum"),
          "campello_adjusted_rand": lambda m: fuzzy._campello_adjusted(m, "minimum"),
          "frobenius_rand": fuzzy._frobenius_rand,
          "frobenius_adjusted_rand": fuzzy._frobenius_adjusted}


@pytest.mark.parametrize("key", list(MEMBERSHIP_METRICS))
@settings(max_examples=40, deadline=None)
@given(pair=membership_pair())
def test_the_general_path_is_the_definition_on_crisp_rows_too(key, pair):
    """Crisp memberships take the exact path through the table; flagged as soft, the
    general algorithm must give the same definition."""
    u, v = pair
    want = defined(REFERENCES[key], u, v)
    if want is None:
        return
    m = Memberships(as_float(u), as_float(v), False, False)
    assert BODIES[key](m) == pytest.approx(float(want), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(pair=membership_pair(), tnorm=st.sampled_from(["minimum", "product"]))
def test_campello_under_either_t_norm(pair, tnorm):
    u, v = pair
    for func, ref in ((cm.campello_rand_score, campello_rand_ref),
                      (cm.campello_adjusted_rand_score, campello_ari_ref)):
        want = defined(lambda a, b, r=ref: r(a, b, tnorm), u, v)
        got = func(as_float(u), as_float(v), t_norm=tnorm)
        assert got == (1.0 if want is None else pytest.approx(float(want), abs=1e-12))


@settings(max_examples=30, deadline=None)
@given(pair=membership_pair(max_n=5))
def test_aci_expectation_is_the_mean_over_every_permutation(pair):
    """Andrews et al.'s closed form of D'Ambrosio et al.'s expectation, checked against
    the mean of the fuzzy Rand index over all N! permutations of V's items."""
    u, v = pair
    n = len(u)
    perms = list(itertools.permutations(range(n)))
    mean = sum(ndc_ref(u, [v[p] for p in perm]) for perm in perms) / len(perms)
    observed = ndc_ref(u, v)
    if mean == 1:
        return
    got = cm.adjusted_fuzzy_rand_score(as_float(u), as_float(v))
    assert got == pytest.approx(float((observed - mean) / (1 - mean)), abs=1e-12)


# ------------------------------------------------------------------ crisp reductions
@pytest.mark.parametrize("key", list(MEMBERSHIP_METRICS))
@settings(max_examples=40, deadline=None)
@given(t=st.lists(st.integers(0, 3), min_size=2, max_size=30), data=st.data())
def test_crisp_memberships_give_rand_and_ari(key, t, data):
    p = data.draw(st.lists(st.integers(0, 3), min_size=len(t), max_size=len(t)))
    entry = MEMBERSHIP_METRICS[key]
    label_score = {"rand": (cm.rand_score, sk_rand),
                   "ari": (cm.adjusted_rand_score, sk_ari)}[entry.crisp]
    got = entry.func(t, p)
    assert got == label_score[0](t, p)  # exactly ours
    assert got == pytest.approx(label_score[1](t, p), abs=1e-12)
    one_hot = np.eye(4)
    assert entry.func(one_hot[t], one_hot[p]) == got  # labels or their one-hot matrix


# ------------------------------------------------------------------ registry-wide
def soft(rng, n, k, crisp_share=0.3):
    u = rng.dirichlet(np.full(k, 0.5), size=n)
    hard = rng.random(n) < crisp_share
    u[hard] = np.eye(k)[rng.integers(0, k, hard.sum())]
    return u


@pytest.mark.parametrize("key", list(MEMBERSHIP_METRICS))
@pytest.mark.parametrize("seed", range(4))
def test_order_relabelling_symmetry_bounds_and_perfect(key, seed):
    entry = MEMBERSHIP_METRICS[key]
    rng = np.random.default_rng(seed)
    n = 40
    u, v = soft(rng, n, 3 + seed % 2), soft(rng, n, 2 + seed)
    value = entry.func(u, v)
    order = rng.permutation(n)
    assert entry.func(u[order], v[order]) == pytest.approx(value, abs=1e-12)
    cols_u, cols_v = rng.permutation(u.shape[1]), rng.permutation(v.shape[1])
    assert entry.func(u[:, cols_u], v[:, cols_v]) == pytest.approx(value, abs=1e-12)
    if entry.symmetric:
        assert entry.func(v, u) == pytest.approx(value, abs=1e-12)
    assert entry.lower <= value <= entry.upper
    if entry.perfect is not None:
        assert entry.func(u, u) == entry.perfect
    else:  # not reflexive: a soft membership scores below 1 against itself
        assert entry.func(u, u) < 1.0
        crisp = np.eye(3)[rng.integers(0, 3, n)]
        assert entry.func(crisp, crisp) == 1.0


def test_every_score_is_exported_and_documented():
    for entry in MEMBERSHIP_METRICS.values():
        assert getattr(cm, entry.func.__name__) is entry.func
        doc = inspect.getdoc(entry.func)
        for section in ("Parameters", "Returns", "Examples", "References"):
            assert f"{section}\n---" in doc, (entry.key, section)


# ------------------------------------------------------------------ conventions, cost
@pytest.mark.parametrize("key", list(MEMBERSHIP_METRICS))
def test_one_item_is_a_zero_over_zero(key):
    func = MEMBERSHIP_METRICS[key].func
    assert func([[0.3, 0.7]], [[1.0]]) == 1.0
    assert func([[0.3, 0.7]], [[1.0]], finite_value=0.0) == 0.0
    with pytest.raises(cm.UndefinedMetricError, match="no item pairs"):
        func([[0.3, 0.7]], [[1.0]], force_finite=False)


def test_adjusted_fuzzy_rand_refuses_past_max_pairs():
    rng = np.random.default_rng(1)
    u, v = soft(rng, 30, 3, 0), soft(rng, 30, 3, 0)
    with pytest.raises(cm.ScoreUnavailable, match="max_pairs"):
        cm.adjusted_fuzzy_rand_score(u, v, max_pairs=100)
    assert cm.adjusted_fuzzy_rand_score(u, v, max_pairs=None) == \
        cm.adjusted_fuzzy_rand_score(u, v)
    with pytest.raises(ValueError, match="max_pairs must be"):
        cm.adjusted_fuzzy_rand_score(u, v, max_pairs=0)


def test_campello_refuses_an_unknown_t_norm():
    with pytest.raises(ValueError, match="t_norm must be one of"):
        cm.campello_rand_score([0, 1], [0, 1], t_norm="lukasiewicz")


def test_sparse_and_dense_give_the_same_value():
    rng = np.random.default_rng(2)
    u, v = soft(rng, 50, 4), soft(rng, 50, 3)
    for entry in MEMBERSHIP_METRICS.values():
        assert entry.func(sparse.csr_matrix(u), v) == entry.func(u, v)


def test_a_value_worked_by_hand():
    """The fuzzy Rand index of a membership and its crisp rounding, worked by hand:
    items (1, 0), (1/2, 1/2), (0, 1) against labels 0, 0, 1: E_U = 1/2, 0, 1/2 on pairs
    (1,2), (1,3), (2,3), E_V = 1, 0, 0, so FR = 1 - (1/2 + 0 + 1/2) / 3 = 2/3."""
    assert cm.fuzzy_rand_score([[1, 0], [0.5, 0.5], [0, 1]], [0, 0, 1]) == \
        pytest.approx(2 / 3, abs=1e-15)
    assert math.isclose(float(ndc_ref([[ONE, 0], [HALF, HALF], [0, ONE]],
                                      [[ONE, 0], [ONE, 0], [0, ONE]])), 2 / 3)


@pytest.mark.parametrize("key", list(MEMBERSHIP_METRICS))
@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), k=st.integers(1, 3), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from([1 - 9e-10, 1 - 1e-12, 1 + 1e-12, 1 + 9e-10]))
def test_rows_accepted_within_tol_score_as_stochastic_rows(key, n, k, seed, scale):
    """A row summing to 1 within tol is read as summing to 1: the score equals that of
    the exactly normalised rows, inside the registered range (a row of 1 + 9e-10 once
    gave a fuzzy Rand index above 1)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    u = rng.dirichlet(np.ones(k + 1), n)
    crisp = np.eye(k)[labels]
    entry = MEMBERSHIP_METRICS[key]
    for a, b in ((crisp * scale, u), (crisp, u * scale), (crisp * scale, crisp)):
        value = entry.func(a, b)
        assert entry.lower <= value <= entry.upper
        assert value == pytest.approx(entry.func(a / a.sum(axis=1, keepdims=True),
                                                 b / b.sum(axis=1, keepdims=True)), abs=1e-12)


def test_the_adversarys_row_just_over_one():
    u = [[1.0000000009, 0], [1, 0], [0, 1], [0, 1]]
    assert cm.fuzzy_rand_score([0, 0, 1, 1], u) == 1.0
    assert cm.adjusted_fuzzy_rand_score([0, 0, 1, 1], u) == 1.0


@pytest.mark.parametrize("sparse_input", [False, True])
def test_a_dense_matrix_over_the_limit_is_refused_before_it_is_allocated(monkeypatch,
                                                                        sparse_input):
    """Crisp labels of many clusters, or a wide sparse membership, would be read into a
    dense N x K float64 matrix: past DENSE_LIMIT entries that is a ValueError naming the
    argument and the size, not a MemoryError (10^6 labels of 10^4 clusters asked 74.5 GiB)."""
    from clustermetrics.table import membership

    monkeypatch.setattr(membership, "DENSE_LIMIT", 99)
    labels = np.arange(10) % 10
    pred = sparse.csr_array(np.eye(10)) if sparse_input else labels
    with pytest.raises(ValueError, match=r"membership_(true|pred) would be a dense 10 x 10"):
        cm.fuzzy_rand_score(labels, pred)
