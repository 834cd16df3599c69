"""score_hierarchy with sample_weight: what the weights cost, and that the unweighted pass
is unchanged, side by side in one process.

    .venv/bin/python benchmarks/bench_hierarchy_weights.py
    .venv/bin/python benchmarks/bench_hierarchy_weights.py --peer /tmp/peer

On random trees (random merges of the current clusters) with 50 classes, 4 scores (ARI,
NMI, FMI, VI) at every cut, best of ``--repeats``:

* weighted (weights 1-9) against the same tree unweighted, and against the tree of the
  repeated points (each point's copies merged first), which gives the same values;
* with ``--peer DIR`` (a directory holding another checkout's package copied as
  ``clustermetrics_main``), the unweighted call of both, and whether their values are
  identical.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import clustermetrics as cm

KEYS = ["ari", "nmi", "fmi", "vi"]


def random_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    """A children array of random merges of the current clusters."""
    alive = list(range(n))
    out = []
    for m in range(n - 1):
        i, j = (int(x) for x in rng.choice(len(alive), 2, replace=False))
        out.append((alive[i], alive[j]))
        for idx in sorted((i, j), reverse=True):
            alive[idx] = alive[-1]
            alive.pop()
        alive.append(n + m)
    return np.array(out, dtype=np.int64).reshape(-1, 2)


def repeated_tree(children: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Each point's copies merged first (a chain), then the tree's merges."""
    n, total = w.shape[0], int(w.sum())
    merges, node_of, start = [], [], 0
    for k in w.tolist():
        node = start
        for c in range(1, k):
            merges.append((node, start + c))
            node = total + len(merges) - 1
        node_of.append(node)
        start += k
    first = len(merges)
    for a, b in children.tolist():
        merges.append(tuple(node_of[x] if x < n else total + first + (x - n) for x in (a, b)))
    return np.array(merges, dtype=np.int64)


def best(work, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(n: int, rng: np.random.Generator, repeats: int, peer) -> None:
    children = random_tree(n, rng)
    truth = rng.integers(0, 50, n)
    w = rng.integers(1, 10, n)
    big, big_truth = repeated_tree(children, w), np.repeat(truth, w)
    cuts = np.arange(1, n + 1)
    calls = {
        "unweighted": lambda: cm.score_hierarchy(truth, children, KEYS),
        "weighted": lambda: cm.score_hierarchy(truth, children, KEYS, sample_weight=w),
        "repeated points": lambda: cm.score_hierarchy(big_truth, big, KEYS, n_clusters=cuts),
    }
    if peer is not None:
        calls["unweighted, peer"] = lambda: peer.score_hierarchy(truth, children, KEYS)
    for work in calls.values():  # warm: kernels loaded and compiled
        work()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):  # interleaved, so the load hits all alike
        for name, work in calls.items():
            times[name].append(best(work, 1))
    got = cm.score_hierarchy(truth, children, KEYS, sample_weight=w)
    want = cm.score_hierarchy(big_truth, big, KEYS, n_clusters=cuts)
    diff = max(float(np.max(np.abs(got.values[k] - want.values[k]))) for k in KEYS)
    line = ", ".join(f"{name} {min(t):.3f} s" for name, t in times.items())
    print(f"N = {n:,} (total weight {int(w.sum()):,}): {line}; weighted / unweighted "
          f"{min(times['weighted']) / min(times['unweighted']):.2f}, repeated / weighted "
          f"{min(times['repeated points']) / min(times['weighted']):.1f}; max |diff| "
          f"weighted vs repeated {diff:.1e}")
    if peer is not None:
        a = cm.score_hierarchy(truth, children, KEYS)
        b = peer.score_hierarchy(truth, children, KEYS)
        same = all(np.array_equal(a.values[k], b.values[k], equal_nan=True) for k in KEYS)
        ratio = min(times["unweighted"]) / min(times["unweighted, peer"])
        print(f"  unweighted / peer {ratio:.2f}, values identical: {same}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="20000,200000")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--peer", help="directory with a checkout's clustermetrics_main")
    args = parser.parse_args()
    peer = None
    if args.peer:
        sys.path.insert(0, args.peer)
        import clustermetrics_main as peer
    rng = np.random.default_rng(0)
    for n in (int(float(x)) for x in args.sizes.split(",")):
        measure(n, rng, args.repeats, peer)


if __name__ == "__main__":
    main()
