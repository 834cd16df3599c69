"""The minimisation of the reduced MI's Dirichlet-multinomial codes against an independent
mpmath reference (tests/support/rmi_reference.py: a 257-point grid and mpmath's findroot on the
derivative, 50 digits), on generated tables: up to 200 items with up to 30 labels a side,
a single label, all singletons, one dominant class, and counts up to 1e17; and on codes
whose minimum sits near an end of the range or that have two local minima."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rmi_reference import code_minimum

from clustermetrics import Contingency
from clustermetrics.scores._reduced import ALPHA_RANGE, CodeSpec, distinct, minimise

_EPS = 2.0 ** -52


def _pairs(values) -> list[tuple[int, int]]:
    u, c = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
    return [(int(v), int(k)) for v, k in zip(u, c, strict=True)]


def _codes(table: Contingency) -> list[tuple[int, list, list, bool]]:
    """The six codes of the reduced MI scores: (q, group sizes, cells, increasing)."""
    a, b, cells = table.class_sizes, table.cluster_sizes, table.counts
    n, r, c = int(table.n_samples), table.n_classes, table.n_clusters
    return [(r, [n], a, False), (c, [n], b, False), (r, b, cells, False),
            (c, a, cells, False), (r, a, a, True), (c, b, b, True)]


def _spec(q, sizes, cells, increasing) -> CodeSpec:
    return CodeSpec(q, *distinct(np.asarray(sizes, dtype=np.int64)),
                    *distinct(np.asarray(cells, dtype=np.int64)), increasing)


def _check(q, sizes, cells, found) -> mpmath.mpf:
    """Both forms of ``found`` against the reference minimum, each within its own rounding
    bound (the minimum is neither missed nor undercut); returns the reference argmin."""
    ref, x_ref = code_minimum(q, _pairs(sizes), _pairs(cells))
    with mpmath.workdps(50):
        # F-form = code - N log q + sum log m! - sum log n! (the E-form's log-factorials)
        shift = sum(c * v for v, c in _pairs(sizes)) * mpmath.log(q) - mpmath.fsum(
            c * mpmath.loggamma(v + 1) for v, c in _pairs(sizes)) + mpmath.fsum(
            c * mpmath.loggamma(v + 1) for v, c in _pairs(cells))
        f_ref = float(ref - shift)
        floor = float(1e-40 * (abs(ref) + abs(shift) + 1))  # the reference's own rounding
    assert abs(found.e_form - float(ref)) <= 32 * _EPS * found.e_size + floor, (
        q, found, float(ref), float(x_ref))
    assert abs(found.f_form - f_ref) <= 32 * _EPS * found.f_size + floor, (
        q, found, f_ref, float(x_ref))
    return x_ref


@st.composite
def tables(draw) -> Contingency:
    kind = draw(st.sampled_from(["labels", "one_label", "singletons", "dominant", "huge"]))
    if kind == "huge":
        r, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        rows = draw(st.lists(st.lists(st.integers(0, 10**17), min_size=c, max_size=c),
                             min_size=r, max_size=r))
        matrix = np.array(rows, dtype=np.int64)
        matrix[0, 0] += matrix.sum() == 0
        return Contingency.from_matrix(matrix)
    n = draw(st.integers(1, 200))
    k_true, k_pred = draw(st.integers(1, 30)), draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    truth = rng.integers(0, k_true, n)
    if kind == "one_label":
        truth = np.zeros(n, dtype=np.int64)
    elif kind == "singletons":
        truth = np.arange(n)
    elif kind == "dominant":
        truth = np.where(rng.random(n) < 0.9, 0, truth)
    keep = draw(st.floats(0.0, 1.0))
    pred = np.where(rng.random(n) < keep, truth % k_pred, rng.integers(0, k_pred, n))
    if draw(st.booleans()):
        truth, pred = pred, truth
    return Contingency.from_labels(truth, pred)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(tables())
def test_codes_of_generated_tables_match_mpmath(table):
    """All six codes minimised together (as the scores do), each against the reference."""
    codes = [code for code in _codes(table) if code[0] > 1]
    found = minimise([_spec(*code) for code in codes])
    for (q, sizes, cells, _), opt in zip(codes, found, strict=True):
        _check(q, sizes, cells, opt)


def test_two_local_minima_take_the_smaller():
    """g changes sign three times (down, up, down, up or down to the end): the interior
    minimum is the global one on the first codes, the right end on the others."""
    interior = [(2, [7, 437], [211, 7, 226]), (2, [185, 10], [90, 10, 95]),
                (2, [2, 2, 19, 4], [9, 2, 2, 10, 4])]
    at_end = [(2, [148, 12], [70, 2, 78, 10]), (2, [1, 9, 89], [1, 1, 45, 8, 44]),
              (3, [2, 20, 6, 3], [6, 2, 3, 8, 4, 2, 6])]
    found = minimise([_spec(q, s, c, False) for q, s, c in interior + at_end])
    for (q, sizes, cells), opt in zip(interior + at_end, found, strict=True):
        x_ref = _check(q, sizes, cells, opt)
        assert (float(x_ref) < 1e3) == ((q, sizes, cells) in interior)
        assert math.isclose(opt.x, float(x_ref), rel_tol=1e-6)


def test_minimum_near_the_ends_of_the_range():
    """Ten pure columns of 1e17 items and one stray item: the minimum at ~3e-4, close to
    the left end; two near-equal classes of ~1e4 items: close to the right end (~5e3);
    the self-description of a table increases with x (minimum at the left end)."""
    matrix = np.diag(np.full(10, 10**17))
    matrix[0, 1] = 1
    table = Contingency.from_matrix(matrix)
    cases = [(10, table.cluster_sizes, table.counts, False), (3, [2748], [954, 897, 897], False),
             (2, [21536], [10902, 10634], False), (10, table.class_sizes, table.class_sizes, True)]
    found = minimise([_spec(*case) for case in cases])
    for case, opt in zip(cases, found, strict=True):
        x_ref = float(_check(*case[:3], opt))
        assert math.isclose(opt.x, x_ref, rel_tol=1e-6)
    assert 1.5e-4 < found[0].x < 1e-3
    assert 1e3 < found[1].x < ALPHA_RANGE[1] and 1e3 < found[2].x < ALPHA_RANGE[1]
    assert found[3].x == ALPHA_RANGE[0]


def test_flat_code_is_any_point():
    """Singletons on both sides: every term is log(q x) - log x, constant in x."""
    opt = minimise([_spec(5, [1] * 5, [1] * 5, False)])[0]
    assert ALPHA_RANGE[0] <= opt.x <= ALPHA_RANGE[1]
    assert abs(opt.e_form - 5 * math.log(5)) <= 1e-14 and abs(opt.f_form) <= 1e-300
