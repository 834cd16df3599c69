"""Every registered score against an independent exact reference, on every shape of table.

The reference (tests/support/score_reference.py) computes each score from its published definition
in exact rationals, or in 80-digit mpmath where a logarithm or a square root is involved.
Here hypothesis draws contingency tables of every shape class (dense, one class, one
cluster, all singletons on either or both sides, near-perfect, uniform or independent
noise, a single cell, very unequal sizes), with counts drawn log-uniformly over 1 ... 1e17
(and a variant with small counts 1 ... 20; and tiny tables with N close to 2^63 - 1),
N <= 2^63 - 1, and compares every key of
``clustermetrics.METRICS``: a key registered without a reference fails.

Tolerance, per family (``_close``): every score must be within 1e-12 * max(1, |exact|).

- rational scores (pair counting, purity, B-cubed, Marxer-Purwins, recovery rates,
  clustering error/accuracy, set-matching F, NCA/NPA/PSI, exact-match, ECS, chi2): a
  relative 1e-12, with an absolute floor of 1e-12 for values below 1;
- scores with logarithms or square roots on a bounded natural scale (NMI, AMI, V-measure,
  homogeneity, completeness, NVI, NID, FMI, phi, AFMI, geometric accuracy): 1e-12
  absolute;
- unbounded ones (MI, VI and cluster entropy in nats, chi2, McNemar, Kendall's tau,
  Southwood): 1e-12 relative once above 1, 1e-12 absolute below.

A float64 result that is exact up to a few roundings is far inside these bounds at any
N <= 2^63 - 1; what they catch is overflow, wrap-around, cancellation and wrong
conventions.

The library is run in a forked child process with a time limit per score (``_TIMEOUT``):
a score that takes minutes on one shape of a 6 x 6 table is a defect too, and compiled
loops cannot be interrupted in-process. Each table is evaluated for every key in one
child and the results are kept, so the per-key tests share the work (one hypothesis seed
for every key, so every key sees the same tables of a shape). Shrinking is off: it would rerun a
failing score on hundreds of tables, each possibly up to the time limit; the failing
table is printed in full instead.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import random
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from score_reference import (
    REFERENCES,
    Table,
    central_moments,
    emi,
    emi_pair,
    pair_counts,
    reference,
    reference_mp,
)

import clustermetrics
from clustermetrics import METRICS, Contingency

INT64_MAX = 2**63 - 1
# Seconds per score and table (a correct score needs milliseconds); a score that took too
# long once gets the short limit afterwards, so a slow score fails each test quickly.
_TIMEOUT, _TIMEOUT_AGAIN = 10.0, 2.0
# SMI divides by sd[MI], which has no closed form: the exact sum (Romano et al. 2014) costs
# ~min(a, b)^3 terms and the sampler needs N < 1e9, so on most of these tables (counts up
# to 1e17) SMI refuses or estimates. tests/scores/test_smi_rmi.py checks it against an
# enumeration of every table with the margins instead.
NO_EXACT_REFERENCE = {"smi"}
KEYS = [k for k in METRICS if k not in NO_EXACT_REFERENCE]
CASES_PER_SHAPE = 8
# One seed for every key (all keys then see the same tables of a shape, and the library
# evaluates each table once); set CLUSTERMETRICS_REFERENCE_SEED to explore other tables.
SEED = int(os.environ.get("CLUSTERMETRICS_REFERENCE_SEED", "20240611"))


# ------------------------------------------------------------------------------ tables
def _huge_counts() -> st.SearchStrategy[int]:
    """Log-uniform over 1 ... 1e17: every order of magnitude equally likely."""
    return st.integers(0, 17_000_000).map(lambda e: max(1, round(10 ** (e / 1_000_000))))


def _small_counts() -> st.SearchStrategy[int]:
    return st.integers(1, 20)


COUNTS = {"huge": _huge_counts, "small": _small_counts}
# "very unequal": tiny and big counts side by side, per regime
_UNEQUAL = {"huge": (lambda: st.integers(1, 9), lambda: st.integers(10**15, 10**17)),
            "small": (lambda: st.just(1), lambda: st.integers(15, 20))}


def _canonical(rows: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    """Drop all-zero rows and columns (a table with no items gets one item)."""
    rows = [r for r in rows if any(r)]
    if not rows:
        return ((1,),)
    keep = [j for j in range(len(rows[0])) if any(r[j] for r in rows)]
    return tuple(tuple(r[j] for j in keep) for r in rows)


@st.composite
def dense(draw, counts):
    k, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cell = st.one_of(st.just(0), counts)
    return _canonical([[draw(cell) for _ in range(m)] for _ in range(k)])


@st.composite
def one_class(draw, counts):
    return _canonical([draw(st.lists(counts, min_size=1, max_size=6))])


@st.composite
def one_cluster(draw, counts):
    return _canonical([[c] for c in draw(st.lists(counts, min_size=1, max_size=6))])


@st.composite
def singletons(draw, counts=None):
    """Truth and prediction over N <= 6 items, one or both of them all singletons."""
    n = draw(st.integers(1, 6))
    side = draw(st.sampled_from(["pred", "true", "both"]))
    labels = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    if side == "both":
        labels = draw(st.permutations(range(n)))
    rows = [[1 if labels[item] == c else 0 for item in range(n)] for c in range(n)]
    table = _canonical(rows)  # classes x items: the prediction is all singletons
    return tuple(zip(*table, strict=True)) if side == "true" else table


@st.composite
def near_perfect(draw, counts):
    """A diagonal of large counts plus a little noise, columns in a random label order."""
    k = draw(st.integers(1, 6))
    m = draw(st.sampled_from([k, k, k + 1, max(k - 1, 1)]))
    rows = [[0] * m for _ in range(k)]
    for i in range(k):
        diag = draw(counts)
        if i < m:
            rows[i][i] = diag
        for j in range(m):
            if j != i and draw(st.integers(0, 3)) == 0:
                rows[i][j] = draw(st.integers(1, max(1, diag // 1000)))
    order = draw(st.permutations(range(m)))
    return _canonical([[r[j] for j in order] for r in rows])


@st.composite
def uniform_noise(draw, counts):
    """Every cell filled: exactly independent (n_ij = u_i v_j) or equal counts +- noise."""
    k, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    if draw(st.booleans()):
        u = [draw(counts) for _ in range(k)]
        v = [draw(counts) for _ in range(m)]
        scale = max(1, max(u) * max(v) // 10**17)  # keep N below 2^63
        u = [max(1, x // scale) for x in u]
        return _canonical([[x * y for y in v] for x in u])
    base = draw(counts)
    noise = st.integers(-(base // 100), base // 100)
    return _canonical([[max(1, base + draw(noise)) for _ in range(m)] for _ in range(k)])


@st.composite
def single_cell(draw, counts):
    return ((draw(counts),),)


@st.composite
def unequal(draw, regime):
    """Tiny and huge classes and clusters side by side."""
    k, m = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    tiny, big = (make() for make in _UNEQUAL[regime])
    cell = st.one_of(st.just(0), tiny, big)
    return _canonical([[draw(cell) for _ in range(m)] for _ in range(k)])


@st.composite
def int64_edge(draw, counts=None):
    """A few cells with N close to 2^63 - 1: sums of two sizes, or a size times a small
    factor, no longer fit in int64 although N does."""
    k, m = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    cell = st.one_of(st.just(0), st.integers(1, 9), st.integers(2**60, 2**62))
    return _canonical([[draw(cell) for _ in range(m)] for _ in range(k)])


SHAPES = {
    "dense": dense,
    "one_class": one_class,
    "one_cluster": one_cluster,
    "singletons": singletons,
    "near_perfect": near_perfect,
    "uniform_noise": uniform_noise,
    "single_cell": single_cell,
    "unequal": unequal,
    "int64_edge": int64_edge,
}
_ONE_REGIME = ("singletons", "int64_edge")  # their counts do not come from COUNTS
SHAPE_CASES = [(shape, counts) for shape in SHAPES for counts in COUNTS
               if not (shape in _ONE_REGIME and counts == "small")]


def tables(shape: str, counts: str) -> st.SearchStrategy:
    arg = counts if shape == "unequal" else COUNTS[counts]()
    return SHAPES[shape](arg).filter(
        lambda t: sum(map(sum, t)) <= INT64_MAX)


def any_table() -> st.SearchStrategy:
    return st.one_of([tables(shape, counts) for shape, counts in SHAPE_CASES])


def library_table(rows) -> Contingency:
    """The library's table of ``rows``: class i, cluster j are the labels i, j."""
    cells = [(i, j, v) for i, r in enumerate(rows) for j, v in enumerate(r) if v]
    return Contingency.from_counts([c[0] for c in cells], [c[1] for c in cells],
                                   np.array([c[2] for c in cells], dtype=np.int64))


