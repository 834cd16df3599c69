"""Score every cut of a dendrogram against a ground truth: :func:`score_hierarchy`.

A hierarchical clustering of N points is N - 1 merges; cutting it after N - k merges gives
k clusters. Scoring each of the N cuts from scratch costs O(N) per cut, O(N^2) in all. But
a merge only joins two columns of the contingency table (truth x current clusters), and
every pair-counting score is a function of sum_ij C(n_ij, 2) and sum_j C(b_j, 2), every
information score of MI, H(truth) and H(prediction): those sums change only in the merged
columns. Merging the smaller column's cells into the larger one (small into large) makes
all N - 1 levels cost O(N log N); see :mod:`clustermetrics.hierarchy.merge_loop` (compiled with
numba where the tree is large enough to repay it, :mod:`clustermetrics.compute.dispatch`).

Which scores update this way is read off the registry: each score declares the
sufficient statistics its function reads (``@score(reads=...)``,
:attr:`~clustermetrics.scores.spec.ScoreSpec.reads`): the pair counts, (MI, H(truth),
H(prediction)), or the table's sizes alone. Each level's value is then that same function
of the level's sums, so it equals scoring the cut from scratch (pair counts exactly, as
integers; entropies to a few units of the last place). The function is called once for
all levels, on arrays of their sums (:class:`_Levels`): the score functions are written
with :mod:`clustermetrics.scores._elementwise`, so one formula runs on one table's
numbers and, vectorised, on arrays of many. Past 2^53 the pair counts are Python ints,
on which numpy's arithmetic raises at a 0/0 instead of masking it: the scores reading
them are then called level by level.
The other scores (AMI, the matchings, ...) are computed from scratch, only at the cuts
asked for: the ``n_clusters`` grid when one is given, the ``k`` cuts, and the best cuts of
the updatable scores.

A cut at k clusters undoes the last k - 1 merges, in the tree's merge order (as
scikit-learn's ``AgglomerativeClustering(n_clusters=k)`` and scipy's ``cut_tree``). Where
merge heights tie, this cut may be finer than any height threshold gives (scipy's
``fcluster(Z, k, "maxclust")`` then returns fewer clusters).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..render.text import named_twice
from ..scores._entropies import _entropy_of_sizes, conditional_entropy_terms, entropy_terms
from ..scores.pair_table import PairCounts
from ..scores.registry import METRICS, resolve_metrics
from ..scores.spec import MetricInfo, Undefined
from ..table import Contingency
from ..table.factorize import factorize
from ..table.validation import as_label_array
from ..table.weight_values import read_weights
from . import compiled
from .merge_loop import merge_levels

__all__ = ["BestCut", "HierarchyScores", "as_merges", "cut_labels", "score_hierarchy",
           "updatable_metrics"]

PANDAS_HINT = "pip install 'clustermetrics[hierarchy]'"


class BestCut(NamedTuple):
    """The best cut of a dendrogram for one score: its number of clusters and value."""

    n_clusters: int
    value: float


# ------------------------------------------------------------------ the tree's merges
def as_merges(tree: Any, n_samples: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(children, heights) of a dendrogram: ``children`` an (N - 1, 2) int64 array of
    node ids (i < N: point i; N + m: the cluster formed by merge m), in merge order;
    ``heights`` the merge heights, or None when the tree has none.

    ``tree`` is a scipy linkage matrix ``Z`` (N - 1 rows of 4: children, height, size), a
    children array of N - 1 rows of 2, or a fitted estimator with ``children_`` (and
    ``distances_`` when it has them): scikit-learn's ``AgglomerativeClustering`` (fitted
    with ``compute_full_tree=True``), genieclust's ``Genie`` and ``GIc``.
    """
    heights = None
    sizes = None
    if hasattr(tree, "children_"):
        children = np.asarray(tree.children_)
        distances = getattr(tree, "distances_", None)
        if distances is not None:
            heights = np.asarray(distances, dtype=np.float64)
        n_leaves = getattr(tree, "n_leaves_", None) or getattr(tree, "n_samples_", None)
        if n_leaves is not None and children.ndim == 2 and children.shape[0] < n_leaves - 1:
            raise ValueError(
                f"tree holds {children.shape[0]} merges of {n_leaves} points, not the full "
                f"tree of {n_leaves - 1}: fit it with compute_full_tree=True (scikit-learn: "
                "and n_clusters=None with a distance_threshold, or compute_full_tree=True)")
    else:
        if isinstance(tree, (str, bytes)) or tree is None:
            raise ValueError(f"tree must be a linkage matrix, a children array or a fitted "
                             f"estimator with children_, got {type(tree).__name__}")
        if hasattr(tree, "fit") or hasattr(tree, "get_params"):  # an estimator
            raise ValueError(
                f"tree ({type(tree).__name__}) has no children_: it is not fitted yet, or "
                "not a hierarchical clustering (fit an AgglomerativeClustering, Genie or GIc "
                "first, or pass a linkage matrix or a children array)")
        children = np.asarray(tree)
        if children.size == 0 and children.ndim == 1:  # [] : the tree of one point
            children = children.reshape(0, 2)
        if children.ndim == 2 and children.shape[1] == 4:  # scipy's linkage matrix
            # here, not at the top: scipy.cluster adds ~0.18 s to importing clustermetrics
            from scipy.cluster.hierarchy import is_valid_linkage

            if children.dtype.kind not in "iuf":
                raise ValueError(f"tree's linkage matrix must be numeric, got dtype "
                                 f"{children.dtype}")
            if children.shape[0]:
                is_valid_linkage(np.asarray(children, dtype=np.float64), throw=True,
                                 name="tree")
            heights = np.asarray(children[:, 2], dtype=np.float64)
            sizes = np.asarray(children[:, 3], dtype=np.float64)
            children = children[:, :2]
    if children.ndim != 2 or children.shape[1] != 2:
        raise ValueError(f"tree must have one row per merge: 4 columns (a scipy linkage "
                         f"matrix) or 2 (children), got shape {children.shape}")
    if children.dtype.kind == "f":
        if not np.all(np.isfinite(children)) or np.any(children != np.round(children)):
            raise ValueError("tree's children must be whole node ids")
        if children.size and (children.min() < 0 or children.max() > 2 * children.shape[0]):
            raise ValueError("tree uses a node before it is formed (node ids: i < N is "
                             "point i, N + m the cluster formed by merge m)")
    elif children.dtype.kind not in "iu" and children.size:
        raise ValueError(f"tree's children must be integers, got dtype {children.dtype}")
    children = children.astype(np.int64)
    m = children.shape[0]
    n = m + 1
    if n_samples is not None and n != n_samples:
        raise ValueError(f"tree has {m} merges, so {n} points, but labels_true has "
                         f"{n_samples} (a full tree of N points has N - 1 merges)")
    if heights is not None and (heights.shape != (m,) or not np.all(np.isfinite(heights))):
        raise ValueError("tree's merge heights must be finite, one per merge")
    if m:
        limit = n + np.arange(m)
        if children.min() < 0 or np.any(children >= limit[:, None]):
            raise ValueError("tree uses a node before it is formed (node ids: i < N is "
                             "point i, N + m the cluster formed by merge m)")
        if np.any(np.bincount(children.ravel(), minlength=2 * n - 1)[:2 * n - 2] != 1):
            raise ValueError("tree merges a node twice, or never: every point and every "
                             "cluster but the root must be merged exactly once")
    if sizes is not None and m:
        # the linkage matrix's cluster sizes: each the sum of its two children's (points:
        # 1), which by induction over the merges makes every one the true size
        every = np.concatenate([np.ones(n), sizes])
        wrong = np.flatnonzero(~(sizes == every[children[:, 0]] + every[children[:, 1]]))
        if wrong.size:
            i = int(wrong[0])
            raise ValueError(f"tree's linkage matrix says merge {i} forms a cluster of "
                             f"{sizes[i]:g} points, but it joins clusters of "
                             f"{every[children[i, 0]]:g} and {every[children[i, 1]]:g} "
                             "(column 3 holds the new cluster's size)")
    return children, heights


