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
import json
from collections.abc import Callable

from .cli import CliError, _add_output_options, _log
from .noise import NOISE_MODES

__all__ = ["add_compare_command", "add_demo_command", "add_chance_command", "parse_k"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def parse_k(text: str | None) -> list[int] | None:
    """``--k``: one number, a comma list, or a range ``LO-HI`` (inclusive); None = truth.

    >>> parse_k("3"), parse_k("2,4"), parse_k("2-5"), parse_k(None)
    ([3], [2, 4], [2, 3, 4, 5], None)
    """
    if text is None:
        return None
    out: list[int] = []
    try:
        for part in text.split(","):
            lo, sep, hi = part.strip().partition("-")
            values = range(int(lo), int(hi) + 1) if sep else [int(lo)]
            out += list(values)
    except ValueError:
        raise CliError(f"--k must be a number, a comma list or a range like 2-8, "
                       f"got {text!r}") from None
    if not out or min(out) < 1:
        raise CliError(f"--k needs positive numbers of clusters, got {text!r}")
    return sorted(set(out))


def _extras(handler: Callable[[argparse.Namespace], str]) -> Callable[..., str]:
    """A missing optional dependency becomes a one-line error naming the extra."""
    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> str:
        try:
            return handler(args)
        except ImportError as exc:
            raise CliError(str(exc)) from None
    return run


def _add_run_options(p: argparse.ArgumentParser, report_default: str | None = None) -> None:
    p.add_argument("--report", metavar="DIR", default=report_default,
                   help="write an HTML report (plots embedded) and its PNGs into DIR")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none anyway when stderr is not a terminal)")


def _progress(args: argparse.Namespace) -> bool | None:
    return False if args.quiet else None


def _write_report(directory: str, title: str, sections, intro: str = "") -> None:
    from .experiments.html import write_report

    page = write_report(directory, title, sections, intro)
    _log(f"report written to {page}")


# --------------------------------------------------------------------------- compare
def add_compare_command(sub) -> None:
    p = sub.add_parser(
        "compare", help="compare clustering algorithms on data with a known truth",
        description="Run clustering algorithms (scikit-learn) on datasets with a known "
                    "ground truth and score every run with every registered score.")
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
    p.add_argument("--n-clusters", type=_positive, default=5,
                   help="clusters of the simulated / blobs data (default 5)")
    p.add_argument("--n-per-cluster", type=_positive, default=400,
                   help="points per simulated / blobs cluster (default 400)")
    p.add_argument("--overlap", type=_positive_float, default=1.0,
                   help="overlap of the simulated clusters (default 1; larger = more)")
    p.add_argument("--standardize", action="store_true",
                   help="scale every feature to mean 0, variance 1 before clustering")
    p.add_argument("--noise", choices=("cluster", *NOISE_MODES), default="cluster",
                   help="how HDBSCAN's noise points are scored: one cluster of their own "
                        "(default), one cluster each (singletons), or left out (exclude)")
    p.add_argument("--drop-noise", dest="noise", action="store_const", const="exclude",
                   help="the same as --noise exclude")
    p.add_argument("--max-pairwise", type=_positive, default=5000,
                   help="agglomerative clustering runs on a random subsample of this many "
                        "points above it (O(N^2) memory; default 5000)")
    p.add_argument("--metrics", help="comma-separated score keys (default: all)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--show", metavar="ALGORITHM",
                   help="the run detailed in the report (default: best exact recovery rate)")
    _add_run_options(p)
    _add_output_options(p)
    p.set_defaults(handler=_extras(_compare))


def _datasets(args: argparse.Namespace) -> list:
    import numpy as np

    from .datasets import DATASETS, load_dataset, read_table

    if args.data and args.dataset:
        raise CliError("give either --data or --dataset, not both")
    if args.data:
        if not args.label_col:
            raise CliError("--data needs --label-col (the ground-truth column)")
        features = [c.strip() for c in args.features.split(",")] if args.features else None
        found = [read_table(args.data, args.label_col, feature_cols=features, sep=args.sep)]
    else:
        if args.label_col or args.features:
            raise CliError("--label-col and --features apply to --data")
        names = [n.strip() for n in (args.dataset or "overlapping").split(",") if n.strip()]
        for n in names:
            if n not in DATASETS:
                raise CliError(f"unknown dataset {n!r} (--dataset); choose from "
                               f"{', '.join(DATASETS)}")
        found = [load_dataset(n, n_clusters=args.n_clusters, n_per_cluster=args.n_per_cluster,
                              overlap=args.overlap, seed=args.seed) for n in names]
    if args.standardize:
        found = [d._replace(X=(d.X - d.X.mean(0)) / np.where(d.X.std(0) > 0, d.X.std(0), 1))
                 for d in found]
    return found


def _compare(args: argparse.Namespace) -> str:
    from .experiments.algorithms import resolve_algorithms
    from .experiments.compare import compare, runs_csv, runs_json, runs_table
    from .registry import resolve_metrics

    algorithms = resolve_algorithms(args.algorithms)  # bad names fail before any work
    metrics = resolve_metrics(args.metrics)
    ks = parse_k(args.k)
    if args.show is not None and args.show not in algorithms:
        raise CliError(f"--show {args.show!r} is not one of the algorithms run: "
                       f"{', '.join(algorithms)}")
    datasets = _datasets(args)
    runs = compare(datasets, algorithms, k=ks, seed=args.seed, noise=args.noise,
                   metrics=metrics, max_pairwise=args.max_pairwise, progress=_progress(args))
    if args.report:
        from .experiments.pages import compare_sections

        _write_report(args.report, "clustermetrics compare",
                      compare_sections(runs, {d.name: d for d in datasets}, chosen=args.show))
    if args.format == "json":
        return runs_json(runs)
    if args.format == "csv":
        return runs_csv(runs)
    return runs_table(runs)