# --------------------------------------------------------------------- library, guarded
_RESULTS: dict[tuple, dict[str, tuple[str, object]]] = {}
_SLOW: set[str] = set()  # keys that hit the time limit once: computed on request only


def _child(rows, keys, conn) -> None:
    for key in keys:
        try:
            value = METRICS[key].compute(library_table(rows))[0]
            conn.send(("ok", value))
        except BaseException as exc:  # reported to the parent as the failure it is
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
    conn.close()


_WARM: list[bool] = []


def _warm_up() -> None:
    """Run every score once in this process, so that the modules and kernels they load
    lazily are loaded before forking (each child would load them again: ~0.6 s)."""
    if not _WARM:
        _WARM.append(True)
        for key in KEYS:
            try:
                METRICS[key].compute(library_table(((2, 1), (0, 3))))
            except Exception:  # a failing score fails in its own test
                pass


def _evaluate(rows, keys, results) -> None:
    _warm_up()
    if "fork" not in multiprocessing.get_all_start_methods():
        for key in keys:  # no fork (Windows): in-process, without the time limit
            try:
                results[key] = ("ok", METRICS[key].compute(library_table(rows))[0])
            except Exception as exc:
                results[key] = ("error", f"{type(exc).__name__}: {exc}")
        return
    ctx = multiprocessing.get_context("fork")
    todo = list(keys)
    while todo:
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(rows, todo, send), daemon=True)
        proc.start()
        send.close()
        for key in todo:
            limit = _TIMEOUT_AGAIN if key in _SLOW else _TIMEOUT
            if not recv.poll(limit):
                results[key] = ("error", f"took more than {limit:g} s")
                _SLOW.add(key)
                break
            try:
                results[key] = recv.recv()
            except EOFError:
                results[key] = ("error", f"the process died (exit code {proc.exitcode})")
                break
        proc.kill()
        proc.join()
        recv.close()
        todo = [k for k in todo if k not in results]


