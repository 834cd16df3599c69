"""The exact SMI variance's orthogonal expansion (:mod:`clustermetrics.scores._smi_expansion`)
in numpy, vectorised across laws and tables instead of looping over them: no compile, a
few milliseconds on a small table.

The scalar loops run well compiled, but compiling them costs seconds on a fresh install
and plain Python costs microseconds a step. Here each step of the expansion is one numpy
operation over every law at once (a law: Hyp(N, a, b) for one pair of distinct sizes):
the windows are padded rows of an (L, W) array, the three-term recurrence runs order by
order on all of them, and each law leaves the working set when its orders are done or
its recurrence loses accuracy (the scalar code's ``_NORM_SLACK`` stop; where that window
is the whole support, explicit orthonormalisation follows, as there). The double sums
over a table's cells (:func:`._smi_expansion.table_sum`) run over the padded (tables x
distinct rows x distinct columns) arrays of a stack, every order at once. The arithmetic
is the scalar code's, term for term; only the order of summation differs, so the values
agree to rounding. The laws of a large mean take the Taylor polynomial of phi at the
mean (:func:`._smi_projection.moment_project`), its degree found and Horner's rule run for
all of them together.

The laws' terms are :mod:`clustermetrics.scores._smi_law_terms`'s, the tables' sums
:mod:`clustermetrics.scores._smi_cell_sums`'s; here, the drivers:
:func:`vectorised_moments` and :func:`vectorised_variances` take the arguments of
:func:`._smi_expansion.expansion_moments` and :func:`._smi_expansion.expansion_variances`
and give the same results, so that the callers run either.
"""

from __future__ import annotations

import math

import numpy as np

from ._smi_cell_sums import Padded, padded, table_sums
from ._smi_expansion import FIRST_ORDER, MAX_ORDER
from ._smi_law_terms import LawTerms, empty_terms, law_terms, support_sizes

__all__ = ["remembered", "vectorised_moments", "vectorised_variances"]


def vectorised_moments(ua, ca, ub, cb, n, k0, slope, cut):
    """:func:`._smi_expansion.expansion_moments` (same arguments and results), vectorised:
    (means, parts, bound) of one table."""
    na, nb = ua.shape[0], ub.shape[0]
    pa, pb = np.repeat(ua, nb).astype(np.int64), np.tile(ub, na).astype(np.int64)
    pad = Padded(np.asarray(ua, dtype=np.int64)[None], np.asarray(ca, dtype=np.float64)[None],
                 np.asarray(ub, dtype=np.int64)[None], np.asarray(cb, dtype=np.float64)[None],
                 np.arange(na * nb).reshape(1, na, nb))
    support = support_sizes(n, pa, pb)
    most = int(support.max()) - 1
    orders = max(min(FIRST_ORDER, most), 1)
    moments = cut > 0.0
    while True:
        terms = law_terms(n, pa, pb, np.ravel(k0), np.ravel(slope), cut, orders, moments)
        status, bound, parts = table_sums(pad, n, terms, support, orders)
        if status[0] == 3:
            moments = False
        elif status[0] == 1 and orders < min(most, MAX_ORDER):
            orders = min(2 * orders, most, MAX_ORDER)
        else:  # done, or no more orders to try (2)
            bound = bound if status[0] == 0 else np.array([math.inf])
            return terms.means.reshape((na, nb)), parts[0], float(bound[0])


