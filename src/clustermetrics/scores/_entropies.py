"""The entropies and mutual information of a table, of which every information score is
a function: (MI, H(truth), H(prediction)) computed once per table and cached on it.

A table of counts takes each cell's log of an exact integer ratio (accurate to a few
units in the last place, whatever N); a table of real masses takes them from the exact
integers of its scaled masses (exact Fractions); a stack of many tables (bootstrap
replicates) gives arrays of each table's values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ..table import Contingency
from ..table.stack import Table, TableStack, is_stack
from ._cells import (
    _CHUNK,
    accurate_sum,
    cell_chunks,
    class_size_cells,
    cluster_size_cells,
    exact_ints,
    line_sizes,
    scaled_masses,
    scaled_total,
    share_log_sum,
)

__all__ = ["conditional_entropy_terms", "entropy_terms", "mutual_info_shortcut"]


def _entropy_of_sizes(sizes: np.ndarray) -> float:
    """H = sum_i (a_i / N) log(N / a_i), each log of a correctly rounded ratio (log1p of
    the exact (a - N) / N for the sizes above N/2, where log a - log N would cancel: a
    class of N - 1 items among 1e18 adds ~1e-18 nats, not 0). All terms are positive."""
    if sizes.shape[0] == 1:
        return 0.0
    n = int(sizes.sum(dtype=np.int64)) if sizes.dtype.kind in "iu" else int(sum(sizes))
    return accurate_sum(entropy_terms(sizes, n))


def entropy_terms(sizes: np.ndarray, n: float) -> np.ndarray:
    """(s / N) log(N / s) per size s (0 for s = 0): the terms of H, each log of a correctly
    rounded ratio (log1p of the exact (s - N) / N for the sizes above N/2)."""
    return conditional_entropy_terms(sizes, n, n)


def conditional_entropy_terms(counts: np.ndarray, class_size: float, n: float) -> np.ndarray:
    """(c / N) log(a / c) per cell count c of a class of size a (0 for c = 0): the terms of
    H(prediction | truth) = sum_ij (n_ij / N) log(a_i / n_ij), all non-negative; the log of
    a correctly rounded ratio (log1p of the exact (c - a) / a for c above a/2)."""
    counts = np.asarray(counts)
    counts_f = counts.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # c = 0: 0 log inf, set to 0
        logs = np.log(float(class_size) / counts_f)
        big = counts_f >= class_size / 2
        logs[big] = -np.log1p((counts[big] - class_size).astype(np.float64) / class_size)
        terms = counts_f / n * logs
    terms[counts == 0] = 0.0
    return terms


def mutual_info_shortcut(n_classes: int, n_clusters: int, nnz: int,
                         h_true: Callable[[], Any],
                         h_pred: Callable[[], Any]) -> Any:
    """MI where it equals 0 or an entropy exactly, else None. ``h_true`` and ``h_pred``
    are callables giving H(truth) and H(prediction).

    One cell per cluster: every cluster is pure, H(truth | pred) = 0 and MI = H(truth)
    exactly (one cell per class: MI = H(pred)); computing it the same way as the entropy
    makes homogeneity, completeness and NMI exactly 1.0 where they are 1 in theory."""
    if n_classes == 1 or n_clusters == 1:
        return 0.0
    if nnz == n_clusters:
        return h_true()
    if nnz == n_classes:
        return h_pred()
    return None


def _mutual_info(table: Contingency) -> float:
    exact = mutual_info_shortcut(table.n_classes, table.n_clusters, table.nnz,
                                 lambda: _entropy_of_sizes(table.class_sizes),
                                 lambda: _entropy_of_sizes(table.cluster_sizes))
    if exact is not None:
        return exact
    if table.nnz <= _CHUNK:
        return max(_mi_sum(table, slice(None)), 0.0)
    # large tables chunk by chunk (small temporaries); chunk sums added exactly
    return max(math.fsum(_mi_sum(table, sl) for sl in cell_chunks(table)), 0.0)


def _mi_sum(table: Contingency, cells: slice) -> float:
    """sum of p_ij log(N n_ij / (a_i b_j)) over some cells, accurate to a few ulps of
    sum |p_ij log(...)|, whatever N.

    Each log is of the ratio r = N n / (a b) of exact integer products (int64 while N^2
    fits, Python ints beyond), not a sum of four logs of size log N, which would lose
    ~4 eps log N per cell: r is a correctly rounded quotient, so an exactly independent
    cell gives log 1 = 0 exactly. Near r = 1, log1p of the exact difference (N n - a b) /
    (a b) keeps the relative accuracy of small terms; below r = 1/2, log r itself does
    (1 + x would cancel there).
    """
    n = table.n_samples
    if cells == slice(None):  # one chunk: the per-cell sizes shared with other scores
        a, b = class_size_cells(table), cluster_size_cells(table)
    else:
        a, b = table.class_sizes[table.rows[cells]], table.cluster_sizes[table.cols[cells]]
    counts = table.counts[cells]
    ab = exact_ints(table, a) * b
    d = exact_ints(table, counts) * n
    d -= ab  # N n - a b, exact
    ab_f = ab.astype(np.float64)
    x = d.astype(np.float64)
    x /= ab_f
    far = x < -0.5
    if far.any():  # noise cells far below their expectation: the log of the ratio itself
        ratio = counts * float(n)
        ratio /= ab_f
        terms = np.log(ratio, out=ratio, where=far)
        np.log1p(x, out=terms, where=~far)
    else:
        terms = np.log1p(x, out=x)
    terms *= counts
    return accurate_sum(terms) / n


def _real_deviations(table: Contingency) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(N n - a b, a b, n) per cell of a real-valued table, exact integers scaled by powers
    of two (``scaled_masses``: d and ab by 2^(2k), n by 2^k), and k."""
    cells, by_row, by_col, k = scaled_masses(table)
    ab = by_row[table.rows] * by_col[table.cols]
    return cells * scaled_total(table) - ab, ab, cells, k


