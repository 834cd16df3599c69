"""The ``demo`` command: Li & Klette's recovery-rate study reproduced on simulated
overlapping clusters or a simulated stellar halo, with Algorithm 1 timed against the exact
and greedy matchings."""

from __future__ import annotations

import argparse

from ..experiments.algorithms import MAX_PAIRWISE, MAX_SEED
from ..experiments.datasets import SIMULATED
from ..experiments.pages import demo_sections
from ..experiments.recovery_study import DemoResult, recovery_study
from ..experiments.timing import bruteforce_timing, scaling_timing
from .commands import SUMMARIES
from .compare import AGGLOMERATIVE
from .option_values import comma_list, integer, numpy_seed, positive_float
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

__all__ = ["add_demo_command", "timing_ns"]

MAX_TIMING_N = 1_000_000
MAX_BRUTEFORCE = 11


def add_demo_command(sub) -> None:
    p = sub.add_parser(
        "demo", help=SUMMARIES["demo"],
        description="Tables 1-2 of Li & Klette (recovery rates of the algorithms for n = 5 "
                    "... 10 overlapping simulated clusters), Algorithm 1's time against the "
                    "exact and greedy matchings, and where greedy and pseudo mislead.")
    p.add_argument("--n-min", type=integer(2, 10_000), default=5,
                   help="smallest n (default 5, at least 2)")
    p.add_argument("--n-max", type=integer(2, 10_000), default=10,
                   help="largest n (default 10)")
    p.add_argument("--n-per-cluster", type=integer(1, MAX_POINTS),
                   help="points per simulated cluster (default 2000)")
    p.add_argument("--paper-size", action="store_true",
                   help="10,000 points per cluster, as in the paper (slower)")
    p.add_argument("--data", choices=SIMULATED, default="overlapping",
                   help="the simulated data: overlapping (a fast stand-in, the default) or "
                        "halo (satellite galaxies disrupted in a Milky-Way potential, the "
                        "paper's kind of data; needs the halo extra, galpy; the first run "
                        "integrates the orbits, about 1 ms per star, then cached)")
    p.add_argument("--overlap", type=positive_float,
                   help="overlap of the simulated clusters (default 1; --data overlapping)")
    p.add_argument("--algorithms", help="comma-separated algorithms (default: all)")
    p.add_argument("--seeds", default="0,1",
                   help="comma-separated algorithm seeds, one table each (default 0,1: "
                        "Tables 1 and 2; "
                        f"0 to {MAX_SEED}, scikit-learn's range)")
    p.add_argument("--data-seed", type=numpy_seed, default=0,
                   help="seed of the simulated data (any non-negative integer)")
    p.add_argument("--bruteforce-max", default=10, type=integer(
                       2, MAX_BRUTEFORCE, " (Algorithm 1 is exponential: beyond 11 it runs "
                       "for hours)"),
                   help="largest n for which Algorithm 1 (bruteforce) is timed (default 10, "
                        f"2 to {MAX_BRUTEFORCE}; each step costs about n times the previous)")
    p.add_argument("--timing-max", type=integer(1, MAX_TIMING_N), default=10_000,
                   help="largest n of the exact/greedy timing on sparse tables "
                        "(default 10000)")
    p.add_argument("--max-pairwise", type=integer(1, 1_000_000),
                   help="ward and average linkage subsample size (default 5000; at least "
                        "--n-max)")
    p.add_argument("--show", metavar="ALGORITHM", help="the run detailed in the --report page")
    add_run_options(p)
    add_output_options(p)
    p.set_defaults(handler=with_extras(_demo))


def _demo(args: argparse.Namespace) -> str:
    algorithms = algorithm_names(args.algorithms)
    seeds = comma_list(args.seeds, "--seeds", sklearn_seed)  # a seed twice: a table twice
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
    refuse_unused(args, "--overlap", "overlap", None if args.data == "overlapping" else
                   f"applies to --data overlapping, not to --data {args.data}")
    agglomerative = [a for a in algorithms if a in AGGLOMERATIVE]
    refuse_unused(args, "--max-pairwise", "max_pairwise", None if agglomerative else
                   "applies to ward and average linkage; --algorithms has neither")
    max_pairwise = args.max_pairwise or MAX_PAIRWISE
    if agglomerative and args.n_max > max_pairwise:  # then the data exceed it too
        raise CliError(f"--max-pairwise {max_pairwise} is smaller than --n-max {args.n_max}: "
                       "the subsample that ward and average linkage fit must hold at least "
                       "n points")
    show_needs_report(args, algorithms)
    study = recovery_study(range(args.n_min, args.n_max + 1), n_per_cluster=per,
                           algorithms=algorithms, seeds=seeds, data_seed=args.data_seed,
                           overlap=1.0 if args.overlap is None else args.overlap,
                           max_pairwise=max_pairwise, progress=progress_of(args),
                           data=args.data)
    if not args.quiet:  # a progress note: shown only when stderr is a terminal
        log("timing Algorithm 1 (bruteforce), exact and greedy ...", progress=True)
    small = bruteforce_timing(range(2, args.bruteforce_max + 1))
    large = scaling_timing(timing_ns(args.timing_max))
    if args.report:
        write_page(args.report, "clustermetrics demo: the recovery-rate study",
                      lambda: demo_sections(study, small, large, chosen=args.show),
                      "Li & Klette, Recovery rate of clustering algorithms (PSIVT 2009), "
                      "Section 5, reproduced on " + _DATA_TEXT[args.data] + ".")
    return render(DemoResult(study, small, large), args.format)


_DATA_TEXT = {"overlapping": "simulated overlapping clusters",
              "halo": "a simulated stellar halo"}


def timing_ns(top: int) -> list[int]:
    """10, 30, 100, 300, ... up to and including ``top``."""
    ns = [n for n in (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000, 300_000)
          if n < top]
    return ns + [top]
