"""Per-cell arrays that many scores need, computed once per table, and accurate sums.

``evaluate`` runs ~70 scores on one table; most are a few vectorised passes over the
non-zero cells, and many start from the same gathers (a_i and b_j per cell, their logs,
log n_ij, max(a_i, b_j), ...). Each is cached on the table (``Contingency.cached``) so it is
computed once, except on tables with more than ``_CACHE_MAX_CELLS`` cells, where keeping
extra O(nnz) arrays alive would cost more memory than recomputing costs time.

Every helper also takes a :class:`~clustermetrics.table.stack.TableStack` (many tables of
one layout of cells): its per-cell arrays are (B, nnz), its per-line arrays (B, R) and
(B, C), and its totals (B,), so a score written with these helpers computes one table or
many. A stack's cells and lines may be empty (count 0) in some of its tables: their logs
are taken as 0 (every term they enter is multiplied by a zero count or size).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ..table import Contingency
from ..table.stack import Table, is_stack

__all__ = [
    "accurate_sum",
    "col_maxima",
    "col_sums",
    "row_maxima",
    "quotients",
    "total",
    "shared",
    "cell_chunks",
    "cell_keys",
    "log_of_ints",
    "class_size_cells",
    "cluster_size_cells",
    "counts_float",
    "f1_cells",
    "larger_size_cells",
    "log_counts",
    "log_sizes",
    "log_class_size_cells",
    "log_cluster_size_cells",
    "row_starts",
    "exact_ints",
    "row_sum_count_size",
    "row_sum_squares",
    "square_sums",
    "row_sums",
    "scaled_masses",
    "scaled_total",
    "line_sizes",
    "share_log_sum",
    "mass_share",
    "mass_sum",
]

_CACHE_MAX_CELLS = 1 << 22  # 4.2M cells: 34 MB per cached array (up to ~12 are kept)
_FSUM_MAX = 4096  # below this many terms math.fsum is as fast
_CHUNK = 1 << 20  # cells per chunk when a score walks a large table in pieces
# np.log(k) for k < 2^16 (index 0 holds 0.0: counts are positive, it is never read)
_LOG_TABLE = np.concatenate(([0.0], np.log(np.arange(1, 1 << 16, dtype=np.float64))))
_INT64_PRODUCT_N = 3_037_000_499  # below this N every product of two counts fits in int64


def scaled_masses(table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The float64 masses of a real-valued table as exact Python integers over one power
    of two: (cells, class sizes, cluster sizes, k) with mass = integer / 2**k, the margins
    summed exactly (the table's float margins are rounded sums). Object arrays, cached;
    exact sums and products of them are what the integer tables get from int64.

    Masses may span the whole float64 range (a weight of 1e-300 beside one of 1e100): a
    score of a real-valued table takes its quotients of these integers, each correctly
    rounded and at most 1 where the score allows (a share of a class, of the total), and
    never multiplies two float masses, whose product may underflow or overflow."""
    return table.cached("cells:scaled_masses", _scaled_masses)


def scaled_total(table: Contingency) -> int:
    """The total mass of a real-valued table as the exact integer of
    :func:`scaled_masses` (N = this / 2**k)."""
    return table.cached("cells:scaled_total", lambda t: int(scaled_masses(t)[0].sum()))


