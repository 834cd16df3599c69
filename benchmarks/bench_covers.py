"""Cover scores against their peers, side by side in one process, best of a few repeats.

    python benchmarks/bench_covers.py [--repeats 3] [--sizes 1000,3000] [--peers PATH]

Each section is a function of its own (``onmi_peers``, ``onmi_large``, ...) returning
rows; ``SECTIONS`` lists them. Peers are timed when they import: cdlib (its onmi and
NF1; cdlib is no test dependency, ``--peers`` adds a folder where it is installed, e.g.
``pip install --target DIR cdlib``) and clusim (its LFK onmi). Our time includes
building both covers from the same lists of communities the peers take.
"""

from __future__ import annotations

import argparse
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
    try:
        import clusim.sim as sim
        from clusim.clustering import Clustering
    except ImportError:
        return None
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


if __name__ == "__main__":
    main()
