"""score --details, --ci, --noise-label, --reference and repeated --true-col."""

import csv
import json
import re
from pathlib import Path

import pytest
from cli_helpers import labels as _labels
from cli_helpers import run as _run

import clustermetrics as cm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TRUTH, PRED, TABLE = EXAMPLES / "truth.txt", EXAMPLES / "pred.txt", EXAMPLES / "labels.csv"


def test_details_lists_worst_classes_and_clusters(capsys):
    code, out, _ = _run(capsys, "score", TRUTH, PRED, "--metrics", "ari", "--details", "2")
    assert code == 0
    d = cm.evaluate(_labels(TRUTH), _labels(PRED), "ari").diagnostics
    assert "split errors" in out and "(largest first; 2 of 4)" in out
    worst_class, worst_cluster = d.classes[0], d.clusters[0]
    # sizes are numbers: right-aligned in their column
    assert re.search(rf"\n  {worst_class.label} +{worst_class.size}  ", out)
    assert re.search(rf"\n  {worst_cluster.label} +{worst_cluster.size}  ", out)
    code, out, _ = _run(capsys, "score", TRUTH, PRED, "--metrics", "ari", "--details",
                        "--format", "json")
    data = json.loads(out)["diagnostics"]
    assert data["classes"][0]["label"] == worst_class.label and len(data["clusters"]) == 4


def test_ci_is_seeded_and_matches_the_library(capsys):
    argv = ["score", TRUTH, PRED, "--metrics", "ari,nmi", "--ci", "0.9", "--n-boot", "50",
            "--seed", "4", "--format", "json"]
    code, out, err = _run(capsys, *argv)
    assert code == 0 and err == ""  # no progress output when stderr is not a terminal
    lib = cm.evaluate(_labels(TRUTH), _labels(PRED), "ari,nmi", ci=0.9, n_boot=50, seed=4)
    assert json.loads(out)["intervals"] == {k: [v.low, v.high] for k, v in lib.intervals.items()}
    code, out, _ = _run(capsys, *argv[:-2], "--format", "csv")
    assert out.splitlines()[0] == \
        "metric,value,ci_low,ci_high,ci_level,n_boot,seed,skipped,ci_method,flags"


def test_noise_label_singletons_and_exclude(capsys):
    t, p = _labels(TRUTH), _labels(PRED)
    for mode in ("singletons", "exclude"):
        code, out, _ = _run(capsys, "score", TRUTH, PRED, "--metrics", "ari",
                            "--noise-label", "cluster3", "--noise", mode, "--format", "json")
        data = json.loads(out)
        lib = cm.evaluate(t, p, "ari", noise_label="cluster3", noise=mode)
        assert data["scores"]["ari"] == lib["ari"]
        assert data["noise"]["n_noise"] == p.count("cluster3") == lib.noise.n_noise
    code, _, err = _run(capsys, "score", TRUTH, PRED, "--metrics", "ari", "--noise-label", "zz")
    assert code == 0 and "no predicted label is 'zz' (--noise-label): no noise points" in err


def test_several_references_two_file_and_one_table_forms(capsys, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("\n".join(_labels(PRED)) + "\n")
    code, out, _ = _run(capsys, "score", TRUTH, PRED, "--reference", other, "--metrics",
                        "ari", "--format", "json")
    data = json.loads(out)
    assert data["references"] == [str(TRUTH), str(other)]
    assert data["best"]["ari"] == 1.0 and data["best_reference"]["ari"] == str(other)
    rows = list(csv.DictReader(TABLE.open()))
    code, out, _ = _run(capsys, "score", TABLE, "--true-col", "species", "--true-col",
                        "cluster", "--pred-col", "cluster", "--metrics", "ari")
    assert code == 0 and out.startswith("2 references: species (N = 300")
    lib = cm.evaluate([r["species"] for r in rows], [r["cluster"] for r in rows], "ari")
    assert f"{lib['ari']: .6f}" in out


@pytest.mark.parametrize("extra,message", [
    (["--ci", "1.5"], "--ci must be a confidence level in (0, 1)"),
    (["--ci", "0.9", "--n-boot", "1"], "--n-boot must be an integer from 2 to 1,000,000, got 1"),
    (["--details", "0"], "--details takes a positive number of rows or 'all', got '0'"),
    (["--noise", "drop"], "argument --noise: invalid choice: 'drop'"),
    (["--true-col", "x"], "give either two label files, or one table"),
])
def test_bad_options_two_file_form(capsys, extra, message):
    code, out, err = _run(capsys, "score", TRUTH, PRED, *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize("extra,message", [
    (["--true-col", "species", "--true-col", "species"], "--true-col names 'species' twice"),
    (["--true-col", "species", "--reference", "x.txt"], "--reference adds label files in the "
                                                        "two-file form"),
    (["--true-col", "species", "--true-col", "nope"], "has no column 'nope' (--true-col)"),
])
def test_bad_options_one_table_form(capsys, extra, message):
    code, out, err = _run(capsys, "score", TABLE, "--pred-col", "cluster", *extra)
    assert code == 2 and err.count("\n") == 1 and message in err
