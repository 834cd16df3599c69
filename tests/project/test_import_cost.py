"""What ``import clustermetrics`` and the command line's help load: none of the heavy
modules that most first calls never need (each is imported where it is used), and, for the
command line, only the module of the command that runs. Module sets, not timings: the
timings are in benchmarks/README.md ("Import time")."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from clustermetrics.cli.commands import SUMMARIES

# Each costs more to import than the first score needs (scipy.special ~0.1 s beyond numpy
# and scipy, scipy.sparse.csgraph ~0.14 s, scipy.optimize ~0.25 s, numpy.ma ~10 ms), or
# is an optional extra, or is needed only by labels of another array library
# (array_api_compat).
HEAVY = ["scipy", "scipy.special", "scipy.sparse", "scipy.sparse.csgraph",
         "scipy.sparse.linalg", "scipy.linalg", "scipy.optimize", "scipy.stats",
         "scipy.cluster", "numpy.testing", "numpy.f2py", "numpy.ma", "importlib.metadata",
         "email", "unittest", "subprocess", "numba", "llvmlite", "pandas", "polars",
         "pyarrow", "duckdb", "pyspark", "sklearn", "matplotlib", "tqdm", "galpy",
         "array_api_compat"]
# what only some commands need: the experiments, the file sources, every command's module
COMMAND_MODULES = {"score": "cli.score", "metrics": "cli.metric_list",
                   "compare": "cli.compare", "paired": "cli.paired", "demo": "cli.demo",
                   "chance": "cli.chance", "coverage": "cli.coverage",
                   "paired-calibration": "cli.paired_calibration",
                   "hierarchy": "cli.hierarchy"}
OURS_FOR_COMMANDS = ["clustermetrics.experiments", "clustermetrics.io",
                     *(f"clustermetrics.{m}" for m in COMMAND_MODULES.values())]


def _modules_after(code: str) -> set[str]:
    """The names in sys.modules after a fresh interpreter runs ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=True)
    return set(json.loads(res.stdout.splitlines()[-1]))


def test_the_listed_modules_exist():
    """A misspelt name would never be found loaded: every listed module is installed."""
    for name in HEAVY:
        assert importlib.util.find_spec(name) is not None, name
    assert set(COMMAND_MODULES) == set(SUMMARIES)


def test_import_loads_no_heavy_module():
    loaded = _modules_after("import clustermetrics")
    assert sorted(loaded & set(HEAVY)) == []
    assert sorted(m for m in loaded if m.startswith(tuple(OURS_FOR_COMMANDS))) == []


def test_heavy_modules_load_on_the_first_call_that_needs_them():
    """The check above can see a module: the first ARI loads none of them, the pseudo
    recovery rate's matching loads scipy.sparse.csgraph, a log-gamma scipy.special."""
    loaded = _modules_after(
        "import sys, clustermetrics as cm\n"
        "cm.adjusted_rand_score([0, 0, 1], [0, 1, 1])\n"
        f"assert not set(sys.modules) & set({HEAVY!r})\n"
        "cm.pseudo_recovery_rate_score([0, 0, 1, 2], [0, 1, 1, 2])\n"
        "from clustermetrics.compute.special import gammaln\n"
        "assert gammaln(4.0) > 1.79\n")
    assert {"scipy.sparse.csgraph", "scipy.special"} <= loaded


def test_help_loads_no_command_and_no_heavy_module():
    loaded = _modules_after("from clustermetrics.cli import main\n"
                            "assert main(['--help']) == 0")
    assert sorted(loaded & set(HEAVY)) == []
    assert sorted(m for m in loaded if m.startswith(tuple(OURS_FOR_COMMANDS))) == []


@pytest.mark.parametrize("command", sorted(COMMAND_MODULES))
def test_a_command_loads_only_its_own_module(command):
    loaded = _modules_after("from clustermetrics.cli import main\n"
                            f"assert main([{command!r}, '--help']) == 0")
    commands = {m for m in COMMAND_MODULES.values() if f"clustermetrics.{m}" in loaded}
    assert commands <= {COMMAND_MODULES[command], *_imported_by(command)}
    assert COMMAND_MODULES[command] in commands
    assert sorted(loaded & {"scipy.special", "scipy.optimize", "numba", "sklearn",
                            "matplotlib", "duckdb", "pyspark"}) == []


def _imported_by(command: str) -> set[str]:
    """Command modules that ``command``'s module imports for shared pieces (demo reuses
    compare's agglomerative settings)."""
    return {"cli.compare"} if command == "demo" else set()


def test_score_loads_no_experiment(tmp_path):
    """Scoring two label files needs the file sources, not the experiments (algorithms,
    datasets, report pages) that the study commands share."""
    truth, pred = tmp_path / "t.txt", tmp_path / "p.txt"
    truth.write_text("0\n0\n1\n1\n")
    pred.write_text("0\n1\n1\n1\n")
    loaded = _modules_after("from clustermetrics.cli import main\n"
                            f"assert main(['score', {str(truth)!r}, {str(pred)!r}]) == 0")
    assert "clustermetrics.io.files" in loaded
    assert sorted(m for m in loaded if m.startswith("clustermetrics.experiments")) == []