# --------------------------------------------------------------------------- demo
def add_demo_command(sub) -> None:
    p = sub.add_parser(
        "demo", help="reproduce Li & Klette's recovery-rate study on simulated data",
        description="Tables 1-2 of Li & Klette (recovery rates of the algorithms for n = 5 "
                    "... 10 overlapping simulated clusters), Algorithm 1's time against the "
                    "exact and greedy matchings, and where greedy and pseudo mislead.")
    p.add_argument("--n-min", type=_positive, default=5, help="smallest n (default 5)")
    p.add_argument("--n-max", type=_positive, default=10, help="largest n (default 10)")
    p.add_argument("--n-per-cluster", type=_positive, default=2000,
                   help="points per simulated cluster (default 2000)")
    p.add_argument("--paper-size", action="store_true",
                   help="10,000 points per cluster, as in the paper (slower)")
    p.add_argument("--overlap", type=_positive_float, default=1.0,
                   help="overlap of the simulated clusters (default 1)")
    p.add_argument("--algorithms", help="comma-separated algorithms (default: all)")
    p.add_argument("--seeds", default="0,1",
                   help="algorithm seeds, one table each (default 0,1: Tables 1 and 2)")
    p.add_argument("--data-seed", type=int, default=0, help="seed of the simulated data")
    p.add_argument("--bruteforce-max", type=int, default=10,
                   help="largest n for which Algorithm 1 (bruteforce) is timed (default 10; "
                        "each step costs about n times the previous one)")
    p.add_argument("--timing-max", type=_positive, default=10_000,
                   help="largest n of the exact/greedy timing on sparse tables "
                        "(default 10000)")
    p.add_argument("--max-pairwise", type=_positive, default=5000,
                   help="agglomerative subsample size (default 5000)")
    p.add_argument("--show", metavar="ALGORITHM", help="the run detailed in the report")
    _add_run_options(p)
    _add_output_options(p)
    p.set_defaults(handler=_extras(_demo))


def _seeds(text: str) -> list[int]:
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        seeds = []
    if not seeds:
        raise CliError(f"--seeds must be comma-separated integers, got {text!r}")
    return seeds


def _demo(args: argparse.Namespace) -> str:
    from .experiments.algorithms import resolve_algorithms
    from .experiments.compare import runs_csv
    from .experiments.recovery_study import (
        paper_examples,
        paper_tables,
        recovery_study,
        shortfalls_text,
    )
    from .experiments.timing import bruteforce_timing, scaling_timing, timing_text

    algorithms = resolve_algorithms(args.algorithms)
    seeds = _seeds(args.seeds)
    if not 2 <= args.n_min <= args.n_max:
        raise CliError(f"need 2 <= --n-min <= --n-max, got {args.n_min} and {args.n_max}")
    if args.bruteforce_max > 11:
        raise CliError(f"--bruteforce-max {args.bruteforce_max} would run for hours "
                       "(Algorithm 1 is exponential); use at most 11")
    per = 10_000 if args.paper_size else args.n_per_cluster
    study = recovery_study(range(args.n_min, args.n_max + 1), n_per_cluster=per,
                           algorithms=algorithms, seeds=seeds, data_seed=args.data_seed,
                           overlap=args.overlap, max_pairwise=args.max_pairwise,
                           progress=_progress(args))
    if not args.quiet:  # a progress note: shown only when stderr is a terminal
        _log("timing Algorithm 1 (bruteforce), exact and greedy ...", progress=True)
    small = bruteforce_timing(range(2, args.bruteforce_max + 1))
    large = scaling_timing(_timing_ns(args.timing_max))
    if args.report:
        from .experiments.pages import demo_sections

        _write_report(args.report, "clustermetrics demo: the recovery-rate study",
                      demo_sections(study, small, large, chosen=args.show),
                      "Li & Klette, Recovery rate of clustering algorithms (PSIVT 2009), "
                      "Section 5, reproduced on simulated overlapping clusters.")
    if args.format == "json":
        return json.dumps({"tables": [[r.to_dict() for r in t] for t in study.runs],
                           "timing": [r._asdict() for r in small + large]}, indent=2)
    if args.format == "csv":
        return runs_csv([r for t in study.runs for r in t])
    return "\n\n".join([paper_tables(study), paper_examples(), shortfalls_text(study),
                        timing_text(small, large)])


def _timing_ns(top: int) -> list[int]:
    """10, 30, 100, 300, ... up to and including ``top``."""
    ns = [n for n in (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000) if n < top]
    return ns + [top]


# --------------------------------------------------------------------------- chance
def add_chance_command(sub) -> None:
    p = sub.add_parser(
        "chance", help="scores of random labelings (chance level), for every score",
        description="scikit-learn's chance-level experiments for every registered score: "
                    "two independent random labelings (100 samples, k = 2 ... 100), and "
                    "random labelings against a fixed 10-class truth (1,000 samples).")
    p.add_argument("--metrics", help="comma-separated score keys (default: all)")
    p.add_argument("--repeats", type=_positive, default=5,
                   help="random draws per k (default 5)")
    p.add_argument("--points", type=_positive, default=10,
                   help="values of k between 2 and 100 (default 10)")
    p.add_argument("--experiment", choices=("both", "equal", "fixed"), default="both",
                   help="equal: two labelings with k clusters each; fixed: against a fixed "
                        "10-class truth (default both)")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
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
                      chance_sections(curves))
    if args.format == "json":
        return chance_json(curves)
    if args.format == "csv":
        return chance_csv(curves)
    return chance_text(curves)
