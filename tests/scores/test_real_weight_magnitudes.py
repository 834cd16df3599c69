"""Real-valued weights of any magnitude: every registered score that accepts real masses
either returns its value to the bound its family states (docs/guide/table.md, "Real-valued
weights") against an independent reference of at least 60 significant digits
(tests/support/score_reference.py on the exact rationals of the table's float64 masses), within
its documented range, without a warning; or refuses the table with a ValueError that
names sample_weight and a cause the reference confirms.

Weights span 1e-300 ... 1e300 (tables around one scale, with mass ratios up to 1e15, and
outliers anywhere down to the smallest subnormal); the scores are taken from the registry,
so a score registered later is covered here at once (and needs a reference to pass).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath
import pytest
from cli_helpers import run
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from score_reference import pair_counts, reference_mp

import clustermetrics as cm
from clustermetrics import METRICS, ScoreUnavailable

KEYS = [key for key, entry in METRICS.items() if entry.real_weights is not None]
EPS = 2.0**-52
TINY = 2.0**-1022  # below it a float has fewer digits: the bounds are absolute there
# MI is a sum of terms of both signs (as on integer tables): its error is relative to the
# size of those terms, and so is the error of every score divided from it
MI_BASED = {"mi", "nmi", "nmi_geometric", "nmi_min", "nmi_max", "nmi_joint", "homogeneity",
            "completeness", "v_measure"}
# an optimal matching is found on float weights: its total is optimal up to their rounding
# (K' eps of the largest weight), and these scores subtract an expectation from it
MATCH_DIFFERENCES = {"clustering_error", "nca", "npa", "psi", "psi_simplified"}
MATCHED = {"recovery_rate", "clustering_accuracy"}


# ----------------------------------------------------------------------------- weights
def _weight(exponent: int, mantissa: float) -> float:
    return 5e-324 if exponent < -323 else mantissa * 10.0**exponent if exponent > -300 \
        else mantissa * 1e-300 * 10.0**(exponent + 300)


@st.composite
def spread_items(draw):
    """Labels of 2-8 items and weights: most within 15 orders of magnitude below one
    scale (1e-150 ... 1e150, at times 1e-300 ... 1e300, where the total is out of range),
    some anywhere from the smallest subnormal to 1e150, a few 0."""
    n = draw(st.integers(2, 8))
    t = draw(st.lists(st.integers(0, draw(st.integers(0, 3))), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, draw(st.integers(0, 3))), min_size=n, max_size=n))
    in_range = st.integers(-150, 150)
    scale = draw(st.one_of(in_range, in_range, in_range, st.integers(-300, 300)))
    mantissa = st.floats(1.0, 9.99)
    near = st.builds(lambda d, m: _weight(scale - d, m), st.integers(0, 15), mantissa)
    anywhere = st.builds(_weight, st.integers(-324, 150), mantissa)
    w = draw(st.lists(st.one_of(near, near, near, anywhere, st.just(0.0)),
                      min_size=n, max_size=n))
    return t, p, w


# ----------------------------------------------------------------------------- reference
def _digits(rows) -> int:
    """Decimal orders of magnitude between the total mass and the smallest cell."""
    cells = [Fraction(v) for row in rows for v in row if v]
    total, least = sum(cells), min(cells)
    bits = (total.numerator.bit_length() - total.denominator.bit_length()) - \
        (least.numerator.bit_length() - least.denominator.bit_length())
    return int(bits * math.log10(2)) + 1


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else x


def _reference(key: str, rows):
    """The reference value, with as many digits as needed for 60 correct ones: evaluated
    at d and 2d digits (d from the spread of the masses), d doubled until they agree."""
    dps = 80 + 4 * _digits(rows)
    while True:
        low, high = reference_mp(key, rows, dps), reference_mp(key, rows, 2 * dps)
        if isinstance(high, Fraction):
            return high, 2 * dps
        with mpmath.workdps(2 * dps):
            if abs(low - high) <= mpmath.mpf(10)**-60 * max(abs(high), mpmath.mpf(TINY)):
                return high, 2 * dps
        dps *= 2


def _mi_terms(rows, dps):
    """sum_ij |p_ij log(p_ij / (p_i q_j))| and MI, at ``dps`` digits."""
    cells = [[Fraction(v) for v in row] for row in rows]
    a = [sum(row) for row in cells]
    b = [sum(col) for col in zip(*cells, strict=True)]
    n = sum(a)
    with mpmath.workdps(dps):
        terms = [_mp(v / n) * mpmath.log(_mp(n * v / (a[i] * b[j])))
                 for i, row in enumerate(cells) for j, v in enumerate(row) if v]
        return mpmath.fsum(abs(x) for x in terms), mpmath.fsum(terms)


def _bound(key: str, rows, ref, dps) -> float:
    """The family's stated bound on |value - reference| (docs/guide/table.md)."""
    size = float(min(abs(ref), mpmath.mpf(1e308)))
    k_pad = max(len(rows), len(rows[0]))
    if key in MATCH_DIFFERENCES:
        return 8 * k_pad * EPS
    # pair counting: an exact rational rounded once (a square root taken to 2^-105 first)
    relative = EPS if METRICS[key].family == "pair counting" else 8 * EPS
    if key in MI_BASED:
        spread, mi = _mi_terms(rows, dps)
        if mi:
            relative *= 1 + float(spread / mi)
    elif key in MATCHED:
        relative *= k_pad
    return relative * size + 2.0**-1074 * (size < TINY)  # a subnormal's last digit