# --------------------------------------------------------------------- real masses
# A real-valued table's information is computed by ``share_log_sum`` from the exact
# integers of its masses (``scaled_masses``) wherever floats would lose digits: the log of
# a ratio near 1 (N - a_i for a class holding nearly all the mass), and shares, logs and
# terms beyond the normal floats (masses spanning hundreds of orders of magnitude), each
# such term with a binary exponent of its own; other terms from float ratios of masses
# (within 3 ulps: never a product of two masses). The results are exact Fractions of
# those sums, so that the scores' ratios of them (homogeneity = MI / H(truth) with both
# below 1e-300) are rounded once.


def _real_floats(table: Contingency) -> dict[str, np.ndarray]:
    """Float shares and ratios of a real-valued table within 3 ulps, from its float
    masses and correctly rounded margins and total (``share_log_sum``'s ``approx``):
    ratios of two masses, never products (an overflowed or underflowed one is left to
    the exact integers)."""
    def compute(t: Contingency) -> dict[str, np.ndarray]:
        cells, by_row, by_col, k = scaled_masses(t)
        n = scaled_total(t) / (1 << k)  # correctly rounded
        a, b = line_sizes(t)
        counts, a_cell, b_cell = t.counts, a[t.rows], b[t.cols]
        # 0 * inf is NaN: not a ratio far from 1 for share_log_sum, so taken exactly
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return {"cells": counts / n, "rows": a / n, "cols": b / n,
                    "mi": (counts / a_cell) * (n / b_cell),
                    "row_ratio": n / a, "col_ratio": n / b,
                    "given_pred": b_cell / counts, "given_true": a_cell / counts}
    return table.cached("information:floats", compute)


def _real_info(table: Contingency) -> tuple[Any, Any, Any]:
    """(MI, H(truth), H(prediction)) of a real-valued table, Fractions (the scores'
    formulas take them where they take floats; a float among them would round a tiny
    entropy to 0 in a mixed operation)."""
    cells, by_row, by_col, _ = scaled_masses(table)
    n, floats = scaled_total(table), _real_floats(table)
    h_true = share_log_sum(by_row, n, n, by_row, (floats["rows"], floats["row_ratio"]))
    h_pred = share_log_sum(by_col, n, n, by_col, (floats["cols"], floats["col_ratio"]))
    # one labelling refines the other: its entropy is the larger, also after rounding (two
    # entropies 1e-300 apart would else put completeness, MI / H, above 1)
    if table.nnz == table.n_clusters:
        h_pred = max(h_pred, h_true)
    if table.nnz == table.n_classes:
        h_true = max(h_true, h_pred)
    mi = mutual_info_shortcut(table.n_classes, table.n_clusters, table.nnz,
                              lambda: h_true, lambda: h_pred)
    if mi is None:  # sum_ij (n_ij / N) log(N n_ij / (a_i b_j))
        mi = share_log_sum(cells, n, cells * n, by_row[table.rows] * by_col[table.cols],
                           (floats["cells"], floats["mi"]))
        # in [0, min(H, H')]: the rounding of the sums must not put homogeneity above 1
        mi = min(max(mi, Fraction(0)), h_true, h_pred)
    return Fraction(mi), h_true, h_pred


