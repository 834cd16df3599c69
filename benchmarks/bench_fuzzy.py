"""Scores of soft memberships: our exact algorithms against a straightforward O(N^2)
numpy evaluation of the same definitions (row blocks against all items, no N x N matrix
held), side by side in one process, best of ``--repeats``.

Two shapes, K = 10 clusters on each side: a crisp truth against a soft prediction (the
usual evaluation), and two soft memberships (every row distinct: the worst case of the
pair-sum scores). The O(N^2) peer runs up to ``--peer-max`` items.

    python benchmarks/bench_fuzzy.py --sizes 1e4,1e5,1e6 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import clustermetrics as cm

BLOCK = 256


def naive_fuzzy_rand(u, v):
    n, total = len(u), 0.0
    for s in range(0, n, BLOCK):
        eu = 1 - np.abs(u[s:s + BLOCK, None] - u[None]).sum(2) / 2
        ev = 1 - np.abs(v[s:s + BLOCK, None] - v[None]).sum(2) / 2
        upper = np.arange(s, min(s + BLOCK, n))[:, None] < np.arange(n)[None]
        total += np.abs(eu - ev)[upper].sum()
    return 1 - total / (n * (n - 1) / 2)


def naive_campello_rand(u, v):
    n, a_d, all_ = len(u), 0.0, 0.0
    for s in range(0, n, BLOCK):
        parts = []
        for p in (u, v):
            mins = np.minimum(p[s:s + BLOCK, None], p[None])
            same = mins.max(2)
            k = p.shape[1]
            off = ~np.eye(k, dtype=bool)
            apart = np.minimum(p[s:s + BLOCK, None, :, None], p[None, :, None, :])[..., off]
            parts.append((same, apart.max(-1)))
        (vv, xx), (yy, zz) = parts
        upper = np.arange(s, min(s + BLOCK, n))[:, None] < np.arange(n)[None]
        a, b = np.minimum(vv, yy)[upper].sum(), np.minimum(vv, zz)[upper].sum()
        c, d = np.minimum(xx, yy)[upper].sum(), np.minimum(xx, zz)[upper].sum()
        a_d, all_ = a_d + a + d, all_ + a + b + c + d
    return a_d / all_


def naive_frobenius_rand(u, v):
    n, sa, fa, sb, fb, inner = len(u), 0.0, 0.0, 0.0, 0.0, 0.0
    for s in range(0, n, BLOCK):
        a, b = u[s:s + BLOCK] @ u.T, v[s:s + BLOCK] @ v.T
        sa, fa, sb, fb = sa + a.sum(), fa + (a * a).sum(), sb + b.sum(), fb + (b * b).sum()
        inner += (a * b).sum()
    ca, cb = sa / fa, sb / fb
    return 1 - (ca * ca * fa + cb * cb * fb - 2 * ca * cb * inner) / (n * (n - 1))


OURS = {"fuzzy_rand": cm.fuzzy_rand_score, "adjusted_fuzzy_rand": cm.adjusted_fuzzy_rand_score,
        "campello_rand": cm.campello_rand_score, "frobenius_rand": cm.frobenius_rand_score,
        "frobenius_adjusted_rand": cm.frobenius_adjusted_rand_score}
PEERS = {"fuzzy_rand": naive_fuzzy_rand, "campello_rand": naive_campello_rand,
         "frobenius_rand": naive_frobenius_rand}
# pair-sum scores whose cost is quadratic in the distinct rows of two soft memberships
QUADRATIC = {"fuzzy_rand", "adjusted_fuzzy_rand", "campello_rand"}


def best(f, repeats):
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = f()
        times.append(time.perf_counter() - start)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e4,1e5,1e6")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-max", type=float, default=1e4)
    parser.add_argument("--soft-max", type=float, default=1e4,
                        help="most items for the quadratic scores of two soft memberships")
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}; K = {args.k}; best of {args.repeats}")
    print("| shape | N | score | ours (s) | O(N^2) numpy (s) | ratio | |diff| |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in (int(float(x)) for x in args.sizes.split(",")):
        truth = rng.integers(0, args.k, n)
        pred = rng.dirichlet(np.full(args.k, 0.3), size=n)
        soft_truth = rng.dirichlet(np.full(args.k, 0.3), size=n)
        for shape, u in (("crisp vs soft", np.eye(args.k)[truth]), ("soft vs soft", soft_truth)):
            for key, ours in OURS.items():
                if shape == "soft vs soft" and key in QUADRATIC and n > args.soft_max:
                    continue
                if shape == "crisp vs soft" and key == "campello_rand" and n > args.soft_max:
                    continue
                try:
                    t_ours, v_ours = best(lambda o=ours, a=u, b=pred: o(a, b), args.repeats)
                except cm.ScoreUnavailable:
                    print(f"| {shape} | {n:.0e} | {key} | refused (max_pairs) | | | |")
                    continue
                peer = PEERS.get(key)
                limit = args.peer_max if key != "campello_rand" else min(args.peer_max, 2e3)
                if peer is not None and n <= limit:
                    t_peer, v_peer = best(lambda p=peer, a=u, b=pred: p(a, b), 1)
                    print(f"| {shape} | {n:.0e} | {key} | {t_ours:.3f} | {t_peer:.2f} | "
                          f"{t_peer / t_ours:.0f}x | {abs(v_peer - v_ours):.1e} |", flush=True)
                else:
                    print(f"| {shape} | {n:.0e} | {key} | {t_ours:.3f} | | | |", flush=True)


if __name__ == "__main__":
    main()