def library_value(key: str, rows) -> tuple[str, object]:
    """("ok", value) or ("error", message) of METRICS[key] on a fresh table of ``rows``."""
    results = _RESULTS.setdefault(rows, {})
    if key not in results:
        rest = [k for k in KEYS if k not in results and k != key and k not in _SLOW]
        _evaluate(rows, [key, *rest], results)
    return results[key]


def _close(value: float, exact) -> bool:
    tol = 1e-12 * max(1.0, abs(float(exact)))
    if isinstance(exact, Fraction):
        return abs(Fraction(value) - exact) <= tol
    return abs(value - exact) <= tol


def check(key: str, rows) -> None:
    status, value = library_value(key, rows)
    assert status == "ok", f"{key} on {rows!r} raised {value}"
    assert type(value) is float and math.isfinite(value), f"{key} on {rows!r}: {value!r}"
    exact = reference(key, rows)
    assert _close(value, exact), (
        f"{key} on {rows!r}: library {value!r}, reference {float(exact)!r}")


_SETTINGS = settings(max_examples=CASES_PER_SHAPE, deadline=None, derandomize=True,
                     database=None, phases=[Phase.explicit, Phase.generate],
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# ------------------------------------------------------------------------- the tests
def _score_test(shape: str, counts: str):
    """Every registered key on tables of one shape class. (One test function per shape:
    hypothesis' pytest plugin chains settings objects across the parametrized runs of one
    function, and ~1000 runs of one function overflow the recursion limit.)"""
    @pytest.mark.parametrize("key", KEYS)
    @_SETTINGS
    @seed(SEED)
    @given(data=st.data())
    def test(key, data):
        check(key, data.draw(tables(shape, counts), label="table"))
    return test


test_dense_huge = _score_test("dense", "huge")
test_dense_small = _score_test("dense", "small")
test_one_class_huge = _score_test("one_class", "huge")
test_one_class_small = _score_test("one_class", "small")
test_one_cluster_huge = _score_test("one_cluster", "huge")
test_one_cluster_small = _score_test("one_cluster", "small")
test_singletons = _score_test("singletons", "huge")
test_near_perfect_huge = _score_test("near_perfect", "huge")
test_near_perfect_small = _score_test("near_perfect", "small")
test_uniform_noise_huge = _score_test("uniform_noise", "huge")
test_uniform_noise_small = _score_test("uniform_noise", "small")
test_single_cell_huge = _score_test("single_cell", "huge")
test_single_cell_small = _score_test("single_cell", "small")
test_unequal_huge = _score_test("unequal", "huge")
test_unequal_small = _score_test("unequal", "small")
test_int64_edge = _score_test("int64_edge", "huge")


def test_every_shape_is_tested():
    tested = {(shape, counts) for shape, counts in SHAPE_CASES
              if f"test_{shape}" + ("" if shape in _ONE_REGIME else f"_{counts}") in globals()}
    assert tested == set(SHAPE_CASES)


# Tables on which scores have been wrong: an 8e9 diagonal (B-cubed went negative), one
# cell past int64 pair products, N at the int64 limit, a size sum past int64, a dominant
# class (entropies cancel), a 1.6e9 margin (AMI raised), four 1e17 margins (AMI hung).
LANDMARKS = [
    ((4_000_000_000, 0), (0, 4_000_000_000)),
    ((5_000_000_000,),),
    ((INT64_MAX,),),
    ((INT64_MAX - 1, 1),),
    ((2**62, 0), (0, 2**62 - 1)),
    ((10**17, 1), (1, 1)),
    ((0, 11), (1_609_410_744, 0), (2, 447)),
    ((10**17, 10**17), (10**17, 10**17)),
]


@pytest.mark.parametrize("key", KEYS)
def test_landmark_tables(key):
    failures = []
    for rows in LANDMARKS:
        try:
            check(key, rows)
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)


