"""The experiment subcommands: ``compare``, ``demo`` and ``chance``.

Same pattern as :mod:`clustermetrics.cli`: ``add_<name>_command(sub)`` registers a parser
and a handler returning the text to print; bad input raises ``CliError``/``ValueError``
(one line, exit status 2). Everything heavy (scikit-learn, matplotlib) is imported in the
handlers, so ``clustermetrics --help`` stays fast; a missing extra is a one-line error
naming it.
"""

from __future__ import annotations

import argparse
import functools
import warnings
from collections.abc import Callable, Sequence

from .cli import CliError, _add_output_options, _log
from .experiments.algorithms import MAX_SEED, SEED_RANGE
from .noise import NOISE_MODES

__all__ = ["add_compare_command", "add_demo_command", "add_chance_command", "parse_k",
           "k_spans", "MAX_POINTS"]

MAX_POINTS = 10_000_000  # simulated points per dataset (3 features: 240 MB)
MAX_TIMING_N = 1_000_000
MAX_REPEATS = 100_000
MAX_BRUTEFORCE = 11


def _integer(lo: int, hi: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer in [lo, hi], checked before any work; ``why`` explains
    the bound in the message."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < lo or (hi is not None and value > hi):
            what = (f"an integer from {lo:,} to {hi:,}" if hi is not None
                    else "a non-negative integer" if lo == 0 else "a positive integer"
                    if lo == 1 else f"an integer >= {lo:,}")
            raise argparse.ArgumentTypeError(f"must be {what}{why}, got {text!r}")
        return value
    return parse


# Seeds are checked against what receives them: numpy's generators (the simulated data,
# the chance study) take any non-negative integer, scikit-learn's random_state (the
# algorithms, make_blobs) only [0, 2**32 - 1].
_numpy_seed = _integer(0)
_sklearn_seed = _integer(0, MAX_SEED, SEED_RANGE)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


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
            raise CliError(f"--k names k = {lo} twice (each k is one run), got {text!r}")
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


def _extras(handler: Callable[[argparse.Namespace], str]) -> Callable[..., str]:
    """A missing optional dependency becomes a one-line error naming the extra; warnings
    that no run captured (none expected) become one-line notes on stderr, never the
    warnings module's two lines with a source line."""
    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> str:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return handler(args)
            except ImportError as exc:
                raise CliError(str(exc)) from None
            finally:
                for line in dict.fromkeys(_warning_line(w) for w in caught):
                    _log(f"note: {line}")
    return run


def _warning_line(w: warnings.WarningMessage) -> str:
    text = str(w.message).strip()
    return f"{w.category.__name__}: {text.splitlines()[0]}" if text else w.category.__name__


def _add_run_options(p: argparse.ArgumentParser, report_default: str | None = None) -> None:
    p.add_argument("--report", metavar="DIR", default=report_default,
                   help="write an HTML report (plots embedded) and its PNGs into DIR")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none anyway when stderr is not a terminal)")


def _progress(args: argparse.Namespace) -> bool | None:
    return False if args.quiet else None


def _write_report(directory: str, title: str, sections: Callable[[], list],
                  intro: str = "") -> None:
    """Build the sections (plots) and write the page; warnings raised while drawing (a
    glyph missing from the font, say) go into the page as notes, not to the terminal."""
    from .experiments.compare import captured_warnings, merge_counts
    from .experiments.html import Section, write_report

    built, caught = captured_warnings(sections)
    if caught:
        built = [*built, Section("Notes", ["Warnings raised while drawing the plots:",
                                           *merge_counts(caught)])]
    page = write_report(directory, title, built, intro)
    _log(f"report written to {page}")


def _refuse_unused(args: argparse.Namespace, option: str, dest: str, why: str | None) -> None:
    """``option`` was given but would change nothing: ``why`` says so (None: it applies)."""
    if getattr(args, dest) is not None and why is not None:
        raise CliError(f"{option} {why}")


def _show_needs_report(args: argparse.Namespace, algorithms: Sequence[str]) -> None:
    if args.show is None:
        return
    if args.report is None:
        raise CliError("--show picks the run detailed in the --report page: give --report")
    if args.show not in algorithms:
        raise CliError(f"--show {args.show!r} is not one of the algorithms run: "
                       f"{', '.join(algorithms)}")


