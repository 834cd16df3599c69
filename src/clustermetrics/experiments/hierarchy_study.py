"""A dendrogram scored at every cut: the tree of a dataset (scipy's ``linkage``) or a tree
given as a linkage matrix, its curves and best cuts as text, JSON, CSV and an HTML page."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..hierarchy.cuts import HierarchyScores, score_hierarchy
from ..render.json_text import dumps
from ..render.tables import Block, Column, ResultTable, blocks_text
from ..render.text import csv_text, visible
from ..scores.registry import METRICS
from . import plots
from .datasets import Dataset
from .html import Image, Section

__all__ = ["LINKAGE_METHODS", "MAX_LINKAGE_POINTS", "CurveResult", "linkage_tree",
           "score_curve", "curve_sections", "dataset_curve"]

# scipy.cluster.hierarchy.linkage's methods (Euclidean distances)
LINKAGE_METHODS = ("single", "complete", "average", "weighted", "centroid", "median", "ward")
# scipy's linkage holds the N (N - 1) / 2 condensed distances: 8 bytes each, 1.6 GB here
MAX_LINKAGE_POINTS = 20_000


def linkage_tree(X: np.ndarray, method: str = "ward") -> np.ndarray:
    """scipy's linkage matrix of ``X`` (Euclidean distances) for ``method``."""
    from scipy.cluster.hierarchy import linkage

    if method not in LINKAGE_METHODS:
        raise ValueError(f"method must be one of {', '.join(LINKAGE_METHODS)}, got {method!r}")
    n = X.shape[0]
    if n > MAX_LINKAGE_POINTS:
        raise ValueError(f"{n:,} points: linkage holds all N(N-1)/2 distances "
                         f"({4 * n * (n - 1) / 1e9:.1f} GB); at most {MAX_LINKAGE_POINTS:,} "
                         "here, or build the tree elsewhere (e.g. genieclust) and pass its "
                         "linkage matrix")
    if n < 2:
        return np.empty((0, 4))
    return linkage(np.asarray(X, dtype=np.float64), method=method, metric="euclidean")


@dataclass
class CurveResult:
    """Every cut of one tree scored: the scores, where they came from, the true k, and
    the other cuts asked for (``k``: each score's value there is shown beside its best)."""

    scores: HierarchyScores
    source: str
    true_k: int
    k: tuple[int, ...] = ()

    @property
    def shown_k(self) -> list[int]:
        """The cuts whose values are listed: the true k, then the others asked for."""
        return list(dict.fromkeys([self.true_k, *sorted(self.k)]))

    def at(self, key: str, k: int) -> float:
        i = int(np.searchsorted(self.scores.n_clusters, k))
        if i < self.scores.n_clusters.shape[0] and self.scores.n_clusters[i] == k:
            return float(self.scores.values[key][i])
        return math.nan

    def rows(self) -> list[tuple[str, int, float, float]]:
        return [(key, best.n_clusters, best.value, self.at(key, self.true_k))
                for key, best in self.scores.best.items()]

    def _at_shown(self, key: str) -> list[float]:
        return [self.at(key, k) for k in self.shown_k]

    def table(self, caption: str, notes: Iterable[str] = ()) -> ResultTable:
        """Each score's best cut, its value there and at each shown cut, its direction."""
        return ResultTable(
            ["score", "best n_clusters", Column("value", ".4f"),
             *[Column(f"at k={k}", ".4f") for k in self.shown_k], "better"],
            [[key, k, v, *self._at_shown(key), str(METRICS[key].better)]
             for key, k, v, _ in self.rows()], caption, list(notes))

    def blocks(self) -> list[Block]:
        n = int(self.scores.children.shape[0] + 1)
        return [self.table(f"{visible(self.source)}: {n:,} points, {n - 1:,} merges; best cut "
                           f"per score (true number of classes: {self.true_k})",
                           self.scores.notes)]

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return dumps({"source": self.source,
                      "n_points": int(self.scores.children.shape[0] + 1),
                      "true_k": self.true_k,
                      "best": {key: {"n_clusters": k, "value": v, "at_true_k": t,
                                     "at_k": {str(c): x for c, x in zip(
                                         self.shown_k, self._at_shown(key), strict=True)}}
                               for key, k, v, t in self.rows()},
                      "computed_only_at": {key: self.scores.cut_only_at
                                           for key in self.scores.cut_only},
                      "notes": self.scores.notes})

    def to_csv(self) -> str:
        others = self.shown_k[1:]
        return csv_text([["score", "best_n_clusters", "best_value", "value_at_true_k",
                          *[f"value_at_k={k}" for k in others]],
                         *[[key, k, v, t, *[self.at(key, c) for c in others]]
                           for key, k, v, t in self.rows()]])


def score_curve(truth: np.ndarray, tree, source: str,
                metrics: str | Iterable[str] | None = None,
                k: Iterable[int] | None = None) -> CurveResult:
    """:func:`~clustermetrics.score_hierarchy` with the true number of classes among the
    cuts where the scores that are not updatable are computed."""
    true_k = int(np.unique(np.asarray(truth).astype(str), return_counts=False).shape[0])
    asked = tuple(sorted(set(k or [])))
    cuts = sorted({true_k, *asked})
    return CurveResult(score_hierarchy(truth, tree, metrics, k=cuts), source, true_k, asked)


def curve_sections(result: CurveResult, image: str = "hierarchy_curves") -> list[Section]:
    """The curves (score against number of clusters, log-x) and the best-cut table;
    ``image``: the PNG's file name (unique per page)."""
    scores = result.scores
    png = plots.hierarchy_plot(scores.n_clusters, scores.values, scores.best, result.true_k,
                               f"{result.source}: every cut of the tree")
    blocks = [
        f"{result.source}: every cut of the dendrogram scored against the truth; stars mark "
        f"each score's best cut, the dotted line the true number of classes "
        f"({result.true_k}).",
        Image(image, png, "Score against the number of clusters (log scale)."),
        result.table("Best cut per score.", scores.notes),
    ]
    return [Section(f"Scores of every cut of the tree: {result.source}", blocks)]


DEMO_CURVE_POINTS = 3000
DEMO_CURVE_METRICS = ("ari", "nmi", "fmi", "pair_precision", "pair_recall", "vi", "mi",
                      "ami", "recovery_rate")


def dataset_curve(dataset: Dataset, method: str = "ward", *,
                  max_points: int = DEMO_CURVE_POINTS, seed: int = 0,
                  metrics=DEMO_CURVE_METRICS) -> CurveResult:
    """The curves of ``method``'s tree of ``dataset`` (a seeded subsample of ``max_points``
    points when larger: the tree needs all pairwise distances)."""
    X, y = dataset.X, dataset.y
    source = f"{dataset.name}, {method} linkage"
    if X.shape[0] > max_points:
        keep = np.sort(np.random.default_rng(seed).choice(X.shape[0], max_points,
                                                          replace=False))
        X, y = X[keep], y[keep]
        source += f" (random {max_points:,} of {dataset.X.shape[0]:,} points)"
    return score_curve(y, linkage_tree(X, method), source, list(metrics))
