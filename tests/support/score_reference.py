"""An independent reference for every registered score, for the differential tests.

``reference(key, table)`` returns the exact value of the registry score ``key`` on
``table``, a dense contingency table given as a list of lists of Python ints (rows = true
classes in label order, columns = predicted clusters in label order, no all-zero row or
column). Nothing here calls or copies the library: every score is written from its
published definition, with the edge-case conventions the library documents (its
docstrings, docs/metric-notes.md, docs/peers.md). Where the library uses an algebraic
shortcut, this module goes back to items, item pairs and brute force instead:

- pair counts classify the item pairs by the pair of cells the two items sit in (pairs
  inside one cell, pairs of two cells of one row, of one column, of neither), never
  sum C(a_i, 2) - TP; MARI counts pairs of disjoint item pairs the same way;
- B-cubed, element-centric similarity and Marxer-Purwins average per-item values, read
  off each item's class and cluster;
- every one-to-one mapping is a maximum over *all* injective maps (the tables are small in
  shape); the greedy recovery rate is Li & Klette's Algorithm 2 run literally;
- rational scores are exact ``Fraction``s; scores with a logarithm or a square root are
  evaluated with mpmath at 80 significant digits and returned as the float nearest to
  that value.

Expected mutual information (the AMI family) is the one quantity with no closed form; see
the comment above :func:`emi_pair` for how each (a, b) term is evaluated and why each
way is exact to far below float64 rounding.

Conventions where the definitions are silent or admit two readings (the library's
documented choices; the differential test then checks the library follows them):

- ``force_finite`` pair scores (precision, recall, F1, Jaccard) return 1.0 on a zero
  denominator; similarities that are 0/0 because the partitions agree on every pair are
  at their perfect value, other undefined ratios 0 (docs/metric-notes.md).
- NMI (every mean), AMI: 1.0 when both labellings are a single cluster; NMI is 0.0 when
  MI = 0; AMI is 0.0 when exactly one labelling is a single cluster.
- AMI is the exact ratio (MI - E[MI]) / (mean(H) - E[MI]), without scikit-learn's clamps
  of each at machine epsilon. When one labelling is all singletons, MI is the same for
  every table with these margins, so MI - E[MI] = 0 exactly (AMI 0), and with
  ``average_method="min"`` (or both labellings all singletons) the denominator is exactly
  0 too: 0/0, where scikit-learn's clamps give eps / eps = 1.0.
- NCA pads the K x L table to K' x K', K' = max(K, L): NCA = (S - K/K') / (K' - 1), S
  the best one-to-one sum of recalls n_ij / a_i (docs/metric-notes.md, genieclust).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache, cached_property, lru_cache

import mpmath

__all__ = ["reference", "REFERENCES", "pair_counts", "pair_count_moments", "emi", "emi_pair",
           "Table"]

_DPS = 80  # significant digits of every mpmath evaluation
_MAX_MAPS = 10**6  # brute-force matchings refuse bigger tables


# --------------------------------------------------------------------------- the table
class Table:
    """A dense table with its margins; derived quantities are computed once."""

    def __init__(self, rows: tuple[tuple[int, ...], ...]):
        if not rows or not rows[0]:
            raise ValueError("table must have at least one row and one column")
        width = len(rows[0])
        for row in rows:
            if len(row) != width:
                raise ValueError("table rows must have equal lengths")
            for v in row:
                if not isinstance(v, (int, Fraction)) or isinstance(v, bool) or v < 0:
                    raise ValueError("table cells must be non-negative ints or Fractions, "
                                     f"got {v!r}")
        self.n = [list(r) for r in rows]
        self.k, self.l = len(rows), width
        self.a = [sum(r) for r in rows]
        self.b = [sum(r[j] for r in rows) for j in range(width)]
        if 0 in self.a or 0 in self.b:
            raise ValueError("table has an all-zero row or column")
        self.total = sum(self.a)
        self.cells = [(i, j, v) for i, r in enumerate(rows) for j, v in enumerate(r) if v]

    # ---------------------------------------------------------------- item pairs
    @cached_property
    def pairs(self) -> tuple[int, int, int, int]:
        """(TP, FN, FP, TN) over unordered item pairs, by the cells the two items are in."""
        tp = fn = fp = tn = 0
        for _, _, v in self.cells:
            tp += _pairs_of(v)  # both items in one cell: same class, same cluster
        for (i1, j1, v1), (i2, j2, v2) in itertools.combinations(self.cells, 2):
            if i1 == i2:
                fn += v1 * v2  # same class, different clusters
            elif j1 == j2:
                fp += v1 * v2  # different classes, same cluster
            else:
                tn += v1 * v2
        assert tp + fn + fp + tn == _pairs_of(self.total)
        return tp, fn, fp, tn

    @cached_property
    def disjoint_pair_pairs(self) -> int:
        """Ordered (p1, p2) of disjoint item pairs, p1 together in the truth and p2 together
        in the prediction (Sundqvist et al.'s unbiased estimate of E[a] is this over
        C(N - 2, 2)). For p1 = {x, y} in one class, the pairs together in the prediction
        that avoid x and y are Q minus those through x or y."""
        tp, fn, fp, _ = self.pairs
        q = tp + fp
        count = 0
        row_cells: dict[int, list[tuple[int, int]]] = {}
        for i, j, v in self.cells:
            row_cells.setdefault(i, []).append((j, v))
        for cells in row_cells.values():
            for j, v in cells:  # x, y in the same cell: one cluster, b_j - 1 pairs each
                count += v * (v - 1) // 2 * (q - 2 * (self.b[j] - 1) + 1)
            for (j1, v1), (j2, v2) in itertools.combinations(cells, 2):
                count += v1 * v2 * (q - (self.b[j1] - 1) - (self.b[j2] - 1))
        return count

    # ---------------------------------------------------------------- information
    @cached_property
    def info(self) -> dict[str, mpmath.mpf]:
        """Entropies, MI and conditional entropies from their definitions (nats)."""
        n = self.total
        mp = _mp

        def plogp(count: int, whole: int) -> mpmath.mpf:  # -(c/N) log(c/whole)
            return -mp(Fraction(count, n)) * mpmath.log(mp(Fraction(count, whole)))

        h_u = mpmath.fsum(plogp(x, n) for x in self.a)
        h_v = mpmath.fsum(plogp(x, n) for x in self.b)
        mi = mpmath.fsum(mp(Fraction(v, n)) * mpmath.log(mp(Fraction(n * v, self.a[i] * self.b[j])))
                         for i, j, v in self.cells)
        return {
            "h_u": h_u,
            "h_v": h_v,
            "mi": mi,
            "h_joint": mpmath.fsum(plogp(v, n) for _, _, v in self.cells),
            # H(U|V) = sum_j (b_j/N) H(class | cluster j), H(V|U) likewise
            "h_u_given_v": mpmath.fsum(plogp(v, self.b[j]) for _, j, v in self.cells),
            "h_v_given_u": mpmath.fsum(plogp(v, self.a[i]) for i, _, v in self.cells),
        }

    @cached_property
    def independent(self) -> bool:
        """MI = 0 exactly: every cell (zero cells too) equals a_i b_j / N."""
        return all(self.n[i][j] * self.total == self.a[i] * self.b[j]
                   for i in range(self.k) for j in range(self.l))

    @cached_property
    def emi(self) -> mpmath.mpf:
        return emi(self.a, self.b)

    # ---------------------------------------------------------------- matchings
    def best_matching(self, weight: Callable[[int, int], Fraction]) -> Fraction:
        """Largest sum of weight(i, j) over one-to-one class -> cluster maps, by trying
        every injective map of the smaller side into the larger one."""
        w = [[weight(i, j) for j in range(self.l)] for i in range(self.k)]
        den = math.lcm(*(x.denominator for row in w for x in row))
        iw = [[x.numerator * (den // x.denominator) for x in row] for row in w]
        small, large = min(self.k, self.l), max(self.k, self.l)
        if math.perm(large, small) > _MAX_MAPS:
            raise ValueError(f"table too large for brute-force matching: {self.k}x{self.l}")
        if self.k <= self.l:
            best = max(sum(iw[i][p[i]] for i in range(self.k))
                       for p in itertools.permutations(range(self.l), self.k))
        else:
            best = max(sum(iw[p[j]][j] for j in range(self.l))
                       for p in itertools.permutations(range(self.k), self.l))
        return Fraction(best, den)

    @cached_property
    def matched_count(self) -> int:
        """Items on the best one-to-one class-cluster mapping (clustering accuracy)."""
        best = self.best_matching(lambda i, j: Fraction(self.n[i][j]))
        return int(best) if best.denominator == 1 else best

    @cached_property
    def matched_recall(self) -> Fraction:
        """Best one-to-one sum of n_ij / a_i (recovery rate's W, NCA's recall)."""
        return self.best_matching(lambda i, j: Fraction(self.n[i][j], self.a[i]))

    def f_measure(self, i: int, j: int) -> Fraction:
        """Harmonic mean of precision n_ij / b_j and recall n_ij / a_i (0 if n_ij = 0)."""
        if not self.n[i][j]:
            return Fraction(0)
        p, r = Fraction(self.n[i][j], self.b[j]), Fraction(self.n[i][j], self.a[i])
        return 2 * p * r / (p + r)


@lru_cache(maxsize=2048)
def _table(rows: tuple[tuple[int, ...], ...], dps: int = _DPS) -> Table:
    """The Table of ``rows``, one per working precision (its mpmath values are cached)."""
    return Table(rows)


def _as_rows(table) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(_cell(v) for v in row) for row in table)


def _cell(v) -> int | Fraction:
    """A cell as an int, or as the exact Fraction of a real mass (a float64 cell is a
    dyadic rational: Fraction(float) is its exact value)."""
    if isinstance(v, int | Fraction):
        return v
    exact = Fraction(float(v)) if not hasattr(v, "numerator") else Fraction(v)
    return int(exact) if exact.denominator == 1 else exact


def _pairs_of(v: int | Fraction) -> int | Fraction:
    """C(v, 2) = v (v - 1) / 2, an int for whole items, a Fraction for a real mass."""
    return v * (v - 1) // 2 if isinstance(v, int) else v * (v - 1) / 2


def pair_counts(table) -> tuple[int, int, int, int]:
    """(TP, FN, FP, TN) over unordered item pairs, exact ints."""
    return _table(_as_rows(table)).pairs


# --------------------------------------------------------------------------- helpers
def _mp(x: Fraction | int) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _sqrt_ratio(num: int | Fraction, den: int | Fraction) -> mpmath.mpf:
    """sign(num) * sqrt(num^2 / den), evaluated from the exact ratio."""
    if num == 0:
        return mpmath.mpf(0)
    root = mpmath.sqrt(_mp(Fraction(num) ** 2 / Fraction(den)))
    return root if num > 0 else -root


def _harmonic(p: Fraction, r: Fraction) -> Fraction:
    return 2 * p * r / (p + r) if p + r else Fraction(0)


def _ratio_or(num, den, fallback) -> Fraction:
    return Fraction(num, den) if den else Fraction(fallback)


def _agree(t: Table) -> bool:
    """The partitions agree on every item pair (no pair split or joined differently)."""
    _, fn, fp, _ = t.pairs
    return fn == 0 and fp == 0


# --------------------------------------------------------------------------- pair counting
def _ari(t: Table) -> Fraction:
    """Hubert & Arabie: (Index - Expected) / (Max - Expected), Index = pairs together in
    both, Expected = P Q / M under the permutation model, Max = (P + Q) / 2."""
    if _agree(t):
        return Fraction(1)
    tp, fn, fp, tn = t.pairs
    m, p, q = tp + fn + fp + tn, tp + fn, tp + fp
    expected = Fraction(p * q, m)
    return (tp - expected) / (Fraction(p + q, 2) - expected)


def _falling(x: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= x - i
    return out


def pair_count_moments(t: Table) -> tuple[Fraction, Fraction]:
    """E[S] and Var[S], S = sum_ij C(n_ij, 2), under the permutation model, from the
    factorial moments of the cells of a random table with these margins (every cell pair,
    zero cells included): a class's (x)_r items land in given clusters with probability
    (b)_r / (N)_r. Not the library's pairs-of-pairs route."""
    n, cells = t.total, [(i, j) for i in range(t.k) for j in range(t.l)]

    def moment(cell_a, cell_b) -> Fraction:  # E[(n_ij)_2 (n_kl)_2]
        (i, j), (k, col) = cell_a, cell_b
        if n < 4 and cell_a != cell_b:
            return Fraction(0)
        if cell_a == cell_b:  # (x)_2^2 = (x)_4 + 4 (x)_3 + 2 (x)_2
            return sum((c * Fraction(_falling(t.a[i], r) * _falling(t.b[j], r),
                                     _falling(n, r)) if _falling(n, r) else Fraction(0))
                       for r, c in ((4, 1), (3, 4), (2, 2)))
        tuples = _falling(t.a[i], 4) if i == k else _falling(t.a[i], 2) * _falling(t.a[k], 2)
        placed = _falling(t.b[j], 4) if j == col else _falling(t.b[j], 2) * _falling(t.b[col], 2)
        return Fraction(tuples * placed, _falling(n, 4))

    if n < 2:
        return Fraction(0), Fraction(0)
    mean = sum(Fraction(_falling(t.a[i], 2) * _falling(t.b[j], 2), 2 * _falling(n, 2))
               for i, j in cells)
    second = sum(moment(x, y) for x in cells for y in cells) / 4
    return mean, second - mean * mean


