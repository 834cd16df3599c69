"""The double sums over the cells of many tables for the exact SMI variance's expansion
(:func:`._smi_expansion.table_sum`), vectorised in numpy: the tables of a stack padded to
one (tables x distinct rows x distinct columns) grid whose absent lines have multiplicity
zero, every order at once, in the separable forms of :func:`._smi_expansion.order_form`
(a diagonal plus a rank one over the rows and over the columns), the centred linear part,
and the same proven tail bound and statuses."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._smi_expansion import MAX_ORDER, RELATIVE_TAIL
from ._smi_law_terms import LawTerms

__all__ = ["Padded", "padded", "table_sums"]

# entries of one padded (tables x orders x rows x columns) array: the orders are taken in
# blocks of at most this many so that the arrays stay within a few MB
_BLOCK = 1 << 20


class Padded(NamedTuple):
    """Tables laid over a common (tables x rows x columns) grid: sizes padded with zeros of
    zero multiplicity; law[r, s, t] the law of a cell (0 in the padding, weighed by 0)."""

    ua: np.ndarray
    ca: np.ndarray
    ub: np.ndarray
    cb: np.ndarray
    law: np.ndarray

    def rows(self, at: np.ndarray) -> Padded:
        return Padded(*(v[at] for v in self))


def padded(ua, ca, row_off, ub, cb, col_off, index, pair_off) -> Padded:
    """:class:`Padded` of the ragged tables of :func:`vectorised_variances`."""
    rows, cols = np.diff(row_off), np.diff(col_off)
    count = rows.shape[0]

    def spread(values, offsets, lengths):
        out = np.zeros((count, int(lengths.max(initial=1))), dtype=values.dtype)
        table = np.repeat(np.arange(count), lengths)
        out[table, np.arange(values.shape[0]) - offsets[:-1][table]] = values
        return out

    law = np.zeros((count, int(rows.max(initial=1)), int(cols.max(initial=1))),
                   dtype=np.int64)
    table = np.repeat(np.arange(count), rows * cols)
    local = np.arange(index.shape[0]) - pair_off[:-1][table]
    law[table, local // cols[table], local % cols[table]] = index
    return Padded(spread(np.asarray(ua, dtype=np.int64), row_off, rows),
                  spread(np.asarray(ca, dtype=np.float64), row_off, rows),
                  spread(np.asarray(ub, dtype=np.int64), col_off, cols),
                  spread(np.asarray(cb, dtype=np.float64), col_off, cols), law)


def _line_logs(sizes: np.ndarray, n: int, orders: int) -> np.ndarray:
    """:func:`._smi_expansion.line_logs` of padded sizes (..., S): (..., S, orders + 1)."""
    t = np.arange(orders, dtype=np.int64)
    a = sizes[..., None]
    with np.errstate(all="ignore"):
        step = np.where((a - t <= 0) | (n - a - t <= 0), -np.inf,
                        0.5 * np.log((a - t) / (n - a - t).astype(np.float64)))
    return np.concatenate([np.zeros(sizes.shape + (1,)), np.cumsum(step, axis=-1)], axis=-1)


class Lines(NamedTuple):
    """One side's lines for the separable sums: multiplicities, c (0 at the big line: it
    enters through g alone), g = c_big c (0 at the big line and without one), and the big
    line's indicator."""

    mult: np.ndarray
    c: np.ndarray
    g: np.ndarray
    big: np.ndarray


