<<<<<<< HEAD
"""Cover scores against clusim (cdlib and omega-index-py3 where installed), side by side.

Covers: every item joins ``--memberships`` communities drawn uniformly from n / 10 (mean
community size ``--memberships`` x 10); the prediction redraws 30 % of the memberships.
Each timing is the best of ``--repeats`` runs; a peer slower than 20 s runs once. Every
peer value is compared with ours and a difference is printed, never hidden.

    python benchmarks/bench_covers.py                    # pair scores: the default grid
    python benchmarks/bench_covers.py --pair-sizes 1000,3000 --large 100000

The section "Covers: pair-based scores" of benchmarks/README.md has the figures.
=======
"""Cover scores against their peers, side by side in one process, best of a few repeats.

    python benchmarks/bench_covers.py [--repeats 3] [--sizes 1000,3000] [--peers PATH]

Each section is a function of its own (``onmi_peers``, ``onmi_large``, ...) returning
rows; ``SECTIONS`` lists them. Peers are timed when they import: cdlib (its onmi and
NF1; cdlib is no test dependency, ``--peers`` adds a folder where it is installed, e.g.
``pip install --target DIR cdlib``) and clusim (its LFK onmi). Our time includes
building both covers from the same lists of communities the peers take.
>>>>>>> covers-core
"""

from __future__ import annotations

import argparse
<<<<<<< HEAD
import time
import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
from scipy.sparse import csr_array

from clustermetrics.scores.cover_element_centric import cover_element_centric_similarity_score
from clustermetrics.scores.cover_pairs import extended_bcubed_f_score, omega_score


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
=======
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import clustermetrics as cm
from clustermetrics import Cover


def best_of(repeats: int, call: Callable[[], Any]) -> tuple[float, Any]:
    """(best wall time, last value) of ``repeats`` calls."""
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = call()
        best = min(best, time.perf_counter() - start)
    return best, value


def overlapping_covers(n: int, seed: int = 0) -> tuple[list[list[int]], list[list[int]]]:
    """A truth of n/20 communities, each item in one or two of them, and a prediction
    that moves a tenth of the memberships to random communities."""
    rng = np.random.default_rng(seed)
    k = max(2, n // 20)
    memberships = rng.integers(1, 3, n)
    items = np.repeat(np.arange(n), memberships)
    truth = rng.integers(0, k, items.size)
    moved = rng.random(items.size) < 0.1
    pred = np.where(moved, rng.integers(0, k, items.size), truth)

    def communities(labels: np.ndarray) -> list[list[int]]:
        order = np.argsort(labels, kind="stable")
        cuts = np.flatnonzero(np.diff(labels[order])) + 1
        return [sorted(set(part.tolist())) for part in np.split(items[order], cuts)]

    return communities(truth), communities(pred)


def _cdlib() -> Any:
    try:
        from cdlib.evaluation.internal import onmi
        from cdlib.evaluation.internal.NF1 import NF1
    except ImportError:
        return None
    return onmi, NF1


def _clusim() -> Any:
>>>>>>> covers-core
    try:
        import clusim.sim as sim
        from clusim.clustering import Clustering
    except ImportError:
        return None
<<<<<<< HEAD

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
=======
    return sim, Clustering


def _peer_runs(n: int, cdlib: Any, clusim: Any) -> list[tuple[str, str, Callable[[], Any],
                                                              Callable[[], Any]]]:
    """(score, peer, ours, theirs) of the covers of ``n`` items, for each peer installed."""
    t, p = overlapping_covers(n)
    t_sets, p_sets = [set(c) for c in t], [set(c) for c in p]
    runs: list[tuple[str, str, Callable[[], Any], Callable[[], Any]]] = []
    if cdlib is not None:
        onmi, nf1 = cdlib
        runs += [
            ("NMI_max", "cdlib", lambda: cm.overlapping_nmi_score(t, p),
             lambda: onmi.onmi(p_sets, t_sets, variant="MGH")),
            ("LFK", "cdlib", lambda: cm.overlapping_nmi_score(t, p, variant="lfk"),
             lambda: onmi.onmi(p_sets, t_sets, variant="LFK")),
            ("NF1", "cdlib", lambda: cm.nf1_score(t, p),
             lambda: nf1(p, t).summary()["scores"].loc["NF1", "Value"]),
        ]
    if clusim is not None:
        sim, clustering = clusim
        a = clustering(clu2elm_dict=dict(enumerate(t)))
        b = clustering(clu2elm_dict=dict(enumerate(p)))
        runs.append(("LFK", "clusim", lambda: cm.overlapping_nmi_score(t, p, variant="lfk"),
                     lambda: sim.onmi(a, b)))
    return runs


def onmi_peers(sizes: list[int], repeats: int) -> list[str]:
    """Overlapping NMI (NMI_max, LFK) and NF1 against cdlib and clusim."""
    cdlib, clusim = _cdlib(), _clusim()
    rows = ["| items | score | ours | peer | peer time | ratio | peer value - ours |",
            "|---|---|---|---|---|---|---|"]
    for n in sizes:
        for score, peer, ours, theirs in _peer_runs(n, cdlib, clusim):
            ours_s, ours_v = best_of(repeats, ours)
            peer_s, peer_v = best_of(repeats, theirs)
            rows.append(f"| {n:,} | {score} | {ours_s * 1e3:.1f} ms | {peer} | "
                        f"{peer_s:.2f} s | {peer_s / ours_s:,.0f}× | "
                        f"{float(peer_v) - ours_v:+.1e} |")
    return rows


def onmi_large(repeats: int) -> list[str]:
    """Overlapping NMI of 10^5 items in 10^4 communities a side: covers built from
    membership pairs, then the pair, then each variant from the pair."""
    rng = np.random.default_rng(0)
    n, k = 10**5, 10**4
    items = np.repeat(np.arange(n), rng.integers(1, 3, n))
    truth = rng.integers(0, k, items.size)
    pred = np.where(rng.random(items.size) < 0.1, rng.integers(0, k, items.size), truth)
    build, (a, b) = best_of(repeats, lambda: (Cover.from_pairs(items, truth),
                                              Cover.from_pairs(items, pred)))
    pair_s, pair = best_of(repeats, lambda: cm.CoverPair(a, b))
    rows = ["| step | time | value |", "|---|---|---|",
            f"| two covers from {items.size:,} (item, community) pairs | {build:.3f} s | |",
            f"| the pair (item rows, sizes) | {pair_s:.3f} s | |"]
    overlaps_s, _ = best_of(1, lambda: pair.overlaps)
    rows.append(f"| its overlaps ({pair.overlaps.nnz:,} non-zero) | {overlaps_s:.3f} s | |")
    for variant in ("max", "lfk", "sum"):
        seconds, value = best_of(repeats, lambda v=variant: cm.overlapping_nmi_score(
            pair, variant=v))
        rows.append(f"| overlapping NMI `{variant}` from the pair | {seconds:.3f} s | "
                    f"{value:.4f} |")
    literal, _ = best_of(repeats, lambda: cm.overlapping_nmi_score(pair, candidates="all"))
    rows.append(f"| overlapping NMI `max`, `candidates=\"all\"`, from the pair | "
                f"{literal:.3f} s | |")
    whole, _ = best_of(repeats, lambda: cm.overlapping_nmi_score(a, b))
    rows.append(f"| overlapping NMI from the two covers (pair included) | {whole:.3f} s | |")
    return rows


SECTIONS: dict[str, Callable[[argparse.Namespace], list[str]]] = {
    "Overlapping NMI and NF1 against peers": lambda a: onmi_peers(a.sizes, a.repeats),
    "Overlapping NMI at 10^5 items, 10^4 communities": lambda a: onmi_large(a.repeats),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1000, 3000])
    parser.add_argument("--peers", help="a folder to import peers from (pip --target)")
    args = parser.parse_args(argv)
    if args.peers:
        sys.path.append(args.peers)
    for title, section in SECTIONS.items():
        print(f"\n### {title}\n")
        print("\n".join(section(args)))
>>>>>>> covers-core


if __name__ == "__main__":
    main()