# --------------------------------------------------------------------------- compare
def add_compare_command(sub) -> None:
    p = sub.add_parser(
        "compare", help="compare clustering algorithms on data with a known truth",
        description="Run clustering algorithms (scikit-learn) on datasets with a known "
                    "ground truth and score every run with every registered score. An "
                    "option that would change nothing (e.g. --overlap with --dataset iris) "
                    "is refused.")
    p.add_argument("--dataset", default=None,
                   help="comma-separated built-in datasets: overlapping (simulated, the "
                        "default), iris, wine, digits, blobs")
    p.add_argument("--data", metavar="FILE", help="your CSV/TSV or Parquet file of features")
    p.add_argument("--label-col", help="the ground-truth column of --data")
    p.add_argument("--features", help="comma-separated feature columns of --data "
                                      "(default: every column but the label)")
    p.add_argument("--sep", help="field separator of --data (default: tab for .tsv, else ,)")
    p.add_argument("--algorithms", help="comma-separated algorithms (default: all): kmeans, "
                                        "gmm, ward, average, birch, meanshift, "
                                        "meanshift_kmeans, hdbscan")
    p.add_argument("--k", help="clusters for the algorithms that take a number: N, a list "
                               "N,M or a range LO-HI (default: the true number)")
    p.add_argument("--n-clusters", type=_integer(1, 10_000),
                   help="clusters of the simulated / blobs data (default 5)")
    p.add_argument("--n-per-cluster", type=_integer(1, MAX_POINTS),
                   help="points per simulated / blobs cluster (default 400)")
    p.add_argument("--overlap", type=_positive_float,
                   help="overlap of the simulated clusters (default 1; larger = more)")
    p.add_argument("--standardize", action="store_true",
                   help="scale every feature to mean 0, variance 1 before clustering")
    p.add_argument("--noise", choices=("cluster", *NOISE_MODES),
                   help="how HDBSCAN's noise points are scored: one cluster of their own "
                        "(default), one cluster each (singletons), or left out (exclude)")
    p.add_argument("--drop-noise", action="store_true",
                   help="the same as --noise exclude")
    p.add_argument("--max-pairwise", type=_integer(1, 1_000_000),
                   help="ward and average linkage run on a random subsample of this many "
                        "points above it (O(N^2) memory; default 5000; at least k)")
    p.add_argument("--metrics", help="comma-separated score keys (default: all; the table "
                                     "shows these, or ARI, AMI, NMI and V-measure)")
    p.add_argument("--seed", type=_sklearn_seed,
                   help="random seed of the simulated data, the algorithms and the "
                        f"subsamples (default 0; 0 to {MAX_SEED}, scikit-learn's range)")
    p.add_argument("--show", metavar="ALGORITHM",
                   help="the run detailed in the --report page (default: best exact "
                        "recovery rate)")
    _add_run_options(p)
    _add_output_options(p)
    p.set_defaults(handler=_extras(_compare))


_SIMULATED = {"overlapping": ("--n-clusters", "--n-per-cluster", "--overlap", "--seed"),
              "blobs": ("--n-clusters", "--n-per-cluster", "--seed")}
_AGGLOMERATIVE = ("ward", "average")


def _dataset_names(args: argparse.Namespace) -> list[str]:
    """The built-in datasets asked for ([] with --data); checked before anything loads."""
    from .datasets import DATASETS

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
    names = [n.strip() for n in args.dataset.split(",")]
    if not any(names):
        raise CliError(f"--dataset names no dataset, got {args.dataset!r}; choose from "
                       f"{', '.join(DATASETS)}")
    for n in names:
        if n not in DATASETS:
            raise CliError(f"unknown dataset {n!r} (--dataset); choose from "
                           f"{', '.join(DATASETS)}")
    if len(set(names)) != len(names):
        raise CliError(f"--dataset names a dataset twice: {args.dataset!r}")
    return names


