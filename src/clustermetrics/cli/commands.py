"""The commands of the command line, in the order ``clustermetrics --help`` lists them,
each with the one line that describes it there and in its own parser.

The lines live here, apart from the commands' modules, so that the top-level help lists
every command without importing any of them (see :mod:`.main`).
"""

from __future__ import annotations

__all__ = ["SUMMARIES"]

SUMMARIES = {
    "score": "score predicted labels against true labels",
    "metrics": "list the registered metrics",
    "compare": "compare clustering algorithms on data with a known truth",
    "paired": "is clustering A better than B? (paired jackknife t test)",
    "demo": "reproduce Li & Klette's recovery-rate study on simulated data",
    "chance": "scores of random labelings (chance level), for every score",
    "coverage": "coverage of the bootstrap intervals on simulated populations",
    "paired-calibration": "false-positive rate of the paired test on equally good clusterings",
    "hierarchy": "score every cut of a hierarchical clustering",
}
