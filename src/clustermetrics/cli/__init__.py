"""The ``clustermetrics`` command line (``python -m clustermetrics`` runs it too).

One module per command (``score``, ``metrics``, ``compare``, ``demo``, ``chance``), the
engine choice for files, and the output shared by all: one-line errors with exit status
2, and one rendering of every result as a text table, strict JSON or CSV.
"""

from .main import build_parser, main
from .output import CliError

__all__ = ["CliError", "build_parser", "main"]
