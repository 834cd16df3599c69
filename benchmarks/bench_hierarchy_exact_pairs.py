"""score_hierarchy's pair scores where the pair counts pass 2^53 (trees of more than
~1.34e8 points): all cuts at once on object arrays of Python ints against level by level,
side by side in one process, best of 5.

    .venv/bin/python benchmarks/bench_hierarchy_exact_pairs.py

score_hierarchy calls each score declaring reads=("pairs",) level by level there, because
numpy's object arithmetic raises at a 0/0 that float64 masks; this prints what that costs
on 2000 cuts (tables of N ~ 4e8 items with no 0/0, so that the arrays run at all).
"""

from __future__ import annotations

import math
import time

import numpy as np

import clustermetrics as cm
from clustermetrics.hierarchy import cuts as H
from clustermetrics.scores.pair_table import PairCounts, _pairs
from clustermetrics.scores.registry import METRICS

rng = np.random.default_rng(0)
sizes = rng.integers(2**26, 2**27, 4)  # N ~ 4e8: C(N, 2) > 2^53
tables = []
for _ in range(2000):
    k = rng.integers(2, 6)
    w = rng.random((4, k)) + 0.1
    tables.append(cm.Contingency.from_matrix(np.array(
        [rng.multinomial(a, p / p.sum()) for a, p in zip(sizes, w, strict=True)])))
pairs = [_pairs(t) for t in tables]
n = tables[0].n_samples
assert math.comb(n, 2) >= H._FLOAT_EXACT
levels = H._Levels(n, 4, np.array([t.n_clusters for t in tables]),
                   np.array([t.nnz for t in tables]),
                   PairCounts(*(np.array([p[i] for p in pairs], dtype=object)
                                for i in range(4))),
                   None)
one = H._Level(n, 4, 0, 0, None, None)
each = ([t.n_clusters for t in tables], [t.nnz for t in tables], pairs, [None] * len(tables))

def best(f, r=5):
    out = []
    for _ in range(r):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)

keys = [k for k, e in METRICS.items() if e.spec.reads and "pairs" in e.spec.reads]
ratios = []
for key in keys:
    a = best(lambda: METRICS[key].compute_many(levels))  # noqa: B023 (called at once)
    b = best(lambda: H._values(METRICS[key], one, *each))  # noqa: B023
    ratios.append(b / a)
    print(f"{key:18s} arrays {a*1e3:7.2f} ms  by level {b*1e3:7.2f} ms  ratio {b/a:5.2f}")
print(f"median ratio (level by level / arrays) over {len(keys)} scores: "
      f"{float(np.median(ratios)):.2f}, range {min(ratios):.2f}-{max(ratios):.2f}")