def _sri(t: Table) -> mpmath.mpf:
    """Romano et al.'s standardized Rand index (S - E[S]) / sd(S); 0 when Var[S] = 0."""
    mean, var = pair_count_moments(t)
    if var == 0:
        return mpmath.mpf(0)
    return _sqrt_ratio(t.pairs[0] - mean, var)


def _ri(t: Table) -> Fraction:
    tp, fn, fp, tn = t.pairs
    m = tp + fn + fp + tn
    return Fraction(tp + tn, m) if m else Fraction(1)


def _fmi(t: Table) -> mpmath.mpf:
    tp, fn, fp, _ = t.pairs
    if tp == 0:
        return mpmath.mpf(1 if _agree(t) else 0)
    return _sqrt_ratio(tp, (tp + fp) * (tp + fn))


def _pair_precision(t: Table) -> Fraction:
    tp, _, fp, _ = t.pairs
    return _ratio_or(tp, tp + fp, 1)


def _pair_recall(t: Table) -> Fraction:
    tp, fn, _, _ = t.pairs
    return _ratio_or(tp, tp + fn, 1)


def _pair_f1(t: Table) -> Fraction:
    tp, fn, fp, _ = t.pairs
    if tp + fn + fp == 0:  # both all singletons: every denominator 0, force_finite
        return Fraction(1)
    if tp == 0:
        return Fraction(0)
    return _harmonic(Fraction(tp, tp + fp), Fraction(tp, tp + fn))