def _representatives(children: np.ndarray, n: int) -> np.ndarray:
    """One point of each node: rep[i] = i for points, a leaf below it for clusters
    (pointer jumping over left children: O(N log depth), vectorised)."""
    rep = children[:, 0].copy()
    while True:
        inner = rep >= n
        if not inner.any():
            return np.concatenate([np.arange(n, dtype=np.int64), rep])
        rep[inner] = rep[rep[inner] - n]


def cut_labels(children: np.ndarray, n_clusters: int) -> np.ndarray:
    """Labels 0 .. k-1 of the cut of a tree into ``n_clusters`` = k clusters (the first
    N - k merges), numbered in order of first appearance."""
    # here, not at the top: scipy.sparse.csgraph adds ~0.14 s to importing clustermetrics
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = children.shape[0] + 1
    if not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters must be between 1 and {n} (the number of points), "
                         f"got {n_clusters}")
    rep = _representatives(children, n)
    done = children[:n - n_clusters]
    graph = coo_matrix((np.ones(done.shape[0], dtype=np.int8),
                        (rep[done[:, 0]], rep[done[:, 1]])), shape=(n, n))
    count, labels = connected_components(graph, directed=False)
    return labels.astype(np.int64)


# ------------------------------------------------------------------ sufficient statistics
class _NotSufficient(Exception):
    """A score asked the level for more than its sufficient statistics."""


