"""The clustering algorithms the experiments compare, by name (scikit-learn, imported lazily).

Every entry is ``fit(X, k, seed, max_pairwise) -> Fitted``: the predicted labels and a
note for the output (empty, or what was approximated). Algorithms that need a number of
clusters get ``k``; the others ignore it. Results depend only on ``X``, ``k`` and ``seed``.

Agglomerative clustering needs O(N^2) memory (scipy's condensed distances: 8 bytes per
pair, 1.6 GB at N = 20,000), so above ``max_pairwise`` points it is fitted on a seeded
random subsample and every other point joins the nearest subsample cluster (ward: the
nearest cluster mean; average linkage: the cluster of its nearest subsample point). The
note says so and the compare output prints it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..inference.bootstrap import check_seed

__all__ = ["ALGORITHMS", "Algorithm", "Fitted", "resolve_algorithms", "run_algorithm",
           "MAX_PAIRWISE", "EXTRA_HINT", "MAX_SEED", "SEED_RANGE"]

MAX_PAIRWISE = 5000
EXTRA_HINT = "pip install 'clustermetrics[experiments]'"
# The algorithms' seed goes to scikit-learn's random_state (KMeans, GaussianMixture,
# estimate_bandwidth, kmeans_plusplus, make_blobs), which takes [0, 2**32 - 1].
MAX_SEED = 2**32 - 1
SEED_RANGE = " (scikit-learn's random_state range)"


class Fitted(NamedTuple):
    """Predicted labels (int64, HDBSCAN noise is -1) and a note ('' when exact)."""

    labels: np.ndarray
    note: str


@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm. ``uses_k``: takes the number of clusters; ``seeded``:
    the result depends on the seed (False: every seed gives the same labels)."""

    name: str
    description: str
    uses_k: bool
    seeded: bool
    fit: Callable[[np.ndarray, int, int, int], Fitted]


def sklearn_cluster():
    """``sklearn.cluster``, or an ImportError that names the extra to install."""
    try:
        import sklearn.cluster
    except ImportError as exc:
        raise ImportError(f"the experiments need scikit-learn: {EXTRA_HINT}") from exc
    return sklearn.cluster


