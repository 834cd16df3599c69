"""The ``compare`` command: clustering algorithms run on data with a known truth, every run
scored with every registered score."""

from __future__ import annotations

import argparse

import numpy as np

from ..evaluation.evaluate import check_intervals
from ..experiments.algorithms import ALGORITHMS, MAX_PAIRWISE, MAX_SEED
from ..experiments.compare import Comparison, compare, mark_near_best
from ..experiments.datasets import DATASETS, load_dataset, read_dataset
from ..experiments.pages import compare_sections
from ..inference.noise import NOISE_MODES
from .commands import SUMMARIES
from .option_values import comma_list, integer, metric_keys, positive_float
from .options import (
    MAX_POINTS,
    add_run_options,
    algorithm_names,
    progress_of,
    refuse_unused,
    show_needs_report,
    sklearn_seed,
    with_extras,
    write_page,
)
from .output import CliError, add_output_options, log, render

__all__ = ["add_compare_command", "k_spans", "parse_k", "standardize"]


# the help lists every dataset the code accepts; these only add a word on some of them
_DATASET_NOTES = {
    "overlapping": " (simulated, the default)",
    "halo": " (simulated stellar halo: satellite galaxies disrupted in a Milky-Way "
            "potential, in (E, L_z, L_perp) scaled as in Li & Klette; needs the halo extra)"}


def add_compare_command(sub) -> None:
    p = sub.add_parser(
        "compare", help=SUMMARIES["compare"],
        description="Run clustering algorithms (scikit-learn) on datasets with a known "
                    "ground truth and score every run with every registered score. An "
                    "option that would change nothing (e.g. --overlap with --dataset iris) "
                    "is refused.")
    p.add_argument("--dataset", default=None,
                   help="comma-separated built-in datasets: " + ", ".join(
                       name + _DATASET_NOTES.get(name, "") for name in DATASETS))
    p.add_argument("--data", metavar="FILE", help="your table file of features (of any "
                                                   "format score reads)")
    p.add_argument("--label-col", help="the ground-truth column of --data")
    p.add_argument("--features", help="comma-separated feature columns of --data "
                                      "(default: every column but the label)")
    p.add_argument("--sep", help="field separator of --data (default: tab for .tsv, else ,)")
    p.add_argument("--algorithms", help="comma-separated algorithms (default: all): "
                                        + ", ".join(ALGORITHMS))
    p.add_argument("--k", help="clusters for the algorithms that take a number: N, a list "
                               "N,M or a range LO-HI (default: the true number)")
    p.add_argument("--n-clusters", type=integer(1, 10_000),
                   help="clusters of the simulated / blobs data, satellites of halo "
                        "(default 5)")
    p.add_argument("--n-per-cluster", type=integer(1, MAX_POINTS),
                   help="points per simulated / blobs cluster (default 400)")
    p.add_argument("--overlap", type=positive_float,
                   help="overlap of the simulated clusters (default 1; larger = more)")
    p.add_argument("--standardize", action="store_true",
                   help="scale every feature to mean 0, variance 1 before clustering")
    p.add_argument("--noise", choices=("cluster", *NOISE_MODES),
                   help="how HDBSCAN's noise points are scored: one cluster of their own "
                        "(default), one cluster each (singletons), or left out (exclude)")
    p.add_argument("--drop-noise", action="store_true",
                   help="the same as --noise exclude")
    p.add_argument("--max-pairwise", type=integer(1, 1_000_000),
                   help="ward and average linkage run on a random subsample of this many "
                        "points above it (O(N^2) memory; default 5000; at least k)")
    p.add_argument("--curves", action="store_true",
                   help="ward and average linkage also score every cut of their tree and "
                        "report each score's best cut beside the run at the true k "
                        "(--report draws the curves)")
    p.add_argument("--metrics", help="comma-separated score keys (default: all; the table "
                                     "shows these, or ARI, AMI, NMI and V-measure)")
    p.add_argument("--seed", type=sklearn_seed,
                   help="random seed of the simulated data, the algorithms and the "
                        f"subsamples (default 0; 0 to {MAX_SEED}, scikit-learn's range)")
    p.add_argument("--paired", metavar="SCORE",
                   help="test every run against the best run of its dataset by SCORE (a "
                        "paired jackknife t test over the points, Holm-adjusted p-values) "
                        "and mark the runs not significantly worse")
    # the paired bootstrap's option (before version 0.2): accepted with a note until 0.3
    p.add_argument("--paired-n-boot", help=argparse.SUPPRESS)
    p.add_argument("--show", metavar="ALGORITHM",
                   help="the run detailed in the --report page (default: best exact "
                        "recovery rate)")
    add_run_options(p)
    add_output_options(p)
    p.set_defaults(handler=with_extras(_compare))


