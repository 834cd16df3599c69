"""Load scikit-learn's own cluster-metric tests with their metrics replaced by ours.

Nothing of scikit-learn is vendored: at collection time each test module is read from the
INSTALLED scikit-learn, its import statements of metrics are rewritten (same name from
clustermetrics, or the alias/adapter listed in ``sklearn_deviations``), the statements named
in ``sklearn_deviations.DEVIATIONS`` are replaced, and the result is written to a temporary
directory and imported there with pytest's assertion rewriting. Rewritten statements keep
their line count, so every line number in a failure is the line of scikit-learn's file.

Setting ``CLUSTERMETRICS_SKLEARN_SUITE_MUTANT`` to a name of ``sklearn_deviations.MUTANTS``
substitutes that deliberately wrong function instead of ours (the harness's self-test).
"""

from __future__ import annotations

import ast
import atexit
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest
import sklearn_deviations as dev

import clustermetrics

SKLEARN_VERSION = "1.9.1"
# our collected file -> scikit-learn's test module it runs
STUBS = {"test_sklearn_supervised.py": "test_supervised",
         "test_sklearn_common.py": "test_common"}
METRIC_MODULES = frozenset({"sklearn.metrics", "sklearn.metrics.cluster",
                            "sklearn.metrics.cluster._supervised"})
MUTANT_ENV = "CLUSTERMETRICS_SKLEARN_SUITE_MUTANT"

_loaded: dict[str, ModuleType] = {}
_tmpdir: Path | None = None


def sklearn_test_file(module: str) -> Path:
    """Path of ``sklearn/metrics/cluster/tests/<module>.py`` in the installed scikit-learn."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or spec.origin is None:
        raise RuntimeError("scikit-learn is not installed (it is in the 'test' extra)")
    return Path(spec.origin).parent / "metrics" / "cluster" / "tests" / f"{module}.py"


def substitute(name: str) -> tuple[str, str] | None:
    """(module, attribute) that replaces scikit-learn's metric ``name``; None keeps sklearn's."""
    if os.environ.get(MUTANT_ENV) == name:
        return "sklearn_deviations", name
    if name in dev.ALIASES:
        return "clustermetrics", dev.ALIASES[name]
    if name in clustermetrics.__all__:
        return "clustermetrics", name
    if name in dev.ADAPTERS:
        return "sklearn_deviations", name
    if name in dev.KEPT:
        return None
    raise RuntimeError(f"scikit-learn's tests import {name!r}, which clustermetrics does not "
                       "export: list it in sklearn_deviations.KEPT, ADAPTERS or ALIASES")


def metric_imports(source: str) -> list[ast.ImportFrom]:
    """The ``from <metric module> import ...`` statements of a test module."""
    nodes = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name in METRIC_MODULES for a in node.names):
            # `import sklearn.metrics` would reach scikit-learn's metrics by attribute
            raise RuntimeError(f"line {node.lineno}: plain import of a metric module")
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in METRIC_MODULES:
            nodes.append(node)
    return nodes


def _import_line(node: ast.ImportFrom) -> str:
    ours: dict[str, list[str]] = {}
    kept = []
    for alias in node.names:
        local = alias.asname or alias.name
        target = substitute(alias.name)
        if target is None:
            kept.append(alias.name if alias.asname is None else f"{alias.name} as {local}")
            continue
        module, attr = target
        ours.setdefault(module, []).append(attr if attr == local else f"{attr} as {local}")
    stmts = [f"from {m} import {', '.join(names)}" for m, names in ours.items()]
    if kept:
        stmts.append(f"from {node.module} import {', '.join(kept)}")
    return "; ".join(stmts)


def _replace_lines(lines: list[str], first: int, last: int, text: str) -> None:
    """Lines first..last (1-based) become ``text`` padded to the same number of lines."""
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    n_new = text.count("\n") + 1
    if n_new > last - first + 1:
        raise RuntimeError(f"replacement of lines {first}-{last} is longer than the original")
    lines[first - 1: last] = [indent + text + "\n"] + ["\n"] * (last - first + 1 - n_new)


def rewrite_imports(source: str) -> str:
    lines = source.splitlines(keepends=True)
    for node in sorted(metric_imports(source), key=lambda n: -n.lineno):
        if lines[node.lineno - 1][: node.col_offset].strip():
            raise RuntimeError(f"line {node.lineno}: import not at the start of its line")
        _replace_lines(lines, node.lineno, node.end_lineno, _import_line(node))
    return "".join(lines)


def apply_deviations(source: str, filename: str) -> str:
    """Replace the statements each deviation of ``filename`` names (once each, in its test)."""
    functions = {node.name: node for node in ast.parse(source).body
                 if isinstance(node, ast.FunctionDef)}
    lines = source.splitlines(keepends=True)
    for test_id, deviation in dev.DEVIATIONS.items():
        file, _, test = test_id.partition("::")
        if file != filename or not deviation.replace:
            continue
        node = functions.get(test)
        if node is None:
            raise RuntimeError(f"{test_id}: no such test function in scikit-learn's file")
        for old, new in deviation.replace:
            hits = [i for i in range(node.lineno - 1, node.end_lineno)
                    if lines[i].strip() == old]
            if len(hits) != 1:
                raise RuntimeError(f"{test_id}: {old!r} found {len(hits)} times, expected once")
            _replace_lines(lines, hits[0] + 1, hits[0] + 1, new)
    return "".join(lines)


def _temporary_directory() -> Path:
    global _tmpdir
    if _tmpdir is None:
        _tmpdir = Path(tempfile.mkdtemp(prefix="clustermetrics-sklearn-suite-"))
        atexit.register(shutil.rmtree, _tmpdir, ignore_errors=True)
    return _tmpdir


def module_name(module: str) -> str:
    return f"sklearn_suite_{module}"


def load(module: str) -> ModuleType:
    """scikit-learn's test module ``module``, rewritten and imported (once per process)."""
    if module in _loaded:
        return _loaded[module]
    path = sklearn_test_file(module)
    source = apply_deviations(rewrite_imports(path.read_text()), path.name)
    name = module_name(module)
    directory = _temporary_directory()
    (directory / f"{name}.py").write_text(
        source + f"\n# {path} rewritten by tests/sklearn_suite/sklearn_rewrite.py\n")
    pytest.register_assert_rewrite(name)
    sys.path.insert(0, str(directory))
    try:
        loaded = importlib.import_module(name)
    finally:
        sys.path.remove(str(directory))
    _loaded[module] = loaded
    return loaded