def line_sizes(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """(a_i, b_j): the table's class and cluster sizes; on a real-valued table the exact
    sums of its masses, correctly rounded (its own margins are float sums, a few ulps off:
    enough to lose every digit of N - a_i for a class holding nearly all the mass)."""
    if not table.real_valued:  # integer tables and stacks: exact already
        return table.class_sizes, table.cluster_sizes
    return table.cached("sizes:rounded_exact", _rounded_margins)


def _rounded_margins(table: Contingency) -> tuple[np.ndarray, np.ndarray]:
    _, by_row, by_col, k = scaled_masses(table)
    scale = 1 << k  # int / int: correctly rounded, subnormal results included
    return (np.array([v / scale for v in by_row.tolist()], dtype=np.float64),
            np.array([v / scale for v in by_col.tolist()], dtype=np.float64))


def share_log_sum(masses: np.ndarray, total: int, num: Any, den: np.ndarray,
                  approx: tuple[np.ndarray, np.ndarray] | None = None) -> Fraction:
    """sum_i (m_i / N) log(num_i / den_i) over exact positive integers (object arrays of
    Python ints: the scaled masses m_i of a real-valued table, N their total, and
    positive integers ``num`` (one for all, or one each) and ``den``: products of
    masses), as an exact :class:`~fractions.Fraction` within a few ulps of the sum of
    the terms' sizes.

    Masses may span the whole float64 range, so a share m / N, a log near 0, and their
    product may all be far below the smallest float: each term is kept as a float
    mantissa and a binary exponent of its own (:func:`_share` times :func:`_log_of`), and
    the terms are summed on the scale of the largest one. An entropy of 1e-330 nats (all
    the mass but 1e-332 of it in one class) keeps its digits, and so does a ratio of two
    such entropies. Tables whose every share, log and term is a normal float (masses
    within ~300 orders of magnitude of the total) take the same steps vectorised.

    ``approx``: the shares and ratios as floats within 3 ulps (from the table's float
    masses and correctly rounded margins), taken for the terms whose ratio is at least 4
    or at most 1/4 and whose share, ratio and term are normal floats: their log is at
    least 1.38 in size, so 3 ulps of its argument are at most 2.2 of its value. Only the other
    terms are taken of the exact integers (in a noise table, the few cells near their
    expected mass)."""
    nums = np.asarray(num, dtype=object)
    nums = nums if nums.ndim else np.full(masses.shape[0], int(num), dtype=object)
    easy = np.zeros(0)
    if approx is not None:
        shares, ratios = approx
        far = ((ratios >= 4.0) & (ratios <= _FAR)) | ((ratios <= 0.25) & (ratios >= _NORMAL))
        terms = shares * np.log(np.where(far, ratios, 1.0))
        far &= (shares >= _NORMAL) & (np.abs(terms) >= _NORMAL)
        easy, hard = terms[far], ~far
        masses, nums, den = masses[hard], nums[hard], den[hard]
    rest = _normal_terms(masses, total, nums, den) if masses.shape[0] else np.zeros(0)
    if rest is not None:
        return Fraction(accurate_sum(np.concatenate([easy, rest])))
    mantissas, exponents = np.frexp(easy)
    return _scaled_sum([*zip(mantissas.tolist(), exponents.tolist(), strict=True),
                        *(_term(m, total, a, b) for m, a, b in zip(
                            masses.tolist(), nums.tolist(), den.tolist(), strict=True))])


_NORMAL = 2.0**-1000  # a share, log or term at least this large is a float with all digits
_FAR = 2.0**1000  # and a ratio at most this large


def _normal_terms(masses: np.ndarray, total: int, num: np.ndarray, den: np.ndarray,
                  ) -> np.ndarray | None:
    """The terms of :func:`share_log_sum` as floats, the steps of :func:`_term` on whole
    arrays, or None when one of them would leave the normal floats (then each term needs
    an exponent of its own)."""
    shares = (masses / total).astype(np.float64)
    diff = num - den
    near = np.abs(2 * diff) <= den
    logs = np.empty(masses.shape[0])
    x = (diff[near] / den[near]).astype(np.float64)
    logs[near] = np.log1p(x)
    far = ~near
    if far.any():
        span = _bit_length(num[far]) - _bit_length(den[far])
        if np.abs(span).max() >= _LOG_SPLIT:
            return None
        logs[far] = np.log((num[far] / den[far]).astype(np.float64))
    terms = shares * logs
    if shares.min() < _NORMAL or np.any((np.abs(x) < _NORMAL) & (diff[near] != 0)) or \
            np.any((np.abs(terms) < _NORMAL) & (logs != 0.0)):
        return None
    return terms


_bit_length = np.frompyfunc(int.bit_length, 1, 1)


def _term(mass: int, total: int, num: int, den: int) -> tuple[float, int]:
    """(m / N) log(num / den) as (mantissa, exponent)."""
    share, log = _share(mass, total), _log_of(num, den)
    return share[0] * log[0], share[1] + log[1]


def _share(num: int, den: int) -> tuple[float, int]:
    """num / den (exact integers, den > 0) as (mantissa, exponent): a correctly rounded
    float in (1/2, 2) in size (0.0 for num = 0) times 2**exponent."""
    if num == 0:
        return 0.0, 0
    e = abs(num).bit_length() - den.bit_length()
    return (num << max(-e, 0)) / (den << max(e, 0)), e


def _log_of(num: int, den: int) -> tuple[float, int]:
    """log(num / den) of positive exact integers as (mantissa, exponent), within a few
    ulps: near 1 (ratio in [1/2, 3/2]) log1p of the exact x = (num - den) / den, kept as
    x (its own mantissa and exponent: x may be 1e-400) times log1p(x) / x; elsewhere the
    log of the correctly rounded quotient, or log num - log den where that quotient leaves
    float64's normal range (the log is then beyond 690 in size, and each integer's log is
    accurate to an ulp of log num)."""
    if 2 * abs(num - den) <= den:
        mantissa, e = _share(num - den, den)
        x = math.ldexp(mantissa, e)
        return mantissa * (math.log1p(x) / x if x else 1.0), e
    if abs(num.bit_length() - den.bit_length()) >= _LOG_SPLIT:
        return math.log(num) - math.log(den), 0
    return math.log(num / den), 0


_LOG_SPLIT = 1000  # beyond 2**±1000 a quotient of integers is no longer a normal float


def _scaled_sum(terms: list[tuple[float, int]]) -> Fraction:
    """The sum of mantissa * 2**exponent terms, on the scale of the largest (terms below
    2**-1074 of it add nothing a float could hold), as an exact Fraction."""
    top = max((e for m, e in terms if m), default=None)
    if top is None:
        return Fraction(0)
    value = Fraction(accurate_sum(np.array([math.ldexp(m, e - top) for m, e in terms])))
    return value * 2**top if top >= 0 else value / 2**-top


def _scaled_masses(table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    k = max(53 - int(np.frexp(table.counts)[1].min()), 0)
    cells = _scaled(table.counts, k)
    starts = np.searchsorted(table.rows, np.arange(table.n_classes))
    by_row = np.add.reduceat(cells, starts)
    by_col = np.zeros(table.n_clusters, dtype=object)
    np.add.at(by_col, table.cols, cells)
    return cells, by_row, by_col, k


def _scaled(masses: np.ndarray, k: int) -> np.ndarray:
    """float64 masses times 2**k as exact Python integers (k at least 53 less than the
    least binary exponent of the masses)."""
    mant, exp = np.frexp(masses)
    ints = (mant * 2.0**53).astype(np.int64)  # exact: 53-bit significands
    return ints.astype(object) << (exp - 53 + k).astype(object)


def mass_sum(table: Contingency, masses: np.ndarray) -> int:
    """The exact sum of some cell masses of a real-valued table (the largest of each
    line, the matched cells), as an integer of :func:`scaled_masses` (times 2**k)."""
    return int(_scaled(masses, scaled_masses(table)[3]).sum())


def mass_share(table: Contingency, masses: np.ndarray) -> float:
    """:func:`mass_sum` over the table's total, correctly rounded."""
    return mass_sum(table, masses) / scaled_total(table)


def shared(table: Table, key: str, compute: Callable[[Contingency], np.ndarray]):
    """``table.cached(key, compute)``, except on tables too large to keep extra arrays."""
    if is_stack(table) or table.nnz <= _CACHE_MAX_CELLS:
        return table.cached(key, compute)
    return compute(table)


def row_starts(table: Table) -> np.ndarray:
    """Index of the first cell of each row (every row has one; cells sorted by row)."""
    return table.cached("cells:row_starts", lambda t: np.searchsorted(
        t.rows, np.arange(t.n_classes)))


def row_sums(table: Table, values: np.ndarray) -> np.ndarray:
    """Per-row sums of a per-cell array (exact for integers: cells are sorted by row)."""
    if is_stack(table):
        return table.row_sum(values)
    return np.add.reduceat(values, row_starts(table))


def col_sums(table: Table, values: np.ndarray) -> np.ndarray:
    """Per-column sums of a per-cell array (exact for integers)."""
    if is_stack(table):
        return table.col_sum(values)
    if values.dtype.kind == "f":
        return np.bincount(table.cols, weights=values, minlength=table.n_clusters)
    out = np.zeros(table.n_clusters, dtype=values.dtype)
    np.add.at(out, table.cols, values)
    return out


def row_maxima(table: Table, values: np.ndarray) -> np.ndarray:
    """Per-row maxima of a per-cell array."""
    if is_stack(table):
        return table.row_max(values)
    return np.maximum.reduceat(values, row_starts(table))


def col_maxima(table: Table, values: np.ndarray) -> np.ndarray:
    """Per-column maxima of a per-cell array of non-negative values."""
    if is_stack(table):
        return table.col_max(values)
    out = np.zeros(table.n_clusters, dtype=values.dtype)
    np.maximum.at(out, table.cols, values)
    return out


def quotients(table: Table, num: Any, den: Any) -> np.ndarray:
    """num / den per cell or line, as float64; on a stack 0 where ``den`` is 0 (an empty
    line or cell, whose ``num`` is 0 too)."""
    if is_stack(table):
        num = np.asarray(num, dtype=np.float64)
        return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape),
                         where=np.asarray(den) != 0)
    # exact ints (object arrays past int64) divide into correctly rounded Python floats
    return np.asarray(num / den, dtype=np.float64)


