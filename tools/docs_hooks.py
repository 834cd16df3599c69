"""MkDocs hooks: pages generated from the code while the site is built, never committed.

* ``reference/scores.md``: one entry per registered score, from the registry
  (``clustermetrics.METRICS``), each score's docstring and the peer tables of
  ``docs/peers.md``.
* ``architecture.md``: the layers, read from the import graph (``tools/layers.py``).
* the lists the code accepts (algorithms, datasets, commands) wherever a page names them.
* ``gallery/*.png``: the HTML reports' figures, drawn by ``clustermetrics.experiments.plots``
  on small data.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File

import clustermetrics as cm
from clustermetrics.io.spark_cluster import CONNECT_TIMEOUT_S, EXECUTOR_TIMEOUT_S, MASTER_FORMS
from clustermetrics.scores.fuzzy import membership_markdown_table
from clustermetrics.scores.registry import METRICS, _deprecated_names
from clustermetrics.scores.spec import ALIASES_REMOVED_IN

DOCS = Path(__file__).resolve().parents[1] / "docs"
PLACEHOLDER = "<!-- score-reference -->"
LAYERS = "<!-- layers -->"
DEPRECATED = "<!-- deprecated-names -->"


# ------------------------------------------------------------------ score reference
def _bound(x: float) -> str:
    return "∞" if x == math.inf else "−∞" if x == -math.inf else f"{x:g}"


def _rst_to_md(text: str) -> str:
    """The docstrings' reStructuredText roles and literals as Markdown code."""
    text = re.sub(r":(?:func|class|meth|data|mod|attr):`~?([^`]+)`",
                  lambda m: f"`{m.group(1).split('.')[-1]}`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    # outside code spans, * is multiplication, not emphasis
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") else p.replace("*", "\\*") for p in parts)


def _sections(doc: str) -> dict[str, str]:
    """A numpydoc docstring cut at its section headings ("" is the description)."""
    parts = re.split(r"^([A-Z][A-Za-z ]+)\n-{3,}\n", doc, flags=re.M)
    out = {"": parts[0]}
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        out[title.strip()] = body
    return out


def _peers() -> dict[str, list[str]]:
    """Registry key or function name -> "library: peer score (note)" from docs/peers.md."""
    found: dict[str, list[str]] = {}
    library = ""
    for line in (DOCS / "peers.md").read_text().splitlines():
        if line.startswith("## "):
            library = re.split(r"[(—]", line[3:], maxsplit=1)[0].strip()
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[1] == "clustermetrics":
            continue
        note = f" ({cells[2]})" if len(cells) > 2 and cells[2] else ""
        for name, peer in _pairs(cells[0], cells[1]):
            found.setdefault(name, []).append(f"{library}: {peer}{note}")
    return found


def _pairs(peer: str, ours: str) -> list[tuple[str, str]]:
    """(our name, its peer) of one row of docs/peers.md. A row may map several peer
    scores to several of ours, in the same order and separated alike ("RaS `rand_score` /
    ARS `adjusted_rand_score`" to "`ri` / `ari`"): each name gets only its own peer (the
    Rand index is not the adjusted one). One peer function (its options picking the
    variant) computes each of ours; an alias of ours, "(= `pair_f1`)", shares its name's
    peer. A row whose lists do not line up fails the build."""
    name = r"`([A-Za-z0-9_]+)`"
    names = re.findall(name, ours)
    keys = re.findall(name, re.sub(r"\(=[^)]*\)", "", ours))
    if len(keys) <= 1 or len(re.findall(r"`[^`]+`", peer)) <= 1:
        return [(n, peer) for n in names]
    for sep in (" / ", ", "):
        ours_parts, peer_parts = ours.split(sep), peer.split(sep)
        if len(ours_parts) == len(keys) == len(peer_parts):
            # "PairCounting `randIndex`, `adjustedRandIndex`": the class names them all
            prefix = peer_parts[0][:peer_parts[0].find("`")]
            return [(n, (prefix + p.strip()) if p.strip().startswith("`") else p.strip())
                    for o, p in zip(ours_parts, peer_parts, strict=True)
                    for n in re.findall(name, o)]
    raise ValueError(f"docs/peers.md: the row {peer!r} | {ours!r} names several scores; "
                     "list their peers in the same order, separated alike")


def _entry(key: str, entry: Any, peers: dict[str, list[str]]) -> str:
    func = entry.func
    name = getattr(func, "__name__", key)
    options = ", ".join(f"{k}={v!r}" for k, v in entry.options.items())
    call = f"cm.{name}(labels_true, labels_pred{', ' + options if options else ''})"
    better = entry.better if isinstance(entry.better, str) else f"nearest {entry.better:g}"
    perfect = "depends on the data" if entry.perfect is None else f"{entry.perfect:g}"
    doc = _sections(inspect.getdoc(func) or "")
    equivalents = list(dict.fromkeys(peers.get(key, []) + peers.get(name, [])))
    rows = [
        ("call", f"`{call}`"),
        ("family", entry.family),
        ("range", f"[{_bound(entry.lower)}, {_bound(entry.upper)}]"),
        ("better", better),
        ("identical labelings score", perfect),
        ("chance-adjusted", "yes" if entry.adjusted else "no"),
        ("symmetric", "yes" if entry.symmetric else "no"),
        ("reference", entry.reference),
        ("peer equivalents", "<br>".join(equivalents) if equivalents else "none listed"),
    ]
    parts = [f"## `{key}`: {entry.name} {{#{key}}}", "", "| property | value |", "|---|---|",
             *(f"| {a} | {b.replace('|', '&#124;')} |" for a, b in rows), "",
             _rst_to_md(doc[""].strip()), ""]
    for title in ("Notes", "References"):
        if doc.get(title, "").strip():
            parts += [f"**{title}.** " + _rst_to_md(doc[title].strip()), ""]
    if doc.get("Examples", "").strip():
        parts += ["```python", doc["Examples"].strip(), "```", ""]
    return "\n".join(parts)


def score_reference() -> str:
    peers = _peers()
    families: dict[str, list[str]] = {}
    for key, entry in METRICS.items():
        families.setdefault(entry.family, []).append(key)
    index = ["| family | scores |", "|---|---|"] + [
        f"| {family} | " + ", ".join(f"[`{k}`](#{k})" for k in keys)
        + " |" for family, keys in families.items()]
    return "\n".join(index) + "\n\n" + "\n".join(
        _entry(key, entry, peers) for key, entry in METRICS.items())


# ------------------------------------------------------------------ gallery
def gallery() -> dict[str, bytes]:
    """The reports' figures on small data (a few seconds)."""
    from sklearn.cluster import KMeans
    from sklearn.datasets import load_iris
    from sklearn.mixture import GaussianMixture

    from clustermetrics.experiments import plots
    from clustermetrics.experiments.chance import ChanceSetup, chance_study
    from clustermetrics.experiments.recovery_study import recovery_study

    X, y = load_iris(return_X_y=True)
    names = load_iris().target_names
    truth = names[y]
    kmeans = KMeans(3, n_init=4, random_state=0).fit_predict(X)
    gmm = GaussianMixture(3, random_state=0).fit_predict(X)
    table = cm.Contingency.from_labels(truth, kmeans)
    study = recovery_study(range(2, 7), n_per_cluster=60, algorithms="kmeans,gmm", seeds=[0])
    rates: dict[str, dict[int, list[float]]] = {}
    pseudo: dict[str, dict[int, list[float]]] = {}
    for run in study.runs[0]:
        rates.setdefault(run.algorithm, {}).setdefault(run.n_classes, []).append(
            run.rate("exact"))
        pseudo.setdefault(run.algorithm, {}).setdefault(run.n_classes, []).append(
            run.rate("pseudo"))
    curves = chance_study(["ari", "ami", "nmi", "ri", "vi", "recovery_rate", "bcubed_f"],
                          setups=[ChanceSetup("equal", "two random labelings, k clusters each",
                                              200, None, 40)],
                          n_repeats=3, n_points=6, seed=0)
    return {
        "heatmap": plots.heatmap_plot(table, "iris: KMeans (k = 3) against the species"),
        "projection": plots.projection_plot(X, truth, {"KMeans": kmeans, "GMM": gmm}),
        "recovery": plots.recovery_plot(rates, pseudo),
        "chance": plots.chance_plot(curves),
    }


# ------------------------------------------------------------------ MkDocs events
def on_files(files: Any, config: Any) -> Any:
    for name, png in gallery().items():
        files.append(File.generated(config, f"gallery/{name}.png", content=png))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    for marker, generate in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return markdown


# ------------------------------------------------------------------ included records
ROOT = DOCS.parent


def _headings_down(markdown: str) -> str:
    """``markdown`` without its title (its H1) and every other heading one level deeper,
    so that it nests under a section of the page that includes it (a page has one H1).
    Lines in code fences are code, whatever they start with."""
    out, fence = [], ""
    for line in markdown.splitlines():
        mark = re.match(r"\s*(```+|~~~+)", line)
        if mark and (not fence or mark.group(1).startswith(fence)):
            fence = "" if fence else mark.group(1)[:3]
        elif not fence and re.match(r"#{1,5} ", line):
            if line.startswith("# "):
                continue
            line = "#" + line
        out.append(line)
    return "\n".join(out) + "\n"


def benchmarks_record() -> str:
    """benchmarks/README.md, as it is in the repository, under the benchmarks page."""
    return _headings_down((ROOT / "benchmarks" / "README.md").read_text())


# ------------------------------------------------------------------ lists the code accepts
def algorithms() -> str:
    """The algorithms of ``compare`` and ``demo``, from their registry."""
    from clustermetrics.experiments.algorithms import ALGORITHMS

    rows = ["| algorithm | what it is | takes k | depends on the seed |", "|---|---|---|---|"]
    rows += [f"| `{a.name}` | {a.description} | {'yes' if a.uses_k else 'no'} | "
             f"{'yes' if a.seeded else 'no'} |" for a in ALGORITHMS.values()]
    return "\n".join(rows)


def datasets() -> str:
    """The built-in datasets of ``compare --dataset``, as the option's alternatives."""
    from clustermetrics.experiments.datasets import DATASETS

    return "|".join(DATASETS)


def commands() -> str:
    """The commands of the command line with the line ``clustermetrics --help`` shows."""
    from clustermetrics.cli.commands import SUMMARIES

    return "\n".join(["| command | what it does |", "|---|---|",
                      *(f"| `clustermetrics {name}` | {line} |"
                        for name, line in SUMMARIES.items())])


def deprecated_names() -> str:
    """The deprecated aliases, each with the registry key and function that replace it."""
    rows = ["| old name | use | key |", "|---|---|---|"]
    for old, key in sorted(_deprecated_names().items()):
        entry = METRICS[key]
        options = ", ".join(f"{k}={v!r}" for k, v in entry.options.items())
        use = f"`{entry.func.__name__}({options})`" if options else f"`{entry.func.__name__}`"
        rows.append(f"| `{old}` | {use} | `{key}` |")
    return (f"{len(rows) - 2} names, removed in {ALIASES_REMOVED_IN}; until then each "
            "warns (`FutureWarning`) and calls its replacement.\n\n" + "\n".join(rows)
            + "\n\n`compare_clusterings` is now `paired_comparison` (the paired test; "
            "`clustermetrics compare` compares algorithms), `datasets.read_table` is now "
            "`datasets.read_dataset` (`read_table` reads a contingency table from a file of "
            "labels), and `paired_comparison`'s "
            "`n_boot` and `seed` (of its bootstrap test before 0.2) are accepted and "
            f"ignored; each with a `FutureWarning`, until {ALIASES_REMOVED_IN}.")


def _layers() -> Any:
    """tools/layers.py (tools/ is no package: loaded from its path, as MkDocs loads this
    hook)."""
    spec = importlib.util.spec_from_file_location("layers", Path(__file__).with_name("layers.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Placeholder -> its generator: every page with the placeholder shows what the code holds.
GENERATED = {
    PLACEHOLDER: score_reference,
    LAYERS: lambda: _layers().drawing(),
    DEPRECATED: deprecated_names,
    "<!-- algorithms -->": algorithms,
    "<!-- datasets -->": datasets,
    "<!-- commands -->": commands,
    "<!-- benchmarks-readme -->": benchmarks_record,
    "<!-- membership-scores -->": membership_markdown_table,
    "<!-- spark-masters -->": lambda: ", ".join(f"`{form}`" for form in MASTER_FORMS),
    "<!-- spark-connect-timeout -->": lambda: f"{CONNECT_TIMEOUT_S:g}",
    "<!-- spark-executor-timeout -->": lambda: f"{EXECUTOR_TIMEOUT_S:g}",
}