def _pair_jaccard(t: Table) -> Fraction:
    tp, fn, fp, _ = t.pairs
    return _ratio_or(tp, tp + fn + fp, 1)


def _czekanowski_dice(t: Table) -> Fraction:
    a, b, c, _ = t.pairs
    return Fraction(1) if _agree(t) else Fraction(2 * a, 2 * a + b + c)


def _kulczynski(t: Table) -> Fraction:
    a, b, c, _ = t.pairs
    if _agree(t):
        return Fraction(1)
    if a == 0:
        return Fraction(0)
    return (Fraction(a, a + c) + Fraction(a, a + b)) / 2


def _mcnemar(t: Table) -> mpmath.mpf:
    _, _, c, d = t.pairs
    return _sqrt_ratio(d - c, d + c) if d + c else mpmath.mpf(0)


def _phi(t: Table) -> mpmath.mpf:
    """Pearson correlation of the two pair-membership indicators over the M item pairs."""
    a, b, c, d = t.pairs
    den = (a + b) * (a + c) * (b + d) * (c + d)
    if den == 0:
        return mpmath.mpf(1 if _agree(t) else 0)
    return _sqrt_ratio(a * d - b * c, den)


def _rogers_tanimoto(t: Table) -> Fraction:
    a, b, c, d = t.pairs
    return Fraction(1) if _agree(t) else Fraction(a + d, a + d + 2 * (b + c))


def _russel_rao(t: Table) -> Fraction:
    a, b, c, d = t.pairs
    return _ratio_or(a, a + b + c + d, 0)


def _sokal_sneath1(t: Table) -> Fraction:
    a, b, c, _ = t.pairs
    return Fraction(1) if _agree(t) else Fraction(a, a + 2 * (b + c))


def _sokal_sneath2(t: Table) -> Fraction:
    a, b, c, d = t.pairs
    return Fraction(1) if _agree(t) else (a + d) / (a + d + Fraction(b + c, 2))


def _southwood(t: Table) -> Fraction:
    a, b, c, _ = t.pairs
    return _ratio_or(a, b + c, 1)


