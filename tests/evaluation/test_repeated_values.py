"""A value repeated in a list-valued argument of the public API is a ValueError naming
the argument and the value, for every such argument: silently dropping the repeat hides
a mistake (a column or a score meant to be another one)."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.scores.registry import resolve_metrics

Y = [0, 0, 1, 1, 2, 2]
P = [0, 1, 1, 1, 2, 0]
TREE = [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]  # a children array over 6 points
FRAME = pd.DataFrame({"y": Y, "a": P, "b": P[::-1], "c": [1, 2, 3, 4, 5, 6],
                      "g": [0, 1, 0, 1, 0, 1], "h": [0, 0, 0, 1, 1, 1]})
UPDATABLE = cm.updatable_metrics()


def _spellings(key):
    """The names that resolve to ``key`` (its key, its display name in any case, its
    function's name), found by asking the resolver itself about each candidate."""
    entry = cm.METRICS[key]
    candidates = [key, key.upper(), entry.name, entry.name.lower(),
                  getattr(entry.func, "__name__", key)]
    return [c for c in candidates if resolve_metrics([c]) == [key]]


# argument -> (the values it accepts, a call with a list of them)
CALLS = {
    "evaluate metrics": (st.sampled_from(list(cm.METRICS)),
                         lambda v: cm.evaluate(Y, P, metrics=v)),
    "evaluate_frame metrics": (st.sampled_from(["ari", "nmi", "vi", "recovery_rate"]),
                               lambda v: cm.evaluate_frame(FRAME, "y", ["a"], v)),
    "paired_comparison metrics": (st.sampled_from(["ari", "nmi", "vi"]),
                                    lambda v: cm.paired_comparison(Y, P, P[::-1], v)),
    "score_hierarchy metrics": (st.sampled_from(UPDATABLE),
                                lambda v: cm.score_hierarchy(Y, TREE, v)),
    "score_hierarchy n_clusters": (st.integers(1, 6),
                                   lambda v: cm.score_hierarchy(Y, TREE, ["ari"], v)),
    "score_hierarchy k": (st.integers(1, 6),
                          lambda v: cm.score_hierarchy(Y, TREE, ["ari"], k=v)),
    "evaluate_frame preds": (st.sampled_from(["a", "b", "c"]),
                             lambda v: cm.evaluate_frame(FRAME, "y", v, ["ari"])),
    "evaluate_frame by": (st.sampled_from(["g", "h"]),
                          lambda v: cm.evaluate_frame(FRAME, "y", ["a"], ["ari"], by=v)),
}


@given(st.sampled_from(sorted(CALLS)), st.data())
@settings(max_examples=120, deadline=None)
def test_a_repeated_value_is_refused(argument, data):
    values, call = CALLS[argument]
    name = argument.split()[1]
    distinct = data.draw(st.lists(values, min_size=1, max_size=3, unique=True))
    repeated = data.draw(st.sampled_from(distinct))
    at = data.draw(st.integers(0, len(distinct)))
    again = repeated
    if name == "metrics":  # a score is the same score by any of its names
        again = data.draw(st.sampled_from(_spellings(repeated)))
    elif name in ("n_clusters", "k"):
        again = data.draw(st.sampled_from([repeated, float(repeated)]))
    call(distinct)  # without the repeat, the call is fine
    with pytest.raises(ValueError, match=f"^{name} names {repeated!r} twice"):
        call([*distinct[:at], again, *distinct[at:]])
