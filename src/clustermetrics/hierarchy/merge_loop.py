"""The per-merge loop of :mod:`clustermetrics.hierarchy.cuts`, in plain Python.

The same source runs as Python (on lists) and, compiled by numba, as machine code (on
arrays): see ``_numba_kernels.merge_levels``. Both do the same integer and floating-point
operations in the same order, so they return identical values.

State: each cluster of the current cut is one column of the contingency table (truth x
clusters), a linked list of its non-zero cells (entries); ``cell_of`` maps
``column * n_classes + class`` to the entry holding that cell (a dict here; compiled, an
open-addressing hash table in an array, see :mod:`clustermetrics.hierarchy.merge_kernels`:
``cell_claim`` and ``cell_drop`` are its two operations). Merging two clusters moves
the smaller column's entries into the larger one (small into large: an entry moves at
most log2 N times, so all N - 1 merges cost O(N log N)); a cell whose class the larger
column already holds is added to it. Only the merged cells change the sufficient
statistics:

* ``tp``  = sum_ij C(n_ij, 2): + c d for cells c and d added together;
* ``joined`` = sum_j C(b_j, 2): + b_small b_large;
* ``nnz``: - 1 per cell added to an existing one;
* ``h_pred`` = H(prediction) = sum_j t(b_j), t(b) = (b/N) log(N/b);
* ``h_cond`` = H(prediction | truth) = sum_ij u_i(n_ij), u_i(c) = (c/N) log(a_i/c);
* ``h_cond_true`` = H(truth | prediction) = sum_ij (n_ij/N) log(b_j/n_ij).

The first two entropies are running sums of non-negative table terms, kept with Neumaier's
compensated summation so that a level's value does not carry the rounding of every term
added and removed before it. H(truth | prediction) depends on the column sizes, which
change for every cell of the larger column; it only grows, merge by merge, by the
generalised Jensen-Shannon divergence of the two columns (Lin, "Divergence measures based
on the Shannon entropy", IEEE Trans. Inf. Theory 37, 1991):
N delta = sum_i s_i log(s_i b / (b_s n_i)) + l_i log(l_i b / (b_l n_i)), over the classes
of the two columns (counts s_i and l_i, n_i = s_i + l_i, b = b_s + b_l); the classes of one
column only add up to (b_s - t_s) log(b / b_s) + (b_l - t_l) log(b / b_l) (t: the counts
of the shared classes), so a merge costs one term per cell of the smaller column. Each log
is of a ratio of exact integer products (log1p of their exact difference near 1), so two
columns of the same class mix add exactly 0. Scores divided by a small H(truth) take MI =
H(truth) - H(truth | prediction), which has no cancellation of large entropies.
"""

from __future__ import annotations

import math

__all__ = ["add_compensated", "cell_claim", "cell_drop", "log_ratio", "merge_levels"]


def cell_claim(cell_of, key, e):
    """The entry at ``key``, or -1 after storing ``e`` there (it was free)."""
    f = cell_of.setdefault(key, e)
    return -1 if f == e else f


def cell_drop(cell_of, key):
    """Forget ``key`` (it is stored)."""
    del cell_of[key]


def add_compensated(total, compensation, x):
    """``total + x`` by Neumaier's compensated summation: (new total, new compensation);
    the sum's value is total + compensation."""
    t = total + x
    if abs(total) >= abs(x):
        compensation += (total - t) + x
    else:
        compensation += (x - t) + total
    return t, compensation


def log_ratio(x, y):
    """log(x / y) of positive integers, to a few units of the last place: log1p of the
    exact difference (x - y) / y where the ratio is near 1 (0.0 exactly when x == y)."""
    d = x - y
    if 2 * abs(d) <= y:
        return math.log1p(float(d) / float(y))
    return math.log(float(x) / float(y))


