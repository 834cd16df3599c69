"""The import graph reads top-down: cli -> experiments -> evaluate -> report -> registry ->
score families -> table, with no cycle and no import of our own modules inside a function
but the command line's, named below (lazy imports are for optional third-party extras and
the listed scipy subpackages whose import costs more than the first call needs)."""

from __future__ import annotations

import ast
import graphlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "clustermetrics"

# Higher layers may import lower ones and their own; helpers at 0 import none of ours.
LAYERS = [
    ("cli", 9), ("__main__", 9), ("datasets", 9), ("experiments", 8), ("evaluate", 7),
    ("paired", 7), ("hierarchy", 7), ("frames", 7), ("model_selection", 7), ("report", 6),
    ("bootstrap", 5), ("noise", 5), ("diagnostics", 5), ("significance", 5),
    ("registry", 4), ("metrics", 3),
    ("sources", 2), ("table", 1), ("_text", 0), ("_json", 0), ("_progress", 0),
    ("_kernels", 0), ("_numba_kernels", 0), ("_version", 0), ("_html", 0),
    ("_merge_loop", 0), ("_hierarchy_kernels", 0), ("_sampling_kernels", 0),
    ("_smi_expansion", 0), ("_smi_kernels", 0),  # the kernels compile the expansion's code
    ("_matching_start", 0),  # imported by _numba_kernels (same rank: both leaves of the tree)
    ("_warm_kernels", 1),  # imports the cold solver's pieces from _numba_kernels
    ("_threads", 0), ("_special_functions", 0),
    ("_jit", 0),  # how every kernel module compiles (numba's njit, its cache): imports none
]


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _rank(module: str) -> int:
    for prefix, rank in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return rank
    raise AssertionError(f"module {module!r} has no layer: add it to LAYERS")


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(imported module of ours, imported at module level?) for each relative import."""
    module = _name(path)
    package = module.split(".") if path.name == "__init__.py" or not module else \
        module.split(".")[:-1]
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = [p for p in package if p][:len([p for p in package if p]) - node.level + 1]
        if node.module:
            targets = [".".join(base + [node.module])]
        else:  # from .. import x: x is a module
            targets = [".".join(base + [a.name]) for a in node.names]
        out += [(t, id(node) in top) for t in targets]
    return out


MODULES = {_name(p): p for p in ROOT.rglob("*.py") if _name(p)}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    for target, _ in _imports(MODULES[module]):
        assert _rank(target) <= _rank(module), f"{module} imports {target} from above"


# The only imports of our modules inside a function: the command line's entry imports the
# module of the command it runs (and, on its error path, the file sources' parameter
# names), so that `clustermetrics --help` and each command load only what they use.
LAZY_OURS = {
    "cli.main": {"cli.score", "cli.metric_list", "cli.compare", "cli.paired", "cli.demo",
                 "cli.chance", "cli.coverage", "cli.paired_calibration", "cli.hierarchy",
                 "sources.files"},
}
# Third-party modules that may be imported inside a function: the optional extras (with
# every submodule), whose absence must not break `import clustermetrics`, and the scipy
# subpackages that cost more to import than `import numpy, scipy` (benchmarks/README.md,
# "Import time"), loaded by the first call that needs them.
LAZY_EXTRAS = {"duckdb", "galpy", "matplotlib", "pandas", "polars", "pyarrow", "pyspark",
               "sklearn", "tqdm"}
LAZY_SCIPY = {"scipy.special", "scipy.sparse", "scipy.sparse.csgraph", "scipy.optimize",
              "scipy.cluster.hierarchy", "scipy.spatial"}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_of_our_modules_inside_functions(module):
    inside = [t for t, at_top in _imports(MODULES[module])
              if not at_top and t not in LAZY_OURS.get(module, ())]
    assert inside == [], f"{module} imports {inside} inside a function"


def _lazy_allowed(name: str) -> bool:
    return name.split(".")[0] in LAZY_EXTRAS or name in LAZY_SCIPY


def _type_checking(node: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` at module level: its imports are for the type checker only."""
    return isinstance(node, ast.If) and ast.unparse(node.test) in (
        "TYPE_CHECKING", "typing.TYPE_CHECKING")


def _third_party_inside_functions(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of each absolute import inside a function (``import a.b``:
    ("a.b", []); ``from a import b, c``: ("a", ["b", "c"]))."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    top |= {id(inner) for node in tree.body if _type_checking(node) for inner in node.body}
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
    for module, targets in LAZY_OURS.items():
        assert module in MODULES and targets <= set(MODULES), (module, targets - set(MODULES))


def test_no_import_cycles():
    graph = {m: {t for t, _ in _imports(p) if t in MODULES and t != m}
             for m, p in MODULES.items()}
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError on a cycle


def test_no_module_is_named_for_when_it_arrived():
    names = [p.stem for p in ROOT.rglob("*.py")]
    assert not [n for n in names if n.endswith(("_extra", "_new", "_old", "_v2"))]
