"""Noise points in the prediction (HDBSCAN's -1, DBSCAN's outliers): one rule for every score.

Density-based algorithms leave some items unclustered under a *noise label*. Scoring that
label as one big cluster would reward or punish the algorithm for an artefact of labelling,
so clustermetrics rewrites the table once, and every score then sees the same thing:

* ``noise="singletons"`` (default): each noise point is a cluster of its own, labelled
  by a :class:`NoiseSingleton` (a type of its own, so it never equals a real label). Pair
  counting: noise points form no predicted pairs, so they lower pair recall, never pair
  precision. Information: each is a distinct cluster of size 1 (H(pred) grows, homogeneity
  is unharmed, completeness drops). Set matching: a singleton can be matched to a class but
  recovers at most one item; purity and B-cubed precision count it as pure, the recall
  side (inverse purity, B-cubed recall, recovery) as a lost item.
* ``noise="exclude"``: noise points are removed from both labelings and the scores describe
  the clustered items only (classes left empty disappear). Report the coverage with it:
  ``Report.noise`` holds how many items were removed.

Singletons add one cell per noise point, so the table then grows with the number of noise
points; ``exclude`` only shrinks it.

**Every point noise.** One rule for the data, each bootstrap replicate and the experiments:
``"singletons"`` scores the table of N one-item clusters (every score is defined on it),
``"exclude"`` has nothing left: an error for the data, a skipped replicate in a bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..scores.pair_table import leave_out_copies
from ..table import Contingency
from ..table.factorize import sort_labels

__all__ = ["NOISE_MODES", "NoiseInfo", "NoiseSingleton", "with_noise", "check_noise_mode",
           "noise_in_replicate"]

NOISE_MODES = ("singletons", "exclude")


@dataclass(frozen=True, order=True)
class NoiseSingleton:
    """The label of the one-item cluster of a noise point: the ``index``-th noise point
    (in class order) of the noise label ``noise_label``.

    A type of its own: it equals no other value, so it cannot collide with a real
    predicted label, a tuple ``(-1, 0)`` included. It prints as ``noise(-1)#0`` (tables,
    CSV and JSON show that text) and sorts after numbers, by type name among other labels.

    >>> NoiseSingleton(-1, 0) == (-1, 0), str(NoiseSingleton(-1, 0))
    (False, 'noise(-1)#0')
    """

    noise_label: Any
    index: int

    def __str__(self) -> str:
        return f"noise({self.noise_label})#{self.index}"


class NoiseInfo(NamedTuple):
    """What :func:`with_noise` did: the label, the mode and the number of noise points."""

    label: Any
    mode: str
    n_noise: int | float  # the noise points' total weight, a float with real weights
    n_samples: int | float


def with_noise(table: Contingency, noise_label: Any,
               noise: str = "singletons") -> tuple[Contingency, NoiseInfo]:
    """The table with the predicted cluster ``noise_label`` treated as noise.

    Singleton clusters are labelled :class:`NoiseSingleton` ``(noise_label, k)`` for k = 0,
    1, ... (in class order), a type that no real label equals. When every point is noise,
    ``"singletons"`` gives N one-item clusters and ``"exclude"`` is an error (nothing is
    left to score). A noise label that no predicted label equals leaves the table unchanged
    (``n_noise == 0``), unless its type matches no predicted label at all, which is almost
    certainly a mistake ("-1" for -1).

    Examples
    --------
    >>> t = Contingency.from_labels([0, 0, 1, 1, 1], [5, 5, -1, -1, 7])
    >>> s, info = with_noise(t, -1)
    >>> s.n_clusters, info.n_noise, [str(c) for c in s.cluster_labels]
    (4, 2, ['5', '7', 'noise(-1)#0', 'noise(-1)#1'])
    >>> with_noise(t, -1, "exclude")[0].n_samples
    3
    >>> with_noise(Contingency.from_labels([0, 1], [-1, -1]), -1)[0].n_clusters
    2
    """
    check_noise_mode(noise)
    column = _noise_column(table.cluster_labels, noise_label)
    if column is None:  # no noise point: nothing to rewrite, whatever the table holds
        return table, NoiseInfo(noise_label, noise, 0, table.n_samples)
    if noise == "singletons":
        table.require_counts('noise="singletons"', "each noise item becomes a cluster of "
                             'its own; noise="exclude" works on real masses')
    info = NoiseInfo(noise_label, noise, table.counts[table.cols == column].sum().item(),
                     table.n_samples)
    rewritten = _rewrite(table, column, noise, noise_label)
    if rewritten is None:
        raise ValueError(f"every predicted label is the noise label {noise_label!r} "
                         "(noise_label): excluding the noise points (noise 'exclude') "
                         "leaves nothing to score; 'singletons' scores each as a cluster "
                         "of its own")
    return rewritten, info


def check_noise_mode(noise: Any, name: str = "noise") -> None:
    """ValueError naming the option unless ``noise`` is one of :data:`NOISE_MODES`."""
    if not isinstance(noise, str) or noise not in NOISE_MODES:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, NOISE_MODES))}, "
                         f"got {noise!r}")


def noise_in_replicate(table: Contingency, noise_label: Any,
                       noise: str = "singletons") -> Contingency | None:
    """:func:`with_noise` for a bootstrap replicate of a table it accepted: the same
    rewrite, but a replicate may hold no noise point (then it is unchanged, whatever the
    types of the labels left), and where every drawn item is noise ``"exclude"`` leaves
    none: None, the replicate is skipped (:mod:`clustermetrics.inference.bootstrap`).

    >>> t = Contingency.from_labels([0, 1], [-1, -1])
    >>> noise_in_replicate(t, -1).n_clusters, noise_in_replicate(t, -1, "exclude")
    (2, None)
    """
    column = next((i for i, v in enumerate(table.cluster_labels.tolist())
                   if _same(v, noise_label)), None)
    if column is None:
        return table
    rewritten = _rewrite(table, column, noise, noise_label)
    terms = table.peek("pair_counts:copy_terms")
    if rewritten is not None and terms is not None:
        # copies of a noise item are dropped, or each its own singleton: neither pairs
        leave_out_copies(rewritten, float(terms[table.cols != column].sum()))
    return rewritten


def _same(value: Any, noise_label: Any) -> bool:
    try:
        return bool(value == noise_label)
    except (TypeError, ValueError):  # e.g. an array-valued comparison
        return False


def _rewrite(table: Contingency, column: int, noise: str,
             noise_label: Any) -> Contingency | None:
    """The rewrite of both modes; None when ``"exclude"`` leaves no item (all noise)."""
    is_noise = table.cols == column
    if noise == "exclude":
        if table.n_clusters == 1:
            return None
        return table.with_counts(np.where(is_noise, 0, table.counts))
    keep = ~is_noise
    cols = table.cols[keep]
    others = np.delete(table.cluster_labels, column)
    return _singletons(table, is_noise, table.rows[keep], cols - (cols > column),
                       table.counts[keep], others, noise_label)


def _noise_column(labels: np.ndarray, noise_label: Any) -> int | None:
    values = labels.tolist()
    for i, value in enumerate(values):
        if _same(value, noise_label):
            return i
    if values and not any(isinstance(v, type(noise_label)) or isinstance(noise_label, type(v))
                          for v in values):
        kinds = sorted({type(v).__name__ for v in values})
        raise ValueError(f"noise_label {noise_label!r} ({type(noise_label).__name__}) matches "
                         f"no predicted label, which are of type {', '.join(kinds)}")
    return None


def _singletons(table: Contingency, is_noise: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                counts: np.ndarray, others: np.ndarray, noise_label: Any) -> Contingency:
    """Append one cluster of size 1 per noise point, then restore sorted label order."""
    noise_rows = np.repeat(table.rows[is_noise], table.counts[is_noise])
    n_noise = noise_rows.shape[0]
    labels = np.empty(others.shape[0] + n_noise, dtype=object)
    labels[:others.shape[0]] = others.tolist()
    labels[others.shape[0]:] = [NoiseSingleton(noise_label, k) for k in range(n_noise)]
    order = sort_labels(labels)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    all_cols = np.concatenate([cols, others.shape[0] + np.arange(n_noise)])
    return Contingency.from_cells(
        np.concatenate([rows, noise_rows]), rank[all_cols],
        np.concatenate([counts, np.ones(n_noise, dtype=np.int64)]),
        table.class_labels, labels[order])