def test_every_score_has_a_reference():
    assert set(METRICS) - set(REFERENCES) == NO_EXACT_REFERENCE  # exempt, reason above
    assert set(REFERENCES) - set(METRICS) == set(), "reference for a score not registered"


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(rows=any_table())
def test_pair_counts_exact(rows):
    tp, fn, fp, tn = pair_counts(rows)
    table = library_table(rows)
    assert tuple(clustermetrics.pair_counts(table)) == (tp, fn, fp, tn)
    assert all(type(x) is int for x in clustermetrics.pair_counts(table))
    matrix = clustermetrics.pair_confusion_matrix(table)
    assert [[int(x) for x in row] for row in matrix.tolist()] == [[2 * tn, 2 * fp],
                                                                  [2 * fn, 2 * tp]]


# --------------------------------------------------------------- N beyond 2^63 - 1
@st.composite
def big_cells(draw):
    """Cells (class, cluster, count) whose counts may sum past 2^63 - 1 (each fits)."""
    n = draw(st.integers(1, 6))
    return [(draw(st.integers(0, 2)), draw(st.integers(0, 2)),
             draw(st.integers(2**58, INT64_MAX))) for _ in range(n)]


def _dense(cells) -> list[list[int]]:
    rows = [[0] * 3 for _ in range(3)]
    for i, j, v in cells:
        rows[i][j] += v
    return rows


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(cells=big_cells())
def test_n_beyond_int64_raises(cells):
    total = sum(v for _, _, v in cells)
    counts = np.array([v for *_, v in cells], dtype=np.int64)
    builders = {
        "from_counts": lambda: Contingency.from_counts([c[0] for c in cells],
                                                       [c[1] for c in cells], counts),
        # Python ints: a cell that adds up past int64 is the library's to refuse
        "from_matrix": lambda: Contingency.from_matrix(_dense(cells)),
        "merge": lambda: Contingency.merge(
            [Contingency.from_counts([i], [j], [v]) for i, j, v in cells]),
        "add": lambda: sum((Contingency.from_counts([i], [j], [v]) for i, j, v in cells[1:]),
                           Contingency.from_counts([cells[0][0]], [cells[0][1]], [cells[0][2]])),
    }
    dense_rows = _canonical(_dense(cells))
    for name, build in builders.items():
        try:
            table = build()
        except ValueError:
            assert total > INT64_MAX, f"{name} refused N = {total} <= 2^63 - 1"
            continue
        assert total <= INT64_MAX, (
            f"{name} accepted N = {total} > 2^63 - 1 (n_samples = {table.n_samples})")
        assert table.n_samples == total, name
        assert [int(x) for x in table.class_sizes] == [sum(r) for r in dense_rows], name
        assert [int(x) for x in table.cluster_sizes] == [
            sum(c) for c in zip(*dense_rows, strict=True)], name


