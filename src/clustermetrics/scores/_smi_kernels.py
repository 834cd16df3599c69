"""numba compilation of :mod:`clustermetrics.scores._smi_expansion` (the exact variance of the SMI
by the orthogonal expansion of the cells' joint laws); loaded only through
:mod:`clustermetrics.compute.dispatch`.

Each function is the code of its namesake there, rebuilt with this module's globals so
that its calls resolve to the compiled functions here: one copy of the algorithm, run as
plain Python on tiny tables and compiled on the others (tests compare both with the
numpy sums and the references).
"""

from __future__ import annotations

import math  # noqa: F401  (a global of the rebuilt functions)
import types

import numpy as np  # noqa: F401  (a global of the rebuilt functions)

from ..compute.jit import kernel
from . import _smi_expansion
from ._smi_expansion import (  # noqa: F401  (globals of the rebuilt functions)
    _BUFFER,
    _NORM_SLACK,
    FIRST_ORDER,
    MAX_ORDER,
    MOMENT_MEAN,
    RELATIVE_TAIL,
    TAYLOR_MAX,
)


def _compiled(func, inner=True):
    """``func``'s code with this module's globals, compiled (cached machine code); inner:
    called by the kernels here only (no entry point for Python:
    :func:`clustermetrics.compute.jit.kernel`)."""
    rebuilt = types.FunctionType(func.__code__, globals(), func.__name__, func.__defaults__)
    rebuilt.__doc__, rebuilt.__qualname__ = func.__doc__, func.__qualname__
    return kernel(rebuilt, inner=inner)


# leaves first: each function compiles against the compiled ones it calls
phi_hat = _compiled(_smi_expansion.phi_hat)
relative_slope = _compiled(_smi_expansion.relative_slope)
window = _compiled(_smi_expansion.window)
recurrence = _compiled(_smi_expansion.recurrence)
support_size = _compiled(_smi_expansion.support_size)
_recurrence_orders = _compiled(_smi_expansion._recurrence_orders)
_explicit_orders = _compiled(_smi_expansion._explicit_orders)
project = _compiled(_smi_expansion.project)
_taylor = _compiled(_smi_expansion._taylor)
_remainder_bound = _compiled(_smi_expansion._remainder_bound)
_jacobi_times = _compiled(_smi_expansion._jacobi_times)
moment_project = _compiled(_smi_expansion.moment_project)
line_logs = _compiled(_smi_expansion.line_logs)
_big = _compiled(_smi_expansion._big)
line_form = _compiled(_smi_expansion.line_form)
line_factors = _compiled(_smi_expansion.line_factors)
order_form = _compiled(_smi_expansion.order_form)
linear_variance = _compiled(_smi_expansion.linear_variance)
pair_terms = _compiled(_smi_expansion.pair_terms)
table_sum = _compiled(_smi_expansion.table_sum)
expansion_moments = _compiled(_smi_expansion.expansion_moments, inner=False)
_compensated_sum = _compiled(_smi_expansion._compensated_sum)
expansion_variances = _compiled(_smi_expansion.expansion_variances, inner=False)