_SIMULATED = {"overlapping": ("--n-clusters", "--n-per-cluster", "--overlap", "--seed"),
              "halo": ("--n-clusters", "--n-per-cluster", "--seed"),
              "blobs": ("--n-clusters", "--n-per-cluster", "--seed")}
AGGLOMERATIVE = ("ward", "average")


def _dataset_names(args: argparse.Namespace) -> list[str]:
    """The built-in datasets asked for ([] with --data); checked before anything loads."""
    if args.data is not None and args.dataset is not None:
        raise CliError("give either --data or --dataset, not both")
    if args.data is not None:
        if not args.label_col:
            raise CliError("--data needs --label-col (the ground-truth column)")
        return []
    for option, value in (("--label-col", args.label_col), ("--features", args.features),
                          ("--sep", args.sep)):
        if value is not None:
            raise CliError(f"{option} applies to --data")
    if args.dataset is None:
        return ["overlapping"]
    return comma_list(args.dataset, "--dataset", _dataset)


def _dataset(name: str) -> str:
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    return name


def _check_compare_options(args: argparse.Namespace, names: list[str],
                           algorithms: list[str]) -> str | None:
    """Every option that would change nothing is refused; returns the noise mode."""
    data = "--data" if args.data is not None else f"--dataset {','.join(names)}"
    for option in ("--n-clusters", "--n-per-cluster", "--overlap"):
        users = [n for n in names if option in _SIMULATED.get(n, ())]
        refuse_unused(args, option, option[2:].replace("-", "_"), None if users else
                       f"applies to the simulated datasets "
                       f"({', '.join(n for n in _SIMULATED if option in _SIMULATED[n])}), "
                       f"not to {data}")
    n_points = (args.n_clusters or 5) * (args.n_per_cluster or 400)
    if names and any(n in _SIMULATED for n in names) and n_points > MAX_POINTS:
        raise CliError(f"--n-clusters x --n-per-cluster is {n_points:,} points; at most "
                       f"{MAX_POINTS:,}")
    random = any(n in _SIMULATED for n in names) or any(ALGORITHMS[a].seeded
                                                        for a in algorithms)
    refuse_unused(args, "--seed", "seed", None if random else
                   f"changes nothing: {data} and --algorithms {','.join(algorithms)} use no "
                   "randomness")
    takes_k = [a for a in algorithms if ALGORITHMS[a].uses_k]
    refuse_unused(args, "--k", "k", None if takes_k else
                   f"applies to algorithms that take a number of clusters; --algorithms "
                   f"{','.join(algorithms)} choose their own")
    agglomerative = [a for a in algorithms if a in AGGLOMERATIVE]
    refuse_unused(args, "--max-pairwise", "max_pairwise", None if agglomerative else
                   "applies to ward and average linkage; --algorithms has neither")
    if args.curves and not agglomerative:
        raise CliError("--curves applies to ward and average linkage; --algorithms has "
                       "neither")
    if args.drop_noise and args.noise not in (None, "exclude"):
        raise CliError(f"--drop-noise is --noise exclude: it contradicts --noise {args.noise}")
    noise = "exclude" if args.drop_noise else args.noise
    if noise is not None and "hdbscan" not in algorithms:
        option = "--drop-noise" if args.drop_noise else "--noise"
        raise CliError(f"{option} applies to hdbscan's noise points; --algorithms has no "
                       "hdbscan")
    show_needs_report(args, algorithms)
    return noise


def _load_datasets(args: argparse.Namespace, names: list[str]) -> list:
    if args.data is not None:
        features = comma_list(args.features, "--features") if args.features else None
        found = [read_dataset(args.data, args.label_col, feature_cols=features, sep=args.sep,
                            names={"sep": "--sep", "label_col": "--label-col",
                                   "feature_cols": "--features"})]
    else:
        found = [load_dataset(n, n_clusters=args.n_clusters or 5,
                              n_per_cluster=args.n_per_cluster or 400,
                              overlap=args.overlap or 1.0, seed=args.seed or 0)
                 for n in names]
    if args.standardize:
        found = [d._replace(X=standardize(d.X)) for d in found]
    return found