class _Level:
    """One cut of the tree as the score functions see a table: its sizes, pair counts and
    (MI, H(truth), H(prediction)), nothing else (anything else raises _NotSufficient)."""

    __slots__ = ("n_samples", "n_classes", "n_clusters", "nnz", "_pairs", "_info")
    real_valued = False  # a cut counts whole points: no score takes its real-mass branch

    def __init__(self, n_samples, n_classes, n_clusters, nnz, pairs, info):
        self.n_samples, self.n_classes, self.n_clusters, self.nnz = \
            n_samples, n_classes, n_clusters, nnz
        self._pairs, self._info = pairs, info

    def cached(self, key: str, compute: Any) -> Any:
        if key == "pair_counts" and self._pairs is not None:
            return self._pairs
        if key == "information" and self._info is not None:
            return self._info
        raise _NotSufficient(key)

    def __getattr__(self, name: str) -> Any:
        raise _NotSufficient(name)


def _value(entry: MetricInfo, level: Any) -> float:
    """The registered score's value on ``level`` under its default zero-division policy."""
    try:
        return float(entry.spec.body(level, **entry.options))
    except Undefined as undefined:
        default = entry.spec.finite_default
        return float(undefined.value if default is None else default)


def _updatable() -> dict[str, tuple[str, ...]]:
    """Registry keys computable from the sufficient statistics -> the statistics each
    reads, as its score declares them (``@score(reads=...)``)."""
    return {key: entry.spec.reads for key, entry in METRICS.items()
            if entry.spec.reads is not None}


def updatable_metrics() -> list[str]:
    """Registry keys :func:`score_hierarchy` updates merge by merge (every level in
    O(N log N) for all); the others are computed at chosen cuts only."""
    return list(_updatable())


class _LevelStats(NamedTuple):
    tp: np.ndarray
    joined: np.ndarray
    nnz: np.ndarray
    h_pred: np.ndarray
    h_cond: np.ndarray
    h_cond_true: np.ndarray