def _kendall_tau(t: Table) -> mpmath.mpf:
    """permetrics TauS: (concordant - discordant) / sqrt(M (M - ties)), ties = a."""
    a, b, c, d = t.pairs
    m = a + b + c + d
    if m * (m - a) == 0:
        return mpmath.mpf(1)
    return _sqrt_ratio(a + d - b - c, m * (m - a))


def _gamma(t: Table) -> Fraction:
    a, b, c, d = t.pairs
    return Fraction(1) if b + c == 0 else Fraction(a + d - b - c, a + b + c + d)


def _g_plus(t: Table) -> Fraction:
    a, b, c, d = t.pairs
    return Fraction(0) if b + c == 0 else Fraction(b + c, a + b + c + d)


def _afmi(t: Table) -> mpmath.mpf:
    """(FM - E[FM]) / (1 - E[FM]), FM = a / sqrt(P Q), E[FM] = E[a] / sqrt(P Q) with
    E[a] = P Q / M under the permutation model."""
    if _agree(t):
        return mpmath.mpf(1)
    a, b, c, d = t.pairs
    m, pq = a + b + c + d, (a + b) * (a + c)
    if pq == 0:
        return mpmath.mpf(0)
    root = mpmath.sqrt(_mp(pq))
    fm, expected = a / root, root / m
    return (fm - expected) / (1 - expected)


def _mari(t: Table) -> Fraction:
    """Sundqvist, Chiquet & Rigaill: (a - E^) / ((P + Q)/2 - E^), E^ = D / C(N - 2, 2),
    D the ordered pairs of disjoint item pairs (together in truth, together in prediction)."""
    if _agree(t):
        return Fraction(1)
    a, b, c, _ = t.pairs
    k = math.comb(t.total - 2, 2) if t.total >= 2 else 0
    d = t.disjoint_pair_pairs
    num, den = a * k - d, Fraction((a + b) + (a + c), 2) * k - d
    return Fraction(0) if den == 0 else num / den


# --------------------------------------------------------------------------- information
def _mi(t: Table) -> mpmath.mpf:
    return t.info["mi"]


def _nmi(average: str) -> Callable[[Table], mpmath.mpf]:
    def score(t: Table) -> mpmath.mpf:
        if t.k == 1 and t.l == 1:
            return mpmath.mpf(1)
        if t.independent:
            return mpmath.mpf(0)
        return t.info["mi"] / _mean(t.info["h_u"], t.info["h_v"], average)
    return score


def _mean(x, y, average: str):
    if average == "arithmetic":
        return (x + y) / 2
    if average == "geometric":
        return mpmath.sqrt(x * y)
    return min(x, y) if average == "min" else max(x, y)


def _ami(average: str) -> Callable[[Table], mpmath.mpf]:
    def score(t: Table) -> mpmath.mpf:
        if t.k == 1 and t.l == 1:
            return mpmath.mpf(1)
        if t.k == 1 or t.l == 1:
            return mpmath.mpf(0)
        h_u, h_v, mi = t.info["h_u"], t.info["h_v"], t.info["mi"]
        singles_u, singles_v = set(t.a) == {1}, set(t.b) == {1}
        if singles_u or singles_v:
            # MI is the same for every table with these margins: MI = E[MI] exactly, and
            # equal to the entropy of the other side
            num = mpmath.mpf(0)
            exact_emi = h_u if singles_v else h_v
            if (singles_u and singles_v) or average == "min":
                den = mpmath.mpf(0)
            else:
                den = _mean(h_u, h_v, average) - exact_emi
        else:  # the definition itself: the denominator is positive here
            num, den = mi - t.emi, _mean(h_u, h_v, average) - t.emi
        if den == 0:  # 0/0: scikit-learn's clamps make it eps/eps
            return mpmath.mpf(1)
        return num / den
    return score


def _homogeneity(t: Table) -> mpmath.mpf:
    return t.info["mi"] / t.info["h_u"] if t.k > 1 else mpmath.mpf(1)


def _completeness(t: Table) -> mpmath.mpf:
    return t.info["mi"] / t.info["h_v"] if t.l > 1 else mpmath.mpf(1)


def _v_measure(t: Table) -> mpmath.mpf:
    h, c = _homogeneity(t), _completeness(t)
    if t.independent and t.k > 1 and t.l > 1:
        return mpmath.mpf(0)  # h = c = 0 exactly
    return 2 * h * c / (h + c)


def _vi(t: Table) -> mpmath.mpf:
    return t.info["h_u_given_v"] + t.info["h_v_given_u"]


def _nvi(t: Table) -> mpmath.mpf:
    joint = t.info["h_joint"]
    return _vi(t) / joint if len(t.cells) > 1 else mpmath.mpf(0)


def _nid(t: Table) -> mpmath.mpf:
    if t.k == 1 and t.l == 1:
        return mpmath.mpf(0)
    return 1 - t.info["mi"] / max(t.info["h_u"], t.info["h_v"])


def _nmi_joint(t: Table) -> mpmath.mpf:
    return t.info["mi"] / t.info["h_joint"] if len(t.cells) > 1 else mpmath.mpf(1)


def _cluster_entropy(t: Table) -> mpmath.mpf:
    return t.info["h_u_given_v"]


# ------------------------------------------------------------- reduced mutual information
_RMI_LOG_LO, _RMI_LOG_HI = math.log(1e-4), math.log(1e4)
_GOLDEN = (math.sqrt(5) - 1) / 2


