"""Per-class and per-cluster diagnostics: where a clustering splits classes and merges them.

A score says *how much* a clustering departs from the truth; these tables say *where*.
For each true class: its best-matching cluster (the one holding most of it), its recall
there, and the clusters it is split over. For each predicted cluster: its majority class,
its purity, and the classes it merges. Both lists come worst first, by the number of items
outside the best match, so the largest split and merge errors lead. Everything is computed
from the table's non-zero cells in O(nnz log nnz).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..render.html import html_table
from ..render.json_text import json_label
from ..render.tables import Column, ResultTable, blocks_text
from ..table import as_contingency, label_values

__all__ = ["ClassDiagnostic", "ClusterDiagnostic", "Diagnostics", "diagnose", "check_top",
           "diagnostics_data"]


def check_top(value: Any, name: str = "top") -> int | None:
    """How many rows to list: a positive integer, or every row for None or "all"; a string
    of digits counts as its number (the command line's ``--details N``). Anything else is
    a ValueError naming the option as ``name`` spells it.

    >>> check_top(3), check_top("all"), check_top(None), check_top("12")
    (3, None, None, 12)
    """
    if value is None or (isinstance(value, str) and value.strip() == "all"):
        return None
    count = value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        count = int(value)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"{name} takes a positive number of rows or 'all', got {value!r}")
    return int(count)


class ClassDiagnostic(NamedTuple):
    """One true class: ``split`` items lie outside ``best_cluster``; ``splits`` lists the
    clusters holding at least ``min_share`` of the class as (cluster, count, share)."""

    label: Any
    size: int
    best_cluster: Any
    best_count: int
    recall: float
    split: int
    splits: tuple[tuple[Any, int, float], ...]


class ClusterDiagnostic(NamedTuple):
    """One predicted cluster: ``merged`` items are not of ``majority_class``; ``merges``
    lists the classes making up at least ``min_share`` of it as (class, count, share)."""

    label: Any
    size: int
    majority_class: Any
    majority_count: int
    purity: float
    merged: int
    merges: tuple[tuple[Any, int, float], ...]


class Diagnostics(NamedTuple):
    """Result of :func:`diagnose`: ``classes`` and ``clusters``, each worst first."""

    classes: tuple[ClassDiagnostic, ...]
    clusters: tuple[ClusterDiagnostic, ...]
    min_share: float

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        """Plain lists of dicts (the ``top`` worst of each side, or all: see
        :func:`check_top`)."""
        top = check_top(top, "top")
        return {
            "min_share": self.min_share,
            "n_classes": len(self.classes),
            "n_clusters": len(self.clusters),
            "classes": [c._asdict() for c in self.classes[:top]],
            "clusters": [c._asdict() for c in self.clusters[:top]],
        }

    def blocks(self, top: int | str | None = 10) -> list[ResultTable]:
        """The ``top`` largest split and merge errors (None or "all": all; see
        :func:`check_top`) as two tables."""
        top = check_top(top, "top")
        share = f"{self.min_share:.0%}"
        size, recall = Column("size", _mass), Column("recall", ".3f")
        return [
            ResultTable(["class", size, "best cluster", recall, Column("outside", _mass),
                         f"split over (>= {share})"],
                        [[c.label, c.size, c.best_cluster, c.recall, c.split, _parts(c.splits)]
                         for c in self.classes[:top]],
                        _heading("split errors: classes spread over clusters",
                                 len(self.classes), top), indent=2),
            ResultTable(["cluster", size, "majority class", Column("purity", ".3f"),
                         Column("others", _mass), f"merges (>= {share})"],
                        [[c.label, c.size, c.majority_class, c.purity, c.merged,
                          _parts(c.merges)] for c in self.clusters[:top]],
                        _heading("merge errors: clusters mixing classes", len(self.clusters),
                                 top), indent=2)]

    def format(self, top: int | str | None = 10) -> str:
        """The two tables of :meth:`blocks` as text."""
        return blocks_text(self.blocks(top))

    def __str__(self) -> str:
        return self.format()

    def _repr_html_(self) -> str:
        """Notebook view: the ten largest split and merge errors as two HTML tables."""
        return self.html(10)

    def html(self, top: int | None = 10) -> str:
        """The two tables of :meth:`format` as HTML (labels escaped)."""
        top = check_top(top, "top")
        share = f"{self.min_share:.0%}"
        classes = html_table(
            ["class", "size", "best cluster", "recall", "outside", f"split over (>= {share})"],
            [[c.label, _mass(c.size), c.best_cluster, f"{c.recall:.3f}", _mass(c.split),
              _parts(c.splits)]
             for c in self.classes[:top]],
            caption=_heading("split errors: classes spread over clusters", len(self.classes),
                             top))
        clusters = html_table(
            ["cluster", "size", "majority class", "purity", "others", f"merges (>= {share})"],
            [[c.label, _mass(c.size), c.majority_class, f"{c.purity:.3f}",
              _mass(c.merged), _parts(c.merges)] for c in self.clusters[:top]],
            caption=_heading("merge errors: clusters mixing classes", len(self.clusters), top))
        return f"<div>{classes}{clusters}</div>"


def diagnostics_data(diag: Diagnostics, top: int | None = None) -> dict[str, Any]:
    """:meth:`Diagnostics.to_dict` with every label as JSON data
    (:func:`clustermetrics.render.json_text.json_label`)."""
    data = diag.to_dict(top)
    for side, own, best, parts in (("classes", "label", "best_cluster", "splits"),
                                   ("clusters", "label", "majority_class", "merges")):
        data[side] = [dict(row, **{own: json_label(row[own]), best: json_label(row[best]),
                                   parts: [[json_label(lab), n, share]
                                           for lab, n, share in row[parts]]})
                      for row in data[side]]
    return data


def diagnose(labels_true: Any, labels_pred: Any = None, *,
             min_share: float = 0.05, sample_weight: Any = None) -> Diagnostics:
    """Per-class and per-cluster breakdown of a clustering, largest errors first.

    For class i with n_i items, the best cluster is argmax_j n_ij (ties: first cluster in
    sorted label order), recall = max_j n_ij / n_i, ``split`` = n_i - max_j n_ij, and
    ``splits`` are the clusters with n_ij >= min_share * n_i, largest first. For cluster j
    the same with the roles swapped: majority class, purity = max_i n_ij / n_j, ``merged``
    = n_j - max_i n_ij, ``merges`` the classes with n_ij >= min_share * n_j. Classes are
    sorted by ``split`` and clusters by ``merged``, descending (ties in label order).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.
    min_share : float in (0, 1], default=0.05
        Smallest share of a class (cluster) a cluster (class) must hold to be listed.
    sample_weight : array-like of shape (n_samples,) of non-negative numbers, optional
        How much each item counts: sizes and counts are then total weights (integer
        weights: repetitions of the items).

    Examples
    --------
    >>> d = diagnose(["a"] * 4 + ["b"] * 4, [0, 0, 0, 1, 1, 1, 1, 1])
    >>> d.classes[0]
    ClassDiagnostic(label='a', size=4, best_cluster=0, best_count=3, recall=0.75, split=1, splits=((0, 3, 0.75), (1, 1, 0.25)))
    >>> d.clusters[0].label, d.clusters[0].purity, d.clusters[0].merges
    (1, 0.8, (('b', 4, 0.8), ('a', 1, 0.2)))
    """  # noqa: E501
    if isinstance(min_share, bool) or not isinstance(min_share, (int, float)) or not (
            0.0 < min_share <= 1.0):
        raise ValueError(f"min_share must be a number in (0, 1], got {min_share!r}")
    table = as_contingency(labels_true, labels_pred, sample_weight)
    classes = _side(table.rows, table.cols, table.counts, table.class_sizes,
                    table.class_labels, table.cluster_labels, min_share)
    clusters = _side(table.cols, table.rows, table.counts, table.cluster_sizes,
                     table.cluster_labels, table.class_labels, min_share)
    return Diagnostics(tuple(ClassDiagnostic(*c) for c in classes),
                       tuple(ClusterDiagnostic(*c) for c in clusters), float(min_share))


def _side(own: np.ndarray, other: np.ndarray, counts: np.ndarray, sizes: np.ndarray,
          own_labels: np.ndarray, other_labels: np.ndarray, min_share: float,
          ) -> list[tuple[Any, ...]]:
    """Rows of diagnostics for the groups ``own`` (classes or clusters), worst first."""
    # Within each group: largest count first, ties by the other side's label order.
    order = np.lexsort((other, -counts, own))
    own, other, counts = own[order], other[order], counts[order]
    first = np.flatnonzero(np.concatenate(([True], own[1:] != own[:-1])))
    best_count = counts[first]
    best_other = other[first]
    outside = sizes - best_count
    listed = counts >= min_share * sizes[own]
    parts = _group_parts(own[listed], label_values(other_labels[other[listed]]),
                         counts[listed].tolist(), (counts[listed] / sizes[own[listed]]).tolist(),
                         sizes.shape[0])
    labels, best_labels = label_values(own_labels), label_values(other_labels[best_other])
    sizes_l, best_l, outside_l = sizes.tolist(), best_count.tolist(), outside.tolist()
    recall = (best_count / sizes).tolist()
    worst = np.lexsort((np.arange(sizes.shape[0]), -outside))
    return [(labels[g], sizes_l[g], best_labels[g], best_l[g], recall[g], outside_l[g],
             parts[g]) for g in worst.tolist()]


def _group_parts(group: np.ndarray, labels: list[Any], counts: list[int], shares: list[float],
                 n_groups: int) -> list[tuple[tuple[Any, int, float], ...]]:
    """Per group, the tuple of its (label, count, share) entries, in the given order."""
    parts: list[list[tuple[Any, int, float]]] = [[] for _ in range(n_groups)]
    for g, label, count, share in zip(group.tolist(), labels, counts, shares, strict=True):
        parts[g].append((label, count, share))
    return [tuple(p) for p in parts]


def _parts(entries: tuple[tuple[Any, int, float], ...]) -> str:
    return ", ".join(f"{label} {_mass(count)} ({share:.0%})" for label, count, share in entries)


def _mass(value: Any) -> str:
    """A count as is; a real mass (real sample weights) to six significant digits."""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _heading(title: str, total: int, top: int | None) -> str:
    shown = total if top is None else min(top, total)
    return f"{title} (largest first; {shown} of {total})"