# ===================================================== sanity of the reference itself
def _labels(rows):
    """Item labels (truth, prediction) of a table: the items of cell (i, j) are (i, j)."""
    t, p = [], []
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            t += [i] * v
            p += [j] * v
    return t, p


def _small_tables(count, seed, max_side=5, max_count=6):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        k, m = rng.randint(1, max_side), rng.randint(1, max_side)
        rows = [[rng.choice([0, rng.randint(1, max_count)]) for _ in range(m)]
                for _ in range(k)]
        out.append(_canonical(rows))
    return out


def test_pair_counts_against_item_pairs():
    for rows in _small_tables(150, seed=1):
        t, p = _labels(rows)
        counts = Counter((t[x] == t[y], p[x] == p[y])
                         for x, y in itertools.combinations(range(len(t)), 2))
        assert pair_counts(rows) == (counts[True, True], counts[True, False],
                                     counts[False, True], counts[False, False])


def test_mari_disjoint_pairs_against_enumeration():
    for rows in _small_tables(60, seed=2, max_side=3, max_count=3):
        t, p = _labels(rows)
        pairs = list(itertools.combinations(range(len(t)), 2))
        d = sum(1 for p1, p2 in itertools.product(pairs, pairs)
                if not set(p1) & set(p2) and t[p1[0]] == t[p1[1]] and p[p2[0]] == p[p2[1]])
        assert Table(rows).disjoint_pair_pairs == d


def test_item_level_scores_against_items():
    """B-cubed, element-centric similarity and Marxer-Purwins item by item."""
    for rows in _small_tables(100, seed=3):
        t, p = _labels(rows)
        n = len(t)
        cls = [{y for y in range(n) if t[y] == t[x]} for x in range(n)]
        clu = [{y for y in range(n) if p[y] == p[x]} for x in range(n)]
        prec = [Fraction(len(cls[x] & clu[x]), len(clu[x])) for x in range(n)]
        rec = [Fraction(len(cls[x] & clu[x]), len(cls[x])) for x in range(n)]
        assert reference("bcubed_precision", rows) == sum(prec) / n
        assert reference("bcubed_recall", rows) == sum(rec) / n
        k = len(rows)
        per_class_p = [sum(prec[x] for x in range(n) if t[x] == i) / sum(rows[i])
                       for i in range(k)]
        per_class_r = [sum(rec[x] for x in range(n) if t[x] == i) / sum(rows[i])
                       for i in range(k)]
        assert reference("bcubed_precision_class_weighted", rows) == sum(per_class_p) / k
        assert reference("bcubed_recall_class_weighted", rows) == sum(per_class_r) / k
        # element-centric: L1 distance of the uniform distributions on class and cluster
        ecs = sum(1 - sum(abs(Fraction(y in cls[x], len(cls[x]))
                              - Fraction(y in clu[x], len(clu[x]))) for y in range(n)) / 2
                  for x in range(n)) / n
        assert reference("ecs", rows) == ecs
        # Marxer-Purwins (1)-(6) from the item sets
        classes = sorted(set(t))
        p_sum = r_sum = Fraction(0)
        for x in range(n):
            others = [y for y in range(n) if t[y] != t[x]]
            p_sum += (1 - Fraction(sum(p[y] == p[x] for y in others), len(others))
                      if others else 1)
            mates = [y for y in cls[x] if y != x]
            r_sum += (Fraction(sum(p[y] == p[x] for y in mates), len(mates)) if mates else 1)
        assert len(classes) == k
        assert reference("mp_precision", rows) == p_sum / n
        assert reference("mp_recall", rows) == r_sum / n


