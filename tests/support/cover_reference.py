"""Cover scores by their definitions, in pure Python on lists of sets: the references
the vectorised scores are tested against. Every pair of communities is visited (no
sparse overlaps), every rational quantity is a Fraction, and the entropies are
math.fsum sums of -k log2(k / N)."""

from __future__ import annotations

import math
from fractions import Fraction


def items_of(*covers: list[set]) -> set:
    return set().union(*(c for cover in covers for c in cover))


def _h(k: int, n: int) -> float:
    return 0.0 if k == 0 else -k * math.log2(k / n)


def _plogp(k: int, n: int) -> float:
    p = k / n
    return 0.0 if p == 0 else -p * math.log2(p)


def _entropy(size: int, n: int) -> float:
    return math.fsum([_h(size, n), _h(n - size, n)])


def _conditional(x: set, y: set, n: int, disjoint: bool = False) -> float | None:
    """N H(X|Y) of two communities, or None when LFK's constraint (as McDaid's onmi
    applies it: ties reject) rejects Y, or when they share no item and ``disjoint`` is
    False (onmi visits overlapping pairs only)."""
    both = len(x & y)
    if both == 0 and not disjoint:
        return None
    cells = (n - len(x | y), both, len(x - y), len(y - x))
    n00, n11, n10, n01 = cells
    if _plogp(n00, n) + _plogp(n11, n) <= _plogp(n10, n) + _plogp(n01, n):
        return None
    return math.fsum([_h(c, n) for c in cells]) - _entropy(len(y), n)


def _best(x: set, other: list[set], n: int, disjoint: bool) -> float:
    candidates = [_conditional(x, y, n, disjoint) for y in other]
    return min([_entropy(len(x), n)] + [c for c in candidates if c is not None])


def onmi(true: list[set], pred: list[set], variant: str, n: int | None = None,
         disjoint: bool = False) -> float:
    """Overlapping NMI of McDaid, Greene & Hurley (max, sum) or Lancichinetti, Fortunato &
    Kertész (lfk) over ``n`` items (default: the union of the covers' items); with
    ``disjoint`` every community is a candidate, as LFK's Appendix B reads."""
    n = len(items_of(true, pred)) if n is None else n
    h_true = [_entropy(len(c), n) for c in true]
    h_pred = [_entropy(len(c), n) for c in pred]
    best_true = [_best(c, pred, n, disjoint) for c in true]
    best_pred = [_best(c, true, n, disjoint) for c in pred]
    if variant == "lfk":
        def mean_ratio(best, h):
            return math.fsum([b / e if e else 1.0 for b, e in zip(best, h, strict=True)]) / len(h)
        return 1 - (mean_ratio(best_true, h_true) + mean_ratio(best_pred, h_pred)) / 2
    s_true, s_pred = math.fsum(h_true), math.fsum(h_pred)
    mutual = math.fsum(h_true + h_pred + [-b for b in best_true + best_pred]) / 2
    norm = max(s_true, s_pred) if variant == "max" else (s_true + s_pred) / 2
    return 1.0 if norm == 0 else mutual / norm


def community_matches(true: list[set], pred: list[set]) -> tuple[list[Fraction], set]:
    """F1 of every match (Rossetti et al.'s best overlap, every tie a match; 0 for a
    predicted community overlapping no true one) and the matched true communities."""
    f1, matched = [], set()
    for d in pred:
        overlaps = [len(c & d) for c in true]
        best = max(overlaps)
        if best == 0:
            f1.append(Fraction(0))
            continue
        for i, c in enumerate(true):
            if overlaps[i] == best:
                f1.append(Fraction(2 * best, len(c) + len(d)))
                matched.add(i)
    return f1, matched


def community_f1(true: list[set], pred: list[set]) -> Fraction:
    f1, _ = community_matches(true, pred)
    return sum(f1, Fraction(0)) / len(f1)


def nf1(true: list[set], pred: list[set]) -> Fraction:
    f1, matched = community_matches(true, pred)
    if not matched:
        return Fraction(0)
    mean = sum(f1, Fraction(0)) / len(f1)
    return mean * Fraction(len(matched), len(true)) / Fraction(len(pred), len(matched))
