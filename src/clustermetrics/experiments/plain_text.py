"""Number formats shared by the experiments' tables."""

from __future__ import annotations


def seconds(t: float) -> str:
    """Seconds the way the paper's tables print them: 6.2e-4, 0.046, 0.3, 285.1.

    >>> seconds(0.00062), seconds(0.046), seconds(0.3), seconds(285.14)
    ('6.2e-4', '0.046', '0.3', '285.1')
    """
    if t < 0.01:
        mantissa, exp = f"{t:.1e}".split("e")
        return f"{mantissa}e-{int(exp[1:])}" if exp.startswith("-") else f"{t:.1e}"
    return f"{t:.2g}" if t < 1 else f"{t:.1f}"


def percent(x: float) -> str:
    """A rate in percent with one decimal, as in the paper (100 stays 100).

    >>> percent(0.5818), percent(1.0), percent(2 / 3)
    ('58.2', '100', '66.7')
    """
    text = f"{100 * x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def percent_column(x: float) -> str:
    """A rate in percent with one decimal, always: a column of rates aligns on its
    point (:func:`percent` drops a trailing ``.0``, as the paper's tuples do).

    >>> percent_column(0.88), percent_column(1.0), percent_column(2 / 3)
    ('88.0', '100.0', '66.7')
    """
    return f"{100 * x:.1f}"
