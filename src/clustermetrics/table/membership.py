"""Soft memberships: two N x K row-stochastic matrices checked and aligned for scoring.

A membership matrix gives each item (row) its degree of membership in each cluster
(column): fuzzy c-means, a Gaussian mixture's posterior probabilities, soft HDBSCAN. The
scores of soft memberships (``scores/fuzzy.py``) read two of them for the same items.
A 1-D sequence of crisp labels is a membership matrix too: its one-hot encoding (one
column per distinct label, in sorted label order), so a crisp truth compares with a soft
prediction directly.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .factorize import factorize
from .validation import as_label_array

__all__ = ["DENSE_LIMIT", "UNASSIGNED", "Memberships", "as_membership", "memberships"]

#: What to do with an item whose memberships sum to less than 1 (an unassigned or noise
#: item: soft HDBSCAN's outliers, a row of zeros).
UNASSIGNED = ("raise", "noise_cluster", "drop")

#: Entries of the dense float64 matrix a membership is read into (2 GiB) beyond which it is
#: refused rather than allocated: the scores of memberships read dense rows
DENSE_LIMIT = 1 << 28


class Memberships(NamedTuple):
    """Two checked membership matrices for the same items (float64, C-ordered), and
    whether each is crisp (every entry 0 or 1: a one-hot encoding of labels)."""

    true: np.ndarray
    pred: np.ndarray
    true_crisp: bool
    pred_crisp: bool


def memberships(membership_true: Any, membership_pred: Any, *, tol: float = 1e-9,
                unassigned: str = "raise") -> Memberships:
    """Both memberships checked (:func:`as_membership`), of the same items.

    ``unassigned`` says what an item whose memberships sum to less than ``1 - tol`` is:
    ``"raise"`` refuses it (ValueError naming the argument and the row); ``"noise_cluster"``
    gives its missing mass to one extra column, a cluster of noise (two noise items then
    agree to be together); ``"drop"`` leaves the item out of both memberships.
    """
    if unassigned not in UNASSIGNED:
        raise ValueError(f"unassigned must be one of {', '.join(map(repr, UNASSIGNED))}, "
                         f"got {unassigned!r}")
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 <= tol < 0.5:
        raise ValueError(f"tol must be a number in [0, 0.5), got {tol!r}")
    u = as_membership(membership_true, "membership_true", tol=tol, unassigned=unassigned)
    v = as_membership(membership_pred, "membership_pred", tol=tol, unassigned=unassigned)
    if u.shape[0] != v.shape[0]:
        raise ValueError(f"membership_true and membership_pred must have the same number of "
                         f"items (rows), got {u.shape[0]} and {v.shape[0]}")
    if unassigned == "drop":
        keep = (u.sum(axis=1) >= 1 - tol) & (v.sum(axis=1) >= 1 - tol)
        u, v = u[keep], v[keep]
        if u.shape[0] == 0:
            raise ValueError("unassigned='drop' left no item: every row of membership_true "
                             "or membership_pred sums to less than 1")
    elif unassigned == "noise_cluster":
        u, v = _with_noise_column(u, tol), _with_noise_column(v, tol)
    return Memberships(np.ascontiguousarray(u), np.ascontiguousarray(v),
                       _is_crisp(u), _is_crisp(v))


def as_membership(values: Any, name: str, *, tol: float = 1e-9,
                  unassigned: str = "raise") -> np.ndarray:
    """``values`` as an N x K float64 membership matrix, or ValueError naming ``name``,
    the first offending row and the problem.

    2-D input (numpy, nested lists, a scipy.sparse matrix) is a membership matrix: every
    entry finite and non-negative, every row summing to 1 within ``tol``, or to less
    when ``unassigned`` is not ``"raise"`` (never to more). 1-D input is crisp labels,
    one-hot encoded with columns in sorted label order (their missing values refused as
    for every labelling).
    """
    if hasattr(values, "toarray") and hasattr(values, "tocsr"):  # scipy.sparse
        _check_dense_size(values.shape[0], values.shape[1], name)
        values = values.toarray()
    arr = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if arr.ndim == 1 or arr.dtype == object:
        return _one_hot(as_label_array(values, name), name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be an (n_items, n_clusters) membership matrix or a "
                         f"1-D sequence of labels, got {arr.ndim} dimensions")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}): it needs at least one item "
                         "and one cluster")
    u = arr.astype(np.float64)  # a copy: the caller's array is never changed
    _check_entries(u, name)
    _check_rows(u, name, tol, unassigned)
    # a row accepted as summing to 1 within tol is read as exactly stochastic: the scores'
    # definitions (and their ranges) hold for rows of sum 1, not 1 + tol
    # (only rows off by more than their sum's own rounding: dividing a row of exact
    # fractions by a sum one ulp from 1 would move every entry)
    sums = u.sum(axis=1)
    off = np.abs(sums - 1.0)
    whole = (off <= tol) & (off > u.shape[1] * np.finfo(np.float64).eps)
    u[whole] /= sums[whole, None]
    return u


def _check_dense_size(rows: int, cols: int, name: str) -> None:
    if rows * cols > DENSE_LIMIT:
        raise ValueError(
            f"{name} would be a dense {rows} x {cols} membership matrix "
            f"({rows * cols * 8 / 2**30:.1f} GiB), over the {DENSE_LIMIT * 8 >> 30} GiB these "
            "scores read; on crisp labels they equal rand_score / adjusted_rand_score, which "
            "read the sparse contingency table")


def _one_hot(labels: np.ndarray, name: str) -> np.ndarray:
    codes, uniques = factorize(labels)
    _check_dense_size(len(codes), len(uniques), name)
    out = np.zeros((len(codes), len(uniques)), dtype=np.float64)
    out[np.arange(len(codes)), codes] = 1.0
    return out


def _check_entries(u: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(u)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be finite: row {row}, column {col} is {float(u[row, col])}")
    negative = u < 0
    if negative.any():
        row, col = np.argwhere(negative)[0]
        raise ValueError(f"{name} must be non-negative: row {row}, column {col} is "
                         f"{float(u[row, col])!r}")


def _check_rows(u: np.ndarray, name: str, tol: float, unassigned: str) -> None:
    sums = u.sum(axis=1)
    over = sums > 1 + tol
    if over.any():
        row = int(np.argmax(over))
        raise ValueError(f"{name} rows must sum to 1 (memberships of an item): row {row} "
                         f"sums to {float(sums[row])!r}, more than 1 + tol ({tol})")
    under = sums < 1 - tol
    if under.any() and unassigned == "raise":
        row = int(np.argmax(under))
        raise ValueError(
            f"{name} rows must sum to 1 (memberships of an item): row {row} sums to "
            f"{float(sums[row])!r}, an unassigned (noise) item; pass unassigned='noise_cluster' "
            "to give its missing mass to a cluster of noise, or unassigned='drop' to leave "
            "such items out")


def _with_noise_column(u: np.ndarray, tol: float) -> np.ndarray:
    missing = 1.0 - u.sum(axis=1)
    if not (missing > tol).any():
        return u
    return np.column_stack([u, np.where(missing > tol, missing, 0.0)])


def _is_crisp(u: np.ndarray) -> bool:
    return bool(((u == 0) | (u == 1)).all() and (u.sum(axis=1) == 1).all())
