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

**Sampled items.** Above :func:`.jackknife.jackknife_size` groups of items (at most
:data:`.jackknife.JACKKNIFE_MAX_CELLS`, fewer where each leave-one-out table costs more to
score), a stratified systematic sample of about that many items stands for them all
(strata: the sizes of an item's cells in A's and B's tables; see
:func:`.jackknife._stratified_sample`).

**Flags: where no p-value is given.** :data:`.paired_results.FLAG_CONSTANT`: the
clusterings differ but no leave-one-out table changes the difference (a score that moves
in jumps: the ratio of cluster counts, the exact-match scores, the pseudo recovery rate):
the jackknife sees no spread, t would be infinite and p = 0, so the result gives no
interval and no p-value. In the calibration study this took up to 10 % of the null
comparisons of those scores (3 classes, n = 30, keep 0.9), each of which would otherwise
have been a false positive; on the rest of its grid (3 to 50 classes, n = 30 to 2,000,
keep 0.2 to 0.9) the test held its level for every score without another flag.
:data:`.paired_results.FLAG_UNDEFINED`: no leave-one-out table could be scored (one
item).

**Weights.** With ``sample_weight`` the unit left out is still the item, with its weight:
items of one cell with one weight leave the same tables out, so they are one group of
the jackknife. Real (non-integral) weights give tables of real masses (float sums), and
the scores that need whole items are refused before any table is scored.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from typing import Any, cast

import numpy as np

from ..compute.progress import progress_bar
from ..inference.bootstrap import check_level
from ..inference.noise import check_noise_mode, noise_in_replicate, with_noise
from ..scores.registry import METRICS, MetricInfo, resolve_metrics
from ..scores.spec import ALIASES_REMOVED_IN, ScoreUnavailable, deprecated_alias
from ..table import Contingency
from ..table.validation import as_label_array, check_same_length
from ..table.weight_values import read_weights
from .evaluate import check_intervals, left_out, no_interval_lines
from .jackknife import JackknifeT, _LeaveOneOut, _ThreeWay, jackknife_size, jackknife_t
from .paired_results import PairedComparison, PairedScore

__all__ = ["DEFAULT_PAIRED", "DROPPED_OPTIONS", "compare_clusterings", "paired_comparison"]

DEFAULT_PAIRED = ("ari", "ami", "nmi", "v_measure", "bcubed_f", "clustering_accuracy",
                  "recovery_rate")
# n_boot and seed of the paired bootstrap (before 0.2), accepted and ignored until the
# deprecated names go
DROPPED_OPTIONS = ("n_boot and seed no longer apply: the paired comparison is a "
                   "deterministic jackknife since version 0.2 (they are ignored, and will "
                   f"be removed in {ALIASES_REMOVED_IN})")


def paired_comparison(labels_true: Any, labels_a: Any, labels_b: Any,
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
    >>> r = paired_comparison(truth, good, poor, "ari")
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
    w = None if sample_weight is None else _weights(sample_weight, t, (a, b))
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


def _weights(sample_weight: Any, t: np.ndarray, preds: tuple[np.ndarray, ...]
             ) -> np.ndarray:
    """``sample_weight`` checked: one non-negative weight per item, some positive, and
    making A's and B's tables by the weight rule (whose checks read each table's cells)."""
    if isinstance(sample_weight, (str, bytes)) or np.ndim(sample_weight) == 0:
        raise ValueError("sample_weight must be a sequence of one weight per item, got "
                         f"{type(sample_weight).__name__}")
    w = read_weights(sample_weight, "sample_weight").item_values()  # int64, or float64
    check_same_length(t, w, "labels_true", "sample_weight")
    if not (w > 0).any():
        raise ValueError("sample_weight is 0 for every item: nothing to score")
    for pred in preds:  # the totals' limits, on the tables the comparison scores
        Contingency.from_labels(t, pred, sample_weight=sample_weight)
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


# its name before 0.2, when "compare" also named the command that compares algorithms
compare_clusterings = deprecated_alias("compare_clusterings", paired_comparison)
