"""Li & Klette recovery rate (exact, greedy, brute force) and pseudo recovery rate."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics.matching import assignment as _assignment
from clustermetrics.scores.recovery import (
    Recovery,
    pseudo_recovery_rate_score,
    recovery,
    recovery_rate_score,
)
from clustermetrics.table.contingency import Contingency

# The paper's M is predicted x true; our tables are true x predicted, hence the transposes.
EXAMPLE_1 = np.array([[5, 3], [0, 2]])
EXAMPLE_3 = np.array([
    [1612, 0, 24, 2009, 0],
    [0, 0, 21, 0, 4540],
    [0, 0, 4153, 2, 5460],
    [0, 10000, 5796, 7989, 0],
    [8388, 0, 6, 0, 0],
])


def paper_table(m: np.ndarray) -> Contingency:
    """Table of the paper's M; cluster k is label k, class i is label i (0-based)."""
    return Contingency.from_matrix(np.asarray(m).T)


def labels_from_paper(m: np.ndarray) -> tuple[list[str], list[str]]:
    true, pred = [], []
    for (k, i), count in np.ndenumerate(m):
        true += [f"C{i + 1}"] * int(count)
        pred += [f"G{k + 1}"] * int(count)
    return true, pred


@st.composite
def paper_matrices(draw, max_side=6, max_value=9):
    """The paper's M (clusters x classes) with at least one non-zero cell."""
    m = draw(st.integers(1, max_side))
    n = draw(st.integers(1, max_side))
    cells = draw(st.lists(st.integers(0, max_value), min_size=m * n, max_size=m * n))
    matrix = np.array(cells, dtype=np.int64).reshape(m, n)
    if not matrix.any():
        matrix[draw(st.integers(0, m - 1)), draw(st.integers(0, n - 1))] = 1
    return matrix