@cache
def _dm_code(q: int, sizes: tuple[int, ...], cells: tuple[int, ...]) -> mpmath.mpf:
    """Jerdee, Kirkley & Newman (2024): min over x in [1e-4, 1e4] of the code length
    sum_s log Gamma(q x + m_s)/Gamma(q x) - sum_c log Gamma(x + n_c)/Gamma(x) (m_s the
    group sizes, n_c the cells). The minimiser is located on a 30-digit objective (a grid,
    then golden-section search in log x to 1e-13) and the code evaluated at 80 digits."""
    if q <= 1:
        return mpmath.mpf(0)

    def code(x):
        top = mpmath.fsum(mpmath.loggamma(q * x + m) - mpmath.loggamma(q * x) for m in sizes)
        return top - mpmath.fsum(mpmath.loggamma(x + n) - mpmath.loggamma(x) for n in cells)

    with mpmath.workdps(30):
        f = lambda u: code(mpmath.exp(mpmath.mpf(u)))  # noqa: E731
        grid = [_RMI_LOG_LO + (_RMI_LOG_HI - _RMI_LOG_LO) * i / 64 for i in range(65)]
        values = [f(u) for u in grid]
        best = min(range(65), key=lambda i: values[i])
        lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, 64)]
        c, d = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
        fc, fd = f(c), f(d)
        while hi - lo > 1e-13:
            if fc < fd:
                hi, d, fd = d, c, fc
                c = hi - _GOLDEN * (hi - lo)
                fc = f(c)
            else:
                lo, c, fc = c, d, fd
                d = lo + _GOLDEN * (hi - lo)
                fd = f(d)
        candidates = [grid[best], (lo + hi) / 2]
    return min(code(mpmath.exp(mpmath.mpf(u))) for u in candidates)


def _reduced_parts(t: Table) -> tuple[mpmath.mpf, ...]:
    """(RMI(t; p), RMI(p; t), RMI(t; t), RMI(p; p)) for the whole data set, in nats."""
    cells = tuple(sorted(v for _, _, v in t.cells))
    a, b = tuple(sorted(t.a)), tuple(sorted(t.b))
    h_t, h_p = _dm_code(t.k, (t.total,), a), _dm_code(t.l, (t.total,), b)
    return (h_t - _dm_code(t.k, b, cells), h_p - _dm_code(t.l, a, cells),
            h_t - _dm_code(t.k, a, a), h_p - _dm_code(t.l, b, b))


def _rnmi(mean: str) -> Callable[[Table], mpmath.mpf]:
    def score(t: Table) -> mpmath.mpf:
        tp, pt, tt, pp = _reduced_parts(t)
        num, den = (tp, tt) if mean == "truth" else (tp + pt, tt + pp)
        if den <= 0:
            return mpmath.mpf(1 if t.k == t.l == 1 else 0)
        return num / den
    return score


def _chi2(t: Table) -> Fraction:
    """Pearson: sum over every cell (zeros too) of (observed - expected)^2 / expected."""
    total = Fraction(0)
    for i in range(t.k):
        for j in range(t.l):
            expected = Fraction(t.a[i] * t.b[j], t.total)
            total += (t.n[i][j] - expected) ** 2 / expected
    return total


# --------------------------------------------------------------------------- set matching
def _recovery_rate(t: Table) -> Fraction:
    """Li & Klette Definition 2: best one-to-one sum of W = |G_k ∩ C_i| / |C_i|, over m."""
    return t.matched_recall / t.l


def _recovery_rate_greedy(t: Table) -> Fraction:
    """Algorithm 2, literally: take the largest remaining W[k, i] (the paper's M is
    clusters x classes; ties: first in its row-major order), delete its row and column."""
    free_k, free_i = set(range(t.l)), set(range(t.k))
    total = Fraction(0)
    while free_k and free_i:
        best = None
        for k in sorted(free_k):  # row-major over M: cluster, then class
            for i in sorted(free_i):
                w = Fraction(t.n[i][k], t.a[i])
                if best is None or w > best[0]:
                    best = (w, k, i)
        w, k, i = best
        total += w
        free_k.discard(k)
        free_i.discard(i)
    return total / t.l


def _pseudo_recovery_rate(t: Table) -> Fraction:
    """Definition 3: most clusters matched one-to-one to distinct classes they share an
    item with, over the number of classes n."""
    touching = t.best_matching(lambda i, j: Fraction(1 if t.n[i][j] else 0))
    return touching / t.k


def _marxer_purwins(t: Table) -> tuple[Fraction, Fraction]:
    """Equations (1)-(6), with the sums over the other classes written out."""
    p_total = r_total = Fraction(0)
    for c in range(t.k):
        p_c = r_c = Fraction(0)
        for k in range(t.l):
            n_ck = t.n[c][k]
            if not n_ck:
                continue
            if t.k == 1:
                p_ck = Fraction(1)
            else:
                others_in_k = sum(t.n[i][k] for i in range(t.k) if i != c)
                others = sum(t.a[i] for i in range(t.k) if i != c)
                p_ck = 1 - Fraction(others_in_k, others)
            r_ck = Fraction(1) if t.a[c] == 1 else Fraction(n_ck - 1, t.a[c] - 1)
            p_c += n_ck * p_ck
            r_c += n_ck * r_ck
        p_c /= t.a[c]
        r_c /= t.a[c]
        p_total += t.a[c] * p_c
        r_total += t.a[c] * r_c
    return p_total / t.total, r_total / t.total


def _mp_f(t: Table) -> Fraction:
    return _harmonic(*_marxer_purwins(t))


def _best_match_f(t: Table) -> Fraction:
    """Each class scored by its best cluster's F, weighted by class size."""
    return sum((Fraction(t.a[i], t.total) * max(t.f_measure(i, j) for j in range(t.l))
                for i in range(t.k)), Fraction(0))


def _set_matching_f(t: Table) -> Fraction:
    """Each cluster scored by its best class's F, weighted by cluster size."""
    return sum((Fraction(t.b[j], t.total) * max(t.f_measure(i, j) for i in range(t.k))
                for j in range(t.l)), Fraction(0))


def _purity(t: Table) -> Fraction:
    return Fraction(sum(max(t.n[i][j] for i in range(t.k)) for j in range(t.l)), t.total)


