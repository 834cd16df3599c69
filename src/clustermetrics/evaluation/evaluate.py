"""``evaluate``: every requested score of one table, or of several references.

The table is built once; noise handling rewrites it once; bootstrap replicates are O(nnz)
redraws of it. Against several references (annotators, plausible partitions) each gets its
own table and report, gathered in a :class:`~clustermetrics.evaluation.report.MultiReport`.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, overload

import numpy as np

from ..compute.progress import progress_callback, slow_step_note
from ..inference.bootstrap import (
    DEFAULT_METHOD,
    Bootstrap,
    bootstrap_intervals,
    check_bootstrap_options,
    check_method,
    replicate_table,
)
from ..inference.noise import check_noise_mode, noise_in_replicate, with_noise
from ..inference.permutation import check_permutation_options, permutation_tests
from ..scores.pair_table import copy_pairs, leave_out_copies
from ..scores.registry import METRICS, resolve_metrics
from ..scores.spec import ScoreUnavailable
from ..table import REAL_MASSES, Contingency, as_contingency
from ..table.stack import STACK_MAX_N, TableStack
from .inference_text import by_reason
from .report import MultiReport, Report

__all__ = ["check_intervals", "check_options", "evaluate", "evaluate_references",
           "evaluate_table", "is_several", "replicate_scores", "score_values", "table_scores"]


_UNSET_N_BOOT = 1000  # replicates when ``ci`` is given and ``n_boot`` is not


@overload
def evaluate(labels_true: Mapping[str, Any], labels_pred: Any = None,
             metrics: str | Iterable[str] | None = None, *, noise_label: Any = None,
             noise: str | None = None, ci: float | None = None, n_boot: int | None = None,
             seed: Any = None, progress: Callable[[int, int], None] | bool | None = None,
             significance: bool = False, n_perm: int | None = None,
             ci_method: str | None = None, sample_weight: Any = None) -> MultiReport: ...


@overload
def evaluate(labels_true: Contingency, labels_pred: None = None,
             metrics: str | Iterable[str] | None = None, *, noise_label: Any = None,
             noise: str | None = None, ci: float | None = None, n_boot: int | None = None,
             seed: Any = None, progress: Callable[[int, int], None] | bool | None = None,
             significance: bool = False, n_perm: int | None = None,
             ci_method: str | None = None, sample_weight: Any = None) -> Report: ...


@overload
def evaluate(labels_true: Any, labels_pred: Any = None,
             metrics: str | Iterable[str] | None = None, *, noise_label: Any = None,
             noise: str | None = None, ci: float | None = None, n_boot: int | None = None,
             seed: Any = None, progress: Callable[[int, int], None] | bool | None = None,
             significance: bool = False, n_perm: int | None = None,
             ci_method: str | None = None, sample_weight: Any = None) -> Report | MultiReport: ...


def evaluate(labels_true: Any, labels_pred: Any = None,
             metrics: str | Iterable[str] | None = None, *, noise_label: Any = None,
             noise: str | None = None, ci: float | None = None, n_boot: int | None = None,
             seed: Any = None, progress: Callable[[int, int], None] | bool | None = None,
             significance: bool = False, n_perm: int | None = None,
             ci_method: str | None = None, sample_weight: Any = None) -> Report | MultiReport:
    """Compute many scores at once; the contingency table is built exactly once.

    Parameters
    ----------
    labels_true, labels_pred : label sequences of equal length, or a ``Contingency`` as
        ``labels_true`` (and ``labels_pred=None``). Several references (then a
        :class:`~clustermetrics.evaluation.report.MultiReport` is returned): a dict name ->
        labels or table; a list or tuple of labelings (lists, arrays, Series, tuples) or of
        tables; a 2-D array (one reference per row, as a list of equal-length tuples); or
        a pandas / polars DataFrame (one reference per column, named by the column).
    metrics : registry keys (see ``clustermetrics.METRICS``), function names, or a comma
        separated string; None computes every registered score.
    noise_label : the predicted label that marks noise points (e.g. -1 for HDBSCAN), or
        None. See :mod:`clustermetrics.inference.noise` for what each score family then sees.
    noise : {"singletons", "exclude"} or None
        Noise points become clusters of one item each (None, the default, means
        "singletons" when ``noise_label`` is given), or are left out of both labelings.
        Given explicitly, it needs ``noise_label``. When every point is noise,
        "singletons" scores N one-item clusters and "exclude" is an error.
    ci : float in (0, 1) or None
        Also compute bootstrap intervals at this level (``Report.intervals``); each
        replicate is a multinomial redraw of the table's cells, O(nnz) (see
        :mod:`clustermetrics.inference.bootstrap`, which also gives the rule for replicates on which
        a score is undefined). A score without a valid bootstrap interval
        (``METRICS[key].no_bootstrap`` says why: MARI) is refused when named, and scored
        without an interval, with a warning, when ``metrics`` is None.
    n_boot : int, default 1000 when ``ci`` is given
        Number of bootstrap replicates (2 to 1,000,000); only with ``ci``.
    seed : seed for the bootstrap's and the permutation test's random generator (a
        non-negative integer of any size, as numpy's ``SeedSequence`` takes, or a numpy
        Generator / SeedSequence); only with ``ci`` or ``n_perm``.
    progress : callable(done, total), True, False or None (default)
        Progress of the bootstrap replicates and the permutation draws: a callable is
        called as replicates are scored (in blocks: twenty calls or more when ``n_boot``
        is 20 or more, ``done`` increasing to ``total``) and after each permutation draw;
        True shows a bar on stderr, None shows it when stderr is a terminal, False shows
        nothing.
    significance : bool, default False
        Also give each score that has an analytic null distribution (the pair-counting
        scores affine in the pair count: ARI, RI, SRI, FMI, pair precision and recall,
        ...) its z-score and one-sided p-value against random labellings with the same
        class and cluster sizes (``Report.significance``; exact null mean and variance,
        normal approximation for the p-value). For any score, see
        :func:`~clustermetrics.permutation_test`.
    n_perm : int or None
        Also run a permutation test of every score with this many random tables with the
        table's margins (``Report.permutation``: p-value with its Monte Carlo standard
        error, null mean and sd; see :mod:`clustermetrics.inference.permutation`); ``seed`` seeds
        it.
    ci_method : {"normal", "basic", "percentile", "bca"}, default "normal" when ``ci`` is given
        How replicates become an interval (``interval_from_replicates`` in
        :mod:`clustermetrics.inference.bootstrap`). The default, a normal interval centred on the
        bias-corrected estimate, held the population score at the nominal level in the
        coverage study (README, "How good are the intervals") where percentile intervals
        of biased scores (mutual information, NMI, V-measure) did not. Intervals under
        conditions where no method did (a sample with few items per cell of its table, a
        score at the bound of its range, replicates biased by more than their spread:
        matching scores of noisy tables, information scores with many classes) carry
        ``flags``.

    sample_weight : array-like of non-negative weights, optional
        How much each item counts. Integer weights are exact repetition (every score,
        intervals and tests then describe the repeated items); 0 leaves an item out.
        Real weights give a table of real masses (see the user guide's weights
        section): scores that need whole items (AMI, SMI, RMI, SRI, MARI, ...) are left
        out with a warning when ``metrics`` is None and refused when named; ``ci``,
        ``significance``, ``n_perm`` and ``noise="singletons"`` are refused.

    Options that would have no effect are refused rather than ignored: ``n_boot``,
    ``ci_method`` or ``seed`` without ``ci``, and ``noise`` without ``noise_label``.

    Examples
    --------
    >>> r = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics=["ari", "nmi"])
    >>> round(r["ari"], 4), round(r["nmi"], 4)
    (0.5714, 0.8)
    >>> r = evaluate([0, 0, 0, 1, 1, 1], [1, 1, -1, 2, 2, 2], "ari", noise_label=-1)
    >>> r.noise.n_noise, round(r["ari"], 4)
    (1, 0.7059)
    """
    keys = resolve_metrics(metrics)
    check_options(noise_label=noise_label, noise=noise, ci=ci, n_boot=n_boot, seed=seed,
                  n_perm=n_perm, ci_method=ci_method)
    if ci is not None:  # before any table is built
        check_intervals(keys, every_score=metrics is None)
    if progress is not None and not callable(progress) and not isinstance(progress, bool):
        raise ValueError(f"progress must be a callable(done, total), True, False or None, "
                         f"got {progress!r}")
    if not isinstance(significance, bool):
        raise ValueError(f"significance must be True or False, got {significance!r}")
    options = dict(noise_label=noise_label, noise=noise, ci=ci,
                   n_boot=_UNSET_N_BOOT if n_boot is None else n_boot, seed=seed,
                   progress=progress, significance=significance, n_perm=n_perm,
                   ci_method=ci_method or DEFAULT_METHOD, every_score=metrics is None)
    if is_several(labels_true):
        return evaluate_references(labels_true, labels_pred, keys, sample_weight=sample_weight,
                                   **options)
    return evaluate_table(as_contingency(labels_true, labels_pred, sample_weight), keys,
                          **options)


def check_options(*, noise_label: Any = None, noise: Any = None, ci: Any = None,
                  n_boot: Any = None, seed: Any = None, n_perm: Any = None,
                  ci_method: Any = None,
                  names: Mapping[str, str] | None = None) -> None:
    """Refuse unusable values and options that would have no effect, naming them as
    ``names`` spells them (the command line passes its flags). Cheap: before any work."""
    name = {"noise_label": "noise_label", "noise": "noise", "ci": "ci", "n_boot": "n_boot",
            "seed": "seed", "n_perm": "n_perm", "ci_method": "ci_method", **(names or {})}
    if n_perm is not None:
        check_permutation_options(n_perm, seed, names=(name["n_perm"], name["seed"]))
    if noise is not None:
        check_noise_mode(noise, name["noise"])
    if noise is not None and noise_label is None:
        raise ValueError(f"{name['noise']} {noise!r} needs {name['noise_label']} (the "
                         "predicted label that marks noise points)")
    if ci is None:
        for option, value in (("n_boot", n_boot), ("ci_method", ci_method)):
            if value is not None:
                raise ValueError(f"{name[option]} applies to bootstrap intervals: give "
                                 f"{name['ci']} too (e.g. 0.95)")
        if seed is not None and n_perm is None:
            raise ValueError(f"{name['seed']} applies to bootstrap intervals and permutation "
                             f"tests: give {name['ci']} (e.g. 0.95) or {name['n_perm']} too")
        return
    check_bootstrap_options(ci, _UNSET_N_BOOT if n_boot is None else n_boot,
                            (name["ci"], name["n_boot"]), seed, name["seed"])
    if ci_method is not None:
        check_method(ci_method, name["ci_method"])


def without_intervals(keys: Iterable[str]) -> dict[str, str]:
    """Key -> why, for the scores of ``keys`` that declare no bootstrap interval
    (:attr:`~clustermetrics.scores.registry.MetricInfo.no_bootstrap`)."""
    return {k: why for k in keys if (why := METRICS[k].no_bootstrap) is not None}


_NO_INTERVAL_ADVICE = ("leave it out of the metrics to get the other scores' intervals, or "
                       "score it without intervals")


def check_intervals(keys: Iterable[str], every_score: bool,
                    advice: str = _NO_INTERVAL_ADVICE, option: str = "ci") -> dict[str, str]:
    """The scores of ``keys`` without a bootstrap interval (key -> why), when intervals
    are asked for (by ``option``, which the error names). A score the user named is
    refused, as a named score unavailable on the table is (its interval would be a
    silently wrong number), with ``advice``; of every score, they are returned, to be
    scored without an interval. Every entry point that computes intervals calls it."""
    lacking = without_intervals(keys)
    if lacking and not every_score:
        key, why = next(iter(lacking.items()))
        raise ValueError(f"{key} ({METRICS[key].name}) has no bootstrap interval "
                         f"({option}): {why}; {advice}")
    return lacking


def no_interval_lines(lacking: Mapping[str, str]) -> list[str]:
    """One warning line per reason for the scores given without an interval."""
    return [f"{', '.join(group)}: no bootstrap interval: {why}"
            for why, group in by_reason(lacking).items()]


def evaluate_table(table: Contingency, keys: list[str], *, noise_label: Any = None,
                   noise: str | None = None, ci: float | None = None, n_boot: int = 1000,
                   seed: Any = None, progress: Callable[[int, int], None] | bool | None = None,
                   significance: bool = False, n_perm: int | None = None,
                   ci_method: str = DEFAULT_METHOD, every_score: bool = False) -> Report:
    """:func:`evaluate` of one table and resolved metric keys (options checked).
    ``every_score``: the keys are every registered score, not named by the user, so a
    score unavailable on this table (:class:`ScoreUnavailable`) is left out with a
    warning instead of failing the call, and with ``ci`` a score without a bootstrap
    interval (:func:`check_intervals`) is scored without one, with a warning."""
    noise = noise or "singletons"
    for wanted, what in ((ci is not None, "ci (bootstrap intervals)"),
                         (significance, "significance"),
                         (n_perm is not None, "n_perm (permutation tests)")):
        if wanted:
            table.require_counts(what, "it draws random tables of whole items")
    if noise_label is None:
        scored, noise_info = table, None
    else:
        scored, noise_info = with_noise(table, noise_label, noise)
    # refused before any score is computed; of every score, scored without an interval
    lacking = {} if ci is None else check_intervals(keys, every_score)
    values, details, timings = _compute(scored, keys, every_score)
    keys = [k for k in keys if k in values]
    intervals, boot = {}, None
    if ci is not None:
        for line in no_interval_lines({k: lacking[k] for k in keys if k in lacking}):
            warnings.warn(line, stacklevel=3)
        boot_keys = [k for k in keys if k not in lacking]

        def replicate(rep: Contingency) -> dict[str, float] | None:
            if noise_label is not None:
                kept = noise_in_replicate(rep, noise_label, noise)
                if kept is None:  # nothing left to score: skipped (bootstrap's rule)
                    return None
                rep = kept
            return score_values(rep, boot_keys)

        with progress_callback(progress, n_boot, "bootstrap") as callback:
            intervals = bootstrap_intervals(
                table, replicate, boot_keys, level=ci, n_boot=n_boot, seed=seed,
                progress=callback, method=ci_method, point=values,
                bounds={k: (METRICS[k].lower, METRICS[k].upper) for k in boot_keys},
                score_stack=None if noise_label is not None else
                lambda counts: replicate_scores(table, counts, boot_keys))
        boot = Bootstrap(float(ci), int(n_boot), seed, ci_method)
    nulls = None
    if significance:
        nulls = {}
        for k in keys:
            analytic = METRICS[k].significance
            if analytic is not None:
                nulls[k] = analytic(scored)
    permutation = None
    if n_perm is not None:
        permutation = permutation_tests(scored, keys, n_perm=n_perm, seed=_second_stream(seed),
                                        progress=progress)
    return Report(scored, values, details, timings, intervals=intervals, noise=noise_info,
                  bootstrap=boot, significance=nulls, permutation=permutation)


def _second_stream(seed: Any) -> Any:
    """The permutation test's seed: a stream independent of the bootstrap's when both
    come from one ``seed`` (a Generator is simply drawn on)."""
    if seed is None or isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1))
    return np.random.SeedSequence(seed, spawn_key=(1,))


def replicate_scores(table: Contingency, counts: np.ndarray, keys: list[str],
                     ) -> np.ndarray:
    """The scores ``keys`` of bootstrap replicates of ``table``: ``counts`` is a (B, nnz)
    array, one redraw of the table's cells per row; returns a (len(keys), B) array, NaN
    where a score is undefined on a replicate.

    The replicates are scored together, as one :class:`~clustermetrics.table.stack.
    TableStack` (each score's function runs once on arrays of every replicate's numbers),
    their pair counts leaving out the pairs of an item with its own copies
    (:func:`~clustermetrics.inference.bootstrap.replicate_table`). Where a score cannot be computed
    on every replicate of the stack (a ``ValueError``: one is outside its domain), or the
    replicates count more items than a stack holds, each replicate is scored alone."""
    return _stack_scores(table, counts, keys, replicates=True)


def table_scores(table: Contingency, counts: np.ndarray, keys: list[str]) -> np.ndarray:
    """The scores ``keys`` of tables with the cells of ``table`` and other counts of whole
    items, one table per row of the (B, nnz) array ``counts`` (e.g. the leave-one-out
    tables of a jackknife): as :func:`replicate_scores`, but the tables are samples of
    distinct items, not replicates holding copies of one item, so every pair counts.
    Returns a (len(keys), B) array, NaN where a score is undefined on a table."""
    return _stack_scores(table, counts, keys, replicates=False)


def _stack_scores(table: Contingency, counts: np.ndarray, keys: list[str], *,
                  replicates: bool) -> np.ndarray:
    counts = np.atleast_2d(np.asarray(counts, dtype=np.int64))
    out = np.full((len(keys), counts.shape[0]), np.nan)

    def one(row: np.ndarray) -> Contingency:
        return replicate_table(table, row) if replicates else table.with_counts(row)
    if int(counts.sum(axis=1).max(initial=0)) >= STACK_MAX_N:
        for b, row in enumerate(counts):
            scores = score_values(one(row), keys)
            out[:, b] = [scores[k] for k in keys]
        return out
    stack = TableStack(table, counts)
    if replicates:
        leave_out_copies(stack, copy_pairs(table.counts, counts).sum(axis=1))
    for i, key in enumerate(keys):
        try:
            out[i] = METRICS[key].compute_many(stack)
        except (ValueError, ZeroDivisionError):  # each alone: a table outside the
            # score's domain, or pair counts past 2**53 (exact Python ints, where numpy's
            # division raises at a 0/0 that one table's formula checks first)
            out[i] = [score_values(one(row), [key])[key] for row in counts]
    return out


def score_values(table: Contingency, keys: list[str]) -> dict[str, float]:
    """Scores of a table (a bootstrap replicate); NaN where a score is undefined on it
    (then skipped)."""
    out = {}
    for key in keys:
        try:
            out[key] = METRICS[key].compute(table)[0]
        except ValueError:
            out[key] = math.nan
    return out


def _compute(table: Contingency, keys: list[str], every_score: bool = False,
             ) -> tuple[dict[str, float], dict[str, Any], dict[str, float]]:
    values: dict[str, float] = {}
    details: dict[str, Any] = {}
    timings: dict[str, float] = {}
    refused: dict[str, ScoreUnavailable] = {}
    for key in keys:
        start = time.perf_counter()
        with slow_step_note(f"{key} ({METRICS[key].name})"):
            try:
                values[key], detail = METRICS[key].compute(table)
            except ScoreUnavailable as exc:
                if not every_score:
                    raise
                refused[key] = exc
                continue
        timings[key] = time.perf_counter() - start
        if detail is not None:
            details[key] = detail
    for line in left_out(refused):
        warnings.warn(line, stacklevel=3)
    return values, details, timings


def left_out(refused: Mapping[str, ScoreUnavailable]) -> list[str]:
    """One line per reason for the scores left out (key: its refusal): the scores that
    need whole items on a table of real masses share one line, as do the scores refused
    with one message (the pair-counting scores on cells lighter than one item)."""
    whole = {k: e.needs_counts for k, e in refused.items() if e.needs_counts is not None}
    by_message: dict[str, list[str]] = {}
    for key, exc in refused.items():
        if key not in whole:
            by_message.setdefault(str(exc), []).append(key)
    lines = [f"{', '.join(group)} left out: {message}"
             for message, group in by_message.items()]
    if whole:
        by_why: dict[str, list[str]] = {}
        for key, why in whole.items():
            by_why.setdefault(why, []).append(key)
        if len(whole) == 1:
            (key, exc), = ((k, refused[k]) for k in whole)
            lines.append(f"{key} left out: {exc}")
        else:
            reasons = "; ".join(f"{', '.join(group)}: {why}" for why, group in by_why.items())
            lines.append(f"{', '.join(whole)} left out: they need integer item counts, but "
                         f"{REAL_MASSES} ({reasons}); use integer weights or counts "
                         "(repetitions)")
    return lines


def is_several(labels_true: Any) -> bool:
    """True for several references: a dict, a data frame (pandas, polars or a pyarrow
    table: one reference per column), a 2-D array (one per row), or a list/tuple whose
    items are all label sequences (lists, tuples, arrays, Series) or tables -- so a list
    of equal-length tuples reads as the rows of a 2-D array. A single labeling is a flat
    sequence of scalars."""
    if isinstance(labels_true, Mapping) or _frame_columns(labels_true) is not None:
        return True
    if isinstance(labels_true, np.ndarray):
        return labels_true.ndim == 2
    if isinstance(labels_true, (list, tuple)) and labels_true:
        return all(isinstance(x, Contingency) or _is_sequence(x) for x in labels_true)
    return False


def _is_sequence(x: Any) -> bool:
    return hasattr(x, "__len__") and not isinstance(x, (str, bytes))


def _frame_columns(frame: Any) -> list[tuple[str, Any]] | None:
    """(column name, column) of a pandas or polars DataFrame or a pyarrow Table, or None
    for anything else (recognised by module, so none of them is imported here)."""
    module = type(frame).__module__.split(".")[0]
    if module == "pandas" and getattr(frame, "ndim", 0) == 2:
        return [(str(c), frame.iloc[:, i]) for i, c in enumerate(frame.columns)]
    if module == "polars" and hasattr(frame, "get_columns"):
        return [(s.name, s) for s in frame.get_columns()]
    if module == "pyarrow" and hasattr(frame, "column_names") and hasattr(frame, "column"):
        return [(str(n), frame.column(i)) for i, n in enumerate(frame.column_names)]
    return None


def evaluate_references(references: Any, labels_pred: Any, keys: list[str], *,
                        sample_weight: Any = None, **options: Any) -> MultiReport:
    """Score ``labels_pred`` against each reference (see :func:`clustermetrics.evaluate`)."""
    named = _named(references)
    reports = {name: evaluate_table(_table(ref, labels_pred, name, sample_weight), keys,
                                    **options)
               for name, ref in named.items()}
    return MultiReport(reports)


def _named(references: Any) -> dict[str, Any]:
    columns = _frame_columns(references)
    if columns is not None:
        items = columns
    elif isinstance(references, Mapping):
        items = [(str(k), v) for k, v in references.items()]
    else:
        items = [(f"reference {i + 1}", v) for i, v in enumerate(references)]
    if not items:
        raise ValueError("labels_true holds no references")
    names = [name for name, _ in items]
    twice = [name for name in dict.fromkeys(names) if names.count(name) > 1]
    if twice:
        raise ValueError(f"labels_true: reference names must be distinct, {twice[0]!r} "
                         "names two references")
    return dict(items)


def _table(reference: Any, labels_pred: Any, name: str,
           sample_weight: Any = None) -> Contingency:
    try:
        return as_contingency(reference, labels_pred, sample_weight)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