def reduced(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The paper's M without all-zero rows/columns (clusters/classes without items), and
    the original cluster and class indices (= labels of the table) of what is left."""
    k_ids, i_ids = np.flatnonzero(matrix.any(axis=1)), np.flatnonzero(matrix.any(axis=0))
    return matrix[k_ids][:, i_ids], k_ids, i_ids


def exact_weights(matrix: np.ndarray) -> list[list[Fraction]]:
    sizes = matrix.sum(axis=0)
    return [[Fraction(int(v), int(sizes[i])) for i, v in enumerate(row)] for row in matrix]


def reference_exact(matrix: np.ndarray) -> Fraction:
    """Definition 2 by enumeration, in exact arithmetic: best total W (not divided)."""
    w = exact_weights(matrix)
    m, n = matrix.shape
    if m <= n:
        return max(sum(w[k][p[k]] for k in range(m))
                   for p in itertools.permutations(range(n), m))
    return max(sum(w[p[i]][i] for i in range(n)) for p in itertools.permutations(range(m), n))


def reference_greedy(matrix: np.ndarray) -> list[tuple[int, int, Fraction]]:
    """Algorithm 2 literally: argmax of the whole matrix, first in row-major order."""
    w = exact_weights(matrix)
    m, n = matrix.shape
    alive_k, alive_i = set(range(m)), set(range(n))
    picked = []
    for _ in range(min(m, n)):
        best = None
        for k in range(m):
            for i in range(n):
                if k in alive_k and i in alive_i and (best is None or w[k][i] > best[2]):
                    best = (k, i, w[k][i])
        k, i, value = best
        alive_k.discard(k)
        alive_i.discard(i)
        if value > 0:
            picked.append(best)
    return sorted(picked)


def reference_pseudo(matrix: np.ndarray) -> int:
    m, n = matrix.shape
    hit = matrix > 0
    if m <= n:
        return max(sum(bool(hit[k, p[k]]) for k in range(m))
                   for p in itertools.permutations(range(n), m))
    return max(sum(bool(hit[p[i], i]) for i in range(n))
               for p in itertools.permutations(range(m), n))


def check_matching(result: Recovery, matrix: np.ndarray) -> None:
    """Matched pairs are one-to-one, positive, carry their true weight, sorted by cluster."""
    sizes = matrix.sum(axis=0)
    clusters = [k for k, _, _ in result.matching]
    classes = [i for _, i, _ in result.matching]
    assert clusters == sorted(set(clusters))
    assert len(set(classes)) == len(classes)
    for k, i, w in result.matching:
        assert w > 0
        assert w == matrix[k, i] / sizes[i]


# --------------------------------------------------------------------- the paper's examples
def test_example_1_and_2():
    table = paper_table(EXAMPLE_1)
    for method in ("exact", "greedy", "bruteforce"):
        r = recovery(table, method=method)
        assert r.rate == pytest.approx(0.70, abs=1e-15)
        assert r.matching == ((0, 0, 1.0), (1, 1, 0.4))
        assert (r.m, r.n, r.method, r.denominator) == (2, 2, method, "predicted")


def test_example_1_from_labels():
    true, pred = labels_from_paper(EXAMPLE_1)
    r = recovery(true, pred)
    assert r.rate == pytest.approx(0.70, abs=1e-15)
    assert r.matching == (("G1", "C1", 1.0), ("G2", "C2", 0.4))
    assert recovery_rate_score(true, pred, method="greedy") == pytest.approx(0.70, abs=1e-15)


def test_example_3_exact():
    # M(1,4), M(2,5), M(3,3), M(4,2), M(5,1), 1-based as printed in the paper.
    expected = ((0, 3, 0.2009), (1, 4, 0.454), (2, 2, 0.4153), (3, 1, 1.0), (4, 0, 0.8388))
    for method in ("exact", "bruteforce"):
        r = recovery(paper_table(EXAMPLE_3), method=method)
        assert r.rate == pytest.approx(0.5818, abs=1e-12)
        assert r.matching == expected


def test_example_4_greedy():
    # Picked in the order M(4,2), M(5,1), M(3,5), M(1,4), M(2,3).
    r = recovery(paper_table(EXAMPLE_3), method="greedy")
    assert r.rate == pytest.approx(0.51756, abs=1e-12)
    assert r.matching == ((0, 3, 0.2009), (1, 2, 0.0021), (2, 4, 0.546), (3, 1, 1.0),
                          (4, 0, 0.8388))


def test_example_5_pseudo():
    assert pseudo_recovery_rate_score(paper_table(EXAMPLE_1)) == 1.0
    assert pseudo_recovery_rate_score(*labels_from_paper(EXAMPLE_1)) == 1.0
    assert pseudo_recovery_rate_score(paper_table(EXAMPLE_3)) == 1.0


# --------------------------------------------------------------------- against references
@settings(max_examples=120, deadline=None)
@given(paper_matrices())
def test_exact_and_bruteforce_equal_enumeration(matrix):
    table = paper_table(matrix)
    m_red, _, _ = reduced(matrix)
    expected = float(reference_exact(m_red) / m_red.shape[0])
    for method in ("exact", "bruteforce"):
        r = recovery(table, method=method)
        assert r.rate == pytest.approx(expected, abs=1e-12)
        check_matching(r, matrix)
        assert math.fsum(w for _, _, w in r.matching) / r.m == pytest.approx(r.rate, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(paper_matrices(max_side=7, max_value=40))
def test_exact_equals_bruteforce_up_to_7(matrix):
    table = paper_table(matrix)
    assert recovery_rate_score(table) == pytest.approx(
        recovery_rate_score(table, method="bruteforce"), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(paper_matrices(max_value=3))
def test_greedy_is_algorithm_2(matrix):
    # Small values make many ties in W, so the row-major tie rule is exercised.
    m_red, k_ids, i_ids = reduced(matrix)
    r = recovery(paper_table(matrix), method="greedy")
    expected = reference_greedy(m_red)
    assert [(k, i) for k, i, _ in r.matching] == [(k_ids[k], i_ids[i]) for k, i, _ in expected]
    check_matching(r, matrix)
    assert r.rate == pytest.approx(float(sum(w for _, _, w in expected) / m_red.shape[0]),
                                   abs=1e-12)
    assert r.rate <= recovery_rate_score(paper_table(matrix)) + 1e-12


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 40))
def test_greedy_never_beats_exact(seed, m, n):
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, 6, (m, n)) * (rng.random((m, n)) < 0.4)
    matrix[0, 0] += 1
    table = paper_table(matrix)
    assert recovery_rate_score(table, method="greedy") <= recovery_rate_score(table) + 1e-12


@settings(max_examples=120, deadline=None)
@given(paper_matrices())
def test_pseudo_equals_enumeration(matrix):
    m_red, _, _ = reduced(matrix)
    expected = reference_pseudo(m_red) / m_red.shape[1]
    assert pseudo_recovery_rate_score(paper_table(matrix)) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("scale", [30, 31, 53])
def test_greedy_orders_colliding_floats_exactly(scale):
    # Find a/b > c/d with a*d - c*b = 1 whose floats are equal, at sizes near 2**scale.
    b = 2**scale + 1
    for d in range(b + 1, b + 400):
        if math.gcd(b, d) == 1:
            a = pow(d, -1, b)
            c = (a * d - 1) // b
            if 0.55 < a / b < 0.95 and a / b == c / d:
                break
    else:
        pytest.fail("no colliding pair found")
    # Class 0 (size d) holds c in cluster 0; class 1 (size b) holds a in cluster 0. By float
    # and code order class 0 would come first; the exact order puts class 1 first.
    table = Contingency.from_counts([0, 1, 0, 1], [0, 0, 1, 2], [c, a, d - c, b - a])
    r = recovery(table, method="greedy")
    assert [(k, i) for k, i, _ in r.matching] == [(0, 1), (1, 0)]
    assert r.rate == pytest.approx((a / b + (d - c) / d) / 3, abs=1e-15)


# --------------------------------------------------------------------- options
def test_denominators():
    # Two classes of 2; one cluster holding everything: W = (1, 1), m = 1, n = 2.
    true, pred = [0, 0, 1, 1], [9, 9, 9, 9]
    assert recovery_rate_score(true, pred) == 1.0
    assert recovery_rate_score(true, pred, denominator="true") == 0.5
    assert recovery_rate_score(true, pred, denominator="max") == 0.5
    # More clusters than classes (m = 4 > n = 2): only two clusters can be matched.
    true, pred = [0, 0, 0, 1, 1, 1], [0, 0, 1, 2, 2, 3]
    for method in ("exact", "greedy", "bruteforce"):
        r = recovery(true, pred, method=method)
        assert r.matching == ((0, 0, 2 / 3), (2, 1, 2 / 3))
        assert r.rate == pytest.approx((4 / 3) / 4)
        assert recovery_rate_score(true, pred, method=method, denominator="true") == pytest.approx(
            (4 / 3) / 2)
        assert recovery_rate_score(true, pred, method=method, denominator="max") == pytest.approx(
            (4 / 3) / 4)
    r = recovery(true, pred, denominator="true")
    assert (r.m, r.n, r.denominator) == (4, 2, "true")


def test_bruteforce_size_guard():
    table = Contingency.from_labels(list(range(9)), list(range(9)))
    with pytest.raises(ValueError, match="max_permutations=1000"):
        recovery(table, method="bruteforce", max_permutations=1000)
    with pytest.raises(ValueError, match="362880"):
        recovery(table, method="bruteforce", max_permutations=1000)
    small = Contingency.from_labels([0, 0, 1, 2], [0, 1, 1, 2])
    assert recovery_rate_score(small, method="bruteforce", max_permutations=6) == pytest.approx(
        recovery_rate_score(small))
    with pytest.raises(ValueError, match="max_permutations"):
        recovery_rate_score(small, method="bruteforce", max_permutations=5)
    assert recovery_rate_score(small, method="bruteforce", max_permutations=None) == pytest.approx(
        recovery_rate_score(small))


@pytest.mark.parametrize("kwargs, name", [
    ({"method": "fast"}, "method"),
    ({"method": None}, "method"),
    ({"denominator": "all"}, "denominator"),
    ({"max_permutations": 0}, "max_permutations"),
    ({"max_permutations": 2.5}, "max_permutations"),
    ({"max_permutations": True}, "max_permutations"),
])
def test_bad_options(kwargs, name):
    with pytest.raises(ValueError, match=name):
        recovery([0, 1], [0, 1], **kwargs)
    with pytest.raises(ValueError, match=name):
        recovery_rate_score([0, 1], [0, 1], **kwargs)


def test_bad_option_lists_allowed_values():
    with pytest.raises(ValueError, match="'exact', 'greedy', 'bruteforce'"):
        recovery_rate_score([0, 1], [0, 1], method="hungarian")
    with pytest.raises(ValueError, match="'predicted', 'true', 'max'"):
        recovery_rate_score([0, 1], [0, 1], denominator="min")


# --------------------------------------------------------------------- paths and inputs
def test_sparse_path_matches_dense(monkeypatch):
    rng = np.random.default_rng(3)
    true = rng.integers(0, 30, 2000)
    pred = np.where(rng.random(2000) < 0.7, true, rng.integers(0, 35, 2000))
    dense = recovery(true, pred)
    monkeypatch.setattr(_assignment, "DENSE_MAX_CELLS", 0)
    sparse = recovery(true, pred)
    assert sparse.rate == pytest.approx(dense.rate, abs=1e-12)
    assert len(sparse.matching) == len(dense.matching)


@settings(max_examples=60, deadline=None)
@given(paper_matrices(), st.randoms(use_true_random=False))
def test_invariant_to_renaming_labels(matrix, rnd):
    true, pred = [], []
    for (k, i), count in np.ndenumerate(matrix):
        true += [i] * int(count)
        pred += [k] * int(count)
    shuffled = list(range(matrix.shape[0]))
    rnd.shuffle(shuffled)
    pred2 = [f"g{shuffled[k]}" for k in pred]
    true2 = [2**60 - i for i in true]
    assert recovery_rate_score(true2, pred2) == pytest.approx(recovery_rate_score(true, pred),
                                                              abs=1e-12)
    assert pseudo_recovery_rate_score(true2, pred2) == pseudo_recovery_rate_score(true, pred)
    # An order-preserving renaming keeps greedy's tie order, hence its matching.
    true3 = [2**53 + i for i in true]
    pred3 = [f"g{k:02d}" for k in pred]
    got = recovery(true3, pred3, method="greedy").matching
    want = recovery(true, pred, method="greedy").matching
    assert got == tuple((f"g{k:02d}", 2**53 + i, w) for k, i, w in want)


def test_result_types():
    r = recovery([0, 0, 1], ["a", "b", "b"])
    assert type(r.rate) is float
    assert all(type(w) is float for _, _, w in r.matching)
    assert r.matching == (("a", 0, 0.5), ("b", 1, 1.0))
    assert type(recovery_rate_score([0, 0, 1], [0, 1, 1])) is float
    assert type(pseudo_recovery_rate_score([0, 0, 1], [0, 1, 1])) is float


def test_perfect_and_contingency_input():
    true, pred = ["x", "x", "y", "z"], [3, 3, 1, 2]
    table = Contingency.from_labels(true, pred)
    for method in ("exact", "greedy", "bruteforce"):
        assert recovery_rate_score(table, method=method) == 1.0
        for denominator in ("predicted", "true", "max"):
            assert recovery_rate_score(true, pred, method=method, denominator=denominator) == 1.0
    assert pseudo_recovery_rate_score(table) == 1.0
    with pytest.raises(ValueError, match="labels_pred"):
        recovery_rate_score(table, pred)
    with pytest.raises(ValueError, match="labels_pred"):
        pseudo_recovery_rate_score(true)
