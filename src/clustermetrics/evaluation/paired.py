"""Is clustering A better than clustering B on this truth? A paired jackknife over items.

Both clusterings label the same N items, so their scores are correlated, and the question
is the sampling error of one statistic of the items: the difference
``d = score(truth, A) - score(truth, B)``. Its standard error is the jackknife's
(Quenouille, Biometrika 43, 1956; Tukey, Ann. Math. Statist. 29, 1958): leave each item
out in turn, recompute d, and take se² = (N - 1) / N · Σ (d_(i) - mean)². An item is all
a score sees of it through its (class, A-cluster, B-cluster) triple, so the items of one
cell of the three-way table leave the same two tables out: the N leave-one-out
differences take one value per cell, and the jackknife scores A's table once per
non-zero cell of it and B's table once per cell of B's (as stacks of tables), not N
times.

**One rule for the verdict and the interval.** t = d / se is referred to Student's t with
ν degrees of freedom: the interval is d ∓ t_ν((1 + level) / 2) · se and the two-sided
p-value of "no difference" is 2 P(T_ν > |d| / se), so p < 1 - level exactly when the
interval excludes 0 (the p-value is the smallest 1 - level whose interval excludes 0).
ν is Satterthwaite's (Biometrics Bulletin 2, 1946): the chi-square whose first two
moments match those of se², 2 / ν = 2 / (N - 1) + (b₂ - 3) / N with b₂ the kurtosis of
the leave-one-out differences. Normal ones give ν = N - 1, Tukey's choice; when a few
items carry the variance (the errors of near-perfect clusterings) ν is small and the
interval wide.

**Why not the bootstrap.** A bootstrap replicate holds about 63 % of the distinct items,
and a plug-in score of a sparse table (NMI, VI, V-measure, B-cubed, the matchings)
depends on how many distinct items fill its cells. On 20 classes, n = 100, both
clusterings keeping each true label with probability 0.5 (300 samples), the replicates'
standard deviation of the difference of NMIs was 0.034 against its sampling standard
deviation of 0.050, and the percentile bootstrap this test replaced declared the two
"different at 5 %" in 14 % of the samples. The jackknife's variance is biased upward,
not downward, for any symmetric statistic of independent items (Efron & Stein, Ann.
Statist. 9, 1981), smooth or not: its standard error there was 0.049. Its bias
correction is left out: noisy on such tables, it tripled the false rejections (6 % to
20 %).

**Sampled items.** Above :func:`jackknife_size` groups of items (at most
:data:`JACKKNIFE_MAX_CELLS`, fewer where each leave-one-out table costs more to score), a
stratified systematic sample of about that many items stands for them all (strata: the
sizes of an item's cells in A's and B's tables; see :func:`_stratified_sample`).

**Flags: where no p-value is given.** :data:`FLAG_CONSTANT`: the clusterings differ but no
leave-one-out table changes the difference (a score that moves in jumps: the ratio of
cluster counts, the exact-match scores, the pseudo recovery rate): the jackknife sees no
spread, t would be infinite and p = 0, so the result gives no interval and no p-value.
In the calibration study this took up to 10 % of the null comparisons of those scores
(3 classes, n = 30, keep 0.9), each of which would otherwise have been a false positive;
on the rest of its grid (3 to 50 classes, n = 30 to 2,000, keep 0.2 to 0.9) the test held
its level for every score without another flag. :data:`FLAG_UNDEFINED`: no leave-one-out
table could be scored (one item).

**Weights.** With ``sample_weight`` the unit left out is still the item, with its weight:
items of one cell with one weight leave the same tables out, so they are one group of
the jackknife. Real (non-integral) weights give tables of real masses (float sums), and
the scores that need whole items are refused before any table is scored.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import numpy as np

from ..compute import dispatch as _kernels
from ..compute.progress import progress_bar
from ..compute.special import stdtr, stdtrit
from ..compute.threads import replicate_threads, scored_in_order
from ..inference.bootstrap import check_level, jackknife_cells, stack_size
from ..inference.noise import check_noise_mode, noise_in_replicate, with_noise
from ..render.json_text import dumps
from ..render.text import csv_text, text_table, visible
from ..scores.registry import METRICS, MetricInfo, resolve_metrics
from ..scores.spec import ScoreUnavailable
from ..table import Contingency
from ..table.factorize import factorize
from ..table.validation import as_label_array, check_same_length
from ..table.weight_values import read_weights
from .evaluate import check_intervals, left_out, no_interval_lines, table_scores

__all__ = ["DROPPED_OPTIONS", "PairedComparison", "PairedScore", "compare_clusterings",
           "jackknife_t", "DEFAULT_PAIRED", "FLAG_CONSTANT", "FLAG_UNDEFINED",
           "JACKKNIFE_MAX_CELLS", "JACKKNIFE_MIN_UNITS", "METHOD", "jackknife_size"]

DEFAULT_PAIRED = ("ari", "ami", "nmi", "v_measure", "bcubed_f", "clustering_accuracy",
                  "recovery_rate")
JACKKNIFE_MAX_CELLS = 2000  # groups of items left out one by one; a stratified sample above
# ...and fewer on large tables, so a comparison of the default scores costs ~_JACKKNIFE_TIME
# seconds: a leave-one-out table of nnz cells costs about _TABLE_SECONDS + _CELL_SECONDS nnz
# to score (measured at load 4 on 2 cores: 1.1 ms at 300 cells, 5.8 ms at 10^4, ~0.15 s at
# 6e5), but never fewer than JACKKNIFE_MIN_UNITS items (200 items drawn per stratum of cell
# sizes gave ARI's standard error of pure noise exactly)
JACKKNIFE_MIN_UNITS = 200
_JACKKNIFE_TIME = 5.0
_TABLE_SECONDS = 1e-3
_CELL_SECONDS = 2.5e-7
FLAG_CONSTANT = "no leave-one-out variation"
# n_boot and seed of the paired bootstrap (before 0.2), accepted and ignored until 0.3
DROPPED_OPTIONS = ("n_boot and seed no longer apply: the paired comparison is a "
                   "deterministic jackknife since version 0.2 (they are ignored, and will "
                   "be removed in 0.3)")
FLAG_UNDEFINED = "undefined on every leave-one-out table"
METHOD = "paired jackknife, Student t with Satterthwaite's degrees of freedom"
# a standard error below this share of the scores' size is the rounding of equal values
_ROUNDING = 1e-12


@dataclass(frozen=True)
class PairedScore:
    """One score of A and B on the same truth, and what the paired jackknife says of
    ``difference = a - b``: its standard error ``se``, the degrees of freedom ``df`` of
    its t reference, its ``interval`` at ``level`` and the two-sided ``pvalue`` of "no
    difference", which is below 1 - ``level`` exactly when the interval excludes 0.
    ``better`` names the better clustering ("a", "b", or "tie" when the values are
    equal), by the score's own direction. ``flags`` name why no interval and no p-value
    could be given (both NaN then). ``n_skipped``: items whose leave-one-out table the
    score is undefined on (left out of the jackknife)."""

    key: str
    a: float
    b: float
    difference: float
    interval: tuple[float, float]
    pvalue: float
    better: str
    se: float = math.nan
    df: float = math.nan
    level: float = 0.95
    flags: tuple[str, ...] = ()
    n_skipped: int = 0

    def significant(self, alpha: float | None = None) -> bool:
        """p < ``alpha`` (default 1 - ``level``: exactly when the interval excludes 0);
        False when flagged (no p-value)."""
        return bool(self.pvalue < (1.0 - self.level if alpha is None else alpha))


@dataclass(frozen=True)
class PairedComparison:
    """Result of :func:`compare_clusterings`: one :class:`PairedScore` per key.
    ``n_items``: the items the jackknife leaves out (``n_samples`` is their total weight
    with ``sample_weight``); ``sampled``: a systematic sample of them stood for all
    (more than :data:`JACKKNIFE_MAX_CELLS` cells)."""

    scores: dict[str, PairedScore]
    level: float
    n_samples: int | float  # the total weight, a float with real weights
    n_items: int
    names: tuple[str, str] = ("a", "b")
    notes: list[str] = field(default_factory=list)
    sampled: bool = False

    def __getitem__(self, key: str) -> PairedScore:
        return self.scores[key]

    def to_dict(self) -> dict[str, Any]:
        return {"n_samples": self.n_samples, "n_items": self.n_items, "level": self.level,
                "method": METHOD, "sampled": self.sampled, "names": list(self.names),
                "notes": list(self.notes),
                "scores": {k: {"a": s.a, "b": s.b, "difference": s.difference,
                               "interval": list(s.interval), "se": s.se, "df": s.df,
                               "pvalue": s.pvalue, "significant": s.significant(),
                               "better": s.better, "flags": list(s.flags),
                               "skipped": s.n_skipped}
                           for k, s in self.scores.items()}}

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def to_csv(self) -> str:
        header = ["score", self.names[0], self.names[1], "difference", "low", "high", "se",
                  "df", "pvalue", "significant", "better", "flags", "skipped"]
        rows = [[key, s.a, s.b, s.difference, *s.interval, s.se, s.df, s.pvalue,
                 s.significant(),
                 {"a": self.names[0], "b": self.names[1]}.get(s.better, s.better),
                 "; ".join(s.flags), s.n_skipped] for key, s in self.scores.items()]
        return csv_text([header, *rows])

    def format(self) -> str:
        return str(self)

    def __str__(self) -> str:
        a, b = self.names
        size = (f"items of total weight {self.n_samples:.6g} ({self.n_items} items)"
                if isinstance(self.n_samples, float) else f"N = {self.n_samples} items")
        alpha = f"{1 - self.level:.3g}"
        rows = [[key, f"{s.a:.4f}", f"{s.b:.4f}", f"{s.difference:+.4f}",
                 "-" if s.flags else "undefined" if math.isnan(s.interval[0]) else
                 f"[{s.interval[0]:+.4f}, {s.interval[1]:+.4f}]",
                 "-" if s.flags else _fmt_p(s.pvalue),
                 {"a": a, "b": b, "tie": "tie"}[s.better]
                 + (" ! no verdict" if s.flags else "" if s.significant()
                    else f" (not significant at {alpha})"), s.n_skipped]
                for key, s in self.scores.items()]
        table = text_table(["score", a, b, "difference", f"{self.level * 100:g}% interval",
                            "p-value", "better", "items skipped"], rows, align_numbers=True)
        head = (f"paired jackknife over {size}: t intervals of the difference "
                "(Satterthwaite's degrees of freedom)"
                + (", a stratified sample of the items left out" if self.sampled else ""))
        return "\n".join([head, table, *(visible(note, backslash=False) for note in self.notes),
                          *_flag_notes(self.scores)])


def _fmt_p(p: float) -> str:
    """The p-value (``undefined`` when NaN; below the smallest double, ``<1e-300``)."""
    if math.isnan(p):
        return "undefined"
    return "<1e-300" if p == 0 else f"{p:.3g}"


def _flag_notes(scores: dict[str, PairedScore]) -> list[str]:
    """One line per flag, naming the scores it marks."""
    by_flag: dict[str, list[str]] = {}
    for key, s in scores.items():
        for flag in s.flags:
            by_flag.setdefault(flag, []).append(key)
    return [f"! {flag} ({', '.join(keys)}): {_FLAG_WHY[flag]}"
            for flag, keys in by_flag.items()]


_FLAG_WHY = {
    FLAG_CONSTANT: "the clusterings differ, but leaving out any one item leaves the "
                   "difference as it is, so the jackknife sees no spread: no interval and "
                   "no p-value",
    FLAG_UNDEFINED: "no leave-one-out table could be scored (a single item, or the score "
                    "is undefined on each): no interval and no p-value",
}


def compare_clusterings(labels_true: Any, labels_a: Any, labels_b: Any,
                        metrics: str | Iterable[str] | None = DEFAULT_PAIRED, *,
                        ci: float = 0.95, noise_label: Any = None,
                        noise: str = "singletons", names: tuple[str, str] = ("a", "b"),
                        progress: bool | None = None,
                        sample_weight: Any = None, n_boot: Any = None,
                        seed: Any = None) -> PairedComparison:
    """Paired jackknife comparison of two clusterings of the same items against one truth.

    For each score, the difference ``d = score(truth, a) - score(truth, b)``, its
    jackknife standard error over the items (Quenouille 1956, Tukey 1958; grouped by the
    cells of the truth × A × B table), and one rule for the interval and the test: the
    interval ``d ∓ t se`` at level ``ci`` with Student's t at Satterthwaite's degrees of
    freedom (Biometrics Bulletin 2, 1946), and the two-sided p-value of "no difference"
    ``2 P(T > |d| / se)``, below ``1 - ci`` exactly when the interval excludes 0. Where
    the jackknife cannot judge a score (``PairedScore.flags``, see the module docstring)
    the interval and the p-value are NaN. An item whose leave-one-out table a score is
    undefined on is left out of that score's jackknife (counted in ``n_skipped``).

    Calibration, by simulation (``clustermetrics paired-calibration``): on equally good
    clusterings the test says "different at 5 %" at about the nominal rate for every
    score, where the previous percentile bootstrap said it up to three times as often.

    Parameters
    ----------
    labels_true, labels_a, labels_b : array-like of shape (n_samples,)
        The truth and the two clusterings of the same items.
    metrics : str or iterable of str, optional
        Registry keys (default: ARI, AMI, NMI, V-measure, B-cubed F, clustering accuracy
        and recovery rate); None for every registered score.
    ci : float, default=0.95
        Level of the intervals of the differences (the test's level is ``1 - ci``).
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
        resampling interval (``METRICS[key].no_bootstrap``: MARI) is refused when named
        and left out with a warning when ``metrics`` is None. The jackknife leaves out
        the items, each with its weight, not the copies a weight stands for: the items
        are the independent observations, and a weight says how much one counts, not how
        many independent observations it is. Leaving out copies would make the intervals
        of an item of weight w as narrow as w observed items (by about sqrt(w) under a
        constant weight). When the weights do count independent identical observations,
        repeat the items (``numpy.repeat``) instead.
    n_boot, seed : deprecated
        Accepted and ignored, with a ``FutureWarning``: the comparison was a paired
        bootstrap before version 0.2 and is a deterministic jackknife now; they will be
        removed in 0.3.

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
    >>> r = compare_clusterings(truth, good, poor, "ari")
    >>> r["ari"].better, r["ari"].pvalue < 0.05, r["ari"].significant()
    ('a', True, True)
    """
    if n_boot is not None or seed is not None:
        warnings.warn(DROPPED_OPTIONS, FutureWarning, stacklevel=2)
    check_level(ci, "ci")
    if noise_label is not None:
        check_noise_mode(noise)
    keys = resolve_metrics(metrics)
    # a score without a resampling interval is refused when named, else left out
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
    # sample_weight) are refused before any leave-one-out table, or left out of the
    # default set
    refused: dict[str, ScoreUnavailable] = {}
    score = _scorer(keys, noise_label, noise, refused)
    base_a, base_b = score(three.table_a, False), score(three.table_b, False)
    assert base_a is not None and base_b is not None  # only leave-one-out tables are None
    if refused:
        if not (metrics is None or metrics is DEFAULT_PAIRED) or len(refused) == len(keys):
            raise next(iter(refused.values()))
        for line in left_out(refused):
            warnings.warn(line, stacklevel=2)
        keys = [k for k in keys if k not in refused]
        score = _scorer(keys, noise_label, noise)
    units = three.jackknife_units(
        jackknife_size(max(three.table_a.nnz, three.table_b.nnz)))
    leave_out = _LeaveOneOut(three, units, keys, score, noise_label is None and not three.real)
    bar = progress_bar(leave_out.n_tables, "paired jackknife", progress)
    try:
        jack = leave_out.differences(bar.update)
    finally:
        bar.close()
    out = {k: _paired_score(METRICS[k], base_a[k], base_b[k], row, units.weight,
                            three.n_items, ci)
           for k, row in zip(keys, jack, strict=True)}
    notes = [] if w is None else [
        f"weighted: N = {three.n} is the sum of the weights of {three.n_items} items; the "
        "jackknife leaves out one item at a time, with its weight"]
    notes += [f"not compared: {line}" for line in no_interval_lines(lacking)]
    return PairedComparison(out, float(ci), three.n, three.n_items,
                            cast("tuple[str, str]", tuple(names)), notes,
                            units.cell.shape[0] < units.n_groups)


def _weights(sample_weight: Any, t: np.ndarray) -> np.ndarray:
    """``sample_weight`` checked: one non-negative weight per item, some positive."""
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


class _Units(NamedTuple):
    """The groups of items the jackknife leaves out, one item at a time: each group's
    three-way ``cell``, the ``amount`` leaving one of its items out takes from that cell
    (1, or the item's weight), and ``weight``, how many items the group stands for.
    ``n_groups``: the groups before a systematic sample kept some of them."""

    cell: np.ndarray
    amount: np.ndarray
    weight: np.ndarray
    n_groups: int


class _ThreeWay:
    """The (truth, A, B) table: its non-zero cells, and the index of each cell's (truth, A)
    and (truth, B) cell in the two tables (``ta``, ``tb``), the tables being its margins.

    ``w``: checked weights (:func:`_weights`); the cells then count weights, and
    ``groups`` holds, per (cell, weight) group of items, its cell, its number of items
    and their weight, sorted by cell."""

    def __init__(self, t: np.ndarray, a: np.ndarray, b: np.ndarray,
                 w: np.ndarray | None = None):
        if w is not None:
            keep = w > 0
            t, a, b, w = t[keep], a[keep], b[keep], w[keep]
        (tc, tl), (ac, al), (bc, bl) = factorize(t), factorize(a), factorize(b)
        # two-stage keys: each fits in int64 for N < 3e9 (codes < N)
        ta_keys, ta_of_item = np.unique(tc * al.shape[0] + ac, return_inverse=True)
        tb_keys, tb_of_item = np.unique(tc * bl.shape[0] + bc, return_inverse=True)
        _, first, cell_of_item, counts = np.unique(
            ta_of_item * np.int64(tb_keys.shape[0]) + tb_of_item, return_index=True,
            return_inverse=True, return_counts=True)
        self.n_items = int(t.shape[0])
        self.counts = counts.astype(np.int64)
        self.groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if w is not None:
            self.groups = _weight_groups(cell_of_item.reshape(-1), w)
            group_cell, sizes, weights = self.groups
            starts = np.flatnonzero(np.diff(group_cell, prepend=-1))
            self.counts = np.add.reduceat(sizes * weights, starts)
        self.real = self.counts.dtype.kind == "f"
        self.n: int | float = float(self.counts.sum()) if self.real else \
            int(self.counts.sum(dtype=np.int64))
        self.exact = not self.real and self.n >= 2**53  # float64 bincounts would round
        self.ta = ta_of_item[first]
        self.tb = tb_of_item[first]
        self.n_ta, self.n_tb = ta_keys.shape[0], tb_keys.shape[0]
        self.table_a = Contingency.from_sorted_cells(
            ta_keys // al.shape[0], ta_keys % al.shape[0], self.margin_a(self.counts), tl, al)
        self.table_b = Contingency.from_sorted_cells(
            tb_keys // bl.shape[0], tb_keys % bl.shape[0], self.margin_b(self.counts), tl, bl)

    def jackknife_units(self, most: int | None = None) -> _Units:
        """The groups of exchangeable items (the cells, or the (cell, weight) groups);
        above ``most`` groups (default :data:`JACKKNIFE_MAX_CELLS`), a stratified
        systematic sample of about ``most`` items (:func:`_stratified_sample`), strata by
        the sizes of the unit's cells in A's and B's tables."""
        if self.groups is None:
            cell, amount, size = np.arange(self.counts.shape[0]), \
                np.ones(self.counts.shape[0], dtype=np.int64), self.counts
        else:
            cell, size, amount = self.groups
        most = JACKKNIFE_MAX_CELLS if most is None else most
        if size.shape[0] <= most:
            return _Units(cell, amount, size.astype(np.float64), int(size.shape[0]))
        strata = np.stack([_size_class(self.table_a.counts[self.ta[cell]]),
                           _size_class(self.table_b.counts[self.tb[cell]])])
        chosen, weight = _stratified_sample(size, strata, most)
        return _Units(cell[chosen], amount[chosen], weight, int(size.shape[0]))

    # float64 bincount sums are exact below 2**53 (every count and sum is at most the
    # table's total); above it the sums are taken in int64
    def margin_a(self, counts: np.ndarray) -> np.ndarray:
        return self._margin(self.ta, counts, self.n_ta)

    def margin_b(self, counts: np.ndarray) -> np.ndarray:
        return self._margin(self.tb, counts, self.n_tb)

    def _margin(self, index: np.ndarray, counts: np.ndarray, size: int) -> np.ndarray:
        if self.real:  # real masses: float sums
            return np.bincount(index, weights=counts, minlength=size)
        if not self.exact:
            return np.bincount(index, weights=counts, minlength=size).astype(np.int64)
        out = np.zeros(size, dtype=np.int64)
        np.add.at(out, index, np.asarray(counts, dtype=np.int64))
        return out


def jackknife_size(cells: int) -> int:
    """How many groups of items (or sampled items) the jackknife leaves out one by one
    when each side's table has up to ``cells`` non-zero cells (see
    :data:`JACKKNIFE_MAX_CELLS`); deterministic, from the table's size alone."""
    per_table = _TABLE_SECONDS + _CELL_SECONDS * cells
    fits = int(_JACKKNIFE_TIME / (2.0 * per_table))
    return max(JACKKNIFE_MIN_UNITS, min(JACKKNIFE_MAX_CELLS, fits))


def _size_class(sizes: np.ndarray) -> np.ndarray:
    """Cell sizes by octave (1, 2-3, 4-7, ...; real masses likewise): leaving an item out
    of a cell of one item or of two changes a score most differently."""
    return np.floor(np.log2(np.asarray(sizes, dtype=np.float64))).astype(np.int64)


# items drawn from each stratum at least (all of a smaller one), while the floors take at
# most half of the sample
_STRATUM_FLOOR = 32


def _stratified_sample(size: np.ndarray, strata: np.ndarray, most: int,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(chosen units, items each stands for): per stratum (a column of ``strata``), a
    systematic sample (:func:`~clustermetrics.inference.bootstrap.jackknife_cells`) of its share of
    ``most`` items, at least :data:`_STRATUM_FLOOR` (fewer when the strata are many: the
    floors take at most half of ``most``), or all of its units when they are fewer.

    The leave-one-out values that carry a jackknife's variance can sit in a few rare
    cells (pure noise: the cells of two items among thousands of one, which alone make
    ARI's pairs). On 30,000 items over 3,000 x 3,000 labels, a plain systematic sample
    of 40 items missed them all and put ARI's standard error 60 times too low (of 200:
    10 % low); drawn per stratum of cell sizes, 200 items gave it exactly."""
    _, stratum = np.unique(strata, axis=1, return_inverse=True)
    stratum = stratum.reshape(-1)
    n_strata = int(stratum.max()) + 1
    floor = max(1, min(_STRATUM_FLOOR, most // (2 * n_strata)))
    total = float(size.sum())
    chosen, weights = [], []
    for h in range(n_strata):
        units = np.flatnonzero(stratum == h)
        items = float(size[units].sum())
        share = max(floor, round(most * items / total))
        if units.shape[0] <= share:
            chosen.append(units)
            weights.append(size[units].astype(np.float64))
            continue
        picked, times = jackknife_cells(size[units], share)
        chosen.append(units[picked])
        weights.append(times * (items / float(times.sum())))
    return np.concatenate(chosen), np.concatenate(weights)


def _weight_groups(cell_of_item: np.ndarray, w: np.ndarray,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, number of items, weight) of each (cell, weight) group of positive-weight
    items, sorted by cell (every table scored is the sample less one item, so the
    checked total of the weights bounds them all)."""
    order = np.lexsort((w, cell_of_item))  # lexsort keeps float weights exact
    cell_sorted, w_sorted = cell_of_item[order], w[order]
    new = np.ones(order.shape[0], dtype=bool)
    new[1:] = (cell_sorted[1:] != cell_sorted[:-1]) | (w_sorted[1:] != w_sorted[:-1])
    firsts = np.flatnonzero(new)
    sizes = np.diff(np.append(firsts, order.shape[0])).astype(np.int64)
    return cell_sorted[firsts], sizes, w_sorted[firsts]


class _LeaveOneOut:
    """The leave-one-out tables of both sides: for each side, one table per distinct
    (cell of that side's table, amount) among the units, scored in blocks (stacks of
    whole items, else one table at a time), and the differences A - B per unit."""

    def __init__(self, three: _ThreeWay, units: _Units, keys: list[str],
                 score: Callable[[Contingency, bool], dict[str, float] | None],
                 stacked: bool):
        self.keys, self.score, self.stacked = keys, score, stacked
        self.n_units = units.cell.shape[0]
        self.sides = [] if three.n_items < 2 else [
            (table, *_distinct(cells[units.cell], units.amount))
            for table, cells in ((three.table_a, three.ta), (three.table_b, three.tb))]
        self.n_tables = sum(first.shape[0] for _, first, _, _ in self.sides)

    def differences(self, step: Callable[[int], Any]) -> np.ndarray:
        """(len(keys), units) leave-one-out differences A - B, NaN where undefined;
        ``step(k)`` after each block of k tables."""
        if not self.sides:  # one item: nothing to leave out
            return np.full((len(self.keys), self.n_units), np.nan)
        a, b = (self._scores(*side, step) for side in self.sides)
        return a - b

    def _scores(self, table: Contingency, cells: np.ndarray, amounts: np.ndarray,
                inverse: np.ndarray, step: Callable[[int], Any]) -> np.ndarray:
        m = cells.shape[0]
        size = stack_size(table.nnz, m) if self.stacked else 1
        blocks = [(lo, min(lo + size, m)) for lo in range(0, m, size)]
        out = np.empty((len(self.keys), m))
        tables = (_without(table.counts, cells[lo:hi], amounts[lo:hi]) for lo, hi in blocks)
        with _kernels.repeated(m):  # compiled kernels load when the tables repay it
            for (lo, hi), values in zip(blocks, scored_in_order(
                    lambda c: self._block(table, c), tables, replicate_threads(table.nnz)),
                    strict=True):
                out[:, lo:hi] = values
                step(hi - lo)
        return out[:, inverse]

    def _block(self, table: Contingency, counts: np.ndarray) -> np.ndarray:
        if self.stacked:
            return table_scores(table, counts, self.keys)
        out = np.full((len(self.keys), counts.shape[0]), np.nan)
        for i, row in enumerate(counts):
            values = self.score(table.with_counts(row), True)
            if values is not None:
                out[:, i] = [values[k] for k in self.keys]
        return out


def _distinct(cells: np.ndarray, amounts: np.ndarray,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (cell, amount) pairs (a leave-one-out table each) and, per unit, the
    index of its pair."""
    order = np.lexsort((amounts, cells))
    c, v = cells[order], amounts[order]
    new = np.ones(order.shape[0], dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (v[1:] != v[:-1])
    inverse = np.empty(order.shape[0], dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return c[new], v[new], inverse


def _without(counts: np.ndarray, cells: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    """One table per (cell, amount): ``counts`` less ``amount`` at ``cell``. A real mass
    left within rounding of 0 by the float subtraction is 0 (the cell's last item)."""
    out = np.repeat(counts[None, :], cells.shape[0], axis=0)
    rows = np.arange(cells.shape[0])
    left = out[rows, cells] - amounts
    if left.dtype.kind == "f":
        left[left <= 1e-12 * out[rows, cells]] = 0.0
    out[rows, cells] = left
    return out


def _scorer(keys: list[str], noise_label: Any, noise: str,
            refused: dict[str, ScoreUnavailable] | None = None
            ) -> Callable[[Contingency, bool], dict[str, float] | None]:
    """Scores of a table (NaN where undefined), after the noise rewrite; for a
    leave-one-out table, None where the rewrite leaves nothing (skipped). ``refused``
    collects the scores unavailable on a table that is not a leave-one-out table."""
    def score(table: Contingency, left_out: bool) -> dict[str, float] | None:
        if noise_label is not None:
            kept = noise_in_replicate(table, noise_label, noise) if left_out \
                else with_noise(table, noise_label, noise)[0]
            if kept is None:
                return None
            table = kept
        values = {}
        for k in keys:
            try:
                values[k] = float(METRICS[k].compute(table)[0])
            except ScoreUnavailable as exc:
                if refused is not None and not left_out:
                    refused.setdefault(k, exc)
                values[k] = math.nan
            except ValueError:
                values[k] = math.nan
        return values
    return score


def _paired_score(entry: MetricInfo, value_a: float, value_b: float, jack: np.ndarray,
                  weight: np.ndarray, n: int, level: float) -> PairedScore:
    d = value_a - value_b
    better = "tie" if value_a == value_b else \
        ("a" if entry.is_better(value_a, value_b) else "b")
    ok = ~np.isnan(jack)
    skipped = int(round(float(weight[~ok].sum()) * n / float(weight.sum())))
    scale = max(1.0, abs(value_a), abs(value_b))
    if math.isnan(d):
        test = JackknifeT((math.nan, math.nan), math.nan, math.nan, math.nan, ())
    else:
        test = jackknife_t(d, jack[ok], weight[ok], n, level, scale)
    return PairedScore(entry.key, float(value_a), float(value_b), float(d), test.interval,
                       test.pvalue, better, test.se, test.df, float(level), test.flags,
                       skipped)


class JackknifeT(NamedTuple):
    """What :func:`jackknife_t` says of a difference."""

    interval: tuple[float, float]
    pvalue: float
    se: float
    df: float
    flags: tuple[str, ...]


def jackknife_t(d: float, leave_one_out: np.ndarray, weights: np.ndarray, n: int,
                level: float, scale: float = 1.0) -> JackknifeT:
    """The interval at ``level`` and the two-sided p-value of a statistic ``d`` of ``n``
    items from its leave-one-out values, each standing for ``weights`` of the items: the
    jackknife's standard error (Tukey 1958) and Student's t at Satterthwaite's degrees of
    freedom (see the module docstring). One rule: p < 1 - ``level`` exactly when the
    interval excludes 0. A standard error within rounding of 0 (below 1e-12 ``scale``,
    the size of the scores) gives p = 1 and the interval [d, d] when d is within rounding
    of 0 too, else :data:`FLAG_CONSTANT` and no interval or p-value.

    >>> t = jackknife_t(0.5, np.array([0.4, 0.5, 0.6, 0.5]), np.ones(4), 4, 0.95)
    >>> round(t.se, 4), round(t.df, 3), t.pvalue < 0.05, t.interval[0] > 0
    (0.1225, 4.8, True, True)
    """
    if leave_one_out.shape[0] == 0 or n < 2:
        return JackknifeT((math.nan, math.nan), math.nan, math.nan, math.nan,
                          (FLAG_UNDEFINED,))
    se, df = _jackknife_se(leave_one_out, weights, n)
    tiny = _ROUNDING * scale
    if se <= tiny:
        if abs(d) <= tiny:
            return JackknifeT((d, d), 1.0, se, df, ())
        return JackknifeT((math.nan, math.nan), math.nan, se, df, (FLAG_CONSTANT,))
    half = float(stdtrit(df, 0.5 + level / 2.0)) * se
    low, high = d - half, d + half
    p = 2.0 * float(stdtr(df, -abs(d) / se))
    return JackknifeT((low, high), _one_rule(p, low, high, 1.0 - level), se, df, ())


def _jackknife_se(values: np.ndarray, weights: np.ndarray, n: int) -> tuple[float, float]:
    """The jackknife's standard error, sqrt((n - 1) / n · Σ (x_(i) - mean)²) over the n
    leave-one-out values (``values``, each standing for ``weights`` of them), and
    Satterthwaite's degrees of freedom of its square, 2 / (2 / (n - 1) + (b₂ - 3) / n)
    with b₂ their kurtosis: the variance of a sample variance of n values of kurtosis b₂,
    relative to its square, is 2 / (n - 1) + (b₂ - 3) / n, and a chi-square's is
    2 / ν. Always positive (b₂ >= 1)."""
    w = weights * (n / float(weights.sum()))  # the units stand for all n items
    u = values - float(np.dot(w, values)) / n
    m2 = float(np.dot(w, u * u)) / n
    if m2 <= 0.0:
        return 0.0, math.inf
    b2 = float(np.dot(w, (u * u) ** 2)) / n / (m2 * m2)
    return math.sqrt((n - 1) * m2), 2.0 / (2.0 / (n - 1) + (b2 - 3.0) / n)


def _one_rule(p: float, low: float, high: float, alpha: float) -> float:
    """``p`` on the side of ``alpha`` the interval says (0 outside it: p < alpha): t's
    distribution function and its inverse are inverses only to rounding, which could
    otherwise put p a few ulps on the other side of alpha."""
    excludes = low > 0.0 or high < 0.0
    if excludes and not p < alpha:
        return float(np.nextafter(alpha, 0.0))
    if not excludes and p < alpha:
        return alpha
    return p