def test_against_scikit_learn():
    from sklearn import metrics as skm
    from sklearn.metrics.cluster._expected_mutual_info_fast import (
        expected_mutual_information,
    )

    for rows in _small_tables(120, seed=4):
        t, p = _labels(rows)
        both_singletons = len(set(t)) == len(set(p)) == len(t)
        cases = {
            "ari": skm.adjusted_rand_score(t, p),
            "ri": skm.rand_score(t, p),
            "mi": skm.mutual_info_score(t, p),
            "homogeneity": skm.homogeneity_score(t, p),
            "completeness": skm.completeness_score(t, p),
            "v_measure": skm.v_measure_score(t, p),
        }
        if not both_singletons:  # scikit-learn's FMI bug, a documented deviation
            cases["fmi"] = skm.fowlkes_mallows_score(t, p)
        for suffix, method in [("", "arithmetic"), ("_geometric", "geometric"),
                               ("_min", "min"), ("_max", "max")]:
            cases["nmi" + suffix] = skm.normalized_mutual_info_score(
                t, p, average_method=method)
            ami_ill_posed = (len(set(t)) == len(t) or len(set(p)) == len(p)) and (
                method == "min")  # 0/0: scikit-learn's value is rounding noise
            if not ami_ill_posed:
                cases["ami" + suffix] = skm.adjusted_mutual_info_score(
                    t, p, average_method=method)
        for key, peer in cases.items():
            assert reference(key, rows) == pytest.approx(peer, abs=1e-12), (key, rows)
        if len(rows) > 1 and len(rows[0]) > 1:
            sk_emi = expected_mutual_information(np.array(rows, dtype=np.int64), len(t))
            assert float(Table(rows).emi) == pytest.approx(sk_emi, abs=1e-12)


def test_against_permetrics():
    import permetrics

    names = {"pair_precision": "precision_score", "pair_recall": "recall_score",
             "pair_f1": "f_measure_score", "pair_jaccard": "jaccard_score",
             "czekanowski_dice": "czekanowski_dice_score", "phi": "phi_score",
             "rogers_tanimoto": "rogers_tanimoto_score", "russel_rao": "russel_rao_score",
             "sokal_sneath1": "sokal_sneath1_score", "sokal_sneath2": "sokal_sneath2_score",
             "kendall_tau": "tau_score", "gamma": "gamma_score", "g_plus": "gplus_score",
             "kulczynski": "kulczynski_score", "purity": "purity_score"}
    checked = 0
    for rows in _small_tables(80, seed=5):
        a, b, c, d = pair_counts(rows)
        if a == 0 or b + c == 0 or min(a + b, a + c, b + d, c + d) == 0:
            continue  # zero-denominator conventions differ (docs/metric-notes.md)
        t, p = _labels(rows)
        peer = permetrics.ClusteringMetric(y_true=np.array(t), y_pred=np.array(p))
        for key, name in names.items():
            assert float(reference(key, rows)) == pytest.approx(
                getattr(peer, name)(), abs=1e-9), (key, rows)
        # permetrics MNS divides by sqrt(M) (pair proportions, docs/metric-notes.md)
        assert reference("mcnemar", rows) / math.sqrt(a + b + c + d) == pytest.approx(
            peer.mc_nemar_score(), abs=1e-9)
        checked += 1
    assert checked > 20


def test_against_genieclust():
    from genieclust import compare_partitions as gc

    for rows in _small_tables(100, seed=6):
        t, p = (np.array(x) for x in _labels(rows))
        if len(rows) == len(rows[0]) == 1:
            continue  # genieclust: NaN; the documented convention is 1.0
        assert float(reference("psi", rows)) == pytest.approx(gc.pair_sets_index(t, p),
                                                              abs=1e-12)
        assert float(reference("psi_simplified", rows)) == pytest.approx(
            gc.pair_sets_index(t, p, simplified=True), abs=1e-12)
        if len(rows) == len(rows[0]):  # genieclust asserts K = L for NCA and NPA
            assert float(reference("nca", rows)) == pytest.approx(
                gc.normalized_clustering_accuracy(t, p), abs=1e-12)
            assert float(reference("npa", rows)) == pytest.approx(
                gc.normalized_pivoted_accuracy(t, p), abs=1e-12)
        _, b, c, _ = pair_counts(rows)
        if len(rows) > 1 and len(rows[0]) > 1 and b + c:  # genieclust: NaN on agreement
            assert reference("afmi", rows) == pytest.approx(gc.adjusted_fm_score(t, p),
                                                            abs=1e-12)


