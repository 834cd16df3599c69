"""The reduced mutual information (RMI) and its normalisations.

The reduced MI of Newman, Cantwell & Young (2020) needs the number of contingency tables
with the given margins, whose exact count is #P-hard (Dyer, Kannan & Mount 1997); the
Dirichlet-multinomial encoding of Jerdee, Kirkley & Newman (2024) replaces that count by
a code length computed in O(nnz) (:mod:`._reduced`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..table import Contingency
from ..table.stack import TableStack, is_stack
from ._elementwise import maximum, minimum, ratio, select, sqrt, undefined_where, with_sign
from ._entropies import _info
from ._reduced import CodeSpec, Optimum, code_difference, distinct, minimise, stirling_excess
from .spec import INFO, Choice, MetricInfo, ScoreFunction, score

__all__ = ["ENTRIES", "normalized_reduced_mutual_info_score", "reduced_mutual_info_score"]

_CODE_LENGTHS = "its code lengths count the tables of whole items"
_RNMI_NORM = Choice(("truth", "prediction", "arithmetic", "geometric", "min", "max"),
                    "'truth': RMI(truth; pred) / RMI(truth; truth), the share of the truth's "
                    "information recovered (Jerdee et al.'s recommended asymmetric form); "
                    "'prediction': the same with the roles swapped; the others a symmetric "
                    "ratio of the two directions' RMI to the two self-informations.")


def _reduced_parts(table: Contingency) -> tuple[float, float, float, float]:
    """(RMI(t; p), RMI(p; t), RMI(t; t), RMI(p; p)) for the whole data set (nats).

    Each code length is its concentration-dependent part (minimised in :mod:`._reduced`)
    plus log-factorials that do not depend on it; those combine into N MI (or N H) and
    the small Stirling terms, so no difference of two numbers of size N log N is formed.
    Where the optimal concentrations are large the codes are nearly N log q and their
    difference is taken from the small remainders instead (``code_difference``)."""
    if is_stack(table):  # every table's codes minimised together
        return table.cached("reduced", _stack_reduced_parts)
    return table.cached("reduced", lambda t: _reduced_finish(t, minimise(_reduced_specs(t))))


def _reduced_specs(t: Contingency) -> list[CodeSpec]:
    """The six codes of a table: H(g), H(c), H(g|c), H(c|g), H(g|g), H(c|c)."""
    q_t, q_p = t.n_classes, t.n_clusters
    a, b, cells = distinct(t.class_sizes), distinct(t.cluster_sizes), distinct(t.counts)
    whole = (np.array([float(t.n_samples)]), np.ones(1))
    # a conditional code whose groups each hold one cell (every cluster inside one class)
    # describes the table itself and increases with the concentration, as H(g|g) does:
    # identical partitions then give RMI(t; p) = RMI(t; t) exactly
    return [CodeSpec(q_t, *whole, *a), CodeSpec(q_p, *whole, *b),
            CodeSpec(q_t, *b, *cells, increasing=t.nnz == q_p),
            CodeSpec(q_p, *a, *cells, increasing=t.nnz == q_t),
            CodeSpec(q_t, *a, *a, increasing=True), CodeSpec(q_p, *b, *b, increasing=True)]


def _reduced_finish(t: Contingency, codes: list[Optimum],
                    ) -> tuple[float, float, float, float]:
    """:func:`_reduced_parts` from the table's six minimised codes."""
    mi, h_t, h_p = _info(t)
    n = t.n_samples
    a, b, cells = distinct(t.class_sizes), distinct(t.cluster_sizes), distinct(t.counts)
    whole = (np.array([float(n)]), np.ones(1))
    c_t, c_p, t_p, p_t, t_t, p_p = codes
    s_n, s_c, s_a, s_b = stirling_excess([whole, cells, a, b])
    shared = [n * mi, s_n, s_c, -s_a, -s_b]
    return (code_difference(c_t, t_p, shared), code_difference(c_p, p_t, shared),
            code_difference(c_t, t_t, [n * h_t, s_n, -s_a]),
            code_difference(c_p, p_p, [n * h_p, s_n, -s_b]))


def _stack_reduced_parts(stack: TableStack) -> tuple[np.ndarray, ...]:
    """:func:`_reduced_parts` of each table of a stack, the six codes of every distinct
    table minimised in one :func:`~._reduced.minimise` (one array evaluation per step for
    all of them, the same steps as for one table)."""
    def batch(tables: list[Contingency]) -> list[tuple[float, float, float, float]]:
        codes = minimise([spec for t in tables for spec in _reduced_specs(t)])
        return [_reduced_finish(t, codes[6 * i:6 * i + 6]) for i, t in enumerate(tables)]
    parts = stack.each_batch(batch, "reduced")
    return tuple(np.array(column, dtype=np.float64) for column in zip(*parts, strict=True))