def merge_levels(n, left, right, classes, weights, total, n_classes, size_terms, cell_offset,
                 cell_terms, cell_of, entry, col, column, out_tp, out_joined, out_nnz,
                 out_h_pred, out_h_cond, out_h_cond_true):
    """Apply the merges ``(left[m], right[m])`` in order; after merge m the cut has
    k = n - m - 1 clusters and its statistics go to ``out_*[k]`` (``out_*[n]``: all
    singletons). Node ids: i < n is point i, n + m the cluster formed by merge m.
    Point p counts ``weights[p]`` >= 1 times (repetitions of it; ``total`` their sum):
    every count is then a sum of weights, and ``size_terms`` / ``cell_terms`` are indexed
    by such sums (up to ``total``).

    State, each record's fields side by side (one memory fetch per record: the loop is
    bound by fetches from scattered places): ``entry[3 e:3 e + 3]`` = class, count, next
    entry of entry e; ``col[2 j:2 j + 2]`` = first entry, size of column j; ``column[v]``
    the column of node v."""
    tp = 0  # a point of weight w is w items together: C(w, 2) pairs in its cell
    joined = 0
    nnz = n
    hp = 0.0  # H(prediction), Neumaier sum: value hp + hp_c
    hp_c = 0.0
    hc = 0.0  # H(prediction | truth)
    hc_c = 0.0
    ht = 0.0  # H(truth | prediction)
    ht_c = 0.0
    for p in range(n):
        cls = classes[p]
        w = weights[p]
        entry[3 * p] = cls
        entry[3 * p + 1] = w
        entry[3 * p + 2] = -1
        col[2 * p] = p
        col[2 * p + 1] = w
        column[p] = p
        cell_claim(cell_of, p * n_classes + cls, p)
        tp += w * (w - 1) // 2
        hp, hp_c = add_compensated(hp, hp_c, size_terms[w])
        hc, hc_c = add_compensated(hc, hc_c, cell_terms[cell_offset[cls] + w])
    joined = tp
    out_tp[n] = tp
    out_joined[n] = joined
    out_nnz[n] = nnz
    out_h_pred[n] = hp + hp_c
    out_h_cond[n] = hc + hc_c
    out_h_cond_true[n] = 0.0
    for m in range(n - 1):
        a = column[left[m]]
        b = column[right[m]]
        if col[2 * a + 1] >= col[2 * b + 1]:
            big = a
            small = b
        else:
            big = b
            small = a
        column[n + m] = big
        sb = col[2 * big + 1]
        ss = col[2 * small + 1]
        both = sb + ss
        dv = 0.0  # N times the growth of H(truth | prediction): a Neumaier sum dv + dv_c
        dv_c = 0.0
        shared_s = 0  # counts of the classes both columns hold
        shared_b = 0
        e = col[2 * small]
        while e != -1:
            nxt = entry[3 * e + 2]
            cls = entry[3 * e]
            cell_drop(cell_of, small * n_classes + cls)
            f = cell_claim(cell_of, big * n_classes + cls, e)
            if f != -1:  # the larger column holds this class: the cells add up
                c = entry[3 * e + 1]
                d = entry[3 * f + 1]
                tp += c * d
                nnz -= 1
                off = cell_offset[cls]
                # remove u(c) and u(d), add u(c + d)
                hc, hc_c = add_compensated(hc, hc_c, -cell_terms[off + c])
                hc, hc_c = add_compensated(hc, hc_c, -cell_terms[off + d])
                hc, hc_c = add_compensated(hc, hc_c, cell_terms[off + c + d])
                entry[3 * f + 1] = c + d
                shared_s += c
                shared_b += d
                dv, dv_c = add_compensated(dv, dv_c, c * log_ratio(c * both, ss * (c + d)))
                dv, dv_c = add_compensated(dv, dv_c, d * log_ratio(d * both, sb * (c + d)))
            else:  # a new cell of the larger column (stored at its key by cell_claim)
                entry[3 * e + 2] = col[2 * big]
                col[2 * big] = e
            e = nxt
        col[2 * small] = -1
        if shared_s < ss:
            dv, dv_c = add_compensated(dv, dv_c, (ss - shared_s) * log_ratio(both, ss))
        if shared_b < sb:
            dv, dv_c = add_compensated(dv, dv_c, (sb - shared_b) * log_ratio(both, sb))
        ht, ht_c = add_compensated(ht, ht_c, max(dv + dv_c, 0.0) / total)
        joined += sb * ss
        hp, hp_c = add_compensated(hp, hp_c, -size_terms[sb])
        hp, hp_c = add_compensated(hp, hp_c, -size_terms[ss])
        hp, hp_c = add_compensated(hp, hp_c, size_terms[sb + ss])
        col[2 * big + 1] = sb + ss
        k = n - m - 1
        out_tp[k] = tp
        out_joined[k] = joined
        out_nnz[k] = nnz
        out_h_pred[k] = hp + hp_c
        out_h_cond[k] = hc + hc_c
        out_h_cond_true[k] = ht + ht_c
    return 0
