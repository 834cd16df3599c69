"""MkDocs hooks: pages generated from the code while the site is built, never committed.

* ``reference/scores.md``: one entry per registered score, from the registry
  (``clustermetrics.METRICS``), each score's docstring and the peer tables of
  ``docs/peers.md``.
* ``architecture.md``: the layers, read from the import graph (``tools/layers.py``).
* the lists the code accepts (algorithms, datasets, commands, file formats) wherever a
  page names them.
* ``gallery/*.png`` and the gallery page's sections: every figure kind the HTML reports
  draw (``clustermetrics.experiments.plots.FIGURES``), drawn on small data.
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
from clustermetrics.scores.registry import METRICS, _deprecated_names, cover_markdown_table
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
GALLERY_PLACEHOLDER = "<!-- gallery -->"

#: Each figure kind of ``plots.FIGURES``: the gallery's heading and what it shows here.
GALLERY_TEXT = {
    "heatmap": ("Contingency heatmap",
                "Each class's share per cluster, rows and columns ordered by the exact "
                "recovery matching (its cells on the diagonal); KMeans (k = 3) on "
                "scikit-learn's iris data."),
    "projection": ("Projection",
                   "The first two principal components coloured by the truth and by each "
                   "clustering; each cluster takes the colour of the class it is matched "
                   "to, noise is grey."),
    "recovery": ("Recovery rate against the number of clusters",
                 "Exact and pseudo recovery rate of KMeans and a Gaussian mixture on the "
                 "first n of 6 overlapping simulated clusters (Li & Klette's study, small: "
                 "60 points per cluster)."),
    "timing": ("Timing of the recovery rate",
               "Seconds to compute the recovery rate on dense n x n tables (Algorithm 1's "
               "enumeration, exact and greedy, with the paper's Algorithm 1 times) and on "
               "sparse ones, log scale; timed on the machine that built this site."),
    "chance": ("Scores under chance",
               "Mean score of two random labelings against k (a reduced "
               "`clustermetrics chance`): adjusted scores stay near 0, the others drift "
               "with k; unbounded scores below, in panels of similar magnitude."),
    "coverage": ("Coverage of the bootstrap intervals",
                 "Share of samples whose interval holds the population score against the "
                 "sample size, per interval method (a reduced `clustermetrics coverage`: "
                 "20 samples per point, so the grey band of +-2 standard errors is wide)."),
    "hierarchy": ("Every cut of a dendrogram",
                  "Scores of every cut of Ward's tree of the iris data against its number "
                  "of clusters, the best cut of each score starred, the true number of "
                  "classes dotted; panels group scores by range and magnitude."),
}


def _kinds() -> list[str]:
    """The figure kinds the reports draw, each with its gallery text (else the build
    fails, so no figure is left out of the gallery)."""
    from clustermetrics.experiments.plots import FIGURES

    if missing := set(FIGURES) - set(GALLERY_TEXT):
        raise ValueError(f"tools/docs_hooks.py: no gallery text for {sorted(missing)}")
    return list(FIGURES)


def gallery_page() -> str:
    """One section per figure kind of ``plots.FIGURES``, its image drawn by gallery()."""
    return "\n".join(f"## {GALLERY_TEXT[kind][0]}\n\n{GALLERY_TEXT[kind][1]}\n\n"
                     f"![{GALLERY_TEXT[kind][0]}](gallery/{kind}.png)\n"
                     for kind in _kinds())


def gallery() -> dict[str, bytes]:
    """Every figure kind of ``plots.FIGURES`` on small data (a few seconds)."""
    from clustermetrics.experiments import plots

    arguments = _gallery_arguments()
    return {kind: plots.FIGURES[kind](*arguments[kind]) for kind in _kinds()}


def _gallery_arguments() -> dict[str, tuple]:
    from sklearn.cluster import KMeans
    from sklearn.datasets import load_iris
    from sklearn.mixture import GaussianMixture

    from clustermetrics.experiments.chance import ChanceSetup, chance_study
    from clustermetrics.experiments.coverage import coverage_study
    from clustermetrics.experiments.hierarchy_study import linkage_tree, score_curve
    from clustermetrics.experiments.recovery_study import recovery_study
    from clustermetrics.experiments.timing import (
        PAPER_ALGORITHM1_SECONDS,
        bruteforce_timing,
        scaling_timing,
    )

    X, y = load_iris(return_X_y=True)
    truth = load_iris().target_names[y]
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
    curves = chance_study(["ari", "ami", "nmi", "ri", "vi", "mi", "chi2", "recovery_rate",
                           "bcubed_f"],
                          setups=[ChanceSetup("equal", "two random labelings, k clusters each",
                                              200, None, 40)],
                          n_repeats=3, n_points=6, seed=0)
    coverage = coverage_study(["4x4-near-perfect", "8x10"], [250, 1000], ["ari", "nmi"],
                              n_tables=20, n_boot=50, population=10**4)
    curve = score_curve(truth, linkage_tree(X, "ward"), "iris, ward linkage",
                        ["ari", "nmi", "fmi", "pair_precision", "pair_recall", "ami",
                         "recovery_rate", "vi", "mi", "mcnemar", "southwood", "kendall_tau",
                         "clustering_ratio"])
    s = curve.scores
    return {
        "heatmap": (table, "iris: KMeans (k = 3) against the species"),
        "projection": (X, truth, {"KMeans": kmeans, "GMM": gmm}),
        "recovery": (rates, pseudo),
        "timing": (bruteforce_timing(range(2, 8)), scaling_timing((10, 100, 1000)),
                   PAPER_ALGORITHM1_SECONDS),
        "chance": (curves,),
        "coverage": (coverage.rows, coverage.level),
        "hierarchy": (s.n_clusters, s.values, s.best, curve.true_k,
                      "iris: every cut of Ward's tree"),
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


def formats() -> str:
    """The output formats of ``--format``: the renderers of a result's tables, then the
    data formats."""
    from clustermetrics.cli.output import FORMATS
    from clustermetrics.render.documents import DESCRIPTIONS

    data = {"json": "strict JSON (RFC 8259): every value and detail, no NaN or Infinity",
            "csv": "CSV of the values, one row per score (or run), machine-readable"}
    rows = ["| `--format` | what it writes |", "|---|---|"]
    for name in FORMATS:
        what = DESCRIPTIONS.get(name) or data[name]
        rows.append(f"| `{name}`{' (default)' if name == 'table' else ''} | {what} |")
    return "\n".join(rows)


def file_formats() -> str:
    """The file formats every engine reads, from their registry (``io.formats``)."""
    from clustermetrics.io.formats import FORMATS

    def names(kind: Any) -> str:
        if kind.catch_all:
            listed = ", ".join(f"`{s}`" for s in kind.suffixes)
            named = f"{listed} and any name no other format has"
        else:
            named = ", ".join(f"`{s}`" for s in kind.suffixes)
        if kind.dialect is not None:
            named += f" (gzip when it ends in `{kind.dialect.compression}`)"
        return named

    rows = ["| format | file names | labels | in memory needs |", "|---|---|---|---|"]
    rows += [f"| {kind.name} | {names(kind)} | {kind.labels} | "
             f"{f'pyarrow (extra `{kind.in_memory[1]}`)' if kind.in_memory else '—'} |"
             for kind in FORMATS]
    return "\n".join(rows)


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
    "<!-- formats -->": formats,
    "<!-- file-formats -->": file_formats,
    "<!-- benchmarks-readme -->": benchmarks_record,
    "<!-- membership-scores -->": membership_markdown_table,
    "<!-- cover-scores -->": cover_markdown_table,
    GALLERY_PLACEHOLDER: gallery_page,
    "<!-- spark-masters -->": lambda: ", ".join(f"`{form}`" for form in MASTER_FORMS),
    "<!-- spark-connect-timeout -->": lambda: f"{CONNECT_TIMEOUT_S:g}",
    "<!-- spark-executor-timeout -->": lambda: f"{EXECUTOR_TIMEOUT_S:g}",
}
