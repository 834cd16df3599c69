"""Is clustering A better than clustering B on this truth? A paired bootstrap over items.

Both clusterings label the same N items, so their scores are correlated: resampling the
items once and scoring A and B on the same resample measures the uncertainty of the
*difference*, which is far smaller than the two intervals suggest on their own. An item is
all a score sees of it through its (class, A-cluster, B-cluster) triple, so resampling N
items is one draw of Multinomial(N, n_tab / N) over the non-zero cells of the three-way
table; the two two-way tables are its margins. Each replicate costs O(nnz of the
three-way table), not O(N).

With ``sample_weight`` the resampled unit is still the item, carrying its weight: a
replicate draws n items (n = items of positive weight) with replacement, and each cell
counts the weights of the items drawn into it. Items of one cell with one weight are
exchangeable, so the draw is a multinomial over those (cell, weight) groups. Real
(non-integral) weights work the same way: each replicate is then a table of real masses
(float sums), and the scores that need whole items are refused before any replicate.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from . import _kernels
from ._json import dumps
from ._progress import progress_bar
from ._text import csv_text, text_table, visible
from ._threads import replicate_threads, scored_in_order
from .bootstrap import check_bootstrap_options, multinomial_sampler, replicate_table, stack_size
from .evaluate import check_intervals, left_out, no_interval_lines, replicate_scores
from .metrics.definition import ScoreUnavailable
from .noise import check_noise_mode, noise_in_replicate, with_noise
from .registry import METRICS, MetricInfo, resolve_metrics
from .table import Contingency
from .table.factorize import factorize
from .table.validation import (
    MAX_ITEMS,
    REAL_TOTAL,
    as_label_array,
    check_same_length,
)
from .table.weight_values import read_weights

__all__ = ["PairedComparison", "PairedScore", "compare_clusterings", "DEFAULT_PAIRED"]

DEFAULT_PAIRED = ("ari", "ami", "nmi", "v_measure", "bcubed_f", "clustering_accuracy",
                  "recovery_rate")


@dataclass(frozen=True)
class PairedScore:
    """One score of A and B on the same truth, and what the paired bootstrap says of
    ``difference = a - b``: its ``interval`` at ``level`` and the two-sided ``pvalue`` of
    "no difference". ``better`` names the better clustering ("a", "b", or "tie" when the
    values are equal), by the score's own direction."""

    key: str
    a: float
    b: float
    difference: float
    interval: tuple[float, float]
    pvalue: float
    better: str
    n_skipped: int = 0

    def significant(self, alpha: float = 0.05) -> bool:
        return self.pvalue < alpha


@dataclass(frozen=True)
class PairedComparison:
    """Result of :func:`compare_clusterings`: one :class:`PairedScore` per key."""

    scores: dict[str, PairedScore]
    n_boot: int
    level: float
    seed: Any
    n_samples: int | float  # the total weight, a float with real weights
    names: tuple[str, str] = ("a", "b")
    notes: list[str] = field(default_factory=list)

    def __getitem__(self, key: str) -> PairedScore:
        return self.scores[key]

    def to_dict(self) -> dict[str, Any]:
        return {"n_samples": self.n_samples, "n_boot": self.n_boot, "level": self.level,
                "seed": self.seed if isinstance(self.seed, int) else None,
                "names": list(self.names), "notes": list(self.notes),
                "scores": {k: {"a": s.a, "b": s.b, "difference": s.difference,
                               "interval": list(s.interval), "pvalue": s.pvalue,
                               "better": s.better, "skipped": s.n_skipped}
                           for k, s in self.scores.items()}}

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def to_csv(self) -> str:
        header = ["score", self.names[0], self.names[1], "difference", "low", "high",
                  "pvalue", "better", "skipped"]
        rows = [[key, s.a, s.b, s.difference, *s.interval, s.pvalue,
                 {"a": self.names[0], "b": self.names[1]}.get(s.better, s.better),
                 s.n_skipped] for key, s in self.scores.items()]
        return csv_text([header, *rows])

    def format(self) -> str:
        return str(self)

    def __str__(self) -> str:
        a, b = self.names
        size = (f"items of total weight {self.n_samples:.6g}"
                if isinstance(self.n_samples, float) else f"N = {self.n_samples} items")
        rows = [[key, f"{s.a:.4f}", f"{s.b:.4f}", f"{s.difference:+.4f}",
                 "undefined" if math.isnan(s.interval[0]) else
                 f"[{s.interval[0]:+.4f}, {s.interval[1]:+.4f}]",
                 _fmt_p(s.pvalue, self.n_boot - s.n_skipped),
                 {"a": a, "b": b, "tie": "tie"}[s.better]
                 + ("" if s.significant() else " (not significant at 0.05)"), s.n_skipped]
                for key, s in self.scores.items()]
        table = text_table(["score", a, b, "difference", f"{self.level * 100:g}% interval",
                            "p-value", "better", "replicates skipped"], rows,
                           align_numbers=True)
        return "\n".join([f"paired bootstrap: {self.n_boot} replicates over {size}", table,
                          *(visible(note, backslash=False) for note in self.notes)])


