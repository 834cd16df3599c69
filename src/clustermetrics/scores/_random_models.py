"""Random-clustering models for the chance adjustment of ARI and AMI (Gates & Ahn 2017).

The truth is fixed; the prediction is drawn at random from

* ``"perm"``: the permutation model, the prediction's cluster sizes fixed (scikit-learn's
  ARI and AMI; Hubert & Arabie 1985, Vinh et al. 2010);
* ``"num"``: uniform over the partitions of the N items into the prediction's number of
  clusters K (Gates & Ahn's one-sided M_num);
* ``"all"``: uniform over all partitions of the N items (one-sided M_all).

Both random models are exchangeable, so what the adjustments need is

* q, the probability that two given items share a random cluster: S(N-1, K) / S(N, K)
  under ``"num"`` (merge the two items into one), B(N-1) / B(N) under ``"all"``;
* the expected number of random clusters of each size b: C(N, b) S(N-b, K-1) / S(N, K)
  and C(N, b) B(N-b) / B(N), each such cluster being a uniformly random b-subset.

S(n, k) are Stirling numbers of the second kind and B(n) Bell numbers, computed here as
exact Python integers (cached), so every probability is an exact ratio rounded once. The
integers have about N log2(K) bits, so the cost grows quickly: the limits below keep each
computation to about a second; past them the functions raise ValueError naming the model
and the limit (the permutation model has no limit, and a permutation test covers any N).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

__all__ = ["RANDOM_MODELS", "MAX_N_ALL", "MAX_WORK_NUM", "pair_probability",
           "cluster_size_weights", "stirling2", "bell_numbers"]

RANDOM_MODELS = ("perm", "num", "all")
MAX_N_ALL = 2000  # Bell numbers B(0..N): N^2 / 2 additions of integers of ~N log N bits
MAX_WORK_NUM = 400_000  # N K for Stirling numbers (a column of the triangle, or the sum)


def _refuse(model: str, n: int, k: int | None) -> ValueError:
    if model == "all":
        limit = f"N <= {MAX_N_ALL:,} (Bell numbers)"
    else:
        limit = f"N x K <= {MAX_WORK_NUM:,} (Stirling numbers); here N = {n:,}, K = {k:,}"
    return ValueError(f"random_model={model!r} is computed exactly up to {limit}; use "
                      "random_model='perm', or a permutation test for other null models")


@lru_cache(maxsize=64)
def stirling2(n: int, k: int) -> int:
    """S(n, k), the number of partitions of n items into k non-empty blocks, exactly:
    sum_j (-1)^j C(k, j) (k - j)^n / k!."""
    if n < 0 or k < 0:
        raise ValueError("stirling2 needs n, k >= 0")
    if k == 0 or k > n:
        return int(n == k)
    total, binom = 0, 1
    for j in range(k + 1):
        term = binom * pow(k - j, n)
        total += -term if j & 1 else term
        binom = binom * (k - j) // (j + 1)
    return total // math.factorial(k)


@lru_cache(maxsize=4)
def bell_numbers(n: int) -> tuple[int, ...]:
    """B(0), ..., B(n) exactly (Bell's triangle: positive additions only)."""
    row, out = [1], [1]
    for _ in range(n):
        new = [row[-1]]
        for x in row:
            new.append(new[-1] + x)
        row = new
        out.append(row[0])
    return tuple(out)


@lru_cache(maxsize=8)
def _stirling_column(n_max: int, k: int) -> tuple[int, ...]:
    """S(m, k) for m = 0..n_max exactly: the triangle's recurrence
    S(m, j) = j S(m-1, j) + S(m-1, j-1), column by column (O(n_max k) additions)."""
    col = [1] + [0] * n_max  # j = 0
    for j in range(1, k + 1):
        new = [0] * (n_max + 1)
        for m in range(1, n_max + 1):
            new[m] = j * new[m - 1] + col[m - 1]
        col = new
    return tuple(col)


def _check(model: str, n: int, k: int) -> None:
    if model == "all" and n > MAX_N_ALL:
        raise _refuse(model, n, None)
    if model == "num" and n * k > MAX_WORK_NUM:
        raise _refuse(model, n, k)


def pair_probability(model: str, n: int, k: int) -> Fraction:
    """Probability that two given items share a cluster of a random clustering of ``n``
    items (``k`` clusters under ``"num"``), exactly."""
    _check(model, n, k)
    if n < 2:
        return Fraction(0)
    if model == "num":
        return Fraction(stirling2(n - 1, k), stirling2(n, k))
    bells = bell_numbers(n)
    return Fraction(bells[n - 1], bells[n])


def cluster_size_weights(model: str, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(sizes b, expected number of random clusters of size b), each weight an exact ratio
    rounded once; sum of b x weight is N."""
    _check(model, n, k)
    sizes = np.arange(1, n + 1, dtype=np.int64)
    if model == "num":
        sizes = sizes[: n - k + 1]
        column = _stirling_column(n - 1, k - 1)
        total = stirling2(n, k)
        weights = [math.comb(n, b) * column[n - b] / total for b in sizes.tolist()]
    else:
        bells = bell_numbers(n)
        weights = [math.comb(n, b) * bells[n - b] / bells[n] for b in sizes.tolist()]
    return sizes, np.asarray(weights, dtype=np.float64)
