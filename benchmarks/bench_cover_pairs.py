"""Cover scores against clusim (cdlib and omega-index-py3 where installed), side by side.

Covers: every item joins ``--memberships`` communities drawn uniformly from n / 10 (mean
community size ``--memberships`` x 10); the prediction redraws 30 % of the memberships.
Each timing is the best of ``--repeats`` runs; a peer slower than 20 s runs once. Every
peer value is compared with ours and a difference is printed, never hidden.

    python benchmarks/bench_cover_pairs.py                    # pair scores: the default grid
    python benchmarks/bench_cover_pairs.py --pair-sizes 1000,3000 --large 100000

The section "Covers: pair-based scores" of benchmarks/README.md has the figures.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
from scipy.sparse import csr_array

from clustermetrics.scores.cover_element_centric import (
    element_centric_of_pair as cover_element_centric_similarity_score,
)
from clustermetrics.scores.cover_pairs import bcubed_f_of_pair as extended_bcubed_f_score
from clustermetrics.scores.cover_pairs import omega_of_pair as omega_score


def pair_covers(n: int, memberships: int = 2, seed: int = 0) -> SimpleNamespace:
    """Two covers of n items, ``memberships`` communities an item, n / 10 communities."""
    rng = np.random.default_rng(seed)
    k = max(1, n // 10)
    cols = rng.integers(0, k, (n, memberships))
    redrawn = np.where(rng.random(cols.shape) < 0.3, rng.integers(0, k, cols.shape), cols)

    def side(c: np.ndarray) -> csr_array:
        rows = np.repeat(np.arange(n), memberships)
        m = csr_array((np.ones(c.size, np.int64), (rows, c.ravel())), shape=(n, k))
        m.sum_duplicates()
        m.data[:] = 1
        return m
    return SimpleNamespace(true=side(cols), pred=side(redrawn), n_items=n)


def _best(func: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = func()
        best = min(best, time.perf_counter() - start)
        if best > 20:
            break
    return best, value


def _clusim(cover: SimpleNamespace) -> Callable[[], float] | None:
    try:
        import clusim.sim as sim
        from clusim.clustering import Clustering
    except ImportError:
        return None

    def one(m: csr_array) -> Any:
        return Clustering(elm2clu_dict={i: m.indices[m.indptr[i]:m.indptr[i + 1]].tolist()
                                        for i in range(m.shape[0])})
    first, second = one(cover.true), one(cover.pred)
    return lambda: float(sim.omega_index(first, second))


def _cdlib_omega(cover: SimpleNamespace) -> Callable[[], float] | None:
    try:
        from cdlib import NodeClustering, evaluation
    except ImportError:
        return None

    def communities(m: csr_array) -> Any:
        members = m.tocsc()
        return NodeClustering([members.indices[members.indptr[c]:members.indptr[c + 1]]
                               .tolist() for c in range(m.shape[1])], None, "",
                              overlap=True)
    first, second = communities(cover.true), communities(cover.pred)
    return lambda: evaluation.omega(first, second).score


def _omega_index_py3(cover: SimpleNamespace) -> Callable[[], float] | None:
    """cdlib's ``evaluation.omega`` backend, run alone where cdlib is not installed."""
    try:
        from omega_index_py3 import Omega
    except ImportError:
        return None

    def communities(m: csr_array) -> dict[int, list[int]]:
        members = m.tocsc()
        return {c: members.indices[members.indptr[c]:members.indptr[c + 1]].tolist()
                for c in range(m.shape[1])}
    first, second = communities(cover.true), communities(cover.pred)
    return lambda: float(Omega(first, second).omega_score)


def pair_scores_against_peers(sizes: list[int], repeats: int) -> None:
    """Omega (clusim ``omega_index``, cdlib ``omega``) at each size, with ratios."""
    print("| items | score | clustermetrics | peer | peer time | ratio | same value |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        cover = pair_covers(n)
        ours_t, ours = _best(lambda c=cover: omega_score(c), repeats)
        peers: list[tuple[str, Callable[[], float]]] = []
        clusim = _clusim(cover)
        if clusim is not None:
            peers.append(("clusim omega_index", clusim))
        cdlib = _cdlib_omega(cover)
        if cdlib is not None:
            peers.append(("cdlib omega", cdlib))
        backend = _omega_index_py3(cover)
        if backend is not None:
            peers.append(("omega-index-py3 Omega", backend))
        for name, run in peers:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                peer_t, peer = _best(run, 1 if n > 1000 else repeats)
            print(f"| {n:,} | Omega | {ours_t:.4f} s | {name} | {peer_t:.3f} s | "
                  f"{peer_t / ours_t:.0f}x | {abs(peer - ours) < 1e-12} ({peer:.12f}) |")


def pair_scores_large(n: int, repeats: int) -> None:
    """Each pair-based score of ours at n items, alone (no peer finishes in minutes)."""
    cover = pair_covers(n)
    print(f"| items | communities | score | time (best of {repeats}) |\n|---|---|---|---|")
    runs: list[tuple[str, Callable[[], float]]] = [
        ("Omega", lambda: omega_score(cover)),
        ("extended B-cubed F", lambda: extended_bcubed_f_score(cover))]
    if n <= 20_000:  # one giant overlapping component: S^2 affinities
        runs.append(("element-centric (covers)",
                     lambda: cover_element_centric_similarity_score(cover)))
    for name, run in runs:
        t, _ = _best(run, repeats)
        print(f"| {n:,} | {cover.true.shape[1]:,} | {name} | {t:.3f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair-sizes", default="1000,3000",
                        help="item counts for the side-by-side Omega (comma-separated)")
    parser.add_argument("--large", type=int, default=100_000,
                        help="item count for ours alone")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    pair_scores_against_peers([int(s) for s in args.pair_sizes.split(",")], args.repeats)
    print()
    pair_scores_large(args.large, args.repeats)
    print()
    pair_scores_large(5_000, args.repeats)


if __name__ == "__main__":
    main()
