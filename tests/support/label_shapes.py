"""Shapes of label pairs for the scikit-learn agreement tests and study.

Each shape is ``f(rng, n, k) -> (labels_true, labels_pred)`` with n items; ``k`` sets the
number of labels (or of merged pairs, or stray items). Together they cover the regimes where
the scores are well and badly conditioned: one class, all singletons, uniform noise,
near-perfect, identical, nested, imbalanced, near all-singletons (entropies close to log N,
so AMI's denominator mean(H) - E[MI] is ~1/N) and a few stray items (entropies close to 0).
"""

from __future__ import annotations

import numpy as np


def _noise(rng, n, k):
    return rng.integers(0, max(1, min(k, n)), n)


def one_class(rng, n, k):
    return np.zeros(n, dtype=np.int64), _noise(rng, n, k)


def noise(rng, n, k):
    return _noise(rng, n, k), _noise(rng, n, k)


def two_vs_k(rng, n, k):
    return _noise(rng, n, 2), _noise(rng, n, k)


def singletons_vs_noise(rng, n, k):
    return np.arange(n), _noise(rng, n, k)


def singletons_both(rng, n, k):
    return np.arange(n), rng.permutation(n)


def near_perfect(rng, n, k):
    t = _noise(rng, n, k)
    return t, np.where(rng.random(n) < 0.05, _noise(rng, n, k), t)


def identical(rng, n, k):
    t = _noise(rng, n, k)
    return t, (t * 7 + 3) % 1_000_003


def nested(rng, n, k):
    t = _noise(rng, n, k)
    return t, t * 2 + rng.integers(0, 2, n)


def imbalanced(rng, n, k):
    return np.minimum(rng.zipf(1.5, n), max(k, 1)), _noise(rng, n, k)


def _merge_pairs(rng, n, m):
    """All singletons but m random pairs put together."""
    p = np.arange(n)
    idx = rng.permutation(n)[: 2 * min(m, n // 2)]
    p[idx[1::2]] = p[idx[0::2]]
    return p


def near_singletons(rng, n, k):
    return np.arange(n), _merge_pairs(rng, n, k)


def pairs_vs_near_singletons(rng, n, k):
    return rng.permutation(n) // 2, _merge_pairs(rng, n, k)


def strays(rng, n, k):
    """One big class and cluster; k items are off on each side."""
    t = np.zeros(n, dtype=np.int64)
    t[: min(k, n)] = 1
    p = np.zeros(n, dtype=np.int64)
    p[rng.permutation(n)[: min(k, n)]] = 1
    return t, p


SHAPES = {f.__name__: f for f in (
    one_class, noise, two_vs_k, singletons_vs_noise, singletons_both, near_perfect, identical,
    nested, imbalanced, near_singletons, pairs_vs_near_singletons, strays)}
# shapes with ~N classes AND ~N clusters: scikit-learn's E[MI] loops over all their pairs
QUADRATIC = {"singletons_both", "near_singletons", "pairs_vs_near_singletons"}