def _lines(mult: np.ndarray, logs: np.ndarray, big: np.ndarray) -> Lines:
    """:class:`Lines` from the logs of c at one order per line (``logs`` like ``mult``)."""
    big_log = np.where(big, logs, -np.inf).max(axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        c = np.where(big, 0.0, np.exp(logs))
        g = np.where(big, 0.0, np.exp(big_log + logs))
    return Lines(mult, c, g, big.astype(np.float64))


def _line_form(y: np.ndarray, z: np.ndarray, side: Lines, sign) -> np.ndarray:
    """:func:`._smi_expansion.line_form` over axis -2 of y and z (..., S, K), the line
    arrays (..., S) broadcast against them: (..., K)."""
    mult, c, g, big = (v[..., None] for v in side)
    cm, gm = mult * c, mult * g
    out = sign * (mult * y * z).sum(axis=-2) + (cm * y).sum(axis=-2) * (cm * z).sum(axis=-2) \
        - (cm * c * y * z).sum(axis=-2)
    return out + (big * y).sum(axis=-2) * (gm * z).sum(axis=-2) \
        + (big * z).sum(axis=-2) * (gm * y).sum(axis=-2)


def _order_form(mat: np.ndarray, rows: Lines, cols: Lines, sign) -> np.ndarray:
    """:func:`._smi_expansion.order_form` of mat (..., R, C), the lines broadcast against
    it, sign (...): the double sum over distinct cells for each leading index."""
    cb, cc, cg, cbig = cols
    same = (rows.mult[..., :, None] * cb[..., None, :] * mat * mat).sum(axis=(-2, -1))
    total = (cb * (sign[..., None] - cc * cc) * _line_form(mat, mat, rows, sign[..., None])
             ).sum(axis=-1)
    v = (mat * (cb * cc)[..., None, :]).sum(axis=-1)[..., None]
    z = (mat * (cb * cg)[..., None, :]).sum(axis=-1)[..., None]
    on_big = (mat * cbig[..., None, :]).sum(axis=-1)[..., None]
    total = total + _line_form(v, v, rows, sign[..., None])[..., 0]
    total = total + 2.0 * _line_form(on_big, z, rows, sign[..., None])[..., 0]
    return total - same


def _linear_variance(pad: Padded, n: int, beta: np.ndarray) -> np.ndarray:
    """:func:`._smi_expansion.linear_variance` of each padded table (beta (B, R, C))."""
    nf = float(n)
    wa, wb = pad.ca * pad.ua, pad.cb * pad.ub
    row_mean = (wb[:, None, :] * beta).sum(axis=2) / nf
    grand = (wa * row_mean).sum(axis=1) / nf
    col_mean = (wa[:, :, None] * beta).sum(axis=1) / nf
    g = (beta - row_mean[:, :, None]) - (col_mean[:, None, :] - grand[:, None, None])
    return (wa[:, :, None] * wb[:, None, :] * g * g).sum(axis=(1, 2)) / (nf - 1.0)


def _order_parts(pad: Padded, alpha: np.ndarray, logs, orders: int) -> np.ndarray:
    """The order-q sums of each table, q = 2 .. orders: (B, orders - 1), in blocks of
    orders of at most _BLOCK cells."""
    tables, r, c = pad.law.shape
    row_logs, col_logs, big_row, big_col = logs
    out = np.zeros((tables, max(orders - 1, 0)))
    step = max(1, _BLOCK // max(tables * r * c, 1))
    for lo in range(2, orders + 1, step):
        q = np.arange(lo, min(lo + step, orders + 1))
        mat = np.moveaxis(alpha[q][:, pad.law], 0, 1)  # (B, Q, R, C)
        rows = _lines(pad.ca[:, None, :], np.moveaxis(row_logs[:, :, q], 2, 1),
                      big_row[:, None, :])
        cols = _lines(pad.cb[:, None, :], np.moveaxis(col_logs[:, :, q], 2, 1),
                      big_col[:, None, :])
        out[:, q - 2] = _order_form(mat, rows, cols, np.where(q % 2 == 0, 1.0, -1.0)[None, :])
    return out


def _tail_bound(pad: Padded, terms: LawTerms, logs, stop: np.ndarray, orders: int
                ) -> np.ndarray:
    """The bound of :func:`._smi_expansion.table_sum` on the orders above ``stop`` (per
    table): the residuals after them, summed with the factors of order stop + 1."""
    tail = np.cumsum((terms.alpha ** 2)[::-1], axis=0)[::-1]  # sum of alpha^2 from q on
    tail = np.concatenate([tail, np.zeros((1, tail.shape[1]))])
    at = np.minimum(stop + 1, orders + 1)[:, None, None]
    mat = np.sqrt(terms.resid[pad.law] + tail[at, pad.law]) + terms.err[pad.law]
    rows = _lines(pad.ca, np.take_along_axis(logs[0], at, axis=2)[:, :, 0], logs[2])
    cols = _lines(pad.cb, np.take_along_axis(logs[1], at, axis=2)[:, :, 0], logs[3])
    return _order_form(mat, rows, cols, np.ones(pad.law.shape[0]))


def table_sums(pad: Padded, n: int, terms: LawTerms, support: np.ndarray, orders: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`._smi_expansion.table_sum` of every padded table: (status, bound, parts),
    parts (B, orders + 1); the statuses and bounds are table_sum's."""
    valid = (pad.ca[:, :, None] > 0) & (pad.cb[:, None, :] > 0)
    weight = pad.ca[:, :, None] * pad.cb[:, None, :]
    reached, resid = terms.reached[pad.law], terms.resid[pad.law]
    stop = np.where(valid & (reached < orders) & (resid > 0.0), reached, orders).min(axis=(1, 2))
    most = np.where(valid, support[pad.law] - 1, 0).max(axis=(1, 2))
    spread = (weight * terms.err[pad.law]).sum(axis=(1, 2))
    parts = np.zeros((pad.law.shape[0], orders + 1))
    parts[:, 0] = _linear_variance(pad, n, terms.beta[pad.law])
    parts[:, 1] = (weight * terms.second[pad.law]).sum(axis=(1, 2))
    logs = (_line_logs(pad.ua, n, orders + 1), _line_logs(pad.ub, n, orders + 1),
            2 * pad.ua > n, 2 * pad.ub > n)
    parts[:, 2:] = _order_parts(pad, terms.alpha, logs, orders)
    total = np.maximum(parts.sum(axis=1), 0.0)
    complete = (orders >= most) & (stop == orders)
    bound = np.where(complete, 0.0, _tail_bound(pad, terms, logs, stop, orders))
    status = np.where(complete | (bound <= RELATIVE_TAIL * total), 0, np.where(
        (orders >= MAX_ORDER) | (stop < orders) | (orders >= most), 2, 1))
    # sd(S) moves by at most the Taylor remainders' sum when every f becomes its polynomial
    wide = (spread > 0.0) & (2.0 * np.sqrt(total) * spread + spread * spread
                             > RELATIVE_TAIL * total)
    status = np.where(wide, 3, status)
    return status, np.where(status == 0, bound, math.inf), parts