def _fmt_p(p: float, n_scored: int) -> str:
    """The p-value, or ``<floor`` at its floor 1 / (replicates scored + 1)."""
    if math.isnan(p):
        return "undefined"
    floor = 1.0 / (n_scored + 1)
    return f"<{floor:.1g}" if p <= floor else f"{p:.3g}"


def compare_clusterings(labels_true: Any, labels_a: Any, labels_b: Any,
                        metrics: str | Iterable[str] | None = DEFAULT_PAIRED, *,
                        n_boot: int = 1000, ci: float = 0.95, seed: Any = None,
                        noise_label: Any = None, noise: str = "singletons",
                        names: tuple[str, str] = ("a", "b"),
                        progress: bool | None = None,
                        sample_weight: Any = None) -> PairedComparison:
    """Paired bootstrap comparison of two clusterings of the same items against one truth.

    For each score, the difference ``d = score(truth, a) - score(truth, b)``, a percentile
    interval of the paired replicates' differences at level ``ci``, and a two-sided
    p-value of "no difference" from the replicates centred on ``d`` (Efron & Tibshirani,
    *An Introduction to the Bootstrap*, 1993, 16.4):
    ``p = (1 + #{|d* - d| >= |d|}) / (n_boot + 1)``. A replicate on which a score is
    undefined for either clustering is skipped for that score (counted in ``n_skipped``).

    Parameters
    ----------
    labels_true, labels_a, labels_b : array-like of shape (n_samples,)
        The truth and the two clusterings of the same items.
    metrics : str or iterable of str, optional
        Registry keys (default: ARI, AMI, NMI, V-measure, B-cubed F, clustering accuracy
        and recovery rate); None for every registered score.
    n_boot : int, default=1000
        Paired replicates.
    ci : float, default=0.95
        Level of the intervals of the differences.
    seed : int, numpy Generator or None
        Makes the replicates reproducible.
    noise_label, noise : optional
        As in :func:`clustermetrics.evaluate`: a predicted label meaning "not clustered"
        (in A and B), scored as singletons or excluded.
    names : (str, str), default=("a", "b")
        How the report names A and B.
    progress : bool or None
        Show progress on stderr (None: only on a terminal).
    sample_weight : array-like of shape (n_samples,) of non-negative numbers, optional
        How many times each item counts in the scores, as in
        :func:`clustermetrics.evaluate` (items of weight 0 are left out). Real weights
        give tables of real masses: a score that needs whole items (AMI, SRI, ...) is
        refused naming ``sample_weight`` when asked for by name, and left out with one
        warning when ``metrics`` is the default or None. A score without a valid
        bootstrap interval (``METRICS[key].no_bootstrap``: MARI) is refused when named
        and left out with a warning when ``metrics`` is None. The bootstrap
        resamples the items, each carrying its weight, not the copies a weight stands for:
        the items are the independent observations, and a weight says how much one
        counts, not how many independent observations it is. Resampling copies would
        make the intervals of an item of weight w as narrow as w observed items (by
        about sqrt(w) under a constant weight). When the weights do count independent
        identical observations, repeat the items (``numpy.repeat``) instead.

    Returns
    -------
    result : PairedComparison

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 4, 400)
    >>> good = np.where(rng.random(400) < 0.9, truth, rng.integers(0, 4, 400))
    >>> poor = np.where(rng.random(400) < 0.5, truth, rng.integers(0, 4, 400))
    >>> r = compare_clusterings(truth, good, poor, "ari", n_boot=200, seed=1)
    >>> r["ari"].better, r["ari"].pvalue < 0.05
    ('a', True)
    """
    check_bootstrap_options(ci, n_boot, ("ci", "n_boot"), seed)
    if noise_label is not None:
        check_noise_mode(noise)
    keys = resolve_metrics(metrics)
    # every result here (difference interval, p-value) comes from the replicates: a score
    # without a bootstrap interval is refused when named, else left out with a warning
    lacking = check_intervals(keys, metrics is None or metrics is DEFAULT_PAIRED,
                              "leave it out of the metrics to compare by the others")
    for line in no_interval_lines(lacking):
        warnings.warn(line, stacklevel=2)
    keys = [k for k in keys if k not in lacking]
    if isinstance(names, str) or len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"names must be two different names for A and B, got {names!r}")
    t = as_label_array(labels_true, "labels_true")
    a = as_label_array(labels_a, "labels_a")
    b = as_label_array(labels_b, "labels_b")
    check_same_length(t, a, "labels_true", "labels_a")
    check_same_length(t, b, "labels_true", "labels_b")
    w = None if sample_weight is None else _weights(sample_weight, t)
    if w is not None and w.dtype.kind == "f" and noise_label is not None \
            and noise == "singletons":
        _refuse_noise_singletons(noise_label, a, b)
    three = _ThreeWay(t, a, b, w)
    # scores refused on A's or B's table (real masses: ScoreUnavailable naming
    # sample_weight) are refused before any replicate, or left out of the default set
    refused: dict[str, ScoreUnavailable] = {}
    score = _scorer(keys, noise_label, noise, refused)
    base_a, base_b = score(three.table_a, False), score(three.table_b, False)
    assert base_a is not None and base_b is not None  # only replicates are skipped
    if refused:
        if not (metrics is None or metrics is DEFAULT_PAIRED) or len(refused) == len(keys):
            raise next(iter(refused.values()))
        for line in left_out(refused):
            warnings.warn(line, stacklevel=2)
        keys = [k for k in keys if k not in refused]
        score = _scorer(keys, noise_label, noise)
    rng = np.random.default_rng(seed)
    draw = three.sampler()
    # whole item counts and no noise rewrite: each side's replicate is its table with new
    # cell counts, scored from them as the bootstrap's are (matchings started warm)
    from_counts = noise_label is None and three.table_a.counts.dtype.kind != "f"

    def differences(block: np.ndarray) -> np.ndarray:
        """a - b per score (rows) and replicate (columns) of a block of drawn replicates;
        NaN where a side is skipped. Replicates of whole items are scored as stacks."""
        if from_counts:
            return replicate_scores(three.table_a, three.margins_a(block), keys) - \
                replicate_scores(three.table_b, three.margins_b(block), keys)
        out = np.full((len(keys), block.shape[0]), np.nan)
        for i, counts in enumerate(block):
            sa = score(replicate_table(three.table_a, three.margin_a(counts)), True)
            sb = score(replicate_table(three.table_b, three.margin_b(counts)), True)
            if sa is not None and sb is not None:
                out[:, i] = [sa[k] - sb[k] for k in keys]
        return out
    diffs = np.full((len(keys), n_boot), np.nan)
    size = stack_size(max(three.table_a.nnz, three.table_b.nnz), n_boot) if from_counts \
        else 1
    blocks = [(lo, min(lo + size, n_boot)) for lo in range(0, n_boot, size)]
    bar = progress_bar(n_boot, "paired bootstrap", progress)
    try:
        threads = replicate_threads(max(three.table_a.nnz, three.table_b.nnz))
        with _kernels.repeated(n_boot):  # compiled kernels load when the replicates repay it
            # drawn here in order, scored on the replicate threads: the same on any number
            draws = (np.stack([draw(rng) for _ in range(lo, hi)]) for lo, hi in blocks)
            for (lo, hi), block in zip(blocks, scored_in_order(differences, draws, threads),
                                       strict=True):
                diffs[:, lo:hi] = block
                bar.update(hi - lo)
    finally:
        bar.close()
    out = {k: _paired_score(METRICS[k], base_a[k], base_b[k], row, ci)
           for k, row in zip(keys, diffs, strict=True)}
    notes = [] if w is None else [
        f"weighted: N = {three.n} is the sum of the weights of {three.n_items} items; each "
        "replicate resamples the items, each carrying its weight"]
    notes += [f"not compared: {line}" for line in no_interval_lines(lacking)]
    return PairedComparison(out, int(n_boot), float(ci), seed, three.n,
                            cast("tuple[str, str]", tuple(names)), notes)


