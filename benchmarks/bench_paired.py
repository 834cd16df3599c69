"""The paired comparison, side by side in one process with the percentile bootstrap it
replaced: false-positive rates on the same null samples, and the time of one comparison.

    .venv/bin/python benchmarks/bench_paired.py --peer /tmp/peer
    .venv/bin/python benchmarks/bench_paired.py --peer /tmp/peer --skip-rates
    .venv/bin/python benchmarks/bench_paired.py --spread --trials 300

``--peer DIR``: a directory holding the package of a checkout with the percentile
bootstrap (``paired_comparison(..., n_boot=, seed=)``) copied as ``clustermetrics_main``,
e.g. ``git archive 770c132 src/clustermetrics | tar -x -C /tmp/x`` and
``mv /tmp/x/src/clustermetrics /tmp/peer/clustermetrics_main``.

* Rates: on each null shape (classes, n, keep; both predictions from one process, as in
  ``clustermetrics paired-calibration``), ``--trials`` samples compared by both; the share
  called "different at 5 %" per score (the jackknife's among the comparisons it judges).
* Spread (``--spread``): on a few null shapes, the standard deviation of the difference d
  over ``--trials`` samples (its sampling spread), against the root mean square over the
  samples of the bootstrap's standard deviation of d (200 paired replicates, pair counts
  without copies, as the percentile bootstrap drew them) and of the jackknife's standard
  error.
* Time: one comparison of the default scores on tables of growing size, best of
  ``--repeats``, against the bootstrap interval of one clustering by ``evaluate`` (1000
  replicates) in the same process, and against the peer's paired bootstrap (1000
  replicates).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import time
import warnings

import numpy as np

import clustermetrics as cm
from clustermetrics.evaluation.evaluate import replicate_scores
from clustermetrics.evaluation.jackknife import _ThreeWay
from clustermetrics.experiments.paired_calibration import DEFAULT_KEYS, null_labels
from clustermetrics.inference.bootstrap import multinomial_sampler

SHAPES = [(20, 100, 0.5), (10, 100, 0.5), (50, 100, 0.5), (50, 400, 0.5), (3, 30, 0.5),
          (3, 30, 0.9), (10, 400, 0.9)]
SIZES = [(150, 3, 0.8), (10_000, 100, 0.7), (100_000, 1000, 0.7)]
SPREAD_SHAPES = [(20, 100, 0.5), (3, 30, 0.9), (10, 400, 0.5)]
SPREAD_KEYS = ["ari", "nmi", "vi", "bcubed_f", "clustering_accuracy"]


def spread(trials: int) -> None:
    print(f"standard deviation of d over {trials} null samples, against the root mean "
          "square of the bootstrap's (200 replicates) and the jackknife's")
    print("| classes | n | keep | score | sampling sd of d | bootstrap sd | jackknife se |")
    print("|---|---|---|---|---|---|---|")
    for k, n, keep in SPREAD_SHAPES:
        rng = np.random.default_rng([2028, k, n])
        d, boot, jack = (np.empty((len(SPREAD_KEYS), trials)) for _ in range(3))
        for trial in range(trials):
            t, a, b = null_labels(k, keep, n, rng)
            r = cm.paired_comparison(t, a, b, SPREAD_KEYS)
            d[:, trial] = [r[key].difference for key in SPREAD_KEYS]
            jack[:, trial] = [r[key].se for key in SPREAD_KEYS]
            three = _ThreeWay(t, a, b)
            draw = multinomial_sampler(three.counts)
            counts = np.stack([draw(rng, n) for _ in range(200)])
            margins = [np.stack([side(c) for c in counts])
                       for side in (three.margin_a, three.margin_b)]
            diffs = replicate_scores(three.table_a, margins[0], SPREAD_KEYS) \
                - replicate_scores(three.table_b, margins[1], SPREAD_KEYS)
            boot[:, trial] = np.nanstd(diffs, axis=1, ddof=1)
        for i, key in enumerate(SPREAD_KEYS):
            print(f"| {k} | {n} | {keep} | {key} | {d[i].std(ddof=1):.4f} | "
                  f"{math.sqrt(np.mean(boot[i] ** 2)):.4f} | "
                  f"{math.sqrt(np.nanmean(jack[i] ** 2)):.4f} |")
        sys.stdout.flush()


def rates(peer, trials: int, peer_boot: int) -> None:
    print(f"false-positive rate at 5 %, {trials} null samples per shape; peer: percentile "
          f"bootstrap, {peer_boot} replicates")
    print("| classes | n | keep | score | jackknife t | percentile bootstrap |")
    print("|---|---|---|---|---|---|")
    for k, n, keep in SHAPES:
        rng = np.random.default_rng([2027, k, n])
        new = dict.fromkeys(DEFAULT_KEYS, 0)
        judged = dict.fromkeys(DEFAULT_KEYS, 0)
        old = dict.fromkeys(DEFAULT_KEYS, 0)
        for trial in range(trials):
            t, a, b = null_labels(k, keep, n, rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = cm.paired_comparison(t, a, b, list(DEFAULT_KEYS))
                q = peer.paired_comparison(t, a, b, list(DEFAULT_KEYS), n_boot=peer_boot,
                                             seed=trial)
            for key in DEFAULT_KEYS:
                judged[key] += not math.isnan(r[key].pvalue)
                new[key] += r[key].pvalue < 0.05
                old[key] += q[key].pvalue < 0.05
        for key in DEFAULT_KEYS:
            print(f"| {k} | {n} | {keep} | {key} | {new[key] / judged[key]:.3f} | "
                  f"{old[key] / trials:.3f} |")
        sys.stdout.flush()


def best(work, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def timing(peer, repeats: int) -> None:
    print(f"\none comparison of {', '.join(cm.paired.DEFAULT_PAIRED)}, best of {repeats}")
    print("| N | classes | jackknife s | items left out | evaluate(ci) of A s | "
          "jackknife / evaluate(ci) | peer bootstrap s | jackknife / peer |")
    print("|---|---|---|---|---|---|---|---|")
    keys = list(cm.paired.DEFAULT_PAIRED)
    for n, k, keep in SIZES:
        t, a, b = null_labels(k, keep, n, np.random.default_rng([7, n]))
        got = {name: best(work, repeats) for name, work in _calls(t, a, b, keys, peer).items()}
        sampled = cm.paired_comparison(t, a, b, ["ari"], progress=False).sampled
        peer_s = f"{got['peer']:.3f} | {got['new'] / got['peer']:.2f}" if peer else "- | -"
        print(f"| {n:,} | {k} | {got['new']:.3f} | "
              f"{'a stratified sample' if sampled else 'one per cell'} | {got['ci']:.3f} | "
              f"{got['new'] / got['ci']:.2f} | {peer_s} |")
        sys.stdout.flush()


def _calls(t, a, b, keys, peer) -> dict:
    """The calls timed, each run once first (compiled kernels, the process's caches)."""
    calls = {"new": lambda: cm.paired_comparison(t, a, b, keys, progress=False),
             "ci": lambda: cm.evaluate(t, a, keys, ci=0.95, n_boot=1000, seed=0)}
    if peer is not None:
        calls["peer"] = lambda: peer.paired_comparison(t, a, b, keys, n_boot=1000, seed=0,
                                                         progress=False)
    for work in calls.values():
        work()
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", metavar="DIR", help="holds clustermetrics_main")
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--peer-boot", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-rates", action="store_true")
    parser.add_argument("--spread", action="store_true", help="only the spreads")
    args = parser.parse_args()
    if args.spread:
        spread(args.trials)
        return
    peer = None
    if args.peer:
        sys.path.insert(0, args.peer)
        peer = importlib.import_module("clustermetrics_main")
    if not args.skip_rates:
        if peer is None:
            parser.error("the rates compare with a peer: give --peer DIR")
        rates(peer, args.trials, args.peer_boot)
    timing(peer, args.repeats)


if __name__ == "__main__":
    main()
