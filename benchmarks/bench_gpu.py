"""Adjusted Rand index of labels already on a GPU: clustermetrics on CuPy and PyTorch
arrays, against the floor (CuPy's bincount of the packed cells plus the exact integer ARI
of the dense table, on the device) and torchmetrics, each value with its difference from
the exact ARI (a Fraction of the integer pair counts).

    python benchmarks/bench_gpu.py --n 1e8 --k 1000 --noise 0.3

Needs cupy (cupy-cuda12x) and, for the PyTorch rows, torch and torchmetrics: `make
test-gpu` installs them in build/gpu-venv and runs this script after the GPU tests.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import cupy as cp
import numpy as np

import clustermetrics as cm


def _labels(n: int, k: int, noise: float, seed: int):
    """Truth uniform in [0, k); prediction = truth with ``noise`` of positions redrawn."""
    rng = cp.random.default_rng(seed)
    truth = rng.integers(0, k, n, dtype=cp.int64)
    pred = truth.copy()
    redraw = rng.random(n) < noise
    pred[redraw] = rng.integers(0, k, int(redraw.sum()), dtype=cp.int64)
    return truth, pred


def _ari(pairs: int, rows: int, cols: int, n: int) -> float:
    """ARI from the exact pair counts (Hubert & Arabie), one rounding at the end."""
    total = n * (n - 1) // 2
    expected = Fraction(rows * cols, total)
    top = Fraction(rows + cols, 2)
    return float((pairs - expected) / (top - expected)) if top != expected else 1.0


def _floor(truth, pred, k: int) -> float:
    """The least work on the device: one bincount of the packed cells and integer sums."""
    grid = cp.bincount(truth * k + pred, minlength=k * k).reshape(k, k)

    def pairs(x):
        return int((x * (x - 1) // 2).sum())

    return _ari(pairs(grid), pairs(grid.sum(axis=1)), pairs(grid.sum(axis=0)), truth.shape[0])


def _exact(truth, pred) -> float:
    """The reference: the table's pair counts as Python integers (independent of the
    timed code: numpy on the host, object arithmetic)."""
    t, p = cp.asnumpy(truth), cp.asnumpy(pred)
    k = int(max(t.max(), p.max())) + 1
    grid = np.bincount(t * k + p, minlength=k * k).reshape(k, k).astype(object)

    def pairs(x):
        return int(sum(v * (v - 1) // 2 for v in np.asarray(x).ravel().tolist()))

    return _ari(pairs(grid), pairs(grid.sum(axis=1)), pairs(grid.sum(axis=0)), t.shape[0])


def _timed(fn, repeats: int) -> tuple[float, float]:
    """(best seconds, value): the device synchronised after each call."""
    best, value = float("inf"), None
    for _ in range(repeats):
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        value = fn()
        cp.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - start)
    return best, float(value)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e8, help="labels (default 1e8)")
    ap.add_argument("--k", type=int, default=1000, help="classes (default 1000)")
    ap.add_argument("--noise", type=float, default=0.3, help="share redrawn (default 0.3)")
    ap.add_argument("--repeats", type=int, default=3, help="best of (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    n = int(args.n)
    truth, pred = _labels(n, args.k, args.noise, args.seed)
    exact = _exact(truth, pred)
    rows = {"clustermetrics (CuPy arrays)": lambda: cm.adjusted_rand_score(truth, pred),
            "CuPy floor: bincount + exact integer ARI": lambda: _floor(truth, pred, args.k),
            "copy both label arrays to the host": lambda: (cp.asnumpy(truth), cp.asnumpy(pred),
                                                          0.0)[2]}
    try:
        import torch
        import torchmetrics.functional.clustering as tmc
    except ImportError as exc:
        print(f"PyTorch rows left out: {exc}")
    else:
        t, p = torch.from_dlpack(truth), torch.from_dlpack(pred)
        rows["clustermetrics (PyTorch tensors)"] = lambda: cm.adjusted_rand_score(t, p)
        rows[f"torchmetrics {torchmetrics_version()}"] = \
            lambda: tmc.adjusted_rand_score(p, t).item()
    print(f"N = {n:.3g}, K = {args.k}, noise = {args.noise}, device = "
          f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; exact ARI = {exact!r}")
    times = {}
    for name, fn in rows.items():
        times[name] = _timed(fn, args.repeats)
    floor = times["CuPy floor: bincount + exact integer ARI"][0]
    print(f"{'method':45} {'seconds':>9} {'x floor':>8} {'value':>22} {'value - exact':>14}")
    for name, (seconds, value) in times.items():
        diff = "" if name.startswith("copy") else f"{value - exact:14.3g}"
        shown = "" if name.startswith("copy") else f"{value:22.17g}"
        print(f"{name:45} {seconds:9.4f} {seconds / floor:8.2f} {shown:>22} {diff:>14}")


def torchmetrics_version() -> str:
    import torchmetrics

    return torchmetrics.__version__


if __name__ == "__main__":
    main()