def _level_stats(codes: np.ndarray, class_sizes: np.ndarray, children: np.ndarray,
                 weights: np.ndarray | None = None) -> _LevelStats:
    """Sufficient statistics of every cut, indexed by its number of clusters (0 unused).
    ``weights``: how many times each point counts (positive integers; None: once), with
    ``class_sizes`` the classes' total weights."""
    n = codes.shape[0]
    n_classes = class_sizes.shape[0]
    if weights is None:
        weights = np.ones(n, dtype=np.int64)
    total = int(class_sizes.sum())
    _check_term_tables(total, n)
    # the terms are looked up by count: one per possible count, up to the total weight
    size_terms = entropy_terms(np.arange(total + 1), total)
    offsets = np.concatenate([[0], np.cumsum(class_sizes + 1)[:-1]]).astype(np.int64)
    cell_terms = np.concatenate([conditional_entropy_terms(np.arange(a + 1), int(a), total)
                                 for a in class_sizes.tolist()])
    out = [np.zeros(n + 1, dtype=np.int64) for _ in range(3)] + \
        [np.zeros(n + 1, dtype=np.float64) for _ in range(3)]
    kernel = compiled.hierarchy_kernel(n)
    if kernel is not None:
        kernel(n, np.ascontiguousarray(children[:, 0]), np.ascontiguousarray(children[:, 1]),
               codes.astype(np.int64), np.ascontiguousarray(weights, dtype=np.int64), total,
               n_classes, size_terms, offsets, cell_terms, *out)
        return _LevelStats(*out)
    lists = [[0] * (n + 1) for _ in range(3)] + [[0.0] * (n + 1) for _ in range(3)]
    merge_levels(n, children[:, 0].tolist(), children[:, 1].tolist(), codes.tolist(),
                 np.asarray(weights).tolist(), total, n_classes, size_terms.tolist(),
                 offsets.tolist(), cell_terms.tolist(), {},
                 [0] * (3 * n), [0] * (2 * n), [0] * (2 * n - 1), *lists)
    return _LevelStats(*(np.array(x, dtype=o.dtype) for x, o in zip(lists, out, strict=True)))


