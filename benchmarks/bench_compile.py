"""The first call's compile wall: numba compiling each kernel on a fresh install, loading it
from a warm cache, and the first against the second call of user-level workloads.

    python benchmarks/bench_compile.py                          # every kernel and workload
    python benchmarks/bench_compile.py --kernels cardinality,emi --workloads none
    python benchmarks/bench_compile.py --kernels none --workloads recovery_rate,hierarchy

    python benchmarks/bench_compile.py --trees before=../main/src,after=src --repeats 3

Every measurement runs in a child process (this script with ``--child``) whose
NUMBA_CACHE_DIR is a fresh temporary directory (a fresh install: "cold"), then in a second
child on the same directory ("warm": a new process reusing the cache). A child calls its
kernel or workload twice and reports both calls' wall and CPU time and numba's
"numba:compile" events (the compile of each dispatcher, nested ones inside), so that the
compile cost is the first call less the second, side by side in one process. CPU time is
given next to wall time: on a shared machine the other load inflates wall time most, CPU
time too (less). ``--trees`` runs each row on several source trees (PYTHONPATH),
alternating, and keeps the best of ``--repeats`` runs of each, so that trees compare in
the same minutes.

Kernels (called as their callers call them, ``CLUSTERMETRICS_KERNELS=numba``, tiny
inputs): cardinality (Karp-Sipser + Hopcroft-Karp), matching (the phases from that start),
auction (float weights), auction_exact (large integers: the auction then the phases in the
symmetric form), warm (the bootstrap's warm-started auction), emi, hierarchy, sampling,
smi (the exact variance of one table, windows and large means), smi_stack (of a stack's
tables in one pass; nothing on a tree without it).

Workloads (default kernels ``auto``; uniform noise: N = 10^6 items, truth and prediction
uniform over 10^5 labels, unless said): ``score:KEY`` evaluate of one score; ``all``
evaluate of every score; ``ci`` evaluate of every score with 50 bootstrap replicates
(N = 10^5 over 10^4 labels); ``compare`` paired_comparison, 50 replicates (same N);
``hierarchy`` score_hierarchy of a random 10^6-point tree; ``permutation:KEY``
permutation_test, 99 draws (N = 10^5 over 10^4 labels).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

KERNELS = ["cardinality", "matching", "auction", "auction_exact", "warm", "emi",
           "hierarchy", "sampling", "smi", "smi_stack"]
WORKLOADS = ["score:recovery_rate", "score:pseudo_recovery_rate",
             "score:clustering_accuracy", "score:psi", "score:smi", "score:ami", "all", "ci",
             "compare", "hierarchy", "permutation:ari", "permutation:recovery_rate"]


def _graph(n: int = 300, per_row: int = 3, seed: int = 0):
    """CSR of a random bipartite graph, n x n, ``per_row`` distinct columns a row."""
    rng = np.random.default_rng(seed)
    cols = np.sort(np.stack([rng.choice(n, per_row, replace=False) for _ in range(n)]), 1)
    indptr = np.arange(0, n * per_row + 1, per_row, dtype=np.int64)
    return indptr, cols.ravel().astype(np.int64), n


def kernel_call(name: str) -> Callable[[], object]:
    from clustermetrics.matching import compiled as matching_kernels
    from clustermetrics.matching import warm_kernels as _warm_kernels

    indptr, cols, n = _graph()
    rng = np.random.default_rng(1)
    if name == "cardinality":
        kernel = matching_kernels.cardinality_kernel(np.inf)
        return lambda: kernel(indptr, cols, n)
    if name == "matching":
        kernel = matching_kernels.matching_kernel(np.inf)
        weights = rng.integers(1, 3, cols.shape[0]).astype(np.float64)
        return lambda: kernel(indptr, cols, weights, n)
    if name in ("auction", "auction_exact"):
        from clustermetrics.matching import auction as _auction_kernels
    if name == "auction":
        weights = rng.random(cols.shape[0])
        return lambda: _auction_kernels.auction_matching(indptr, cols, weights, n)
    if name == "auction_exact":
        weights = rng.integers(1 << 55, 1 << 56, cols.shape[0]).astype(np.float64)
        return lambda: _auction_kernels.auction_matching(indptr, cols, weights, n)
    if name == "warm":
        weights = rng.integers(1, 50, cols.shape[0]).astype(np.float64)
        other = np.maximum(weights + rng.integers(-2, 3, cols.shape[0]), 1.0)

        def warm() -> object:
            prices = _warm_kernels.reference_prices(indptr, cols, weights, n)
            return _warm_kernels.warm_matching(indptr, cols, other, n, prices)
        return warm
    if name == "emi":
        from clustermetrics.scores import _emi

        sizes = np.arange(1, 200, dtype=np.int64)
        total = int(sizes.sum())
        return lambda: _emi.expected_mutual_information_weighted(
            sizes, np.ones(sizes.shape[0]), sizes, np.ones(sizes.shape[0]), total)
    if name == "hierarchy":
        from clustermetrics.hierarchy.cuts import _level_stats

        codes = rng.integers(0, 10, 2000)
        children = random_tree(2000)
        return lambda: _level_stats(codes, np.bincount(codes, minlength=10), children)
    if name == "sampling":
        return _sampling
    if name in ("smi", "smi_stack"):
        return _smi_variance(name == "smi_stack")
    raise SystemExit(f"unknown kernel {name!r}")


def _smi_variance(stack: bool) -> Callable[[], object]:
    """SMI's exact variance: one table (10 x 10 labels over 1000 items: windows; 3 x 2 over
    10^5: large means), or the tables of a stack in one pass."""
    from clustermetrics.scores import _smi
    from clustermetrics.scores import compiled as score_kernels

    a, b = np.array([95, 102, 99, 110, 91, 100, 104, 97, 101, 101]), np.full(10, 100)
    large = np.array([50_000, 30_000, 20_000]), np.array([60_000, 40_000])
    if not stack:
        return lambda: (_smi.exact_variance(a, b, 1000, path="compiled"),
                        _smi.exact_variance(*large, 100_000, path="compiled"))
    kernel = score_kernels.smi_variances_kernel(np.inf)
    rows = np.stack([np.roll(a, k) + (np.arange(10) == 0) - (np.arange(10) == 1)
                     for k in range(5)])
    return lambda: _smi.exact_variances(rows, np.tile(b, (5, 1)), 1000, kernel)


def _sampling() -> object:
    """SMI's Monte Carlo statistics of random tables (its int32 column codes)."""
    from clustermetrics.scores import compiled as score_kernels

    kernel = score_kernels.sampling_stats_kernel(np.inf)
    a = np.array([300, 200, 100, 50, 25], dtype=np.int64)
    cols = np.random.default_rng(0).permutation(np.repeat(np.arange(5), a)).astype(np.int32)
    idx = np.arange(5)
    w = np.ones(5)
    return kernel(a, cols, 5, idx, idx, w, w, np.zeros((2, 5, 5)))


