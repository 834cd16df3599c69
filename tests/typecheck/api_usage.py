"""What a user's type checker sees of the public API (``mypy`` checks this file strictly
in ``make test``; it is never run). Every ``assert_type`` states a type a caller relies on."""

from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np

import clustermetrics as cm

if sys.version_info >= (3, 11):
    from typing import assert_type
else:  # pragma: no cover
    from typing_extensions import assert_type


def _usage() -> None:
    truth, pred = [0, 0, 1, 1], [0, 1, 1, 1]
    assert_type(cm.adjusted_rand_score(truth, pred), float)
    assert_type(cm.recovery_rate_score(truth, pred), float)
    assert_type(cm.pair_counts(truth, pred), cm.PairCounts)
    table = cm.Contingency.from_labels(truth, pred)
    assert_type(table, cm.Contingency)
    assert_type(table.n_samples, int | float)  # the total weight with real weights
    assert_type(cm.pair_counts(truth, pred).tp, int | Fraction)
    assert_type(table.to_dense(), np.ndarray)
    report = cm.evaluate(truth, pred, ["ari"])
    assert_type(report, cm.Report | cm.MultiReport)
    assert_type(cm.evaluate(table), cm.Report)
    assert_type(cm.evaluate({"a": truth}, pred), cm.MultiReport)
    assert_type(report["ari"], float)
    assert_type(cm.diagnose(truth, pred), cm.Diagnostics)
    assert_type(cm.METRICS["ari"], cm.MetricInfo)
    assert_type(cm.scorer("ari")(None, truth, pred), float)