def test_against_clusim():
    import clusim.sim as sim
    from clusim.clustering import Clustering

    def clu(labels):
        return Clustering(elm2clu_dict={i: [v] for i, v in enumerate(labels)})

    for rows in _small_tables(40, seed=7):
        t, p = _labels(rows)
        c1, c2 = clu(t), clu(p)
        assert float(reference("southwood", rows)) == pytest.approx(
            sim.southwood_index(c1, c2), abs=1e-12)
        assert reference("geometric_accuracy", rows) == pytest.approx(
            sim.geometric_accuracy(c1, c2), abs=1e-12)
        assert float(reference("ecs", rows)) == pytest.approx(sim.element_sim(c1, c2),
                                                              abs=1e-12)
        assert reference("vi", rows) / math.log(2) == pytest.approx(sim.vi(c1, c2),
                                                                    abs=1e-10)
        if len(rows) > 1 and len(rows[0]) > 1:
            for key, norm in [("nmi_max", "max"), ("nmi_min", "min"),
                              ("nmi_geometric", "sqrt")]:
                assert reference(key, rows) == pytest.approx(sim.nmi(c1, c2, norm),
                                                             abs=1e-10)


def test_chi2_against_scipy():
    from scipy.stats import chi2_contingency

    for rows in _small_tables(60, seed=8):
        if len(rows) > 1 and len(rows[0]) > 1:
            stat = chi2_contingency(np.array(rows), correction=False)[0]
            assert float(reference("chi2", rows)) == pytest.approx(stat, rel=1e-12)


def test_recovery_rates_on_the_papers_examples():
    # Li & Klette (2009): Example 1 (M = [[5, 3], [0, 2]], clusters x classes) and the
    # rates printed for Example 3; our tables are classes x clusters, hence transposes.
    example_1 = [[5, 0], [3, 2]]
    assert reference("recovery_rate", example_1) == Fraction(7, 10)
    assert reference("recovery_rate_greedy", example_1) == Fraction(7, 10)
    assert reference("pseudo_recovery_rate", example_1) == 1
    m3 = [[1612, 0, 24, 2009, 0], [0, 0, 21, 0, 4540], [0, 0, 4153, 2, 5460],
          [0, 10000, 5796, 7989, 0], [8388, 0, 6, 0, 0]]
    example_3 = [list(col) for col in zip(*m3, strict=True)]
    assert round(float(reference("recovery_rate", example_3)), 4) == 0.5818
    assert round(float(reference("recovery_rate_greedy", example_3)), 5) == 0.51756


def test_emi_methods_agree():
    """The moment expansion and the window against the whole support, where all three run;
    and window against moments where only they can (huge support, mean ~ 1e3)."""
    for a, b, n in [(2000, 3000, 5000), (1500, 1500, 2000), (5000, 7000, 20000),
                    (3000, 4000, 9000), (1200, 1300, 1500)]:
        full = emi_pair(a, b, n, "full")
        for method in ("window", "moments"):
            assert abs(emi_pair(a, b, n, method) - full) <= full * mpmath.mpf(10) ** -30
    for a, b, n in [(10**10, 2 * 10**10, 10**17), (10**8, 3 * 10**12, 10**17)]:
        window, moments = emi_pair(a, b, n, "window"), emi_pair(a, b, n, "moments")
        assert abs(window - moments) <= window * mpmath.mpf(10) ** -30


def test_central_moments_exact():
    a, b, n = 7, 9, 20
    pmf = {k: Fraction(math.comb(a, k) * math.comb(n - a, b - k), math.comb(n, b))
           for k in range(max(0, a + b - n), min(a, b) + 1)}
    mu = Fraction(a * b, n)
    direct = [sum(q * (Fraction(k) / mu - 1) ** j for k, q in pmf.items()) for j in range(9)]
    assert central_moments(a, b, n, 8) == direct


def test_emi_of_huge_margins_is_finite_and_small():
    # N = 1e17 with balanced 2 x 2 margins: EMI ~ (K - 1)(L - 1) / (2N)
    value = emi([5 * 10**16] * 2, [5 * 10**16] * 2)
    assert mpmath.mpf(0) < value < mpmath.mpf(10) ** -16


def test_reference_refuses_unknown_keys():
    with pytest.raises(KeyError, match="no reference"):
        reference("no_such_score", [[1]])
    assert isinstance(reference_mp("nmi", [[1, 2], [3, 4]]), mpmath.mpf)
