"""Permutation tests: how likely is a score this good for random labellings with the same
class and cluster sizes?

The null model is the permutation model: the predicted labels are randomly permuted over
the items, so the table's margins stay fixed and its cells vary. A score sees only the
table, so each null draw is a random table with the observed margins, drawn directly --
never by shuffling N Python labels -- with one of two exact samplers:

* ``"patefield"``: the table row by row, each row a multivariate hypergeometric draw of its
  class size from the cluster sizes still left (the sequential conditional structure of
  Patefield's algorithm AS 159, 1981; numpy's ``multivariate_hypergeometric`` draws each
  cell as a univariate hypergeometric). O(R C) per table, looping over the smaller side.
* ``"shuffle"``: one random permutation of the predicted cluster codes against the
  sorted true codes, counted into cells. O(N) per table.

``"auto"`` picks by a cost model measured on this library (an item of a shuffle costs about
as much as 0.03 cells of the row-wise draw, a row about 1,000 items): Patefield when
4 R C + 100 min(R, C) <= N, else shuffle. Both need N < 10^9 (numpy's hypergeometric
sampler; a shuffle would need O(N) memory there).

The p-value counts the draws at least as good as the observed value (in the score's
direction; values within a relative 1e-12 count as ties) and is (1 + count) / (1 + draws)
(Phipson & Smyth 2010: never 0); its Monte Carlo standard error is
sqrt(q (1 - q) / draws) with q = (1 + count) / (2 + draws), Laplace's rule-of-succession
estimate of the exceedance probability: never 0, so a p-value at its floor 1 / (1 + draws)
(no draw as good) or at 1 (every draw as good) still carries an honest error of about
1 / draws, where the plug-in count / draws would give 0. Draws on which a score is undefined are
skipped for that score and counted.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np

from ..compute import dispatch as _kernels
from ..compute.progress import progress_bar
from ..scores.registry import METRICS, resolve_metrics
from ..table import Contingency, as_contingency
from .bootstrap import check_seed

__all__ = ["PermutationTest", "permutation_test", "permutation_tests", "null_tables",
           "MAX_N_PERM", "MAX_ITEMS_PERM", "SAMPLERS"]

MAX_N_PERM = 10_000_000
MAX_ITEMS_PERM = 10**9 - 1
MAX_DENSE_CELLS = 10**8
SAMPLERS = ("auto", "patefield", "shuffle")
_TIE = 1e-12


class PermutationTest(NamedTuple):
    """A score against ``n_perm`` random tables with the observed margins.

    ``pvalue`` = (1 + #{draws at least as good}) / (1 + draws scored); ``pvalue_se`` its
    Monte Carlo standard error sqrt(q (1 - q) / draws), q = (1 + #) / (2 + draws), never 0
    (see :mod:`clustermetrics.inference.permutation`); ``null_mean`` and ``null_sd`` the mean and
    standard
    deviation of the score over the draws; ``n_skipped`` the draws on which the score was
    undefined; ``sampler`` the table sampler used.
    """

    metric: str
    observed: float
    pvalue: float
    pvalue_se: float
    null_mean: float
    null_sd: float
    n_perm: int
    n_skipped: int
    sampler: str


_WHOLE_ITEMS = "its random tables permute whole items"


def permutation_test(labels_true: Any, labels_pred: Any = None, metric: str = "ari", *,
                     n_perm: int = 999, seed: Any = None, sampler: str = "auto",
                     progress: bool | None = False,
                     sample_weight: Any = None) -> PermutationTest:
    """Permutation test of one registered score: its p-value against random labellings
    with the same class and cluster sizes (the permutation model).

    Parameters
    ----------
    labels_true, labels_pred : label sequences of equal length, or a ``Contingency`` as
        ``labels_true`` (then ``labels_pred=None``).
    metric : a registry key or function name (``clustermetrics.METRICS``), default "ari".
    n_perm : int, default 999
        Number of random tables (1 to 10,000,000).
    seed : seed of the random generator (a non-negative integer, or a numpy Generator /
        SeedSequence); None draws fresh entropy.
    sampler : {"auto", "patefield", "shuffle"}
        How random tables are drawn (see :mod:`clustermetrics.inference.permutation`); every
        sampler draws from the same distribution.
    progress : bool or None, default False
        Show a progress bar on stderr (None: when stderr is a terminal).
    sample_weight : array-like of shape (n_samples,) of non-negative integers, optional
        How many times each item counts: the test is that of the repeated items (the
        random tables permute N = the total weight items, the table's margins fixed).
        Real weights are refused: the permutation model permutes whole items.

    Returns
    -------
    PermutationTest
        ``observed``, ``pvalue`` with its Monte Carlo standard error ``pvalue_se``,
        ``null_mean``, ``null_sd``, ``n_perm``, ``n_skipped``, ``sampler``.

    Examples
    --------
    >>> t = permutation_test([0, 0, 0, 1, 1, 1, 2, 2, 2], [0, 0, 0, 1, 1, 1, 2, 2, 1],
    ...                      "ari", n_perm=199, seed=0)
    >>> round(t.observed, 4), t.pvalue < 0.05, t.n_perm
    (0.6429, True, 199)

    References
    ----------
    Patefield, "Algorithm AS 159", Applied Statistics 30 (1981); Phipson & Smyth,
    "Permutation p-values should never be zero", Stat. Appl. Genet. Mol. Biol. 9 (2010);
    Hubert & Arabie, J. Classification 2 (1985).
    """
    (key,) = _one_metric(metric)
    table = as_contingency(labels_true, labels_pred, sample_weight)
    return permutation_tests(table, [key], n_perm=n_perm, seed=seed, sampler=sampler,
                             progress=progress)[key]


def _one_metric(metric: Any) -> list[str]:
    if not isinstance(metric, str) or "," in metric:
        raise ValueError(f"metric must be one score name, got {metric!r}")
    return resolve_metrics([metric])


def check_permutation_options(n_perm: Any, seed: Any = None, sampler: Any = "auto",
                              names: tuple[str, str] = ("n_perm", "seed")) -> None:
    """ValueError naming the option when ``n_perm``, ``seed`` or ``sampler`` is unusable."""
    if isinstance(n_perm, bool) or not isinstance(n_perm, numbers.Integral) \
            or not 1 <= int(n_perm) <= MAX_N_PERM:
        raise ValueError(f"{names[0]} must be an integer from 1 to {MAX_N_PERM:,}, "
                         f"got {n_perm!r}")
    check_seed(seed, names[1])
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {', '.join(map(repr, SAMPLERS))}, "
                         f"got {sampler!r}")


def permutation_tests(table: Contingency, keys: Iterable[str], *, n_perm: int = 999,
                      seed: Any = None, sampler: str = "auto", progress: Any = False,
                      ) -> dict[str, PermutationTest]:
    """:func:`permutation_test` of several registry keys on one table, scoring the same
    random tables. ``progress``: a bool or None (a bar, see :func:`permutation_test`),
    or a callable(done, total) called after each draw."""
    keys = resolve_metrics(list(keys))
    check_permutation_options(n_perm, seed, sampler)
    table.require_counts("a permutation test", _WHOLE_ITEMS)
    observed = {k: METRICS[k].compute(table)[0] for k in keys}
    values = np.full((len(keys), int(n_perm)), np.nan)
    draws = null_tables(table, n_perm, seed=seed, sampler=sampler)
    chosen = choose_sampler(table, sampler)
    bar = progress_bar(int(n_perm), "permutations", progress) \
        if progress is None or isinstance(progress, bool) else None
    try:
        with _kernels.repeated(int(n_perm)):  # compiled kernels load when the draws repay it
            for i, null in enumerate(draws):
                for row, key in enumerate(keys):
                    try:
                        values[row, i] = METRICS[key].compute(null)[0]
                    except ValueError:  # undefined on this draw: skipped for this score
                        pass
                if bar is not None:
                    bar.update()
                elif progress:
                    progress(i + 1, int(n_perm))
    finally:
        if bar is not None:
            bar.close()
    return {k: _result(k, observed[k], values[row], chosen) for row, k in enumerate(keys)}


def _result(key: str, observed: float, values: np.ndarray, sampler: str) -> PermutationTest:
    kept = values[~np.isnan(values)]
    skipped = int(values.shape[0] - kept.shape[0])
    if kept.shape[0] == 0:
        return PermutationTest(key, observed, math.nan, math.nan, math.nan, math.nan,
                               int(values.shape[0]), skipped, sampler)
    good = int(np.count_nonzero(_at_least_as_good(METRICS[key].better, kept, observed)))
    # Laplace's estimate keeps the error honest when no draw, or every draw, is as good
    share = (1 + good) / (2 + kept.shape[0])
    return PermutationTest(key, observed, (1 + good) / (1 + kept.shape[0]),
                           math.sqrt(share * (1 - share) / kept.shape[0]),
                           float(kept.mean()), float(kept.std()), int(values.shape[0]),
                           skipped, sampler)


def _at_least_as_good(better: Any, values: np.ndarray, observed: float) -> np.ndarray:
    if better == "higher":
        return values >= observed - _TIE * abs(observed)
    if better == "lower":
        return values <= observed + _TIE * abs(observed)
    gap = abs(observed - better)
    return np.abs(values - better) <= gap + _TIE * gap


# --------------------------------------------------------------------- random tables
def choose_sampler(table: Contingency, sampler: str = "auto") -> str:
    """The sampler ``"auto"`` means for this table (see the module docstring)."""
    if sampler != "auto":
        return sampler
    r, c = table.n_classes, table.n_clusters
    return "patefield" if 4 * r * c + 100 * min(r, c) <= table.n_samples else "shuffle"


def null_tables(table: Contingency, n_perm: int, *, seed: Any = None,
                sampler: str = "auto") -> Iterable[Contingency]:
    """``n_perm`` random tables with the margins (and labels) of ``table``, drawn from the
    permutation model. Scores that depend only on the margins (the expected mutual
    information) are carried over instead of recomputed."""
    check_permutation_options(n_perm, seed, sampler)
    table.require_counts("a permutation test", _WHOLE_ITEMS)
    if table.n_samples > MAX_ITEMS_PERM:
        raise ValueError(f"a permutation test draws random tables of at most "
                         f"{MAX_ITEMS_PERM:,} items (numpy's hypergeometric sampler), this "
                         f"one has {table.n_samples:,}; the pair-counting scores have an "
                         "analytic null: evaluate(..., significance=True)")
    chosen = choose_sampler(table, sampler)
    if chosen == "patefield" and table.n_classes * table.n_clusters > MAX_DENSE_CELLS:
        raise ValueError(f"sampler='patefield' builds dense {table.n_classes:,} x "
                         f"{table.n_clusters:,} tables, more than {MAX_DENSE_CELLS:,} cells; "
                         "use sampler='shuffle' or 'auto'")
    rng = np.random.default_rng(seed)
    draw = _patefield(table, rng) if chosen == "patefield" else _shuffle(table, rng)
    emi = table.peek("emi")
    for _ in range(int(n_perm)):
        rows, cols, counts = draw()
        # the margins are the observed ones by construction
        null = Contingency(rows, cols, counts, table.class_labels, table.cluster_labels,
                           table.class_sizes, table.cluster_sizes)
        if emi is not None:  # a function of the margins alone, the same for every draw
            null.cached("emi", _constant(emi))
        yield null


def _constant(value: Any) -> Callable[[Contingency], Any]:
    def compute(_table: Contingency) -> Any:
        return value
    return compute


_Cells = tuple[np.ndarray, np.ndarray, np.ndarray]


def _patefield(table: Contingency, rng: np.random.Generator,
               ) -> Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Row by row (over the smaller side): each row's counts are a multivariate
    hypergeometric draw of its size from the other side's sizes still left."""
    a = table.class_sizes.astype(np.int64)
    b = table.cluster_sizes.astype(np.int64)
    flip = a.shape[0] > b.shape[0]
    outer, inner = (b, a) if flip else (a, b)

    def draw() -> _Cells:
        left = inner.copy()
        dense = np.empty((outer.shape[0], inner.shape[0]), dtype=np.int64)
        for i, size in enumerate(outer.tolist()):
            dense[i] = rng.multivariate_hypergeometric(left, size, method="marginals")
            left -= dense[i]
        if flip:
            dense = dense.T
        rows, cols = np.nonzero(dense)  # row-major: sorted by (row, col)
        return rows.astype(np.int64), cols.astype(np.int64), dense[rows, cols]
    return draw


def _shuffle(table: Contingency, rng: np.random.Generator,
             ) -> Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """One random permutation of the cluster codes against the sorted class codes."""
    n_cols = table.n_clusters
    width = n_cols * table.n_classes
    small = np.int32 if width < 2**31 else np.int64
    true_codes = np.repeat(np.arange(table.n_classes, dtype=np.int64) * n_cols,
                           table.class_sizes).astype(small)
    pred_codes = np.repeat(np.arange(n_cols, dtype=small), table.cluster_sizes)
    dense = width <= 4 * table.n_samples

    def draw() -> _Cells:
        keys = true_codes + rng.permutation(pred_codes)
        if dense:
            counts = np.bincount(keys, minlength=width)
            cells = np.flatnonzero(counts)
            counts = counts[cells]
        else:
            cells, counts = np.unique(keys, return_counts=True)
        cells = cells.astype(np.int64)
        return cells // n_cols, cells % n_cols, counts.astype(np.int64)
    return draw
