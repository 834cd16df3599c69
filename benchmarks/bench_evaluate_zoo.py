"""`evaluate` of every registered score on the shapes of bench_shapes.py at N = 10^6, against
scikit-learn's ARI on the same labels in the same process (the faster of two ARI runs, taken
before and after, so load drift counts against us).

Usage: python benchmarks/bench_evaluate_zoo.py [uniform100,entity,...]
"""
from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_shapes import SHAPES, shape_labels  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

import clustermetrics as cm  # noqa: E402


def seconds(fn: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def main() -> None:
    warnings.simplefilter("ignore")  # refused or undefined scores are not the point here
    cm.evaluate([0, 1, 1], [0, 0, 1])  # imports out of the way
    for name in sys.argv[1].split(",") if len(sys.argv) > 1 else SHAPES:
        t, p = shape_labels(name, 10**6)
        before = seconds(adjusted_rand_score, t, p)
        every = seconds(cm.evaluate, t, p)
        after = seconds(adjusted_rand_score, t, p)
        ari = min(before, after)
        print(f"{name:12s} ARI {before:.3f}/{after:.3f} s  evaluate(all) {every:.2f} s  "
              f"{every / ari:.1f}x", flush=True)


if __name__ == "__main__":
    main()
