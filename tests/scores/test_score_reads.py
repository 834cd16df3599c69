"""Each score's declaration of the sufficient statistics it reads (``@score(reads=...)``),
confirmed by running its function on tables that offer nothing else.

score_hierarchy computes the declared scores at every cut of a dendrogram from the cut's
sizes, pair counts and entropies alone, so a declaration must be exact: a score declared
to read some statistics gives, on a table offering only those, its value on the full
table, and needs each one it names; a score that declares none is truly not computable
from all of them together (it reads a cell or a margin, or gives another value).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.hierarchy import cuts as hierarchy_module
from clustermetrics.scores._entropies import _info
from clustermetrics.scores.pair_table import _pairs
from clustermetrics.scores.registry import METRICS
from clustermetrics.scores.spec import STATISTICS, MetricInfo

# every 0/0 case of the pair and information scores: one class, one cluster, singletons
# on either side, identical and crossed labellings, a table of one item
PROBES = [cm.Contingency.from_labels(t, p) for t, p in [
    ([0, 0, 1, 1, 2, 2, 2, 3], [0, 1, 1, 1, 2, 2, 3, 3]),
    ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), ([0, 0, 1, 1], [5, 5, 7, 7]),
    ([0, 1, 2, 3], [0, 0, 0, 0]), ([0, 0, 0, 0], [0, 1, 2, 3]),
    ([0, 0, 1, 2], [0, 1, 1, 2]), ([0, 0], [1, 1]), ([4], [4])]]


def offering(table: cm.Contingency, reads) -> hierarchy_module._Level:
    """``table`` as a cut of a dendrogram: its sizes and only the statistics ``reads``."""
    return hierarchy_module._Level(
        table.n_samples, table.n_classes, table.n_clusters, table.nnz,
        _pairs(table) if "pairs" in reads else None,
        _info(table) if "information" in reads else None)


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def computes(entry: MetricInfo, table: cm.Contingency, reads) -> bool:
    """Does the score, given only ``reads`` of ``table``, give its full-table value?
    (the probe that once found the updatable scores: any error means it reads more)"""
    try:
        got = hierarchy_module._value(entry, offering(table, reads))
    except Exception:  # noqa: BLE001 (whatever it reads beyond the offer fails somehow)
        return False
    return same(got, entry.compute(table)[0])


def wrong_declaration(entry: MetricInfo, tables: list[cm.Contingency]) -> str | None:
    """Why ``entry``'s declaration is wrong on ``tables``, or None when it holds."""
    reads = entry.spec.reads
    if reads is None:
        if all(computes(entry, t, STATISTICS) for t in tables):
            return "computable from the sufficient statistics, but declares reads=None"
        return None
    for table in tables:
        if not computes(entry, table, reads):
            return f"declares reads={reads!r} but needs more on {table.to_dense().tolist()}"
    for name in reads:
        fewer = tuple(r for r in reads if r != name)
        if all(computes(entry, t, fewer) for t in tables):
            return f"declares {name!r} but never reads it"
    return None


@pytest.mark.parametrize("key", list(METRICS))
def test_the_declaration_holds(key):
    assert wrong_declaration(METRICS[key], PROBES) is None


@st.composite
def matrices(draw):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    cells = draw(st.lists(st.integers(0, 5), min_size=rows * cols, max_size=rows * cols))
    matrix = np.array(cells).reshape(rows, cols)
    matrix[0, 0] += 1  # at least one item
    return matrix


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_declared_scores_need_nothing_else_on_any_table(matrix):
    table = cm.Contingency.from_matrix(matrix[:, matrix.sum(axis=0) > 0]
                                       [matrix.sum(axis=1) > 0])
    for key, entry in METRICS.items():
        if entry.spec.reads is not None:
            assert computes(entry, table, entry.spec.reads), key


def declared(entry: MetricInfo, reads) -> MetricInfo:
    """``entry`` with its score declaring ``reads`` instead."""
    def func(*args, **kwargs):
        return entry.func(*args, **kwargs)
    func.__name__ = entry.func.__name__
    func.spec = dataclasses.replace(entry.spec, reads=reads)
    return dataclasses.replace(entry, func=func)


@pytest.mark.parametrize(("key", "reads"), [
    ("mari", ("pairs",)),  # reads the cells whenever the labellings disagree
    ("ami", ("information",)),  # reads the margins (the expected MI)
    ("ari", ()),  # too little
    ("nmi", ("pairs",)),  # the wrong statistic
    ("ari", ("pairs", "information")),  # one it never reads
    ("nmi", None),  # computable, yet not declared
    ("clustering_ratio", None),
])
def test_a_wrong_declaration_is_caught(key, reads):
    assert wrong_declaration(declared(METRICS[key], reads), PROBES) is not None


def test_the_hierarchy_updates_exactly_the_declared_scores():
    assert cm.updatable_metrics() == [k for k, e in METRICS.items() if e.spec.reads is not None]
    assert {"ari", "nmi", "clustering_ratio"} <= set(cm.updatable_metrics())
