"""clustermetrics: exact external clustering scores from one sparse contingency table."""
from .contingency import Contingency, as_contingency

__all__ = ["Contingency", "as_contingency"]