def _real_conditional(table: Contingency) -> tuple[Fraction, Fraction]:
    """(H(truth | prediction), H(prediction | truth)) of a real-valued table, cell by
    cell: sums of non-negative terms (n_ij / N) log(b_j / n_ij), so a difference of the
    entropies never cancels (VI of nearly equal partitions keeps its relative accuracy)."""
    def compute(t: Contingency) -> tuple[Fraction, Fraction]:
        cells, by_row, by_col, _ = scaled_masses(t)
        n, floats = scaled_total(t), _real_floats(t)
        return (max(share_log_sum(cells, n, by_col[t.cols], cells,
                                  (floats["cells"], floats["given_pred"])), Fraction(0)),
                max(share_log_sum(cells, n, by_row[t.rows], cells,
                                  (floats["cells"], floats["given_true"])), Fraction(0)))
    return table.cached("information:conditional", compute)


def _info(table: Table) -> tuple[float, float, float]:
    """(MI, H(truth), H(prediction)), cached on the table (arrays of each table's values
    for a stack)."""
    if is_stack(table):
        return table.cached("information", _stack_info)
    if table.real_valued:
        return table.cached("information", _real_info)
    return table.cached("information", lambda t: (
        _mutual_info(t), _entropy_of_sizes(t.class_sizes), _entropy_of_sizes(t.cluster_sizes)))


def _stack_info(stack: TableStack) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(MI, H(truth), H(prediction)) of each table of a stack: the terms of
    :func:`entropy_terms` and :func:`_mi_sum` (logs of exact integer ratios), summed per
    table, and MI's exact shortcuts (:func:`mutual_info_shortcut`) where they apply."""
    n = stack.n_samples
    h_true = _stack_entropy(stack.class_sizes, n)
    h_pred = _stack_entropy(stack.cluster_sizes, n)
    counts = stack.counts
    ab = class_size_cells(stack) * cluster_size_cells(stack)  # int64: a stack's N^2 fits
    present = counts > 0
    ab_f = np.where(present, ab, 1).astype(np.float64)
    x = (counts * n[:, None] - ab) / ab_f  # N n - a b exact, divided once
    with np.errstate(divide="ignore", invalid="ignore"):  # empty cells: left out below
        far = np.log(counts * (n[:, None] / ab_f))
        terms = np.where(x < -0.5, far, np.log1p(np.maximum(x, -0.5)))
        terms = np.where(present, counts * terms, 0.0)
    mi = np.maximum(terms.sum(axis=1) / n, 0.0)
    # the exact shortcuts, in reverse priority (as mutual_info_shortcut tries them)
    mi = np.where(stack.nnz == stack.n_classes, h_pred, mi)
    mi = np.where(stack.nnz == stack.n_clusters, h_true, mi)
    mi = np.where((stack.n_classes == 1) | (stack.n_clusters == 1), 0.0, mi)
    return mi, h_true, h_pred


def _stack_entropy(sizes: np.ndarray, n: np.ndarray) -> np.ndarray:
    """H of each row of (B, K) sizes with totals ``n`` (0 for a single label), from the
    terms of :func:`entropy_terms` (zero sizes add 0)."""
    size_f = sizes.astype(np.float64)
    n_f = n.astype(np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(size_f >= n_f / 2, -np.log1p((sizes - n[:, None]) / n_f),
                        np.log(n_f / size_f))
    terms = np.where(sizes > 0, size_f / n_f * logs, 0.0)
    # summed in sorted order: equal multisets of sizes (a perfect match) give equal
    # entropies, as the exact sum does for one table
    return np.where(np.count_nonzero(sizes, axis=1) == 1, 0.0,
                    np.sort(terms, axis=1).sum(axis=1))