def _inverse_purity(t: Table) -> Fraction:
    return Fraction(sum(max(row) for row in t.n), t.total)


def _clustering_accuracy(t: Table) -> Fraction:
    return Fraction(t.matched_count, t.total)


def _nca(t: Table) -> Fraction:
    kp = max(t.k, t.l)
    if kp == 1:
        return Fraction(1)
    return (t.matched_recall - Fraction(t.k, kp)) / (kp - 1)


def _npa(t: Table) -> Fraction:
    kp = max(t.k, t.l)
    if kp == 1:
        return Fraction(1)
    acc = _clustering_accuracy(t)
    return (acc - Fraction(1, kp)) / (1 - Fraction(1, kp))


def _psi(simplified: bool) -> Callable[[Table], Fraction]:
    """Rezaei & Fränti: S = best one-to-one sum of n_ij / max(a_i, b_j); E from the sizes
    sorted decreasingly (Eq. 18) or 1 (simplified, Eq. 20); (S - E) / (K' - E), >= 0."""
    def score(t: Table) -> Fraction:
        kp = max(t.k, t.l)
        if kp == 1:
            return Fraction(1)
        s = t.best_matching(lambda i, j: Fraction(t.n[i][j], max(t.a[i], t.b[j])))
        if simplified:
            e = Fraction(1)
        else:
            a, b = sorted(t.a, reverse=True), sorted(t.b, reverse=True)
            e = sum((Fraction(x * y, t.total * max(x, y)) for x, y in zip(a, b, strict=False)),
                    Fraction(0))
        return (s - e) / (kp - e) if s >= e else Fraction(0)
    return score


def _bcubed(t: Table) -> tuple[Fraction, Fraction]:
    """Record-weighted: the mean over items of |Y(x) ∩ C(x)| / |C(x)| (precision) and of
    |Y(x) ∩ C(x)| / |Y(x)| (recall); the n_ij items of a cell share their values."""
    p = sum((v * Fraction(v, t.b[j]) for i, j, v in t.cells), Fraction(0)) / t.total
    r = sum((v * Fraction(v, t.a[i]) for i, j, v in t.cells), Fraction(0)) / t.total
    return p, r


def _bcubed_class_weighted(t: Table) -> tuple[Fraction, Fraction]:
    """Item values averaged within each true class, then over the K classes equally."""
    p = r = Fraction(0)
    for i in range(t.k):
        items = [(v, t.b[j]) for j, v in enumerate(t.n[i]) if v]
        p += sum((v * Fraction(v, bj) for v, bj in items), Fraction(0)) / t.a[i]
        r += sum((v * Fraction(v, t.a[i]) for v, _ in items), Fraction(0)) / t.a[i]
    return p / t.k, r / t.k


def _exact_matches(t: Table) -> int:
    """Clusters holding exactly the items of one class."""
    return sum(1 for i, j, v in t.cells if v == t.a[i] == t.b[j])


def _geometric_accuracy(t: Table) -> mpmath.mpf:
    """Nepusz et al.: sqrt(Sn * PPV), Sn = sum_i max_j n_ij / N, PPV = sum_j max_i n_ij / N."""
    return mpmath.sqrt(_mp(_inverse_purity(t) * _purity(t)))


def _ecs(t: Table) -> Fraction:
    """Gates et al.: mean over items u of 1 - (1/2) L1(p1_u, p2_u), p1_u uniform on u's
    class, p2_u uniform on u's cluster (personalised PageRank of a flat partition). For u
    in cell (i, j): the n items of both get |1/a - 1/b|, the a - n of the class only 1/a,
    the b - n of the cluster only 1/b."""
    total = Fraction(0)
    for i, j, v in t.cells:
        a, b = t.a[i], t.b[j]
        l1 = v * abs(Fraction(1, a) - Fraction(1, b)) + Fraction(a - v, a) + Fraction(b - v, b)
        total += v * (1 - l1 / 2)
    return total / t.total


REFERENCES: dict[str, Callable[[Table], Fraction | mpmath.mpf]] = {
    # pair counting
    "ari": _ari,
    "ri": _ri,
    "sri": _sri,
    "fmi": _fmi,
    "pair_precision": _pair_precision,
    "pair_recall": _pair_recall,
    "pair_f1": _pair_f1,
    "pair_jaccard": _pair_jaccard,
    "czekanowski_dice": _czekanowski_dice,
    "kulczynski": _kulczynski,
    "mcnemar": _mcnemar,
    "phi": _phi,
    "rogers_tanimoto": _rogers_tanimoto,
    "russel_rao": _russel_rao,
    "sokal_sneath1": _sokal_sneath1,
    "sokal_sneath2": _sokal_sneath2,
    "southwood": _southwood,
    "kendall_tau": _kendall_tau,
    "gamma": _gamma,
    "g_plus": _g_plus,
    "afmi": _afmi,
    "mari": _mari,
    # information
    "mi": _mi,
    "nmi": _nmi("arithmetic"),
    "nmi_geometric": _nmi("geometric"),
    "nmi_min": _nmi("min"),
    "nmi_max": _nmi("max"),
    "ami": _ami("arithmetic"),
    "ami_geometric": _ami("geometric"),
    "ami_min": _ami("min"),
    "ami_max": _ami("max"),
    "homogeneity": _homogeneity,
    "completeness": _completeness,
    "v_measure": _v_measure,
    "vi": _vi,
    "nvi": _nvi,
    "nid": _nid,
    "nmi_joint": _nmi_joint,
    "cluster_entropy": _cluster_entropy,
    "chi2": _chi2,
    "rmi": lambda t: _reduced_parts(t)[0] / t.total,
    "rnmi": _rnmi("truth"),
    "rnmi_arithmetic": _rnmi("arithmetic"),
    # set matching
    "recovery_rate": _recovery_rate,
    "recovery_rate_greedy": _recovery_rate_greedy,
    "pseudo_recovery_rate": _pseudo_recovery_rate,
    "mp_precision": lambda t: _marxer_purwins(t)[0],
    "mp_recall": lambda t: _marxer_purwins(t)[1],
    "mp_f": _mp_f,
    "best_match_f": _best_match_f,
    "purity": _purity,
    "inverse_purity": _inverse_purity,
    "clustering_error": lambda t: 1 - _clustering_accuracy(t),
    "clustering_accuracy": _clustering_accuracy,
    "clustering_ratio": lambda t: Fraction(t.l, t.k),
    "nca": _nca,
    "npa": _npa,
    "psi": _psi(simplified=False),
    "psi_simplified": _psi(simplified=True),
    "bcubed_precision": lambda t: _bcubed(t)[0],
    "bcubed_recall": lambda t: _bcubed(t)[1],
    "bcubed_f": lambda t: _harmonic(*_bcubed(t)),
    "bcubed_precision_class_weighted": lambda t: _bcubed_class_weighted(t)[0],
    "bcubed_recall_class_weighted": lambda t: _bcubed_class_weighted(t)[1],
    "bcubed_f_class_weighted": lambda t: _harmonic(*_bcubed_class_weighted(t)),
    "set_matching_f": _set_matching_f,
    "set_matching_f_inverse": _best_match_f,
    "purity_f": lambda t: _harmonic(_purity(t), _inverse_purity(t)),
    "geometric_accuracy": _geometric_accuracy,
    "exact_match_precision": lambda t: Fraction(_exact_matches(t), t.l),
    "exact_match_recall": lambda t: Fraction(_exact_matches(t), t.k),
    "exact_match_f": lambda t: _harmonic(Fraction(_exact_matches(t), t.l),
                                         Fraction(_exact_matches(t), t.k)),
    "ecs": _ecs,
}


