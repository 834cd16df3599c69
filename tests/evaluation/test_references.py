"""Several references: best value in each score's direction, spread, and the input forms."""

import json

import numpy as np
import pytest

from clustermetrics import Contingency, evaluate
from clustermetrics.evaluation.evaluate import is_several
from clustermetrics.evaluation.report import MultiReport

rng = np.random.default_rng(21)
PRED = rng.integers(0, 4, 200)
REFS = [np.where(rng.random(200) < q, rng.integers(0, 4, 200), PRED) for q in (0.6, 0.1, 0.3)]
KEYS = "ari,clustering_error,clustering_ratio,vi"


def test_best_and_spread_follow_each_score_direction():
    multi = evaluate(REFS, PRED, KEYS)
    singles = [evaluate(r, PRED, KEYS) for r in REFS]
    names = ["reference 1", "reference 2", "reference 3"]
    assert isinstance(multi, MultiReport) and list(multi.reports) == names
    ari = [s["ari"] for s in singles]
    assert multi["ari"] == max(ari) and multi.best_reference["ari"] == names[ari.index(max(ari))]
    err = [s["clustering_error"] for s in singles]
    assert multi["clustering_error"] == min(err)  # lower is better
    vi = [s["vi"] for s in singles]
    assert multi["vi"] == min(vi)
    ratio = [s["clustering_ratio"] for s in singles]
    assert multi["clustering_ratio"] == min(ratio, key=lambda r: abs(r - 1.0))  # optimum 1
    s = multi.spread["ari"]
    assert (s.min, s.max) == (min(ari), max(ari))
    assert s.mean == pytest.approx(np.mean(ari), abs=1e-15)
    assert s.std == pytest.approx(np.std(ari), abs=1e-15)
    for name, single in zip(names, singles, strict=True):
        assert dict(multi.reports[name]) == dict(single)


def test_input_forms_dict_2d_array_and_tables():
    by_name = evaluate({"ann": REFS[0], "bob": REFS[1]}, PRED, "ari")
    assert list(by_name.reports) == ["ann", "bob"]
    stacked = evaluate(np.vstack(REFS[:2]), PRED, "ari")
    assert stacked["ari"] == by_name["ari"]
    tables = [Contingency.from_labels(r, PRED) for r in REFS[:2]]
    assert evaluate(tables, metrics="ari")["ari"] == by_name["ari"]
    assert not is_several([1, 2, 3]) and not is_several(["a", "b"])
    assert not is_several(np.array([1, 2]))


def test_renderings():
    multi = evaluate({"ann": REFS[0], "bob": REFS[1]}, PRED, "ari,nmi")
    data = json.loads(multi.to_json(details=True))
    assert data["references"] == ["ann", "bob"]
    assert data["best"] == dict(multi)
    assert data["reports"]["bob"]["scores"]["ari"] == multi.reports["bob"]["ari"]
    assert multi.to_csv().splitlines()[0] == "metric,best,best_reference,min,max,mean,std"
    text = str(multi)
    assert text.startswith("2 references: ann (N = 200") and "best reference" in text
    assert "against bob:" in multi.format(diagnostics=2)


def test_references_with_noise_and_intervals():
    pred = np.where(rng.random(200) < 0.2, -1, PRED)
    multi = evaluate(REFS[:2], pred, "ari", noise_label=-1, ci=0.9, n_boot=20, seed=1)
    for report in multi.reports.values():
        assert report.noise.n_noise == int((pred == -1).sum())
        assert set(report.intervals) == {"ari"}


def test_errors_name_the_reference():
    with pytest.raises(ValueError, match="reference 2: labels_true and labels_pred have "
                                         "different lengths: 199 and 200"):
        evaluate([REFS[0], REFS[1][:199]], PRED, "ari")
    with pytest.raises(ValueError, match="holds no references"):
        evaluate({}, PRED, "ari")