# ------------------------------------------------------------------ the result
@dataclass(eq=False)
class HierarchyScores:
    """Scores of the cuts of a dendrogram (what :func:`score_hierarchy` returns).

    ``n_clusters``: the cuts scored (ascending); ``values[key]``: one value per cut (NaN
    where a cut-only score was not computed); ``heights``: the height at which each cut's
    last merge happened (NaN for N clusters; None when the tree has no heights);
    ``best[key]``: the best cut per score (ties: the fewest clusters); ``cut_only``: the
    scores computed only at ``cut_only_at`` (not updatable merge by merge).
    """

    n_clusters: np.ndarray
    values: dict[str, np.ndarray]
    heights: np.ndarray | None
    best: dict[str, BestCut]
    cut_only: list[str]
    cut_only_at: list[int]
    children: np.ndarray = field(repr=False)
    notes: list[str] = field(default_factory=list)

    def __eq__(self, other: object) -> bool:
        """Equal when every field is (arrays element by element, NaN equal to NaN)."""
        if not isinstance(other, HierarchyScores):
            return NotImplemented

        def same(a: Any, b: Any) -> bool:
            if a is None or b is None:
                return a is b
            return np.array_equal(np.asarray(a), np.asarray(b),
                                  equal_nan=np.asarray(a).dtype.kind == "f")

        return (same(self.n_clusters, other.n_clusters) and same(self.heights, other.heights)
                and same(self.children, other.children)
                and list(self.values) == list(other.values)
                and all(same(v, other.values[k]) for k, v in self.values.items())
                and list(self.best) == list(other.best)
                and all(self.best[k].n_clusters == other.best[k].n_clusters
                        and same(self.best[k].value, other.best[k].value)
                        for k in self.best)
                and self.cut_only == other.cut_only and self.cut_only_at == other.cut_only_at
                and self.notes == other.notes)

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq

    @functools.cached_property
    def frame(self):
        """A pandas DataFrame: column ``n_clusters`` (and ``height``), one per score (built
        on first access, then the same object)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(f"HierarchyScores.frame needs pandas: {PANDAS_HINT}") from exc
        data = {"n_clusters": self.n_clusters}
        if self.heights is not None:
            data["height"] = self.heights
        data.update(self.values)
        return pd.DataFrame(data)

    def labels(self, n_clusters: int) -> np.ndarray:
        """Labels 0 .. k-1 of the cut into ``n_clusters`` = k clusters."""
        return cut_labels(self.children, _check_k(n_clusters, self.children.shape[0] + 1,
                                                  "n_clusters"))

    def summary(self) -> str:
        """The best cut per score, one line each, then the notes."""
        width = max((len(k) for k in self.best), default=5)
        lines = [f"{'score':<{width}}  best n_clusters  value"]
        for key, cut in self.best.items():
            lines.append(f"{key:<{width}}  {cut.n_clusters:>14}  {cut.value:.6g}")
        return "\n".join(lines + self.notes)


def _whole(k: Any) -> bool:
    """A whole number: an int, or a float with no fraction (2.0), not a bool."""
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, numbers.Integral):
        return True
    return isinstance(k, numbers.Real) and math.isfinite(k) and float(k).is_integer()


def _check_k(k: Any, n: int, name: str) -> int:
    if not _whole(k) or not 1 <= k <= n:
        raise ValueError(f"{name} must hold whole numbers of clusters from 1 to {n} (the "
                         f"number of points), got {k!r}")
    return int(k)


def _cuts(values: Any, n: int, name: str) -> list[int]:
    if values is None:
        return []
    if isinstance(values, numbers.Number) and not isinstance(values, (bool, np.bool_)):
        values = [values]
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a number of clusters or an iterable of them, got "
                         f"{values!r}")
    out = [_check_k(v, n, name) for v in values]
    named_twice(out, name)
    if not out:
        raise ValueError(f"{name} is empty: give at least one number of clusters")
    return sorted(out)


def _best(entry: MetricInfo, ks: np.ndarray, values: np.ndarray) -> BestCut | None:
    ok = ~np.isnan(values)
    if not ok.any():
        return None
    v = np.where(ok, values, np.nan)
    if entry.better == "higher":
        i = int(np.nanargmax(v))
    elif entry.better == "lower":
        i = int(np.nanargmin(v))
    else:
        i = int(np.nanargmin(np.abs(v - float(entry.better))))
    return BestCut(int(ks[i]), float(values[i]))


def score_hierarchy(labels_true: Any, tree: Any, metrics: str | Iterable[str] | None = None,
                    n_clusters: int | Iterable[int] | None = None, *,
                    k: int | Iterable[int] | None = None,
                    sample_weight: Any = None) -> HierarchyScores:
    """Score every cut of a dendrogram (or the cuts asked for) against the truth.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        True class labels of the tree's points (point i is leaf i).
    tree : linkage matrix, children array or fitted estimator
        A scipy linkage matrix ``Z``; an (N - 1, 2) children array; or a fitted
        scikit-learn ``AgglomerativeClustering`` (``compute_full_tree=True``) or genieclust
        ``Genie`` / ``GIc``, read through ``children_`` (and ``distances_``).
    metrics : registry keys, function names or a comma-separated string; None: every
        score :func:`updatable_metrics` lists. Scores that are not updatable (AMI, the
        matchings, ...) are computed only at the cuts named by ``n_clusters`` and ``k`` and
        at the best cuts of the updatable scores.
    n_clusters : int or iterable of int, optional
        The cuts (numbers of clusters) to report; None: all, 1 to N. Whole floats (2.0)
        are taken as their ints, here and in ``k``.
    k : int or iterable of int, optional
        More cuts at which to compute the scores that are not updatable (also reported).
    sample_weight : array-like of shape (n_samples,) of positive integers, optional
        How many times each point counts: every cut is scored as the table of the
        repeated points (the cut of the tree labels the points, each point's items go
        where it goes). Positive integers only: a point of weight 0 would be a cluster
        of no items in the cuts (leave it out of the tree), and real weights are not
        repetitions (the merge-by-merge counts are of whole items). The updatable scores
        cost O(total weight) memory for their entropy terms, besides O(N): a total above
        max(2**25, 4 N) is refused with a ValueError before anything is allocated.

    Returns
    -------
    HierarchyScores
        ``.frame`` (a pandas DataFrame, needs pandas), ``.best``, ``.labels(k)``.

    Examples
    --------
    >>> from scipy.cluster.hierarchy import linkage
    >>> X = [[0.0], [0.1], [0.2], [5.0], [5.1], [9.0]]
    >>> result = score_hierarchy([0, 0, 0, 1, 1, 2], linkage(X, "single"), ["ari", "ami"])
    >>> result.best["ari"]
    BestCut(n_clusters=3, value=1.0)
    >>> result.labels(3).tolist()
    [0, 0, 0, 1, 1, 2]
    >>> result.cut_only, result.cut_only_at
    (['ami'], [3])

    References
    ----------
    Fowlkes & Mallows, "A method for comparing two hierarchical clusterings", JASA 78
    (1983), score the cuts of a dendrogram at every k.
    """
    truth = as_label_array(labels_true, "labels_true")
    codes, _ = factorize(truth)
    codes = np.asarray(codes, dtype=np.int64)
    n = codes.shape[0]
    weights = None if sample_weight is None else _point_weights(sample_weight, n)
    children, heights = as_merges(tree, n)
    keys = resolve_metrics(updatable_metrics() if metrics is None else metrics)
    updatable = _updatable()
    fast = [key for key in keys if key in updatable]
    slow = [key for key in keys if key not in updatable]
    rows = _cuts(n_clusters, n, "n_clusters")
    extra = _cuts(k, n, "k")
    ks = np.array(rows, dtype=np.int64) if rows else np.arange(1, n + 1, dtype=np.int64)
    if extra:
        ks = np.union1d(ks, np.array(extra, dtype=np.int64))
    class_sizes = np.bincount(codes)
    if weights is not None:  # total weights, summed exactly in int64
        class_sizes = np.zeros(class_sizes.shape[0], dtype=np.int64)
        np.add.at(class_sizes, codes, weights)
    values: dict[str, np.ndarray] = {}
    if fast:
        values.update(_updatable_values(fast, updatable, codes, class_sizes, children, ks,
                                        weights))
        # a score that read more than it declares (on a branch its test did not reach)
        # is computed from scratch instead, at the chosen cuts
        slow += [key for key in fast if key not in values]
        fast = [key for key in fast if key in values]
    best = {key: b for key in fast
            if (b := _best(METRICS[key], ks, values[key])) is not None}
    notes = []
    cut_at: list[int] = []
    if slow:
        cut_at = sorted(set(rows) | set(extra) | {b.n_clusters for b in best.values()})
        if not cut_at:
            raise ValueError(
                f"{', '.join(slow)} cannot be updated merge by merge: name the cuts to "
                "compute it at with n_clusters= or k=, or ask for an updatable score too "
                "(its best cut is then scored)")
        index = {int(c): i for i, c in enumerate(ks)}
        for key in slow:
            values[key] = np.full(ks.shape[0], np.nan)
        for c in cut_at:
            table = Contingency.from_labels(codes, cut_labels(children, c), weights)
            for key in slow:
                values[key][index[c]] = METRICS[key].compute(table)[0]
        for key in slow:
            if (b := _best(METRICS[key], ks, values[key])) is not None:
                best[key] = b
        notes.append(f"computed only at n_clusters = {', '.join(map(str, cut_at))} "
                     f"(not updatable merge by merge): {', '.join(slow)}")
    best = {key: best[key] for key in keys if key in best}
    cut_heights = None
    if heights is not None:
        cut_heights = np.full(ks.shape[0], np.nan)
        formed = ks < n
        cut_heights[formed] = heights[n - ks[formed] - 1]
    return HierarchyScores(ks, {key: values[key] for key in keys}, cut_heights, best, slow,
                           cut_at, children, notes)


class _Levels(_Level):
    """Many cuts of the tree at once, as the score functions see a table: its sizes, pair
    counts and (MI, H(truth), H(prediction)) as arrays, one entry per cut (the functions
    are written with :mod:`clustermetrics.scores._elementwise`, so they compute all
    entries in one vectorised pass); nothing else (anything else raises _NotSufficient).
    The 0/0 entries a function meets are recorded in ``undefined``."""

    __slots__ = ("undefined",)

    def __init__(self, n_samples, n_classes, n_clusters, nnz, pairs, info):
        super().__init__(n_samples, n_classes, n_clusters, nnz, pairs, info)
        self.undefined: list[tuple[np.ndarray, np.ndarray]] = []

    def record_undefined(self, mask: Any, value: Any) -> None:
        shape = self.n_clusters.shape
        self.undefined.append((np.broadcast_to(mask, shape),
                               np.broadcast_to(np.asarray(value, dtype=np.float64), shape)))


# Every pair count is below C(N, 2), which fits in int64 up to N = 2^32 points.
_MAX_POINTS = 2**32
# Integers below this are exact in float64.
_FLOAT_EXACT = 2**53


# Entries of the entropy-term tables, beyond those of the points themselves: the tables
# are indexed by count, 32 bytes per unit of total weight while they are built (1 GiB here).
_MAX_TERMS = 2**25


def _check_term_tables(total: int, n: int) -> None:
    """Refuse, before allocating them, term tables far larger than the tree: weights that
    add up to much more than the points (2**31 on 4 points asked numpy for 16 GiB)."""
    if total > max(_MAX_TERMS, 4 * n):
        raise ValueError(f"sample_weight adds up to {total}, more than max(2**25, 4 x the "
                         f"{n} points) = {max(_MAX_TERMS, 4 * n)}, the most score_hierarchy "
                         "updates merge by merge (its entropy terms take 32 bytes per unit "
                         "of total weight); score the cuts you need with evaluate(labels, "
                         "cut, sample_weight=...), or ask only for scores that are not "
                         "updatable, at the cuts named by n_clusters= or k=")


def _check_points(n: int) -> None:
    if n > _MAX_POINTS:
        raise ValueError(f"score_hierarchy handles trees of at most 2**32 points, or a total "
                         f"sample_weight of at most 2**32 (their pair counts fit in 64-bit "
                         f"integers), got {n}")


def _point_weights(sample_weight: Any, n: int) -> np.ndarray:
    """``sample_weight`` of :func:`score_hierarchy` checked: one positive integer per
    point (errors name sample_weight and say why)."""
    if isinstance(sample_weight, (str, bytes)) or (np.ndim(sample_weight) == 0
                                                   and not hasattr(sample_weight, "__len__")):
        raise ValueError("sample_weight must be a sequence of one weight per point, got "
                         f"{type(sample_weight).__name__}")
    w = read_weights(sample_weight, "sample_weight").item_values()  # int64 when whole
    if w.shape[0] != n:
        raise ValueError(f"labels_true and sample_weight have different lengths: {n} and "
                         f"{w.shape[0]}")
    if w.dtype.kind == "f":
        raise ValueError("sample_weight of score_hierarchy must be whole numbers, the times "
                         "each point is repeated: real weights are not repetitions, and the "
                         "cuts are counted merge by merge in whole items")
    if (w == 0).any():
        raise ValueError(f"sample_weight is 0 for point {int(np.argmax(w == 0))}: every cut "
                         "would hold a cluster of no items; leave the point out of the tree")
    return w


def _updatable_values(keys: list[str], updatable: dict[str, tuple[str, ...]],
                      codes: np.ndarray, class_sizes: np.ndarray, children: np.ndarray,
                      ks: np.ndarray, weights: np.ndarray | None = None,
                      ) -> dict[str, np.ndarray]:
    n_classes = class_sizes.shape[0]
    n = int(class_sizes.sum())  # the items: the points, or their total weight
    _check_points(n)
    stats = _level_stats(codes, class_sizes, children, weights)
    want_pairs = any("pairs" in updatable[key] for key in keys)
    want_info = any("information" in updatable[key] for key in keys)
    same_true = int((class_sizes * (class_sizes - 1) // 2).sum())
    all_pairs = n * (n - 1) // 2
    h_true = _entropy_of_sizes(class_sizes)
    nnz = stats.nnz[ks]
    pairs = info = None
    exact: tuple[np.ndarray, ...] = ()
    if want_pairs:  # int64 is exact: every count is below C(N, 2) < 2^63
        tp, joined = stats.tp[ks], stats.joined[ks]
        exact = (tp, same_true - tp, joined - tp, all_pairs - same_true - joined + tp)
        # the scores compute in float64, where every count is exact (below 2^53: N up to
        # ~1.3e8); beyond, on Python ints (object arrays: exact, slower)
        pairs = PairCounts(*(x.astype(np.float64 if all_pairs < _FLOAT_EXACT else object)
                             for x in exact))
    if want_info:
        h_pred = np.where(ks == 1, 0.0, stats.h_pred[ks])  # one size: exactly 0
        # MI = H(pred) - H(pred | truth) = H(truth) - H(truth | pred): the difference from
        # the smaller entropy, where MI is not a small difference of two large sums (a
        # tiny H(truth) among many clusters keeps its relative accuracy, and so the
        # scores divided by it)
        mi = np.maximum(np.where(h_true <= h_pred, h_true - stats.h_cond_true[ks],
                                 h_pred - stats.h_cond[ks]), 0.0)
        # where MI is exactly 0 or an entropy (mutual_info_shortcut), in reverse priority
        mi = np.where(nnz == n_classes, h_pred, mi)
        mi = np.where(nnz == ks, h_true, mi)
        mi = np.where((ks == 1) | (n_classes == 1), 0.0, mi)
        info = (mi, h_true, h_pred)
    levels = _Levels(n, n_classes, ks, nnz, pairs, info)
    out = {}
    lists = None
    for key in keys:
        try:
            if not (all_pairs >= _FLOAT_EXACT and "pairs" in updatable[key]):
                out[key] = METRICS[key].compute_many(levels)
                continue
            if lists is None:  # one table per level, exact Python ints
                lists = (ks.tolist(), nnz.tolist(),
                         [None] * ks.shape[0] if pairs is None else list(map(
                             PairCounts._make, zip(*(x.tolist() for x in exact),
                                                   strict=True))),
                         [None] * ks.shape[0] if info is None else
                         [(m, h_true, h) for m, h in zip(info[0].tolist(),
                                                          info[2].tolist(), strict=True)])
            out[key] = _values(METRICS[key], _Level(n, n_classes, 0, 0, None, None), *lists)
        except _NotSufficient:  # read more than it declares: computed at the chosen cuts
            continue
    return out


def _values(entry: MetricInfo, level: _Level, ks: list[int], nnzs: list[int], pairs: list,
            infos: list) -> np.ndarray:
    """:func:`_value` of every level, one ``level`` object refilled per cut (the score
    functions keep nothing of a table); the per-level loop is the hot one: kept lean."""
    body, options, default = entry.spec.body, entry.options, entry.spec.finite_default
    n = len(ks)
    out = [0.0] * n
    i = 0
    while i < n:
        try:
            for i in range(i, n):  # noqa: B020 (i is where an Undefined stopped it)
                level.n_clusters, level.nnz, level._pairs, level._info = \
                    ks[i], nnzs[i], pairs[i], infos[i]
                out[i] = body(level, **options) if options else body(level)
            i = n
        except Undefined as undefined:
            out[i] = undefined.value if default is None else default
            i += 1
    return np.array(out, dtype=np.float64)