# ----------------------------------------------------------------------------- refusals
def _confirmed_refusal(key: str, message: str, rows, ref) -> bool:
    """Is the refusal's cause true of the table (by the reference)?"""
    if "weigh too little" in message:  # pair masses of cells lighter than one item
        tp = pair_counts(rows)[0]
        return tp < 0 or key == "ari" and ref < Fraction(-1, 2)
    if "beyond float64's range" in message:
        return abs(_mp(ref)) > 1.7976931348623157e308
    return False


def _check(key: str, table, rows) -> None:
    entry = METRICS[key]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            value = entry.compute(table)[0]
    except ScoreUnavailable as exc:
        message = str(exc)
        assert "sample_weight" in message, (key, message)
        ref, _ = _reference(key, rows)
        assert _confirmed_refusal(key, message, rows, ref), (key, message, rows)
        return
    assert type(value) is float and not math.isnan(value), (key, value)
    assert entry.lower <= value <= entry.upper, (key, value, rows)
    ref, dps = _reference(key, rows)
    with mpmath.workdps(dps):
        error = abs(mpmath.mpf(value) - _mp(ref))
    assert error <= _bound(key, rows, ref, dps), (
        f"{key} on {rows}: {value!r}, reference {mpmath.nstr(_mp(ref), 20)}, error "
        f"{mpmath.nstr(error, 3)}")


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spread_items())
@example(([0, 0], [0, 0], [0.1, 1e150]))  # a total that rounds to the largest allowed
def test_every_real_mass_score_is_within_its_bound_or_refused_by_cause(items):
    t, p, w = items
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            table = cm.Contingency.from_labels(t, p, sample_weight=w)
    except ValueError as exc:  # no item left, or a total out of range
        event("refused: " + ("total out of range" if "adds up to" in str(exc)
                             else str(exc).split(":")[0][:40]))
        total = math.fsum(w)
        assert "sample_weight" in str(exc), str(exc)
        assert total == 0 or not 1e-150 <= total <= 1e150 or \
            w == [round(x) for x in w], str(exc)
        return
    if not table.real_valued:
        event("whole numbers")
        return
    rows = [[Fraction(v) for v in row] for row in table.to_dense().tolist()]
    event(f"scored: masses spanning 1e{_digits(rows) // 50 * 50}+")
    for key in KEYS:
        _check(key, table, rows)