def reference(key: str, table, dps: int = _DPS) -> Fraction | float:
    """The exact value of registry score ``key`` on ``table`` (rows = classes): a
    ``Fraction`` for rational scores, else the float nearest to a ``dps``-digit value."""
    if key not in REFERENCES:
        raise KeyError(f"no reference for score {key!r}: add it to "
                       "tests/support/score_reference.py")
    t = _table(_as_rows(table), dps)
    with mpmath.workdps(dps):
        value = REFERENCES[key](t)
        return value if isinstance(value, Fraction) else float(value)


def reference_mp(key: str, table, dps: int = _DPS) -> Fraction | mpmath.mpf:
    """Like :func:`reference`, without rounding the mpmath value to a float."""
    t = _table(_as_rows(table), dps)
    with mpmath.workdps(dps):
        return REFERENCES[key](t)


# --------------------------------------------------------------------------- EMI
# EMI = sum_ij sum_n P(n | a_i, b_j, N) (n / N) log(N n / (a_i b_j)), P hypergeometric
# (Vinh, Epps & Bailey 2010). Each (a, b) term is one of three evaluations, all rigorous:
#
# 1. Whole support (at most _FULL_SUPPORT values of n): every term, exactly as written.
# 2. Moment expansion (mean mu = a b / N >= _MOMENTS_MIN_MEAN, huge support). With
#    X ~ P, t = X / mu - 1 and g(t) = (1 + t) log(1 + t) - t,
#        sum_n P(n) n log(N n / (a b)) = E[X log X] - mu log mu = mu E[g(t)]
#    (E[t] = 0). g has the Taylor series sum_{k>=2} (-1)^k t^k / (k (k - 1)) and
#    g^(k)(t) = (-1)^k (k - 2)! / (1 + t)^(k - 1), so Lagrange's remainder after the
#    t^K term is |t|^(K+1) / (K (K + 1) (1 + xi)^K), xi between 0 and t:
#      - for X >= mu / 2 (t >= -1/2) it is at most 2^K |t|^(K+1) / (K (K + 1));
#      - for X < mu / 2 both g (in [0, 1]) and the polynomial (< sum 1/(k(k-1)) = 1) are
#        at most 1, so the remainder is at most 2; P(X < mu / 2) <= min(exp(-mu / 8),
#        exp(-mu^2 / (2 min(a, b)))): the multiplicative Chernoff bound and Hoeffding's
#        bound, both valid for the hypergeometric (Hoeffding, JASA 58 (1963), Thm. 4).
#    With K odd, E|t|^(K+1) = E[t^(K+1)], so the error of the truncated series is at most
#        B = 2^K E[t^(K+1)] / (K (K + 1)) + 2 P(X < mu / 2),
#    computed and required to be below 1e-25 of the leading term E[t^2] / 2. The central
#    moments are exact: the factorial moments are E[X ... (X-j+1)] =
#    a^(j) b^(j) / N^(j) (falling factorials); Stirling numbers of the second kind give
#    the raw moments, the binomial expansion of (X - mu)^k the central ones, all over the
#    common denominator N^(M) (ab)^k as exact integers. Only the final series is mpmath.
# 3. Window (small mean, huge support): the sum walks out from the mode; the pmf is
#    log-concave, so once the ratio r of consecutive terms is below 1 the rest of the
#    side is at most a geometric series in r, and |n log(N n / (a b))| <= n log N on the
#    support (1/N <= N n / (a b) <= N). Each side stops when that bound is below 1e-60,
#    absolute: the pair's sum mu E[g(t)] is about min(mu log(1/mu), 1/2), and mu >= 1/N,
#    so the cut is below 1e-40 of it for any N < 2^63.
# tests/scores/test_reference_scores.py checks 2 and 3 against 1 where the support is small
# enough for all of them, and 1 against scikit-learn.

_FULL_SUPPORT = 2000
_MOMENTS_MIN_MEAN = 1000
_WINDOW_TOL = mpmath.mpf(10) ** -60
_MAX_WINDOW = 200_000


