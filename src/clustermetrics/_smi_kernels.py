"""numba compilation of :mod:`clustermetrics._smi_sums` (the exact variance of the SMI by
row conditioning); loaded only through :mod:`clustermetrics._kernels`.

Each function is the code of its namesake there, rebuilt with this module's globals so
that its calls resolve to the compiled functions here: one copy of the algorithm, run as
plain Python on tiny tables and compiled on the others (tests compare both with the
numpy sums and the references).
"""

from __future__ import annotations

import math  # noqa: F401  (a global of the rebuilt functions)
import types

import numpy as np  # noqa: F401  (a global of the rebuilt functions)

from . import _smi_sums
from ._jit import kernel
from ._smi_sums import _BUFFER, _TABLE  # noqa: F401  (globals of the rebuilt functions)


def _compiled(func):
    """``func``'s code with this module's globals, compiled (cached machine code)."""
    rebuilt = types.FunctionType(func.__code__, globals(), func.__name__, func.__defaults__)
    rebuilt.__doc__, rebuilt.__qualname__ = func.__doc__, func.__qualname__
    return kernel(rebuilt)


# leaves first: each function compiles against the compiled ones it calls
phi_hat = _compiled(_smi_sums.phi_hat)
window = _compiled(_smi_sums.window)
advance = _compiled(_smi_sums.advance)
_other_rows = _compiled(_smi_sums._other_rows)
_column_functions = _compiled(_smi_sums._column_functions)
_row_covariance = _compiled(_smi_sums._row_covariance)
exact_moments = _compiled(_smi_sums.exact_moments)