def total(table: Table, values: np.ndarray) -> Any:
    """The sum of a per-cell or per-line array of one table, as :func:`accurate_sum`
    (exactly, for integers); of a stack, the per-table sums over the last axis (floats:
    a replicate's score needs no last-ulp accuracy)."""
    if is_stack(table):
        return values.sum(axis=-1)
    if values.dtype.kind in "iu" or (values.dtype.kind == "O" and all(
            isinstance(v, int) for v in values.tolist())):
        return int(values.sum())
    return accurate_sum(values)


def exact_ints(table: Table, values: np.ndarray) -> np.ndarray:
    """Integer ``values`` of ``table`` in a dtype where a product of two counts, and any sum
    of such products over the table, is exact: int64 while N^2 < 2^63, else Python ints.

    Every such sum (sum n_ij^2, sum n_ij b_j, ...) is at most N^2, so int64 holds it for
    N < 3.04e9; beyond that numpy's object arrays do the same arithmetic with Python ints
    (slower, and only on tables of more than three billion items).
    """
    if is_stack(table) or table.n_samples < _INT64_PRODUCT_N:  # a stack counts fewer
        return values
    return np.asarray(values).astype(object)


def square_sums(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """(sum_j n_ij^2 per class, sum_i n_ij^2 per cluster), exact (see :func:`exact_ints`);
    large tables chunk by chunk."""
    def compute(t: Contingency) -> tuple[np.ndarray, np.ndarray]:
        counts = exact_ints(t, t.counts)
        if is_stack(t):
            squares = counts * counts
            return t.row_sum(squares), t.col_sum(squares)
        if t.nnz <= _CHUNK:  # one chunk: rows by reduceat (cells are sorted by row)
            squares = counts * counts
            by_col = exact_ints(t, np.zeros(t.n_clusters, dtype=t.counts.dtype))
            np.add.at(by_col, t.cols, squares)
            return row_sums(t, squares), by_col
        by_row = exact_ints(t, np.zeros(t.n_classes, dtype=t.counts.dtype))
        by_col = exact_ints(t, np.zeros(t.n_clusters, dtype=t.counts.dtype))
        for cells in cell_chunks(t):
            squares = counts[cells] * counts[cells]
            np.add.at(by_col, t.cols[cells], squares)
            np.add.at(by_row, t.rows[cells], squares)
        return by_row, by_col
    return table.cached("lines:sum_n2", compute)


def row_sum_squares(table: Table) -> np.ndarray:
    """sum_j n_ij^2 per class (exact, see :func:`exact_ints`)."""
    return square_sums(table)[0]


def row_sum_count_size(table: Table) -> np.ndarray:
    """sum_j n_ij b_j per class (exact, see :func:`exact_ints`)."""
    def compute(t: Contingency) -> np.ndarray:
        counts, sizes = exact_ints(t, t.counts), exact_ints(t, t.cluster_sizes)
        if is_stack(t):
            return t.row_sum(counts * cluster_size_cells(t))
        if t.nnz <= _CHUNK:
            return row_sums(t, counts * sizes[t.cols])
        out = exact_ints(t, np.zeros(t.n_classes, dtype=t.counts.dtype))
        for cells in cell_chunks(t):
            np.add.at(out, t.rows[cells], counts[cells] * sizes[t.cols[cells]])
        return out
    return table.cached("rows:sum_nb", compute)


def cell_keys(table: Table) -> np.ndarray:
    """row * n_clusters + col per cell (sorted, as the cells are; the matchings' index)."""
    return shared(table, "cells:keys", lambda t: t.rows * t.n_clusters + t.cols)


def class_size_cells(table: Table) -> np.ndarray:
    """a_i of each cell's row (int64; :func:`line_sizes` of a real-valued table)."""
    return shared(table, "cells:a", lambda t: line_sizes(t)[0][..., t.rows])


def cluster_size_cells(table: Table) -> np.ndarray:
    """b_j of each cell's column (int64; :func:`line_sizes` of a real-valued table)."""
    return shared(table, "cells:b", lambda t: line_sizes(t)[1][..., t.cols])


def larger_size_cells(table: Table) -> np.ndarray:
    """max(a_i, b_j) per cell (int64)."""
    return shared(table, "cells:max_ab", lambda t: np.maximum(class_size_cells(t),
                                                               cluster_size_cells(t)))


def counts_float(table: Table) -> np.ndarray:
    return shared(table, "cells:n_float", lambda t: t.counts.astype(np.float64))


def log_counts(table: Table) -> np.ndarray:
    """log n_ij per cell (0 for a stack's empty cells)."""
    return shared(table, "cells:log_n", lambda t: log_of_ints(t.counts))


def log_of_ints(values: np.ndarray) -> np.ndarray:
    """np.log of positive integers; small ones (the usual cell counts) from a table, which
    holds the same np.log values (a lookup is ~10x cheaper than a log); float64 masses
    (real-valued tables) are logged directly."""
    if values.dtype.kind == "f":
        return np.log(values)
    if values.ndim > 1:  # a stack's counts and sizes hold zeros: log 0 taken as 0
        return np.log(np.maximum(values, 1).astype(np.float64))
    if values.shape[0] > _LOG_TABLE.shape[0] and int(values.max(initial=0)) < \
            _LOG_TABLE.shape[0]:
        return _LOG_TABLE[values]
    return np.log(values.astype(np.float64))


def cell_chunks(table: Table):
    """Slices covering the cells, at most _CHUNK each: large tables are scored chunk by
    chunk so temporaries stay small (a fresh array of 6e7 floats costs ~0.6 s of page
    faults here; reused chunk buffers cost none)."""
    return [slice(s, s + _CHUNK) for s in range(0, max(table.nnz, 1), _CHUNK)]


def log_sizes(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """(log a_i per class, log b_j per cluster)."""
    return table.cached("sizes:log", lambda t: tuple(log_of_ints(x) for x in line_sizes(t)))


def log_class_size_cells(table: Table) -> np.ndarray:
    """log a_i per cell (the K logs are taken once, then gathered)."""
    return shared(table, "cells:log_a", lambda t: log_sizes(t)[0][..., t.rows])


def log_cluster_size_cells(table: Table) -> np.ndarray:
    """log b_j per cell."""
    return shared(table, "cells:log_b", lambda t: log_sizes(t)[1][..., t.cols])


def f1_cells(table: Table) -> np.ndarray:
    """F_ij = 2 n_ij / (a_i + b_j) per cell (best-match and set-matching F-measures; 0 on
    a stack's empty cells)."""
    # a_i + b_j in float: the int64 sum wraps once it passes 2^63 (N itself may not)
    def compute(t: Contingency) -> np.ndarray:
        both = np.add(class_size_cells(t), cluster_size_cells(t), dtype=np.float64)
        if is_stack(t):  # an empty cell of an absent class and cluster: 0 / 0
            np.maximum(both, 1.0, out=both)
        return 2.0 * t.counts / both
    return shared(table, "cells:f1", compute)


def accurate_sum(x: np.ndarray) -> float:
    """Sum of a float array as accurate as ``math.fsum`` up to a last-bit difference, at
    numpy speed.

    Every term is split into a high part on a common grid of spacing 2^(e - bits) (e: the
    exponent of the largest term, bits = 51 - ceil(log2 n)) and the exact remainder. The
    high parts are integers times one power of two whose partial sums stay below 2^51, so
    their sum is exact in any order; the remainders are below half a grid step and their
    pairwise sum errs by less than ~log2(n) n 2^-bits eps max|x|, far below an ulp of any
    sum that is not a near-total cancellation. The rounding to the grid is (x + C) - C with
    C = 1.5 * 2^(52 + grid exponent), exact for |x| < 2^(51 + grid exponent).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] <= _FSUM_MAX:
        return math.fsum(x.tolist())
    top = max(float(x.max()), -float(x.min()))
    if top == 0.0 or not math.isfinite(top):
        return float(x.sum())
    bits = 51 - math.ceil(math.log2(x.shape[0]))
    grid = math.frexp(top)[1] - bits
    if grid < -1000:  # the grid would be subnormal: not exact any more
        return math.fsum(x.tolist())
    magic = math.ldexp(1.5, 52 + grid)
    high = x + magic
    high -= magic  # x rounded to the grid
    low = x - high  # exact: both are multiples of ulp(x) and the difference is below |x|
    return math.fsum([float(high.sum()), float(low.sum())])