def _materialised(func):
    # scikit-learn parametrises with generators and itertools.chain, which pytest 9
    # deprecates (PytestRemovedIn10Warning); the same values as a list change nothing else
    marks = []
    for mark in getattr(func, "pytestmark", []):
        if mark.name == "parametrize" and len(mark.args) >= 2 \
                and not isinstance(mark.args[1], (list, tuple)):
            mark = pytest.mark.parametrize(mark.args[0], list(mark.args[1]), *mark.args[2:],
                                           **mark.kwargs).mark
        marks.append(mark)
    if marks:
        func.pytestmark = marks
    return func


def exposed_tests(module: str) -> dict:
    """The ``test_*`` functions of the rewritten module, for a stub module to expose."""
    loaded = load(module)
    return {name: _materialised(obj) for name, obj in vars(loaded).items()
            if name.startswith("test_") and callable(obj)}


def sklearn_id(item) -> str | None:
    """``test_supervised.py::test_x[params]`` for an item of our stubs, else None."""
    module = STUBS.get(getattr(item, "path", Path()).name)
    if module is None or not isinstance(item, pytest.Function):
        return None
    return f"{module}.py::{item.name}"


def deviation_of(test_id: str) -> tuple[str, dev.Deviation] | None:
    """(key, deviation) of DEVIATIONS that covers ``test_id``, if any."""
    for key in (test_id, test_id.split("[", 1)[0]):
        if key in dev.DEVIATIONS:
            return key, dev.DEVIATIONS[key]
    return None