def _check_compare_options(args: argparse.Namespace, names: list[str],
                           algorithms: list[str]) -> str | None:
    """Every option that would change nothing is refused; returns the noise mode."""
    from .experiments.algorithms import ALGORITHMS

    data = "--data" if args.data is not None else f"--dataset {','.join(names)}"
    for option in ("--n-clusters", "--n-per-cluster", "--overlap"):
        users = [n for n in names if option in _SIMULATED.get(n, ())]
        _refuse_unused(args, option, option[2:].replace("-", "_"), None if users else
                       f"applies to the simulated datasets (overlapping"
                       f"{', blobs' if option != '--overlap' else ''}), not to {data}")
    n_points = (args.n_clusters or 5) * (args.n_per_cluster or 400)
    if names and any(n in _SIMULATED for n in names) and n_points > MAX_POINTS:
        raise CliError(f"--n-clusters x --n-per-cluster is {n_points:,} points; at most "
                       f"{MAX_POINTS:,}")
    random = any(n in _SIMULATED for n in names) or any(ALGORITHMS[a].seeded
                                                        for a in algorithms)
    _refuse_unused(args, "--seed", "seed", None if random else
                   f"changes nothing: {data} and --algorithms {','.join(algorithms)} use no "
                   "randomness")
    takes_k = [a for a in algorithms if ALGORITHMS[a].uses_k]
    _refuse_unused(args, "--k", "k", None if takes_k else
                   f"applies to algorithms that take a number of clusters; --algorithms "
                   f"{','.join(algorithms)} choose their own")
    agglomerative = [a for a in algorithms if a in _AGGLOMERATIVE]
    _refuse_unused(args, "--max-pairwise", "max_pairwise", None if agglomerative else
                   "applies to ward and average linkage; --algorithms has neither")
    if args.drop_noise and args.noise not in (None, "exclude"):
        raise CliError(f"--drop-noise is --noise exclude: it contradicts --noise {args.noise}")
    noise = "exclude" if args.drop_noise else args.noise
    if noise is not None and "hdbscan" not in algorithms:
        option = "--drop-noise" if args.drop_noise else "--noise"
        raise CliError(f"{option} applies to hdbscan's noise points; --algorithms has no "
                       "hdbscan")
    _show_needs_report(args, algorithms)
    return noise


def _load_datasets(args: argparse.Namespace, names: list[str]) -> list:
    from .datasets import load_dataset, read_table

    if args.data is not None:
        features = [c.strip() for c in args.features.split(",")] if args.features else None
        found = [read_table(args.data, args.label_col, feature_cols=features, sep=args.sep)]
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
    import numpy as np

    scale = np.abs(X).max(axis=0)
    X = X / np.where(scale > 0, scale, 1.0)
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def _check_max_pairwise(max_pairwise: int, algorithms: list[str], ks: list[int] | None,
                        datasets: list) -> None:
    """Ward and average linkage fit a subsample of ``max_pairwise`` points when the data
    have more; it must hold at least k points."""
    import numpy as np

    if not any(a in _AGGLOMERATIVE for a in algorithms):
        return
    for d in datasets:
        k = max(ks) if ks else len(np.unique(d.y))
        if d.X.shape[0] > max_pairwise and k > max_pairwise:
            raise CliError(f"--max-pairwise {max_pairwise} is smaller than k = {k} (--k, or "
                           f"the classes of {d.name}): the subsample that ward and average "
                           "linkage fit must hold at least k points")


def _compare(args: argparse.Namespace) -> str:
    from .experiments.algorithms import MAX_PAIRWISE, resolve_algorithms
    from .experiments.compare import compare, runs_csv, runs_json, runs_table
    from .registry import resolve_metrics

    algorithms = resolve_algorithms(args.algorithms)  # bad names fail before any work
    metrics = resolve_metrics(args.metrics)
    k_spans(args.k)  # its syntax, before any data is read
    names = _dataset_names(args)
    noise = _check_compare_options(args, names, algorithms)
    datasets = _load_datasets(args, names)
    ks = parse_k(args.k, min(d.X.shape[0] for d in datasets))
    max_pairwise = args.max_pairwise or MAX_PAIRWISE
    _check_max_pairwise(max_pairwise, algorithms, ks, datasets)
    runs = compare(datasets, algorithms, k=ks, seed=args.seed or 0, noise=noise or "cluster",
                   metrics=metrics, max_pairwise=max_pairwise, progress=_progress(args))
    shown = metrics if args.metrics is not None else None
    if args.report:
        from .experiments.pages import compare_sections

        _write_report(args.report, "clustermetrics compare", lambda: compare_sections(
            runs, {d.name: d for d in datasets}, chosen=args.show, metrics=shown))
    if args.format == "json":
        return runs_json(runs)
    if args.format == "csv":
        return runs_csv(runs)
    return runs_table(runs, shown)