# --------------------------------------------------------------------- algorithms
def _kmeans(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
    km = sklearn_cluster().KMeans(n_clusters=k, n_init=4, random_state=seed)
    return Fitted(km.fit_predict(X).astype(np.int64), "")


def _gmm(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(n_components=k, covariance_type="full", random_state=seed)
    return Fitted(gm.fit_predict(X).astype(np.int64), "")


def _agglomerative(linkage: str) -> Callable[[np.ndarray, int, int, int], Fitted]:
    def fit(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
        model = sklearn_cluster().AgglomerativeClustering(n_clusters=k, linkage=linkage)
        n = X.shape[0]
        if n <= max_pairwise:
            return Fitted(model.fit_predict(X).astype(np.int64), "")
        sample = np.sort(np.random.default_rng(seed).choice(n, max_pairwise, replace=False))
        sub = model.fit_predict(X[sample]).astype(np.int64)
        labels = (_nearest_mean if linkage == "ward" else _nearest_point)(X, X[sample], sub)
        how = "nearest cluster mean" if linkage == "ward" else "cluster of nearest sampled point"
        return Fitted(labels, f"{linkage} linkage fitted on a random subsample of "
                              f"{max_pairwise:,} of {n:,} points (O(N^2) memory); the rest "
                              f"assigned to the {how}")
    return fit


def _nearest_mean(X: np.ndarray, sample: np.ndarray, sub: np.ndarray) -> np.ndarray:
    from scipy.spatial import cKDTree

    means = np.stack([sample[sub == c].mean(axis=0) for c in range(sub.max() + 1)])
    return cKDTree(means).query(X)[1].astype(np.int64)


def _nearest_point(X: np.ndarray, sample: np.ndarray, sub: np.ndarray) -> np.ndarray:
    from scipy.spatial import cKDTree

    return sub[cKDTree(sample).query(X)[1]]


def _birch(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
    # Birch's default threshold (0.5) is in data units; scale it to the data's spread so
    # the CF-tree neither explodes nor collapses on unscaled features.
    threshold = 0.1 * float(np.sqrt(X.var(axis=0).sum())) or 0.5
    model = sklearn_cluster().Birch(n_clusters=k, threshold=threshold)
    return Fitted(model.fit_predict(X).astype(np.int64), "")


def _bandwidth(X: np.ndarray, quantile: float, seed: int) -> float:
    cluster = sklearn_cluster()
    bw = cluster.estimate_bandwidth(X, quantile=quantile, n_samples=min(1000, X.shape[0]),
                                    random_state=seed)
    return float(bw) if bw > 0 else 1.0  # all points equal: any positive bandwidth


def _meanshift(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
    # Each seed is a separate search over all points; bins holding under 0.2 % of the
    # points seed none (they seldom hold a mode), which keeps N = 20,000 to about 2 s.
    ms = sklearn_cluster().MeanShift(bandwidth=_bandwidth(X, 0.1, seed), bin_seeding=True,
                                     min_bin_freq=max(1, X.shape[0] // 500))
    return Fitted(ms.fit_predict(X).astype(np.int64), "")


def _mean_shift_modes(X: np.ndarray, k: int, seed: int) -> np.ndarray:
    """The mean-shift stage of the paper's algorithms K and C: the modes of a mean shift
    on a seeded sample of 1000 points, densest first; when there are fewer than ``k``,
    k-means++ picks the rest from ``X``."""
    cluster = sklearn_cluster()
    rng = np.random.default_rng(seed)
    sample = X[rng.choice(X.shape[0], min(1000, X.shape[0]), replace=False)]
    ms = cluster.MeanShift(bandwidth=_bandwidth(sample, 0.05, seed), bin_seeding=True,
                           min_bin_freq=5 if sample.shape[0] >= 200 else 1)
    modes = ms.fit(sample).cluster_centers_  # sorted densest first
    if modes.shape[0] < k:  # fewer modes than clusters: k-means++ picks the rest
        extra, _ = cluster.kmeans_plusplus(X, k - modes.shape[0], random_state=seed)
        modes = np.vstack([modes, extra])
    return modes


def _meanshift_kmeans(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
    """The paper's algorithm K: mean-shift modes seed k-means (its mean shift + kmeans)."""
    modes = _mean_shift_modes(X, k, seed)[:k]
    km = sklearn_cluster().KMeans(n_clusters=k, init=modes, n_init=1, random_state=seed)
    return Fitted(km.fit_predict(X).astype(np.int64), "")


def _meanshift_hierarchical(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
    """The paper's algorithm C: the same mean-shift modes, grouped by MATLAB clusterdata's
    defaults (Euclidean distances, single linkage, cut into at most k clusters by
    distance, ``clusterdata(modes, 'MaxClust', k)``); every point joins its nearest
    mode's group."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial import cKDTree

    modes = _mean_shift_modes(X, k, seed)
    if modes.shape[0] == 1:
        groups = np.zeros(1, dtype=np.int64)
    else:
        tree = linkage(modes, method="single", metric="euclidean")
        groups = fcluster(tree, k, criterion="maxclust").astype(np.int64) - 1
    nearest = cKDTree(modes).query(X)[1]
    found = int(groups.max()) + 1
    note = "" if found == k else \
        f"single linkage gave {found} clusters for k = {k} (tied merge heights)"
    return Fitted(groups[nearest], note)


def _hdbscan(X: np.ndarray, k: int, seed: int, max_pairwise: int) -> Fitted:
    size = max(5, X.shape[0] // 100)
    model = sklearn_cluster().HDBSCAN(min_cluster_size=size,
                                      min_samples=min(10, X.shape[0] - 1) or 1, copy=True)
    labels = model.fit_predict(X).astype(np.int64)
    noise = int((labels == -1).sum())
    return Fitted(labels, f"{noise:,} noise point{'' if noise == 1 else 's'}" if noise else "")


ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in [
    Algorithm("kmeans", "k-means (4 k-means++ starts)", True, True, _kmeans),
    Algorithm("gmm", "Gaussian mixture, full covariances", True, True, _gmm),
    Algorithm("ward", "agglomerative, ward linkage", True, True, _agglomerative("ward")),
    Algorithm("average", "agglomerative, average linkage", True, True,
              _agglomerative("average")),
    Algorithm("birch", "Birch (threshold 0.1 x data spread)", True, False, _birch),
    Algorithm("meanshift", "mean shift, bin seeding (chooses its number of clusters)",
              False, True, _meanshift),
    Algorithm("meanshift_kmeans", "mean-shift modes as k-means seeds (the paper's K)", True,
              True, _meanshift_kmeans),
    Algorithm("meanshift_hierarchical", "mean-shift modes grouped by single linkage, as "
              "MATLAB clusterdata (the paper's C)", True, True, _meanshift_hierarchical),
    Algorithm("hdbscan", "HDBSCAN (min cluster size 1% of N; noise is a cluster)", False,
              False, _hdbscan),
]}


def resolve_algorithms(names: str | Iterable[str] | None) -> list[str]:
    """Algorithm names from a comma-separated string or a list; None means all.

    >>> resolve_algorithms("kmeans, ward")
    ['kmeans', 'ward']
    """
    if names is None:
        return list(ALGORITHMS)
    items = names.split(",") if isinstance(names, str) else list(names)
    out = [str(n).strip() for n in items if str(n).strip()]
    unknown = [n for n in out if n not in ALGORITHMS]
    if unknown:
        raise ValueError(f"unknown algorithm {unknown[0]!r}; choose from "
                         f"{', '.join(ALGORITHMS)}")
    if not out:
        raise ValueError("no algorithm given")
    return list(dict.fromkeys(out))


def run_algorithm(name: str, X: np.ndarray, k: int, seed: int = 0, *,
                  max_pairwise: int = MAX_PAIRWISE) -> Fitted:
    """Fit algorithm ``name`` on ``X`` (``k`` clusters where it takes a number)."""
    (name,) = resolve_algorithms([name])
    check_seed(seed, "seed", MAX_SEED, SEED_RANGE)
    if not 1 <= k <= X.shape[0]:
        raise ValueError(f"k must be between 1 and the number of points ({X.shape[0]}), "
                         f"got {k}")
    return ALGORITHMS[name].fit(np.asarray(X, dtype=np.float64), int(k), int(seed),
                                int(max_pairwise))
