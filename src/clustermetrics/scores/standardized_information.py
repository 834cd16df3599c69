"""The standardized mutual information (SMI, Romano et al. 2014): MI - E[MI] divided by
the standard deviation of MI under the permutation model (random labellings with the
table's margins), exact where its cost allows (:mod:`._smi`), else by Monte Carlo
sampling with a stated standard error.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, cast

import numpy as np

from ..compute import dispatch as _kernels
from ..table import Contingency
from ..table.stack import TableStack, is_stack
from ._entropies import _info
from ._smi import (
    exact_cost,
    exact_costs,
    exact_variance,
    exact_variances,
    monte_carlo_variance,
    s_of_counts,
    sample_cost,
    sample_costs,
    stack_expansion,
)
from .information import _HYPERGEOMETRIC, _emi
from .spec import INFO, Choice, Integer, MetricInfo, ScoreUnavailable, Undefined, score

__all__ = ["ENTRIES", "StandardizedMI", "standardized_mutual_info",
           "standardized_mutual_info_score"]

_SMI_METHOD = Choice(("auto", "exact", "monte_carlo"),
                     "How sd[MI] is found: 'exact' (Romano et al.'s variance, summed where "
                     "the hypergeometric laws have mass; refused when estimated above about "
                     "a minute), 'monte_carlo' (random tables with the same margins; the "
                     "result states its standard error) or 'auto' (exact when its estimated "
                     "cost is small, else Monte Carlo).")
_SMI_SAMPLES = Integer("Random tables drawn by the Monte Carlo method.", low=2)
_SMI_SEED = Integer("Seed of the Monte Carlo draws (results are reproducible).", low=0)
# exact cost (units of ~5 ns, as the sampling costs: hypergeometric terms times
# _smi.EXACT_TERM_COST) that ``auto`` accepts whatever the alternative: about 0.5 s
_SMI_EXACT_BUDGET = 1e8
# ``auto`` also takes the exact value when it costs at most this many times the fewest
# random tables it would draw (an exact value is worth more than 20 tables)
_SMI_EXACT_PREFERENCE = 2.0
# ``method="exact"`` refuses (ValueError) above this estimated cost (~1 minute)
_SMI_EXACT_REFUSE = 1.2e10
# ``auto`` draws at most n_samples random tables and at most this much sampling work (~0.4 s
# at ~5 ns a unit, see _smi.sample_cost), but at least _SMI_AUTO_MIN_SAMPLES (the control
# variates make 20 tables worth a few hundred plain ones on most tables, and the result
# states its standard error)
_SMI_AUTO_MC_BUDGET = 8e7
_SMI_AUTO_MIN_SAMPLES = 20
# ``auto`` refuses (ValueError) when even the minimum of draws would cost more (~10 min)
_SMI_AUTO_REFUSE = 1.2e11
_SMI_EXACT_MAX_N = 10**9  # int64 products (d + 1)(s + 1) of the windows' modes


class StandardizedMI(NamedTuple):
    """Result of :func:`standardized_mutual_info`.

    ``value`` is the SMI; ``method`` the method used ("exact" or "monte_carlo");
    ``standard_error`` the Monte Carlo standard error of ``value`` (0.0 when exact; inf
    when the draws missed the rare tables that carry the variance, as on a 2 x 2 table
    with a few stray items: use ``method="exact"`` or more tables there);
    ``n_samples`` the random tables drawn (0 when exact); ``expected_mi`` and ``sd_mi`` the
    mean (always exact) and standard deviation of MI under the permutation model (nats).
    """

    value: float
    method: str
    standard_error: float
    n_samples: int
    expected_mi: float
    sd_mi: float

    @property
    def rate(self) -> float:  # the registry reads a detail's score as ``rate``
        return self.value


def _smi_undefined(table: Contingency) -> bool:
    """MI is the same for every pairing: a side with one label or with only singletons."""
    n = table.n_samples
    return table.n_classes in (1, n) or table.n_clusters in (1, n)


def _auto_samples(n_samples: int, cost: float) -> int:
    """The random tables ``auto`` draws: at most ``n_samples`` and _SMI_AUTO_MC_BUDGET of
    work, at least _SMI_AUTO_MIN_SAMPLES."""
    return min(n_samples, max(_SMI_AUTO_MIN_SAMPLES, int(_SMI_AUTO_MC_BUDGET // cost)))


def _auto_exact(n: Any, exact: Any, sampling: Any) -> Any:
    """Whether ``auto`` takes the exact variance: estimated to cost at most
    _SMI_EXACT_BUDGET, or at most _SMI_EXACT_PREFERENCE times the fewest random tables it
    would draw (arrays of many tables' costs too)."""
    return (n <= _SMI_EXACT_MAX_N) & ((exact <= _SMI_EXACT_BUDGET) | (
        exact <= _SMI_EXACT_PREFERENCE * sampling * _SMI_AUTO_MIN_SAMPLES))


def _stack_smi(stack: TableStack, method: str, n_samples: int, random_state: int
               ) -> np.ndarray:
    """SMI of each table of a stack. The tables whose variance is exact (``auto``'s choice,
    table by table as for one table alone) take it in one pass that expands each law of a
    pair of sizes once for all of them (:func:`._smi.exact_variances`: bootstrap
    replicates share most of theirs); the others, and any the pass cannot bound, from the
    null's moments of each distinct pair of margins (replicates of a small table share
    few), each table with its own MI."""
    out = np.zeros(len(stack))
    n = stack.n_samples
    undefined = ((stack.n_classes == 1) | (stack.n_classes == n) | (stack.n_clusters == 1)
                 | (stack.n_clusters == n))
    exact = ~undefined
    kernel = None
    if method != "monte_carlo" and exact.any() and bool(np.all(n == n[0])) \
            and _kernels.compiled_available():
        size = int(n[0])
        costs = exact_costs(stack.class_sizes[exact], stack.cluster_sizes[exact], size)
        if method == "auto":
            exact[exact] = _auto_exact(size, costs, sample_costs(
                stack.n_classes[exact], stack.n_clusters[exact], size))
        else:  # too costly or too large: refused table by table below
            exact[exact] = (costs <= _SMI_EXACT_REFUSE) & (size <= _SMI_EXACT_MAX_N)
        if exact.any():
            kernel = stack_expansion(stack.class_sizes[exact], stack.cluster_sizes[exact],
                                     size, stack.layout.cached("smi:laws", lambda t: {}))
    if kernel is None:
        exact[:] = False
    if exact.any():
        var, done = exact_variances(stack.class_sizes[exact], stack.cluster_sizes[exact],
                                    int(n[0]), kernel)
        many: Any = stack  # _info and _emi take a stack as they take a table
        mi, emi = np.asarray(_info(many)[0]), np.asarray(_emi(many))
        at = np.flatnonzero(exact)
        sd = _above_rounding(np.sqrt(var) / n[at], mi[at], emi[at])
        flat = done & (sd <= 0)  # MI the same for every pairing (0/0)
        out[at] = np.where(done & (sd > 0), (mi[at] - emi[at]) / np.where(sd > 0, sd, 1.0),
                           0.0)
        undefined[at[flat]] = True
        exact[at[~done]] = False
    rest = np.flatnonzero(~exact & ~undefined)
    if rest.size:  # the null's E[MI] and sd once per pair of margins, MI per table
        mi = np.asarray(_info(stack)[0])
        nulls = stack.by_margins(
            lambda t: (_smi_undefined(t), _smi(t, method, n_samples, random_state)),
            f"smi-null:{method}:{n_samples}:{random_state}", among=rest)
        for b, (flat, null) in zip(rest.tolist(), nulls, strict=True):
            undefined[b] = flat or null.sd_mi <= 0  # a 0/0, as for the table alone
            out[b] = 0.0 if undefined[b] else (mi[b] - null.expected_mi) / null.sd_mi
    if undefined.any():
        stack.record_undefined(undefined, 0.0)
    return out


# an exact sd of MI at most this many roundings of MI and E[MI] is their rounding: MI is
# then the same for every pairing (a 0/0), whatever digits the sums of the variance left
# (~1e-31 on a table of class sizes 11, 1 against four clusters of 3, where S is constant)
_SD_ROUNDING = 64 * float(np.finfo(np.float64).eps)


def _above_rounding(sd: Any, mi: Any, emi: Any) -> Any:
    """``sd``, or 0 where it is within the rounding of MI and E[MI]."""
    return np.where(sd > _SD_ROUNDING * np.maximum(np.abs(mi), np.abs(emi)), sd, 0.0)


def _smi(table: Contingency, method: str, n_samples: int, random_state: int) -> StandardizedMI:
    mi, _, _ = _info(table)
    if _smi_undefined(table):
        return StandardizedMI(0.0, "exact", 0.0, 0, mi, 0.0)
    a, b, n = table.class_sizes, table.cluster_sizes, int(table.n_samples)  # counts
    # the estimate depends on whether compiled kernels may run (the kernels mode)
    plan = table.cached(f"smi:plan:{_kernels.compiled_available()}",
                        lambda t: exact_cost(a, b))
    auto, cost = method == "auto", sample_cost(a, b)
    if method == "auto":
        work = plan.work
        if _auto_exact(n, plan.cost, cost):
            method = "exact"
        elif cost * _SMI_AUTO_MIN_SAMPLES > _SMI_AUTO_REFUSE:
            sampling = (f"{_SMI_AUTO_MIN_SAMPLES} random tables "
                        f"~{cost * _SMI_AUTO_MIN_SAMPLES:.1e} "
                        "operations; pass method='exact' or method='monte_carlo' to run it "
                        "anyway") if math.isfinite(cost) else \
                "the Monte Carlo sampler needs N < 1e9"
            raise ScoreUnavailable(f"SMI on this table (N = {n}) is too costly: the exact "
                             f"variance needs ~{work:.1e} steps and {sampling}")
        else:
            method = "monte_carlo"
            n_samples = _auto_samples(n_samples, cost)
    if method == "exact":
        if n > _SMI_EXACT_MAX_N:
            raise ValueError(f"method='exact' needs N <= {_SMI_EXACT_MAX_N:.0e}, got N = {n}")
        if plan.cost > _SMI_EXACT_REFUSE:
            raise ValueError(
                f"method='exact' is too costly on this table: ~{plan.work:.1e} steps "
                f"(~{plan.cost * 5e-9:.0f} s estimated, above "
                f"~{_SMI_EXACT_REFUSE * 5e-9:.0f} s); use method='monte_carlo' or "
                "method='auto'")
        emi = _emi(table)  # after the refusals: on a table refused, E[MI] alone takes ~10 s
        # auto's budget also bounds the numpy sums that stand in where the expansion
        # cannot bound its orders: beyond it, auto estimates (as where exact costs more)
        nested_max = max(_SMI_EXACT_BUDGET, _SMI_EXACT_PREFERENCE * cost
                         * _SMI_AUTO_MIN_SAMPLES) if auto else math.inf
        moments = table.cached(f"smi:exact:{nested_max}", lambda t: exact_variance(
            a, b, n, plan=plan, nested_max=nested_max))
        if moments is not None:
            sd = float(_above_rounding(math.sqrt(moments[1]) / n, mi, emi))
            value = (mi - emi) / sd if sd > 0 else 0.0
            return StandardizedMI(float(value), "exact", 0.0, 0, emi, sd)
        n_samples = _auto_samples(n_samples, cost)
    # E[S] from the exact E[MI]: N MI = S + N log N - sum a log a - sum b log b
    emi = _emi(table)  # cached on the table where the exact path computed it
    e_s = math.fsum([n * emi, -n * math.log(n), s_of_counts(a), s_of_counts(b)])
    var_s, se_var = monte_carlo_variance(a, b, n, e_s, n_samples, random_state)
    if var_s <= 0:
        # every draw had S = E[S] (or the fit fell to 0): no variation seen
        return StandardizedMI(0.0, "monte_carlo", 0.0, n_samples, emi, 0.0)
    sd = math.sqrt(var_s) / n
    value = (mi - emi) / sd
    return StandardizedMI(float(value), "monte_carlo", abs(value) * se_var / (2.0 * var_s),
                          n_samples, emi, sd)


@score(options={"method": _SMI_METHOD, "n_samples": _SMI_SAMPLES,
                "random_state": _SMI_SEED}, returns="StandardizedMI", needs=_HYPERGEOMETRIC)
def standardized_mutual_info(table: Contingency, *, method: str = "auto", n_samples: int = 200,
                             random_state: int = 0) -> StandardizedMI:
    """Standardized mutual information with the method used and its standard error.

    The same value as :func:`standardized_mutual_info_score` (0.0 where that score is
    undefined, with ``sd_mi`` 0.0), as a :class:`StandardizedMI`: which method was used,
    the Monte Carlo standard error, and the mean and standard deviation of MI under the
    permutation model.

    Examples
    --------
    >>> r = standardized_mutual_info([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> r.method, round(r.value, 6)
    ('exact', 0.816497)

    References
    ----------
    Romano, Bailey, Nguyen & Verspoor, ICML 2014; Klede et al., AAAI 2023.
    """
    return _smi(table, method, n_samples, random_state)


@score(options={"method": _SMI_METHOD, "n_samples": _SMI_SAMPLES,
                "random_state": _SMI_SEED}, zero_division=0.0, needs=_HYPERGEOMETRIC)
def standardized_mutual_info_score(table: Contingency, *, method: str = "auto",
                                   n_samples: int = 200, random_state: int = 0) -> float:
    """Standardized mutual information: (MI - E[MI]) / sd[MI] (Romano et al. 2014).

    How many standard deviations MI lies above its mean over random labellings with the
    same class and cluster sizes (the permutation model of
    :func:`adjusted_mutual_info_score`). About 0 for independent labellings whatever the
    numbers of clusters, unbounded above; it corrects the selection bias of MI and AMI
    towards clusterings with many clusters when many candidates are compared against one
    truth (Romano et al. recommend it when N is small compared to the number of
    clusters). Symmetric. E[MI] is exact; sd[MI] is exact (``method="exact"``: Romano et
    al.'s variance, from one hypergeometric law per pair of distinct class and cluster
    sizes, each pair of cells' joint law expanded in orthogonal polynomials, a Lancaster
    expansion: vectorised in numpy, ~5 ms for 10 x 10 labels over 1000 items, or compiled
    with numba, ~0.3 ms, where the time saved repays compiling it; bootstrap replicates
    share their laws) or estimated
    from ``n_samples`` random tables (``method="monte_carlo"``, seeded by
    ``random_state``; :func:`standardized_mutual_info` gives its standard error). The
    Monte Carlo variance uses control variates: pair counts and linear statistics of each
    table whose exact moments are known, so that a few tables give the precision of
    hundreds of plain ones on most tables. ``method="auto"`` is exact when that costs
    about a second at most, else Monte Carlo with at most ``n_samples`` tables and about
    half a second of draws (at least 20 tables: each costs O(min(R C, N)); the sampler
    needs N < 1e9). Where neither fits (about ten minutes for the minimum of draws)
    ``auto`` raises ValueError instead of running for hours; name a method to run it
    anyway. Undefined (0/0)
    when MI is the same for every pairing: a labelling with a single label or with only
    singletons; 0.0 there.

    Examples
    --------
    >>> round(standardized_mutual_info_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.816497

    References
    ----------
    Romano, Bailey, Nguyen & Verspoor, "Standardized mutual information for clustering
    comparisons: one step further in adjustment for chance", ICML 2014; Klede et al.,
    "FastAMI - a Monte Carlo approach to the adjustment for chance in clustering
    comparison metrics", AAAI 2023.
    """
    if is_stack(table):  # one variance problem per table, the exact ones together
        return cast(float, _stack_smi(table, method, n_samples, random_state))
    if _smi_undefined(table):
        raise Undefined(0.0, "SMI is undefined (0/0): MI is the same for every pairing (a "
                             "labelling with a single label or only singletons)")
    result = _smi(table, method, n_samples, random_state)
    if result.sd_mi <= 0:
        raise Undefined(0.0, "SMI is undefined (0/0): the sampled MI did not vary")
    return result.value


ENTRIES = [
    MetricInfo(key="smi", name="Standardized mutual information",
               func=standardized_mutual_info_score, family=INFO, lower=-math.inf,
               upper=math.inf, better="higher", symmetric=True, adjusted=True,
               reference="Romano, Bailey, Nguyen & Verspoor, ICML (2014)", perfect=None,
               detail=standardized_mutual_info.spec.body),
]
