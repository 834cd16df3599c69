"""numba compilation of :mod:`clustermetrics.scores._smi_expansion` and
:mod:`clustermetrics.scores._smi_projection` (the exact variance of the SMI by the
orthogonal expansion of the cells' joint laws); loaded only through
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
from . import _smi_expansion, _smi_projection
from ._smi_expansion import (  # noqa: F401  (globals of the rebuilt functions)
    _BUFFER,
    FIRST_ORDER,
    MAX_ORDER,
    MOMENT_MEAN,
    RELATIVE_TAIL,
    TAYLOR_MAX,
)
from ._smi_projection import _NORM_SLACK  # noqa: F401  (a global of the rebuilt functions)


def _compiled(func, inner=True):
    """``func``'s code with this module's globals, compiled (cached machine code); inner:
    called by the kernels here only (no entry point for Python:
    :func:`clustermetrics.compute.jit.kernel`)."""
    rebuilt = types.FunctionType(func.__code__, globals(), func.__name__, func.__defaults__)
    rebuilt.__doc__, rebuilt.__qualname__ = func.__doc__, func.__qualname__
    return kernel(rebuilt, inner=inner)


# leaves first: each function compiles against the compiled ones it calls
phi_hat = _compiled(_smi_projection.phi_hat)
relative_slope = _compiled(_smi_projection.relative_slope)
window = _compiled(_smi_projection.window)
recurrence = _compiled(_smi_projection.recurrence)
support_size = _compiled(_smi_projection.support_size)
_recurrence_orders = _compiled(_smi_projection._recurrence_orders)
_explicit_orders = _compiled(_smi_projection._explicit_orders)
project = _compiled(_smi_projection.project)
_taylor = _compiled(_smi_projection._taylor)
_remainder_bound = _compiled(_smi_projection._remainder_bound)
_jacobi_times = _compiled(_smi_projection._jacobi_times)
moment_project = _compiled(_smi_projection.moment_project)
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