# --------------------------------------------------------------------------- demo
def add_demo_command(sub) -> None:
    p = sub.add_parser(
        "demo", help="reproduce Li & Klette's recovery-rate study on simulated data",
        description="Tables 1-2 of Li & Klette (recovery rates of the algorithms for n = 5 "
                    "... 10 overlapping simulated clusters), Algorithm 1's time against the "
                    "exact and greedy matchings, and where greedy and pseudo mislead.")
    p.add_argument("--n-min", type=_integer(2, 10_000), default=5,
                   help="smallest n (default 5, at least 2)")
    p.add_argument("--n-max", type=_integer(2, 10_000), default=10,
                   help="largest n (default 10)")
    p.add_argument("--n-per-cluster", type=_integer(1, MAX_POINTS),
                   help="points per simulated cluster (default 2000)")
    p.add_argument("--paper-size", action="store_true",
                   help="10,000 points per cluster, as in the paper (slower)")
    p.add_argument("--overlap", type=_positive_float, default=1.0,
                   help="overlap of the simulated clusters (default 1)")
    p.add_argument("--algorithms", help="comma-separated algorithms (default: all)")
    p.add_argument("--seeds", default="0,1",
                   help="algorithm seeds, one table each (default 0,1: Tables 1 and 2; "
                        f"0 to {MAX_SEED}, scikit-learn's range)")
    p.add_argument("--data-seed", type=_numpy_seed, default=0,
                   help="seed of the simulated data (any non-negative integer)")
    p.add_argument("--bruteforce-max", default=10, type=_integer(
                       2, MAX_BRUTEFORCE, " (Algorithm 1 is exponential: beyond 11 it runs "
                       "for hours)"),
                   help="largest n for which Algorithm 1 (bruteforce) is timed (default 10, "
                        f"2 to {MAX_BRUTEFORCE}; each step costs about n times the previous)")
    p.add_argument("--timing-max", type=_integer(1, MAX_TIMING_N), default=10_000,
                   help="largest n of the exact/greedy timing on sparse tables "
                        "(default 10000)")
    p.add_argument("--max-pairwise", type=_integer(1, 1_000_000),
                   help="ward and average linkage subsample size (default 5000; at least "
                        "--n-max)")
    p.add_argument("--show", metavar="ALGORITHM", help="the run detailed in the --report page")
    _add_run_options(p)
    _add_output_options(p)
    p.set_defaults(handler=_extras(_demo))


def _seeds(text: str) -> list[int]:
    parts = [s.strip() for s in text.split(",")]
    try:
        seeds = [int(s) for s in parts]
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < 0 or max(seeds) > MAX_SEED:
        raise CliError(f"--seeds must be comma-separated integers from 0 to {MAX_SEED:,}"
                       f"{SEED_RANGE}, got {text!r}")
    if len(set(seeds)) != len(seeds):
        raise CliError(f"--seeds names a seed twice (its table would repeat), got {text!r}")
    return seeds


