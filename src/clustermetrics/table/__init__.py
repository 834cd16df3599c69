"""The contingency table and everything that builds it: label validation, factorising,
pair counting, and parsing of count matrices and label axes.

Every other layer of clustermetrics (scores, sources, reports) reads a :class:`Contingency`
and nothing below it.
"""

from .contingency import REAL_MASSES, Contingency, as_contingency, contingency_matrix
from .factorize import label_values

__all__ = ["Contingency", "as_contingency", "contingency_matrix", "label_values", "REAL_MASSES"]