def vectorised_variances(ua, ca, row_off, ub, cb, col_off, index, pair_off, n, pa, pb, k0,
                         slope, cut, variances, status, memo: dict | None = None):
    """:func:`._smi_expansion.expansion_variances` (same arguments and results),
    vectorised: each law expanded once for the tables still pending, orders doubling.
    ``memo``: a dict that keeps the laws' terms from call to call (the stacks of one
    sample's bootstrap replicates share most of their laws), or None."""
    pad = padded(ua, ca, row_off, ub, cb, col_off, index, pair_off)
    pa, pb = np.asarray(pa, dtype=np.int64), np.asarray(pb, dtype=np.int64)
    k0, slope = np.asarray(k0, dtype=np.int64), np.asarray(slope, dtype=np.float64)
    support = support_sizes(n, pa, pb)
    most = max(1, int(support.max(initial=2)) - 1)
    status[:] = 1
    orders = min(FIRST_ORDER, most)
    valid = (pad.ca[:, :, None] > 0) & (pad.cb[:, None, :] > 0)
    while True:
        pending = np.flatnonzero(status == 1)
        needed = np.unique(pad.law[pending][valid[pending]])
        laws = (pa[needed], pb[needed], k0[needed], slope[needed])
        part = law_terms(n, *laws, cut, orders, cut > 0.0) if memo is None else \
            remembered_terms(memo, n, *laws, cut, orders)
        terms = empty_terms(pa.shape[0], orders)
        for mine, theirs in zip(terms, part, strict=True):
            mine[..., needed] = theirs
        code, _, parts = table_sums(pad.rows(pending), n, terms, support, orders)
        code = np.where((code == 1) & (orders >= min(most, MAX_ORDER)), 2, code)
        status[pending] = code
        for r in np.flatnonzero(code == 0).tolist():
            variances[pending[r]] = math.fsum(parts[r].tolist())
        if not np.any(code == 1):
            return
        orders = min(2 * orders, most, MAX_ORDER)


def remembered_terms(memo: dict, n: int, pa, pb, k0, slope, cut: float, orders: int
                     ) -> LawTerms:
    """:func:`law_terms` (windows and Taylor polynomials alike), the laws met before under
    the same (n, cut, orders) taken from ``memo``. A law's terms depend on (a, b) and on
    whether its slope is the tangent's or 0 (k0 and the slope follow from them), so that
    is its key."""
    out = empty_terms(pa.shape[0], orders)
    for flag in (False, True):
        at = np.flatnonzero((slope != 0.0) == flag)
        if at.shape[0] == 0:
            continue
        keys = (pa[at].astype(np.uint64) << np.uint64(32)) | pb[at].astype(np.uint64)
        known, stored = memo.get((n, cut, orders, flag), (np.zeros(0, dtype=np.uint64), None))
        spot = np.minimum(np.searchsorted(known, keys), max(known.shape[0] - 1, 0))
        found = known[spot] == keys if known.shape[0] else np.zeros(keys.shape[0], dtype=bool)
        new = at[~found]
        if new.shape[0]:
            made = law_terms(n, pa[new], pb[new], k0[new], slope[new], cut, orders, cut > 0.0)
            known, stored = _merged(known, stored, keys[~found], made)
            memo[(n, cut, orders, flag)] = (known, stored)
            spot = np.searchsorted(known, keys)
        for mine, theirs in zip(out, stored, strict=True):
            mine[..., at] = theirs[..., spot]
    return out


def remembered(memo: dict, n: int, cut: float, orders: int, pa: np.ndarray, pb: np.ndarray,
               sloped: np.ndarray) -> np.ndarray:
    """Whether ``memo`` (of :func:`vectorised_variances`) holds each law's terms (``sloped``:
    the slope is the tangent's), at these n, cut and orders."""
    out = np.zeros(pa.shape[0], dtype=bool)
    for flag in (False, True):
        at = np.flatnonzero(sloped == flag)
        known = memo.get((n, cut, orders, flag), (np.zeros(0, dtype=np.uint64),))[0]
        if at.shape[0] and known.shape[0]:
            keys = (pa[at].astype(np.uint64) << np.uint64(32)) | pb[at].astype(np.uint64)
            out[at] = known[np.minimum(np.searchsorted(known, keys), known.shape[0] - 1)] == keys
    return out


def _merged(known: np.ndarray, stored: LawTerms | None, keys: np.ndarray, made: LawTerms
            ) -> tuple[np.ndarray, LawTerms]:
    """The memo's sorted keys and terms with the laws ``keys`` (terms ``made``) added."""
    merged = np.concatenate([known, keys])
    order = np.argsort(merged, kind="stable")
    both = made if stored is None else LawTerms(*(
        np.concatenate([old, fresh], axis=-1) for old, fresh in zip(stored, made, strict=True)))
    return merged[order], LawTerms(*(v[..., order] for v in both))
