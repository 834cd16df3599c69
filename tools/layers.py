"""The package's layers, read from its import graph (stdlib only).

Each package under ``src/clustermetrics`` (a module at the root counts as its own) is a
node; a module-level import of ours from one package into another is an edge. The graph
must be acyclic; a package's layer is one more than the highest layer it imports (0 for
one that imports none of ours). ``tests/project/test_architecture.py`` checks the rules on this
graph and ``docs/architecture.md`` shows :func:`drawing` (a build hook writes it).
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "clustermetrics"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Dotted name under clustermetrics (the package itself left out) -> file."""
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py")) if module_name(p)}


def package_of(module: str) -> str:
    return module.split(".")[0]


def imports(path: Path) -> list[tuple[str, bool]]:
    """(module of ours imported, imported at module level?) for each relative import."""
    module = module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = package[:len(package) - node.level + 1]
        if node.module:
            targets = [".".join(base + [node.module])]
        else:  # from .. import x: x is a module or a name of the package
            targets = [".".join(base + [a.name]) for a in node.names]
        out += [(t, id(node) in top) for t in targets]
    return out


def package_graph() -> dict[str, set[str]]:
    """Package -> the other packages its modules import at module level."""
    graph: dict[str, set[str]] = {}
    for module, path in modules().items():
        mine = package_of(module)
        graph.setdefault(mine, set())
        graph[mine] |= {package_of(t) for t, at_top in imports(path)
                        if at_top and package_of(t) != mine}
    return graph


def layers() -> dict[str, int]:
    """Package -> its layer (raises graphlib.CycleError where packages import in a cycle)."""
    graph = package_graph()
    out: dict[str, int] = {}
    for package in graphlib.TopologicalSorter(graph).static_order():
        out[package] = 1 + max((out[d] for d in graph.get(package, ())), default=-1)
    return out


def drawing() -> str:
    """The layers top-down, each package with the packages it imports."""
    graph, rank = package_graph(), layers()
    order = sorted(rank, key=lambda p: (-rank[p], p))
    width = max(len(p) for p in order)
    lines = []
    for p in order:
        below = ", ".join(sorted(graph[p], key=lambda d: (-rank[d], d))) or "(none of ours)"
        lines.append(f"{rank[p]:>5}  {p:<{width}}  {below}")
    return "```\nlayer  " + "package".ljust(width) + "  imports\n" + "\n".join(lines) + "\n```"


if __name__ == "__main__":
    print(drawing())