def random_tree(n: int, seed: int = 0) -> np.ndarray:
    """scikit-learn-style ``children_`` of a random binary tree over n leaves."""
    rng = np.random.default_rng(seed)
    nodes = rng.permutation(n)
    nxt = n
    merges = []
    while nodes.shape[0] > 1:
        m = nodes.shape[0] // 2
        merges.append(nodes[:2 * m].reshape(m, 2))
        new = np.arange(nxt, nxt + m)
        nxt += m
        nodes = rng.permutation(np.concatenate([new, nodes[2 * m:]]))
    return np.concatenate(merges)


def _uniform(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, k, n), rng.integers(0, k, n)


def workload_call(name: str) -> Callable[[], object]:
    import clustermetrics as cm

    if name.startswith("score:"):
        t, p = _uniform(10**6, 10**5)
        return lambda: cm.evaluate(t, p, metrics=[name[6:]])
    if name == "all":
        t, p = _uniform(10**6, 10**5)
        return lambda: cm.evaluate(t, p)
    if name == "ci":
        t, p = _uniform(10**5, 10**4)
        return lambda: cm.evaluate(t, p, ci=0.95, n_boot=50, seed=0)
    if name == "compare":
        t, p = _uniform(10**5, 10**4)
        q = np.random.default_rng(1).integers(0, 10**4, 10**5)
        return lambda: cm.paired_comparison(t, p, q, n_boot=50, seed=0)
    if name == "hierarchy":
        y = np.random.default_rng(0).integers(0, 10, 10**6)
        children = random_tree(10**6)
        return lambda: cm.score_hierarchy(y, children)
    if name.startswith("permutation:"):
        t, p = _uniform(10**5, 10**4)
        return lambda: cm.permutation_test(t, p, name[12:], n_perm=99, seed=0)
    raise SystemExit(f"unknown workload {name!r}")