@score(needs=_CODE_LENGTHS)
def reduced_mutual_info_score(table: Contingency) -> float:
    """Reduced mutual information (nats per item), Dirichlet-multinomial encoding.

    RMI = [H(truth) - H(truth | pred)] / N, where each H is the length of a code for the
    labels in which the class sizes (H(truth)), or each cluster's split into classes
    (H(truth | pred)), are sent with a Dirichlet-multinomial prior whose concentration is
    optimised (over [1e-4, 1e4]). Unlike MI it charges the prediction for the information
    needed to describe the contingency table, so a prediction with many small clusters
    gets no credit for them: about 0 (often negative) for independent labellings, at most
    about H(truth). Not symmetric (the truth is the labelling being described). O(nnz + R
    + C) for the sizes' distinct values; the concentrations of all the codes the RMI
    scores share are then found together (their derivatives on a grid, then Newton; every
    local minimum is compared). The reference package ``clustering-mi`` reports
    N RMI / log 2 (bits, whole data set).

    Examples
    --------
    >>> round(reduced_mutual_info_score([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1]), 6)
    0.462073

    References
    ----------
    Jerdee, Kirkley & Newman, "Mutual information and the encoding of contingency
    tables", Phys. Rev. E 110, 064306 (2024); Newman, Cantwell & Young, "Improved mutual
    information measure for clustering, classification, and community detection", Phys.
    Rev. E 101, 042304 (2020).
    """
    return _reduced_parts(table)[0] / table.n_samples


@score(options={"normalization": _RNMI_NORM}, zero_division=True, needs=_CODE_LENGTHS)
def normalized_reduced_mutual_info_score(table: Contingency, *,
                                         normalization: str = "truth") -> float:
    """Normalised reduced mutual information (Jerdee, Kirkley & Newman).

    With RMI(x; y) = H(x) - H(x | y) (see :func:`reduced_mutual_info_score`):
    ``normalization="truth"`` (default) is RMI(truth; pred) / RMI(truth; truth), the
    fraction of the truth's information that the prediction recovers; the authors show
    that the symmetric normalisations of NMI are biased towards predictions with many or
    few clusters and recommend this asymmetric form when one labelling is the ground truth.
    "prediction" swaps the roles; "arithmetic" is (RMI(t; p) + RMI(p; t)) / (RMI(t; t) +
    RMI(p; p)), and "geometric", "min" and "max" take that mean of the two directions and
    of the two self-informations. 1.0 for identical labellings, about 0 (possibly
    negative) for independent ones. Undefined (0/0) when the denominator is not positive
    (a single true class for "truth"): 1.0 when both labellings have a single label, else
    0.0.

    Examples
    --------
    >>> normalized_reduced_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Jerdee, Kirkley & Newman, "Normalized mutual information is a biased measure for
    classification and community detection", arXiv:2307.01282 (2023); Jerdee, Kirkley &
    Newman, Phys. Rev. E 110, 064306 (2024).
    """
    tp, pt, tt, pp = _reduced_parts(table)
    if normalization == "truth":
        num, den = tp, tt
    elif normalization == "prediction":
        num, den = pt, pp
    elif normalization == "arithmetic":
        num, den = tp + pt, tt + pp
    elif normalization == "geometric":
        num = select(tp * pt >= 0, with_sign(sqrt(abs(tp * pt)), tp), -math.inf)
        den = select((tt > 0) & (pp > 0), sqrt(maximum(tt * pp, 0.0)), 0.0)
    elif normalization == "min":
        num, den = minimum(tp, pt), minimum(tt, pp)
    else:
        num, den = maximum(tp, pt), maximum(tt, pp)
    both_single = (table.n_classes == 1) & (table.n_clusters == 1)
    undefined_where(table, (den <= 0) | (num == -math.inf), select(both_single, 1.0, 0.0),
                    "normalised RMI is undefined (0/0): the self-information in the "
                    "denominator is not positive")
    return minimum(ratio(num, den, 0.0), 1.0)  # at most 1, rounding aside


def _entry(key: str, name: str, func: ScoreFunction[Any], upper: float, **more: Any,
           ) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=INFO, lower=-math.inf,
                      upper=upper, better="higher", adjusted=True,
                      reference="Jerdee, Kirkley & Newman, Phys. Rev. E 110 (2024)", **more)


ENTRIES = [
    _entry("rmi", "Reduced mutual information (nats)", reduced_mutual_info_score, math.inf,
           symmetric=False, perfect=None),
    _entry("rnmi", "Normalized reduced MI (truth)", normalized_reduced_mutual_info_score,
           1.0, symmetric=False),
    _entry("rnmi_arithmetic", "Normalized reduced MI (arithmetic)",
           normalized_reduced_mutual_info_score, 1.0, symmetric=True,
           options={"normalization": "arithmetic"}),
]
