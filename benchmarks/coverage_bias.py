"""Coverage of bootstrap intervals against the bias of their replicates (not a speed test).

    python benchmarks/coverage_bias.py --score matching     # independent labellings
    python benchmarks/coverage_bias.py --score nmi          # 60 % kept, K = 10..60

For each setting, draws ``--samples`` tables from a population whose score is known in
closed form, bootstraps each (200 replicates), and prints the median of |replicates' mean -
estimate| / replicates' sd (what the "bias beyond the replicates' spread" flag compares
with 1) and how often the default (normal) interval holds the population value.

- ``matching``: truth and prediction independent and uniform over K labels each side
  (about 10 items per cell); the population recovery rate and clustering accuracy are 1/K,
  NCA 0.
- ``nmi``: the prediction keeps each item's class with probability 0.6, else draws one
  uniformly; population NMI = (2 H - H_joint) / H with H = log K.
"""

import argparse
import math
import warnings

import numpy as np

import clustermetrics as cm
from clustermetrics.evaluation.evaluate import replicate_scores, score_values
from clustermetrics.inference.bootstrap import interval_from_replicates, replicate_values

MATCHING = ["recovery_rate", "clustering_accuracy", "nca"]


def population_nmi(k: int, keep: float) -> float:
    diagonal = (keep + (1 - keep) / k) / k
    off = ((1 - keep) / k) / k
    h = math.log(k)
    joint = -(k * diagonal * math.log(diagonal) + k * (k - 1) * off * math.log(off))
    return (2 * h - joint) / h


def run(keys, settings, samples, rng):
    for k, n, truth, draw in settings:
        ratios = {key: [] for key in keys}
        hits = dict.fromkeys(keys, 0)
        for _ in range(samples):
            t, p = draw(k, n)
            table = cm.Contingency.from_labels(t, p)
            point = score_values(table, keys)
            values = replicate_values(
                table, lambda rep: score_values(rep, keys), keys, 200, rng,
                score_stack=lambda counts, tb=table: replicate_scores(tb, counts, keys))
            for i, key in enumerate(keys):
                v = values[i]
                ratios[key].append(abs(v.mean() - point[key]) / v.std(ddof=1))
                low, high = interval_from_replicates(v, 0.95, "normal", point[key],
                                                     (-1.0, 1.0))
                hits[key] += low <= truth[key] <= high
        print(f"K = {k}, n = {n}, N/nnz = {n / table.nnz:.1f}: " + ", ".join(
            f"{key} bias/sd {np.median(ratios[key]):.2f} coverage {hits[key] / samples:.2f}"
            for key in keys), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--score", choices=["matching", "nmi"], default="matching")
    ap.add_argument("--samples", type=int, default=40)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(2)

    def independent(k, n):
        return rng.integers(0, k, n), rng.integers(0, k, n)

    def kept(k, n):
        t = rng.integers(0, k, n)
        return t, np.where(rng.random(n) < 0.6, t, rng.integers(0, k, n))

    if args.score == "matching":
        run(MATCHING, [(k, n, {"recovery_rate": 1 / k, "clustering_accuracy": 1 / k,
                               "nca": 0.0}, independent)
                       for k, n in [(5, 250), (10, 1000), (30, 10_000), (100, 100_000)]],
            args.samples, rng)
    else:
        run(["nmi"], [(k, n, {"nmi": population_nmi(k, 0.6)}, kept)
                      for k, n in [(10, 1000), (20, 4000), (40, 16_000), (60, 40_000)]],
            args.samples, rng)


if __name__ == "__main__":
    main()