def emi(a: list[int], b: list[int]) -> mpmath.mpf:
    """Expected mutual information (nats) of margins ``a`` and ``b`` (same total)."""
    n = sum(a)
    if sum(b) != n:
        raise ValueError("margins have different totals")
    with mpmath.workdps(_DPS):
        return mpmath.fsum(emi_pair(x, y, n) for x in a for y in b)


@lru_cache(maxsize=65536)
def emi_pair(a: int, b: int, n: int, method: str | None = None) -> mpmath.mpf:
    """sum_n P(n | a, b, N) (n / N) log(N n / (a b)); ``method`` forces "full",
    "moments" or "window" (for the self-tests), else the rigorous choice above."""
    a, b = min(a, b), max(a, b)
    low, high = max(0, a + b - n), a
    with mpmath.workdps(_DPS):
        if method is None:
            if high - low + 1 <= _FULL_SUPPORT:
                method = "full"
            else:
                method = "moments" if a * b >= _MOMENTS_MIN_MEAN * n else "window"
        if method == "moments":
            value = _emi_moments(a, b, n)
            if value is None:  # bound not met: the window is exact anyway
                value = _walk(a, b, n, _WINDOW_TOL)
        else:
            value = _walk(a, b, n, mpmath.mpf(0) if method == "full" else _WINDOW_TOL)
        return value / n


def _walk(a: int, b: int, n: int, tol: mpmath.mpf) -> mpmath.mpf:
    """sum_k P(k) k log(N k / (a b)) from the mode outwards; tol = 0 walks the support."""
    low, high = max(0, a + b - n), min(a, b)
    mode = min(max((a + 1) * (b + 1) // (n + 2), low), high)
    with mpmath.workdps(_DPS + 40):  # log-gamma of numbers ~1e17 loses ~20 digits
        lg = mpmath.loggamma
        log_p = (lg(a + 1) - lg(mode + 1) - lg(a - mode + 1)
                 + lg(n - a + 1) - lg(b - mode + 1) - lg(n - a - b + mode + 1)
                 - lg(n + 1) + lg(b + 1) + lg(n - b + 1))
        p_mode = mpmath.exp(log_p)
    log_mu = mpmath.log(mpmath.mpf(a) * b / n)
    log_n = mpmath.log(n) if n > 1 else mpmath.mpf(1)

    def f(k: int) -> mpmath.mpf:
        return k * (mpmath.log(k) - log_mu) if k else mpmath.mpf(0)

    terms = [p_mode * f(mode)]
    for step in (1, -1):  # the right side, then the left side
        p, k = p_mode, mode
        while (k < high) if step > 0 else (k > low):
            if step > 0:
                ratio = mpmath.mpf((a - k) * (b - k)) / ((k + 1) * (n - a - b + k + 1))
            else:
                ratio = mpmath.mpf(k * (n - a - b + k)) / ((a - k + 1) * (b - k + 1))
            p, k = p * ratio, k + step
            terms.append(p * f(k))
            # log-concave: the ratios only fall further, so the rest of this side is at
            # most p log N sum_j r^j (k + j) (right) or p log N k sum_j r^j (left)
            if tol and ratio < 1:
                geometric = ratio / (1 - ratio)
                rest = k * geometric + (geometric / (1 - ratio) if step > 0 else 0)
                if p * log_n * rest <= tol:
                    break
            if len(terms) > _MAX_WINDOW:
                raise ValueError(f"EMI window for a={a}, b={b}, N={n} is too wide for "
                                 "the reference")
    return mpmath.fsum(terms)


@cache
def _stirling2(k: int, j: int) -> int:
    if k == j:
        return 1
    if j == 0 or j > k:
        return 0
    return j * _stirling2(k - 1, j) + _stirling2(k - 1, j - 1)


def _falling(x: int, j: int) -> int:
    out = 1
    for i in range(j):
        out *= x - i
    return out


def central_moments(a: int, b: int, n: int, order: int) -> list[Fraction]:
    """E[t^k], t = X / mu - 1, for k = 0..order, exactly (X hypergeometric)."""
    m = order
    denominator = _falling(n, m)  # N^(m): every factorial moment over it is an integer
    fact = [_falling(a, j) * _falling(b, j) * _falling(n - j, m - j) for j in range(m + 1)]
    raw = [sum(_stirling2(k, j) * fact[j] for j in range(k + 1)) for k in range(m + 1)]
    ab = a * b
    out = []
    for k in range(m + 1):
        # E[(X - mu)^k] N^k D = sum_i C(k, i) R_i (-ab)^(k-i) N^i; divide by mu^k
        c = sum(math.comb(k, i) * raw[i] * (-ab) ** (k - i) * n**i for i in range(k + 1))
        out.append(Fraction(c, denominator * ab**k))
    return out


def _emi_moments(a: int, b: int, n: int) -> mpmath.mpf | None:
    """mu E[g(t)] by the moment expansion (module comment, 2.), or None when its proven
    error bound is not small enough."""
    mu = Fraction(a * b, n)
    tail = min(mpmath.exp(-_mp(mu) / 8), mpmath.exp(-_mp(mu * mu / (2 * min(a, b)))))
    for terms in (15, 31, 47):
        if terms + 1 > n:
            return None
        moments = central_moments(a, b, n, terms + 1)
        leading = _mp(moments[2]) / 2
        bound = (mpmath.mpf(2) ** terms * _mp(moments[terms + 1]) / (terms * (terms + 1))
                 + 2 * tail)
        if bound <= leading * mpmath.mpf(10) ** -25:
            series = mpmath.fsum((-1) ** k * _mp(moments[k]) / (k * (k - 1))
                                 for k in range(2, terms + 1))
            return _mp(mu) * series
    return None