# ----------------------------------------------------------------------------- examples
@pytest.mark.parametrize("t, p, w", [
    ([0, 1], [0, 1], [1e16, 0.5]),
    ([0, 1], [0, 1], [1e85, 0.005]),
    ([0, 1, 1], [0, 0, 1], [1.0, 1e-300, 2.5]),
    ([0, 0, 0], [0, 0, 1], [2.0, 2.0, 5e-324]),
    ([0, 1, 2], [0, 1, 2], [1.0, 3.5, 1e-160]),
    ([0, 1, 2], [0, 1, 2], [1.0, 3.5, 1e-170]),
    ([0, 1, 2], [0, 1, 2], [1.0, 3.5, 1e-308]),
    ([0, 1], [0, 1], [4e-28, 4e-62]),
    ([0, 0, 1], [0, 1, 1], [1e12 + 0.5, 0.3, 1.1]),
])
def test_the_review_examples(t, p, w):
    """The tables the review found failing: a division by zero, overflows, underflowed
    products of masses, rounded margins, a log of an overflowed ratio."""
    table = cm.Contingency.from_labels(t, p, sample_weight=w)
    rows = [[Fraction(v) for v in row] for row in table.to_dense().tolist()]
    for key in KEYS:
        _check(key, table, rows)


@pytest.mark.parametrize("w", [[1.0, 3.5, 1e-160], [1.0, 3.5, 1e-170], [1.0, 3.5, 1e-308],
                               [4.5, 1e-308], [1.0, 5e-324]])
def test_a_perfect_clustering_with_a_tiny_weight_scores_perfectly(w):
    labels = list(range(len(w)))
    for key in ("nmi", "homogeneity", "v_measure", "bcubed_precision_class_weighted",
                "bcubed_recall_class_weighted", "bcubed_f_class_weighted", "mp_precision",
                "ecs", "purity", "clustering_accuracy"):
        entry = METRICS[key]
        assert entry.func(labels, labels, sample_weight=w, **entry.options) == 1.0, key


def test_ari_below_its_whole_item_bound_is_refused():
    """-0.5 bounds ARI over whole items; pair masses of cells lighter than one item go
    below it (to -0.68 here), and the table is refused rather than scored out of range."""
    t, p, w = [1, 1, 1, 2], [0, 1, 2, 0], [1.5, 0.25, 0.25, 0.5]
    table = cm.Contingency.from_labels(t, p, sample_weight=w)
    rows = [[Fraction(v) for v in row] for row in table.to_dense().tolist()]
    ref, _ = _reference("ari", rows)
    assert pair_counts(rows)[0] >= 0 and ref < Fraction(-1, 2)
    with pytest.raises(ScoreUnavailable,
                       match="ARI is -0.682 on this table, below -0.5.*sample_weight"):
        cm.adjusted_rand_score(t, p, sample_weight=w)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = cm.evaluate(t, p, sample_weight=w)
    assert "ari" not in report and any("below -0.5" in str(c.message) for c in caught)


def test_a_value_beyond_float64_is_refused_naming_the_weights():
    t, p, w = [0, 0, 0], [0, 0, 1], [2.0, 2.0, 5e-324]
    with pytest.raises(ScoreUnavailable, match=r"southwood_score is about 1e323, beyond "
                                               r"float64's range: the table holds "
                                               r"real-valued masses \(from sample_weight"):
        cm.southwood_score(t, p, sample_weight=w)


def test_information_scores_warn_of_nothing_on_real_masses(capsys):
    """No numpy warning (a log1p of -1, an overflowed ratio) leaks from the information
    family, so the command line prints no note either."""
    t, p, w = [0, 0, 1, 1, 2], [0, 1, 1, 2, 2], [1e-300, 1.5, 2.25, 1e140, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = cm.evaluate(t, p, [k for k in KEYS if METRICS[k].family == "information"],
                             sample_weight=w)
    assert all(math.isfinite(v) for v in report.values())


def test_the_command_line_scores_real_weights_far_apart(tmp_path, capsys):
    """A weight column of 1e16 beside 0.5 and 1e-6: every score, one note for those that
    need whole items, no traceback (Marxer-Purwins precision divided by zero there)."""
    path = tmp_path / "weighted.csv"
    path.write_text("t,p,w\n0,0,10000000000000000\n1,1,0.5\n0,1,0.000001\n")
    code, out, err = run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                         "--weight-col", "w")
    assert code == 0, err
    assert err.count("\n") == 1 and "left out: they need integer item counts" in err, err
    assert "mp_precision" in out and "Warning" not in err
