"""The few special functions of scipy.special that the scores and intervals use.

Each loads scipy.special on its first call rather than when clustermetrics is imported:
importing scipy.special costs ~0.1 s beyond numpy and scipy (its array-API layer pulls
numpy.testing, numpy.f2py and importlib.metadata), more than the rest of
``import clustermetrics``, and most calls (ARI, NMI, a table) never need it. The values
are scipy's own, unchanged.
"""

from __future__ import annotations

from typing import Any

__all__ = ["digamma", "gammaln", "ndtr", "ndtri", "stdtr", "stdtrit"]


def digamma(x: Any) -> Any:
    """The logarithmic derivative of Gamma (:func:`scipy.special.digamma`), elementwise."""
    from scipy import special  # here, not at the top: import time (see the module's doc)

    return special.digamma(x)


def gammaln(x: Any) -> Any:
    """log |Gamma(x)| (:func:`scipy.special.gammaln`), elementwise."""
    from scipy import special  # here, not at the top: import time (see the module's doc)

    return special.gammaln(x)


def ndtr(x: Any) -> Any:
    """The standard normal distribution function (:func:`scipy.special.ndtr`)."""
    from scipy import special  # here, not at the top: import time (see the module's doc)

    return special.ndtr(x)


def ndtri(p: Any) -> Any:
    """The standard normal quantile function (:func:`scipy.special.ndtri`)."""
    from scipy import special  # here, not at the top: import time (see the module's doc)

    return special.ndtri(p)


def stdtr(df: Any, t: Any) -> Any:
    """Student's t distribution function with ``df`` degrees of freedom
    (:func:`scipy.special.stdtr`)."""
    from scipy import special  # here, not at the top: import time (see the module's doc)

    return special.stdtr(df, t)


def stdtrit(df: Any, p: Any) -> Any:
    """Student's t quantile function with ``df`` degrees of freedom
    (:func:`scipy.special.stdtrit`)."""
    from scipy import special  # here, not at the top: import time (see the module's doc)

    return special.stdtrit(df, p)