def _demo(args: argparse.Namespace) -> str:
    from .experiments.algorithms import MAX_PAIRWISE, resolve_algorithms
    from .experiments.recovery_study import (
        demo_csv,
        demo_json,
        paper_examples,
        paper_tables,
        recovery_study,
        shortfalls_text,
    )
    from .experiments.timing import bruteforce_timing, scaling_timing, timing_text

    algorithms = resolve_algorithms(args.algorithms)
    seeds = _seeds(args.seeds)
    if args.n_min > args.n_max:
        raise CliError(f"need --n-min <= --n-max, got {args.n_min} and {args.n_max}")
    if args.paper_size and args.n_per_cluster is not None:
        raise CliError("--paper-size sets 10,000 points per cluster: give it or "
                       "--n-per-cluster, not both")
    per = 10_000 if args.paper_size else args.n_per_cluster or 2000
    if args.n_max * per > MAX_POINTS:
        per_option = "--paper-size (10,000)" if args.paper_size else "--n-per-cluster"
        raise CliError(f"--n-max x {per_option} is {args.n_max * per:,} points; at most "
                       f"{MAX_POINTS:,}")
    agglomerative = [a for a in algorithms if a in _AGGLOMERATIVE]
    _refuse_unused(args, "--max-pairwise", "max_pairwise", None if agglomerative else
                   "applies to ward and average linkage; --algorithms has neither")
    max_pairwise = args.max_pairwise or MAX_PAIRWISE
    if agglomerative and args.n_max > max_pairwise:  # then the data exceed it too
        raise CliError(f"--max-pairwise {max_pairwise} is smaller than --n-max {args.n_max}: "
                       "the subsample that ward and average linkage fit must hold at least "
                       "n points")
    _show_needs_report(args, algorithms)
    study = recovery_study(range(args.n_min, args.n_max + 1), n_per_cluster=per,
                           algorithms=algorithms, seeds=seeds, data_seed=args.data_seed,
                           overlap=args.overlap, max_pairwise=max_pairwise,
                           progress=_progress(args))
    if not args.quiet:  # a progress note: shown only when stderr is a terminal
        _log("timing Algorithm 1 (bruteforce), exact and greedy ...", progress=True)
    small = bruteforce_timing(range(2, args.bruteforce_max + 1))
    large = scaling_timing(_timing_ns(args.timing_max))
    if args.report:
        from .experiments.pages import demo_sections

        _write_report(args.report, "clustermetrics demo: the recovery-rate study",
                      lambda: demo_sections(study, small, large, chosen=args.show),
                      "Li & Klette, Recovery rate of clustering algorithms (PSIVT 2009), "
                      "Section 5, reproduced on simulated overlapping clusters.")
    if args.format == "json":
        return demo_json(study, small + large)
    if args.format == "csv":
        return demo_csv(study, small + large)
    return "\n\n".join([paper_tables(study), paper_examples(), shortfalls_text(study),
                        timing_text(small, large)])


def _timing_ns(top: int) -> list[int]:
    """10, 30, 100, 300, ... up to and including ``top``."""
    ns = [n for n in (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000, 300_000)
          if n < top]
    return ns + [top]


# --------------------------------------------------------------------------- chance
def add_chance_command(sub) -> None:
    p = sub.add_parser(
        "chance", help="scores of random labelings (chance level), for every score",
        description="scikit-learn's chance-level experiments for every registered score: "
                    "two independent random labelings (100 samples, k = 2 ... 100), and "
                    "random labelings against a fixed 10-class truth (1,000 samples).")
    p.add_argument("--metrics", help="comma-separated score keys (default: all)")
    p.add_argument("--repeats", type=_integer(1, MAX_REPEATS), default=5,
                   help="random draws per k (default 5)")
    p.add_argument("--points", type=_integer(1, 99), default=10,
                   help="values of k between 2 and 100 (default 10, at most 99)")
    p.add_argument("--experiment", choices=("both", "equal", "fixed"), default="both",
                   help="equal: two labelings with k clusters each; fixed: against a fixed "
                        "10-class truth (default both)")
    p.add_argument("--seed", type=_numpy_seed, default=42,
                   help="random seed (default 42; any non-negative integer)")
    _add_run_options(p)
    _add_output_options(p)
    p.set_defaults(handler=_extras(_chance))


def _chance(args: argparse.Namespace) -> str:
    from .experiments.chance import SETUPS, chance_csv, chance_json, chance_study, chance_text
    from .registry import resolve_metrics

    metrics = resolve_metrics(args.metrics)
    setups = [s for s in SETUPS if args.experiment in ("both", s.key)]
    curves = chance_study(metrics, setups=setups, n_repeats=args.repeats,
                          n_points=args.points, seed=args.seed, progress=_progress(args))
    if args.report:
        from .experiments.pages import chance_sections

        _write_report(args.report, "clustermetrics chance: scores of random labelings",
                      lambda: chance_sections(curves))
    if args.format == "json":
        return chance_json(curves)
    if args.format == "csv":
        return chance_csv(curves)
    return chance_text(curves)