def _weights(sample_weight: Any, t: np.ndarray) -> np.ndarray:
    """``sample_weight`` checked: one non-negative integer per item, some positive."""
    if isinstance(sample_weight, (str, bytes)) or np.ndim(sample_weight) == 0:
        raise ValueError("sample_weight must be a sequence of one weight per item, got "
                         f"{type(sample_weight).__name__}")
    w = read_weights(sample_weight, "sample_weight").item_values()  # int64, or float64
    check_same_length(t, w, "labels_true", "sample_weight")
    if not (w > 0).any():
        raise ValueError("sample_weight is 0 for every item: nothing to score")
    return w


def _refuse_noise_singletons(noise_label: Any, a: np.ndarray, b: np.ndarray) -> None:
    """noise="singletons" splits noise items into clusters of one: whole items."""
    for labels in (a, b):
        if any(_same(v, noise_label) for v in np.unique(labels).tolist()):
            raise ValueError('noise="singletons" needs integer item counts, but '
                             "sample_weight has non-integral values: each noise item "
                             'becomes a cluster of its own; noise="exclude" works on real '
                             "masses")


def _same(value: Any, label: Any) -> bool:
    try:
        return bool(value == label)
    except (TypeError, ValueError):
        return False


class _ThreeWay:
    """The (truth, A, B) table: its non-zero cells, and the index of each cell's (truth, A)
    and (truth, B) margin cells, so a replicate's two tables are two bincounts.

    ``w``: checked weights (:func:`_weights`); the cells then count weights, and
    :meth:`sampler` resamples items carrying them."""

    def __init__(self, t: np.ndarray, a: np.ndarray, b: np.ndarray,
                 w: np.ndarray | None = None):
        if w is not None:
            keep = w > 0
            t, a, b, w = t[keep], a[keep], b[keep], w[keep]
        (tc, tl), (ac, al), (bc, bl) = factorize(t), factorize(a), factorize(b)
        # two-stage keys: each fits in int64 for N < 3e9 (codes < N)
        ta_keys, ta_of_item = np.unique(tc * al.shape[0] + ac, return_inverse=True)
        tb_keys, tb_of_item = np.unique(tc * bl.shape[0] + bc, return_inverse=True)
        cells, first, cell_of_item, counts = np.unique(
            ta_of_item * np.int64(tb_keys.shape[0]) + tb_of_item, return_index=True,
            return_inverse=True, return_counts=True)
        self.n_items = int(t.shape[0])
        self.counts = counts.astype(np.int64)
        self.groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if w is not None:
            # (cell, weight) groups of exchangeable items, sorted by cell
            real = w.dtype.kind == "f"
            # (cell, weight) pairs, sorted: lexsort keeps float weights exact
            order = np.lexsort((w, cell_of_item.reshape(-1)))
            cell_sorted, w_sorted = cell_of_item.reshape(-1)[order], w[order]
            new = np.ones(order.shape[0], dtype=bool)
            new[1:] = (cell_sorted[1:] != cell_sorted[:-1]) | (w_sorted[1:] != w_sorted[:-1])
            firsts = np.flatnonzero(new)
            sizes = np.diff(np.append(firsts, order.shape[0]))
            group_cell, weights = cell_sorted[firsts], w_sorted[firsts]
            heaviest = weights.max()
            if real and self.n_items * float(heaviest) > REAL_TOTAL[1]:
                raise ValueError(f"sample_weight: {self.n_items} items of weight up to "
                                 f"{float(heaviest):.3g} can make a replicate of more than "
                                 "1e150, the largest total of real masses")
            if not real and self.n_items * int(heaviest) > MAX_ITEMS:
                raise ValueError(f"sample_weight: {self.n_items} items of weight up to "
                                 f"{int(heaviest)} can make a replicate of more "
                                 f"than 2**63 - 1 = {MAX_ITEMS} items, the largest table "
                                 "counted exactly")
            starts = np.flatnonzero(np.diff(group_cell, prepend=-1))
            self.groups = (sizes.astype(np.int64), weights, starts)
            self.counts = np.add.reduceat(sizes * weights, starts)
        self.real = self.counts.dtype.kind == "f"
        self.n: int | float = float(self.counts.sum()) if self.real else \
            int(self.counts.sum(dtype=np.int64))
        self.exact = not self.real and self.n >= 2**53  # float64 bincounts would round
        self.ta = ta_of_item[first]
        self.tb = tb_of_item[first]
        self.n_ta, self.n_tb = ta_keys.shape[0], tb_keys.shape[0]
        del cells  # only the first index of each cell and its count are needed
        self.table_a = Contingency.from_sorted_cells(
            ta_keys // al.shape[0], ta_keys % al.shape[0], self.margin_a(self.counts), tl, al)
        self.table_b = Contingency.from_sorted_cells(
            tb_keys // bl.shape[0], tb_keys % bl.shape[0], self.margin_b(self.counts), tl, bl)

    def sampler(self) -> Callable[[np.random.Generator], np.ndarray]:
        """A replicate's cell counts: the items resampled (n_items draws with
        replacement), each adding its weight to its cell."""
        if self.groups is None:
            draw_cells = multinomial_sampler(self.counts)
            return lambda rng: draw_cells(rng, self.n_items)
        sizes, weights, starts = self.groups
        draw_groups = multinomial_sampler(sizes)

        def draw(rng: np.random.Generator) -> np.ndarray:
            return np.add.reduceat(draw_groups(rng, self.n_items) * weights, starts)
        return draw

    # float64 bincount sums are exact below 2**53 (every count and sum is at most the
    # replicate's total); above it the sums are taken in int64
    def margin_a(self, counts: np.ndarray) -> np.ndarray:
        return self._margin(self.ta, counts, self.n_ta)

    def margin_b(self, counts: np.ndarray) -> np.ndarray:
        return self._margin(self.tb, counts, self.n_tb)

    def margins_a(self, block: np.ndarray) -> np.ndarray:
        """:meth:`margin_a` of each replicate (row) of a block."""
        return np.stack([self.margin_a(counts) for counts in block])

    def margins_b(self, block: np.ndarray) -> np.ndarray:
        return np.stack([self.margin_b(counts) for counts in block])

    def _margin(self, index: np.ndarray, counts: np.ndarray, size: int) -> np.ndarray:
        if self.real:  # real masses: float sums
            return np.bincount(index, weights=counts, minlength=size)
        if not self.exact and (self.groups is None or int(counts.sum()) < 2**53):
            return np.bincount(index, weights=counts, minlength=size).astype(np.int64)
        out = np.zeros(size, dtype=np.int64)
        np.add.at(out, index, np.asarray(counts, dtype=np.int64))
        return out


def _scorer(keys: list[str], noise_label: Any, noise: str,
            refused: dict[str, ScoreUnavailable] | None = None
            ) -> Callable[[Contingency, bool], dict[str, float] | None]:
    """Scores of a table (NaN where undefined), after the noise rewrite; for a replicate,
    None where the rewrite leaves nothing (skipped, as in :mod:`.bootstrap`). ``refused``
    collects the scores unavailable on a table that is not a replicate."""
    def score(table: Contingency, replicate: bool) -> dict[str, float] | None:
        if noise_label is not None:
            kept = noise_in_replicate(table, noise_label, noise) if replicate \
                else with_noise(table, noise_label, noise)[0]
            if kept is None:
                return None
            table = kept
        values = {}
        for k in keys:
            try:
                values[k] = float(METRICS[k].compute(table)[0])
            except ScoreUnavailable as exc:
                if refused is not None and not replicate:
                    refused.setdefault(k, exc)
                values[k] = math.nan
            except ValueError:
                values[k] = math.nan
        return values
    return score


def _paired_score(entry: MetricInfo, value_a: float, value_b: float, row: np.ndarray,
                  level: float) -> PairedScore:
    kept = row[~np.isnan(row)]
    d = value_a - value_b
    if kept.size == 0 or math.isnan(d):
        interval, p = (math.nan, math.nan), math.nan
    else:
        tail = (1.0 - level) / 2.0 * 100.0
        interval = tuple(np.percentile(kept, [tail, 100.0 - tail]).tolist())
        extreme = np.count_nonzero(np.abs(kept - d) >= abs(d) - 1e-12 * max(1.0, abs(d)))
        p = (1.0 + int(extreme)) / (int(kept.size) + 1.0)
    better = "tie" if value_a == value_b else \
        ("a" if entry.is_better(value_a, value_b) else "b")
    return PairedScore(entry.key, float(value_a), float(value_b), float(d), interval,
                       float(min(p, 1.0)), better,
                       int(row.size - kept.size))