def child(kind: str, name: str) -> None:
    import warnings

    from numba.core import event

    warnings.simplefilter("ignore")
    listener = event.RecordingListener()
    event.register("numba:compile", listener)
    if kind == "kernel":
        from clustermetrics.compute import dispatch as _kernels

        _kernels.set_kernels("numba")
        call = kernel_call(name)
    else:
        call = workload_call(name)
    times = []
    for _ in range(2):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
    stack: list[tuple[str, float]] = []
    events = []
    for stamp, ev in listener.buffer:
        fn = ev.data["dispatcher"].py_func
        label = f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__qualname__}"
        if ev.is_start:
            stack.append((label, stamp))
        else:
            label, start = stack.pop()
            events.append((label, round(stamp - start, 3), len(stack)))
    print(json.dumps({"times": times, "events": events}))


def measure(kind: str, name: str, cache: str, tree: str | None) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    if tree is not None:
        env["PYTHONPATH"] = tree
    out = subprocess.run([sys.executable, __file__, "--child", kind, name], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cold_and_warm(kind: str, name: str, tree: str | None) -> dict:
    """(first, second call, warm first call: (wall, CPU) each, the top-level compiles,
    the number of compile events) from a cold child and a warm one."""
    with tempfile.TemporaryDirectory() as cache:
        cold = measure(kind, name, cache, tree)
        warm = measure(kind, name, cache, tree)
    return {"first": cold["times"][0], "second": cold["times"][1],
            "warm": warm["times"][0], "events": len(cold["events"]),
            "top": [(label, t) for label, t, depth in cold["events"] if depth == 0]}


def _best(runs: list[dict]) -> dict:
    """The run with the least CPU time of the first call less the second."""
    return min(runs, key=lambda r: r["first"][1] - r["second"][1])


def row(kind: str, name: str, trees: dict[str, str | None], repeats: int) -> None:
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    for _ in range(repeats):
        for label, tree in trees.items():
            runs[label].append(cold_and_warm(kind, name, tree))
    for label in trees:
        r = _best(runs[label])
        (c1, c1cpu), (c2, c2cpu), (w1, w1cpu) = r["first"], r["second"], r["warm"]
        compiled = ", ".join(f"{lab} {t:.2f}" for lab, t in r["top"]) or "-"
        tag = f" ({label})" if label else ""
        print(f"| {name}{tag} | {c1:.2f} ({c1cpu:.2f}) | {c2:.2f} ({c2cpu:.2f}) | "
              f"{c1 - c2:.2f} ({c1cpu - c2cpu:.2f}) | {w1:.2f} ({w1cpu:.2f}) | "
              f"{r['events']} | {compiled} |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", default=",".join(KERNELS), help="'none' for none")
    p.add_argument("--workloads", default=",".join(WORKLOADS), help="'none' for none")
    p.add_argument("--trees", default="",
                   help="LABEL=PYTHONPATH,... source trees compared side by side")
    p.add_argument("--repeats", type=int, default=1, help="best of this many runs")
    p.add_argument("--child", nargs=2, metavar=("KIND", "NAME"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(*args.child)
        return
    trees: dict[str, str | None] = dict(
        (item.split("=", 1)[0], os.path.abspath(item.split("=", 1)[1]))
        for item in args.trees.split(",") if item) or {"": None}
    print(f"load average {os.getloadavg()[0]:.1f}; wall s (CPU s); best of {args.repeats}\n")
    header = ("| first call, cold cache | second call | first - second | first call, warm "
              "cache (new process) | compile events | top-level compiles, wall s |")
    for kind, names in (("kernel", args.kernels), ("workload", args.workloads)):
        if names == "none":
            continue
        print(f"| {kind} {header}\n|---|---|---|---|---|---|---|")
        for name in names.split(","):
            row(kind, name, trees, args.repeats)
        print()
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