def standardize(X):
    """Each column to mean 0 and variance 1 (constant columns to 0). Columns are first
    divided by their largest magnitude, which the result does not depend on, so values
    near the float range (1e300) do not overflow in the variance.

    >>> import numpy as np
    >>> standardize(np.array([[1e300, 1.0], [-1e300, 1.0]])).tolist()
    [[1.0, 0.0], [-1.0, 0.0]]
    """
    scale = np.abs(X).max(axis=0)
    X = X / np.where(scale > 0, scale, 1.0)
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def _check_max_pairwise(max_pairwise: int, algorithms: list[str], ks: list[int] | None,
                        datasets: list) -> None:
    """Ward and average linkage fit a subsample of ``max_pairwise`` points when the data
    have more; it must hold at least k points."""
    if not any(a in AGGLOMERATIVE for a in algorithms):
        return
    for d in datasets:
        k = max(ks) if ks else len(np.unique(d.y))
        if d.X.shape[0] > max_pairwise and k > max_pairwise:
            raise CliError(f"--max-pairwise {max_pairwise} is smaller than k = {k} (--k, or "
                           f"the classes of {d.name}): the subsample that ward and average "
                           "linkage fit must hold at least k points")


def _compare(args: argparse.Namespace) -> str:
    algorithms = algorithm_names(args.algorithms)  # bad names fail before any work
    metrics = metric_keys(args.metrics)
    k_spans(args.k)  # its syntax, before any data is read
    names = _dataset_names(args)
    noise = _check_compare_options(args, names, algorithms)
    datasets = _load_datasets(args, names)
    ks = parse_k(args.k, min(d.X.shape[0] for d in datasets))
    max_pairwise = args.max_pairwise or MAX_PAIRWISE
    _check_max_pairwise(max_pairwise, algorithms, ks, datasets)
    if args.paired is not None:
        # a bad name, or a score without a bootstrap interval, fails before any work
        paired = metric_keys(args.paired, "--paired") or []
        if len(paired) != 1:
            raise CliError(f"--paired names the one score to test by, got {args.paired!r}")
        check_intervals(paired, False, "name another score to test by with --paired",
                        "--paired")
    runs = compare(datasets, algorithms, k=ks, seed=args.seed or 0, noise=noise or "cluster",
                   metrics=metrics, max_pairwise=max_pairwise, progress=progress_of(args),
                   curves=args.curves)
    if args.paired_n_boot is not None:
        log("note: --paired-n-boot no longer applies: the paired comparison is a "
            "deterministic jackknife since version 0.2 (ignored; removed in 0.3)")
    if args.paired is not None:
        mark_near_best(runs, {d.name: d.y for d in datasets}, args.paired,
                       noise=noise or "cluster")
    shown = metrics
    if args.report:
        write_page(args.report, "clustermetrics compare", lambda: compare_sections(
            runs, {d.name: d for d in datasets}, chosen=args.show, metrics=shown))
    return render(Comparison(runs, shown), args.format)


def k_spans(text: str | None) -> list[tuple[int, int]] | None:
    """``--k`` as inclusive (low, high) spans, never expanded: one number, a comma list,
    or ranges ``LO-HI``. None = each dataset's true number of classes.

    >>> k_spans("3"), k_spans("2,4"), k_spans("2-100000000"), k_spans(None)
    ([(3, 3)], [(2, 2), (4, 4)], [(2, 100000000)], None)
    """
    if text is None:
        return None
    spans = []
    try:
        for part in text.split(","):
            lo, sep, hi = part.strip().partition("-")
            spans.append((int(lo), int(hi)) if sep else (int(lo), int(lo)))
    except ValueError:
        raise CliError(f"--k must be a number, a comma list or a range like 2-8, "
                       f"got {text!r}") from None
    if any(lo < 1 or hi < lo for lo, hi in spans):
        raise CliError(f"--k needs positive numbers of clusters and ranges LO-HI with "
                       f"LO <= HI, got {text!r}")
    ordered = sorted(spans)
    for (_, hi), (lo, _) in zip(ordered, ordered[1:], strict=False):  # a k twice
        if lo <= hi:
            raise CliError(f"--k names {lo} twice (each k is one run), got {text!r}")
    return spans


def parse_k(text: str | None, n_max: int | None = None) -> list[int] | None:
    """``--k``: one number, a comma list, or a range ``LO-HI`` (inclusive); None = truth.
    With ``n_max`` (the fewest points of any dataset) a k above it is refused before the
    values are listed, so a huge range costs nothing.

    >>> parse_k("3"), parse_k("2,4"), parse_k("2-5"), parse_k(None)
    ([3], [2, 4], [2, 3, 4, 5], None)
    """
    spans = k_spans(text)
    if spans is None:
        return None
    top = max(hi for _, hi in spans)
    if n_max is not None and top > n_max:
        raise CliError(f"--k {text} asks for up to {top:,} clusters but the data have "
                       f"{n_max:,} points; k must be between 1 and the number of points")
    return sorted({k for lo, hi in spans for k in range(lo, hi + 1)})
