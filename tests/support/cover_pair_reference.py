"""Covers for the tests of the pair-based cover scores: a stand-in for the cover structure
(the three attributes the scores read), a hypothesis strategy of small covers with every
awkward shape, and brute-force definitions of the scores over all pairs in Fractions."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st
from scipy.sparse import csr_array


class Cover(NamedTuple):
    true: csr_array
    pred: csr_array
    n_items: int


def memberships(sets: list[set[int]], n_communities: int | None = None) -> csr_array:
    """Items x communities 0/1 CSR from each item's set of community ids."""
    width = max((max(s) + 1 for s in sets if s), default=0)
    width = width if n_communities is None else n_communities
    rows = [i for i, s in enumerate(sets) for _ in s]
    cols = [c for s in sets for c in sorted(s)]
    m = csr_array((np.ones(len(cols), np.int64), (rows, cols)), shape=(len(sets), width))
    m.sort_indices()
    return m


def cover(true_sets: list[set[int]], pred_sets: list[set[int]]) -> Cover:
    return Cover(memberships(true_sets), memberships(pred_sets), len(true_sets))


def from_labels(labels_true, labels_pred) -> Cover:
    """A partition as a cover: every item in exactly its label's community."""
    def sets(labels):
        ids = {v: i for i, v in enumerate(dict.fromkeys(labels))}
        return [{ids[v]} for v in labels]
    return cover(sets(list(labels_true)), sets(list(labels_pred)))


@st.composite
def cover_sets(draw, max_items: int = 7, max_communities: int = 4):
    """(true sets, pred sets) of one to ``max_items`` items: items in no community,
    identical covers, a community of all items, singletons, heavy overlap and duplicate
    communities all arise (the last three forced now and then)."""
    n = draw(st.integers(1, max_items))

    def side():
        k = draw(st.integers(0, max_communities))
        sets = [set() for _ in range(n)]
        for c in range(k):
            shape = draw(st.sampled_from(["any", "all", "single", "copy"]))
            if shape == "all":
                members = set(range(n))
            elif shape == "single":
                members = {draw(st.integers(0, n - 1))}
            elif shape == "copy" and c > 0:
                members = {i for i in range(n) if c - 1 in sets[i]}
            else:
                members = set(draw(st.sets(st.integers(0, n - 1), max_size=n)))
            for i in members:
                sets[i].add(c)
        return sets

    true_sets = side()
    pred_sets = [set(s) for s in true_sets] if draw(st.booleans()) and draw(
        st.booleans()) else side()
    return true_sets, pred_sets


def shared_counts(true_sets, pred_sets) -> dict[tuple[int, int], int]:
    """Every unordered pair of distinct items by (shared true, shared pred) communities."""
    out: dict[tuple[int, int], int] = {}
    for u, v in itertools.combinations(range(len(true_sets)), 2):
        key = (len(true_sets[u] & true_sets[v]), len(pred_sets[u] & pred_sets[v]))
        out[key] = out.get(key, 0) + 1
    return out


def omega(true_sets, pred_sets) -> Fraction | None:
    """Collins & Dent's Omega over all pairs; None for 0/0."""
    n = len(true_sets)
    m = n * (n - 1) // 2
    if m == 0:
        return None
    pairs = list(itertools.combinations(range(n), 2))
    t = [len(true_sets[u] & true_sets[v]) for u, v in pairs]
    p = [len(pred_sets[u] & pred_sets[v]) for u, v in pairs]
    observed = Fraction(sum(a == b for a, b in zip(t, p, strict=True)), m)
    expected = sum(Fraction(t.count(j) * p.count(j), m * m) for j in set(t) | set(p))
    return None if expected == 1 else (observed - expected) / (1 - expected)


def bcubed(true_sets, pred_sets) -> tuple[Fraction | None, Fraction | None]:
    """Amigó et al.'s extended B-cubed precision and recall, item by item."""
    def side(a, b):
        per_item = []
        for e in range(len(a)):
            others = [x for x in range(len(a)) if a[e] & a[x]]
            if others:
                per_item.append(sum(Fraction(min(len(a[e] & a[x]), len(b[e] & b[x])),
                                             len(a[e] & a[x])) for x in others)
                                / len(others))
        return sum(per_item) / len(per_item) if per_item else None
    return side(pred_sets, true_sets), side(true_sets, pred_sets)


def _solve_rows(a, b):
    """X with X a = b, exactly (Gauss-Jordan on a^T, one right-hand side per row of b)."""
    n = len(a)
    out = []
    for rhs in b:
        m = [[a[j][i] for j in range(n)] + [rhs[i]] for i in range(n)]
        for c in range(n):
            pivot = next(r for r in range(c, n) if m[r][c] != 0)
            m[c], m[pivot] = m[pivot], m[c]
            m[c] = [x / m[c][c] for x in m[c]]
            for r in range(n):
                if r != c and m[r][c] != 0:
                    f = m[r][c]
                    m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
        out.append([m[i][n] for i in range(n)])
    return out


def _affinity(sets, alpha):
    """Rows p_u of the personalised PageRank on the item graph of Gates et al. (2019):
    p = (1 - alpha) e_u + alpha p W, W[u, v] = (1/k_u) sum_{c ∋ u, v} 1/|c|; an item in no
    community steps to itself."""
    n = len(sets)
    size: dict[int, int] = {}
    for s in sets:
        for c in s:
            size[c] = size.get(c, 0) + 1
    w = [[Fraction(0)] * n for _ in range(n)]
    for u in range(n):
        for v in range(n):
            if not sets[u]:
                w[u][v] = Fraction(u == v)
            else:
                w[u][v] = sum((Fraction(1, size[c]) for c in sets[u] & sets[v]),
                              Fraction(0)) / len(sets[u])
    a = [[Fraction(i == j) - alpha * w[i][j] for j in range(n)] for i in range(n)]
    return _solve_rows(a, [[(1 - alpha) * Fraction(i == j) for j in range(n)]
                           for i in range(n)])


def element_centric(true_sets, pred_sets, alpha=Fraction(9, 10)) -> Fraction:
    """Mean over items of 1 - ||p1_u - p2_u||_1 / (2 alpha), from the affinities solved
    exactly over all items (no use of community structure)."""
    p1, p2 = _affinity(true_sets, alpha), _affinity(pred_sets, alpha)
    n = len(true_sets)
    return sum(1 - sum(abs(x - y) for x, y in zip(p1[u], p2[u], strict=True)) / (2 * alpha)
               for u in range(n)) / n
