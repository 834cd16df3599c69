"""The folders are the layers: each package under src/clustermetrics imports only packages
below it, the layer order read from the import graph itself (tools/layers.py, drawn in
docs/architecture.md), with no cycle, no module loaded by a string, and no import of our
modules inside a function but the listed lazy ones (the command line's entry loads the
command it runs; each layer's ``compiled`` module loads its numba kernels only where one
pays). Third-party imports inside a function are the optional extras and the listed scipy
subpackages whose import costs more than the first call needs."""

from __future__ import annotations

import ast
import graphlib
import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import layers  # noqa: E402  (tools/ is no package: its path is added above)

MODULES = layers.modules()
# the public face at the root (the package's __init__, its entry point, version and
# datasets): every other module sits in the package of its layer
ROOT_MODULES_MAX = 8


def test_packages_import_each_other_without_a_cycle():
    layers.layers()  # raises graphlib.CycleError on a cycle


def test_no_module_import_cycles():
    graph = {m: {t for t, _ in layers.imports(p) if t in MODULES and t != m}
             for m, p in MODULES.items()}
    graphlib.TopologicalSorter(graph).prepare()


def test_the_root_holds_only_the_public_face():
    root = [m for m in MODULES if "." not in m and not (layers.ROOT / m).is_dir()]
    assert len(root) + 1 <= ROOT_MODULES_MAX, root  # + the package's __init__


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_loaded_by_a_string(module):
    tree = ast.parse(MODULES[module].read_text())
    calls = [ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)]
    assert not [c for c in calls if c in ("importlib.import_module", "import_module",
                                          "__import__", "importlib.__import__")], module


# The command line's entry imports the module of the command it runs (any module of the
# cli package), and on its error path the file readers' parameter names, so that
# `clustermetrics --help` and each command load only what they use.
LAZY_CLI = {"cli.main": {"io.files"}}


def _reaches_numba(module: str, seen: set[str] | None = None) -> bool:
    """Does importing ``module`` import numba (clustermetrics.compute.jit, which every
    kernel module compiles through, imports it at its top)?"""
    if module == "compute.jit":
        return True
    seen = set() if seen is None else seen
    seen.add(module)
    return any(_reaches_numba(t, seen) for t, at_top in layers.imports(MODULES[module])
               if at_top and t in MODULES and t not in seen)


def _lazy_allowed_ours(module: str, target: str) -> bool:
    if target in LAZY_CLI.get(module, ()) or (module == "cli.main" and target in MODULES
                                              and layers.package_of(target) == "cli"):
        return True
    return module.endswith(".compiled") and layers.package_of(target) == \
        layers.package_of(module) and target in MODULES and _reaches_numba(target)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_of_our_modules_inside_functions(module):
    inside = [t for t, at_top in layers.imports(MODULES[module])
              if not at_top and not _lazy_allowed_ours(module, t)]
    assert inside == [], f"{module} imports {inside} inside a function"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_lazy_imports_of_ours_go_down_too(module):
    rank = layers.layers()
    for target, _ in layers.imports(MODULES[module]):
        assert rank[layers.package_of(target)] <= rank[layers.package_of(module)], \
            f"{module} imports {target} from above"


def test_importing_the_package_or_its_command_line_imports_no_numba():
    """numba (~0.4 s to import and set up) loads only where a kernel pays: nothing the
    package or the command line imports at its top reaches a kernel module."""
    facade = [t for t, _ in layers.imports(layers.ROOT / "__init__.py")]
    for module in [t.lstrip(".") for t in facade if t.lstrip(".") in MODULES] + ["cli.main"]:
        assert not _reaches_numba(module), f"{module} imports numba at its top"


# Third-party modules that may be imported inside a function: the optional extras (with
# every submodule), whose absence must not break `import clustermetrics`, array_api_compat
# (a dependency only labels of another array library need: numpy users never load it),
# and the scipy subpackages that cost more to import than `import numpy, scipy`
# (benchmarks/README.md, "Import time"), loaded by the first call that needs them.
LAZY_EXTRAS = {"array_api_compat", "duckdb", "galpy", "matplotlib", "pandas", "polars",
               "pyarrow", "pyspark", "sklearn", "tqdm"}
LAZY_SCIPY = {"scipy.special", "scipy.sparse", "scipy.sparse.csgraph", "scipy.optimize",
              "scipy.cluster.hierarchy", "scipy.spatial"}


def _lazy_allowed(name: str) -> bool:
    return name.split(".")[0] in LAZY_EXTRAS or name in LAZY_SCIPY


def _type_checking(node: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` at module level: its imports are for the type checker only."""
    return isinstance(node, ast.If) and ast.unparse(node.test) in (
        "TYPE_CHECKING", "typing.TYPE_CHECKING")


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run on import: the module's, with those of its ``try`` blocks (a
    numba interface that moved between versions) and ``if TYPE_CHECKING:`` blocks (for the
    type checker only)."""
    out = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.Try):
            out += _module_level(node.body + node.orelse + node.finalbody
                                 + [s for h in node.handlers for s in h.body])
        elif _type_checking(node):
            out += _module_level(node.body)
    return out


def _third_party_inside_functions(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of each absolute import inside a function (``import a.b``:
    ("a.b", []); ``from a import b, c``: ("a", ["b", "c"]))."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in _module_level(tree.body)}
    out = []
    for node in ast.walk(tree):
        if id(node) in top:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            out.append((node.module or "", [a.name for a in node.names]))
    return out


@pytest.mark.parametrize("module", sorted(MODULES))
def test_lazy_third_party_imports_are_the_listed_ones(module):
    """``from scipy import special`` counts as importing scipy.special."""
    wrong = [(name, names) for name, names in _third_party_inside_functions(MODULES[module])
             if not _lazy_allowed(name)
             and not (names and all(_lazy_allowed(f"{name}.{n}") for n in names))]
    assert wrong == [], f"{module} imports {wrong} inside a function: not a listed extra"


def test_the_lazy_lists_name_real_modules():
    """A misspelt entry would allow nothing and hide a wrong import behind a typo."""
    for name in sorted(LAZY_EXTRAS | LAZY_SCIPY):
        assert importlib.util.find_spec(name) is not None, name
    for module, targets in LAZY_CLI.items():
        assert module in MODULES and targets <= set(MODULES), (module, targets - set(MODULES))


def test_no_module_is_named_for_when_it_arrived():
    names = [p.stem for p in layers.ROOT.rglob("*.py")]
    assert not [n for n in names if n.endswith(("_extra", "_new", "_old", "_v2"))]
