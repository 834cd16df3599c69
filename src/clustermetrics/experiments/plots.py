"""The experiments' plots, as PNG bytes (matplotlib, imported lazily; no pyplot state).

Figures are built on ``matplotlib.figure.Figure`` and rendered by the Agg canvas, so they
never open a window nor touch the global backend. Text is drawn as written: every plot is
built and rendered with mathtext and TeX off (``text.parse_math`` and ``text.usetex``
False), so a label such as ``cost $a^$`` is text, not a formula to parse; control
characters in labels show as escapes, as in the text tables
(:func:`clustermetrics.render.text.visible`).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from ..render.html import HEATMAP_MAX_LINES, capped_counts
from ..render.text import visible
from ..scores.recovery import recovery
from ..scores.registry import METRICS
from ..table import Contingency

__all__ = ["recovery_plot", "timing_plot", "chance_plot", "coverage_plot", "heatmap_plot",
           "projection_plot", "matching_order", "hierarchy_plot", "hierarchy_panels",
           "PLOT_HINT"]

PLOT_HINT = "pip install 'clustermetrics[plot]'"
_FAMILY_COLOURS = {"pair counting": "#9ecae1", "information": "#fdae6b",
                   "set matching": "#a1d99b"}


_F = TypeVar("_F", bound=Callable[..., Any])


def _plain_text(plot: _F) -> _F:
    """Build and render ``plot`` with mathtext and usetex off, whatever the user's
    matplotlibrc says (a missing matplotlib is the ImportError of :func:`_figure`)."""
    @functools.wraps(plot)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            import matplotlib
        except ImportError:
            return plot(*args, **kwargs)
        with matplotlib.rc_context({"text.usetex": False, "text.parse_math": False}):
            return plot(*args, **kwargs)
    return run  # type: ignore[return-value]


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(f"plots need matplotlib: {PLOT_HINT}") from exc
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


@_plain_text
def recovery_plot(rates: Mapping[str, Mapping[int, Sequence[float]]],
                  pseudo: Mapping[str, Mapping[int, Sequence[float]]]) -> bytes:
    """Exact recovery rate against n per algorithm (mean over runs, bars: min..max), and
    the pseudo rate beside it. ``rates[algorithm][n]`` lists the rates of its runs."""
    fig = _figure(11, 4.2)
    left, right = fig.subplots(1, 2, sharey=True)
    for ax, data, title in ((left, rates, "exact recovery rate"),
                            (right, pseudo, "pseudo recovery rate")):
        for name, by_n in data.items():
            ns = sorted(by_n)
            vals = [np.asarray(by_n[n], dtype=float) * 100 for n in ns]
            mean = np.array([v.mean() for v in vals])
            err = np.array([[m - v.min() for v, m in zip(vals, mean, strict=True)],
                            [v.max() - m for v, m in zip(vals, mean, strict=True)]])
            ax.errorbar(ns, mean, yerr=err, marker="o", ms=4, capsize=2, label=name)
        ax.set(title=title, xlabel="n (number of true clusters)", ylim=(0, 105))
        ax.grid(alpha=0.3)
    left.set_ylabel("%")
    right.legend(fontsize=8, loc="lower left")
    return _png(fig)


@_plain_text
def timing_plot(small: Sequence[Any], large: Sequence[Any],
                paper: Mapping[int, float]) -> bytes:
    """Seconds against n on a log scale: Algorithm 1 (bruteforce), exact and greedy for
    n = 2 .. 10 with the paper's Algorithm 1 times; exact and greedy up to n = 10,000."""
    fig = _figure(11, 4.2)
    left, right = fig.subplots(1, 2)
    styles = {"bruteforce": ("C3", "Algorithm 1 (bruteforce, ours)"),
              "exact": ("C0", "exact (assignment)"), "greedy": ("C2", "greedy (Algorithm 2)")}
    for ax, rows in ((left, small), (right, large)):
        for method, (colour, label) in styles.items():
            pts = sorted((r.n, r.seconds) for r in rows if r.method == method)
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", ms=4, color=colour, label=label)
        ax.set_yscale("log")
        ax.set(xlabel="n (classes = clusters)", ylabel="seconds")
        ax.grid(alpha=0.3, which="both")
    if paper:
        ns = sorted(paper)
        left.plot(ns, [paper[n] for n in ns], "x--", color="k", label="paper, Algorithm 1")
    left.set_title("recovery rate of an n x n table")
    right.set_xscale("log")
    right.set_title("exact and greedy on sparse tables")
    left.legend(fontsize=8)
    right.legend(fontsize=8)
    return _png(fig)


@_plain_text
def chance_plot(curves: Sequence[Any]) -> bytes:
    """Mean score against k, one line per score, one column per experiment; adjusted
    scores thick and named, the others thin and coloured by family; unbounded scores
    (MI, chi2, ...) below on a symmetric-log axis."""
    fig = _figure(7 * len(curves), 10)
    from matplotlib import colormaps

    strong = colormaps["tab20"].colors[::2] + colormaps["tab20"].colors[1::2]
    axes = np.asarray(fig.subplots(2, len(curves), squeeze=False))
    for col, c in enumerate(curves):
        top, bottom = axes[0, col], axes[1, col]
        adjusted = [k for k in c.mean if METRICS[k].adjusted]
        for key in c.mean:
            entry = METRICS[key]
            ax = bottom if entry.upper == float("inf") else top
            if entry.adjusted:  # each its own colour: they overlap near 0
                ax.plot(c.ks, c.mean[key], lw=2.2, marker="o", ms=3, label=key, zorder=3,
                        color=strong[adjusted.index(key) % len(strong)])
            elif ax is bottom:
                ax.plot(c.ks, c.mean[key], lw=1.2, label=key)
            else:
                ax.plot(c.ks, c.mean[key], lw=0.8, color=_FAMILY_COLOURS[entry.family])
        for family, colour in _FAMILY_COLOURS.items():
            top.plot([], [], lw=0.8, color=colour, label=f"{family} (not adjusted)")
        top.axhline(0, color="k", lw=0.6)
        top.set(title=c.setup.title, xlabel=f"k (n_samples = {c.setup.n_samples})",
                ylabel="mean score", ylim=(-0.1, 1.05))
        bottom.set_yscale("symlog", linthresh=1)
        bottom.set(xlabel="k", ylabel="mean score (unbounded scores)")
        top.legend(fontsize=7, ncol=2, loc="upper left")
        bottom.legend(fontsize=7, ncol=2)
        for ax in (top, bottom):
            ax.grid(alpha=0.3)
    return _png(fig)




def matching_order(table: Contingency) -> tuple[np.ndarray, np.ndarray]:
    """Row and column orders that put the optimal (exact recovery) matching on the
    diagonal: matched classes in label order with their clusters, then unmatched
    classes, then unmatched clusters by decreasing size.

    >>> t = Contingency.from_labels([0, 0, 1, 1, 2], ["b", "b", "a", "a", "a"])
    >>> [a.tolist() for a in matching_order(t)]
    [[0, 1, 2], [1, 0]]
    """
    pairs = recovery(table).matching
    rows = {c: i for i, c in enumerate(table.class_labels.tolist())}
    cols = {c: j for j, c in enumerate(table.cluster_labels.tolist())}
    matched = sorted((rows[cls], cols[clu]) for clu, cls, _ in pairs)
    r_order = [r for r, _ in matched]
    c_order = [c for _, c in matched]
    seen_r, seen_c = set(r_order), set(c_order)
    r_order += [r for r in range(table.n_classes) if r not in seen_r]
    rest = [c for c in range(table.n_clusters) if c not in seen_c]
    c_order += sorted(rest, key=lambda c: -int(table.cluster_sizes[c]))
    return np.array(r_order, dtype=np.int64), np.array(c_order, dtype=np.int64)


@_plain_text
def heatmap_plot(table: Contingency, title: str, max_lines: int = HEATMAP_MAX_LINES) -> bytes:
    """The contingency table as a heatmap of each class's share per cluster, rows and
    columns ordered by the optimal matching (its cells on the diagonal). Beyond
    ``max_lines`` rows (columns) the last ones are summed into one "+N others" line, so
    tables with hundreds of clusters (a k sweep, noise singletons) stay readable."""
    r, c = matching_order(table)
    dense, row_names, col_names = _capped(table, r, c, max_lines)
    share = dense / dense.sum(axis=1, keepdims=True)
    # Wide enough for the title on small tables, bounded on large ones.
    fig = _figure(min(max(6.5, 2 + 0.55 * dense.shape[1]), 14),
                  min(max(3.5, 1.5 + 0.45 * dense.shape[0]), 12))
    ax = fig.subplots()
    image = ax.imshow(share, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    if dense.size <= 400:
        for (i, j), v in np.ndenumerate(dense):
            ax.text(j, i, str(v), ha="center", va="center", fontsize=7,
                    color="white" if share[i, j] < 0.5 else "black")
    ax.set_xticks(range(len(col_names)), col_names, fontsize=8,
                  rotation=90 if len(col_names) > 12 else 0)
    ax.set_yticks(range(len(row_names)), row_names, fontsize=8)
    ax.set(xlabel="predicted cluster", ylabel="true class", title=visible(title))
    fig.colorbar(image, ax=ax, label="share of the class (W)")
    return _png(fig)


def _capped(table: Contingency, r: np.ndarray, c: np.ndarray, max_lines: int):
    """Counts in display order with at most ``max_lines`` rows and columns (the rest summed
    into a last "+N others" line), and the tick labels (:func:`capped_counts`)."""
    return capped_counts(table.rows, table.cols, table.counts, r, c, table.class_labels,
                         table.cluster_labels, max_lines)


@_plain_text
def projection_plot(X: np.ndarray, y: np.ndarray, labelings: Mapping[str, np.ndarray], *,
                    tables: Mapping[str, Contingency] | None = None, max_points: int = 4000,
                    seed: int = 0) -> bytes:
    """2-D projection (first two principal components) coloured by the truth and by each
    labeling; each cluster takes the colour of the class it is matched to (the exact
    recovery matching of ``tables[name]`` when given, e.g. a scored run's table with its
    matching cached, else of a table built here), noise (-1) is grey, unmatched clusters
    get colours after the classes'."""
    X = np.asarray(X, dtype=float)
    centred = X - X.mean(axis=0)
    xy = centred @ np.linalg.svd(centred, full_matrices=False)[2][:2].T if X.shape[1] > 2 \
        else centred
    rng = np.random.default_rng(seed)
    show = np.sort(rng.choice(X.shape[0], min(max_points, X.shape[0]), replace=False))
    tables = tables or {}
    panels = {"truth": (y, None), **{
        k: (v, recovery(tables[k] if k in tables else Contingency.from_labels(y, v)).matching)
        for k, v in labelings.items()}}
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig = _figure(4.2 * cols, 3.8 * rows)
    axes = np.asarray(fig.subplots(rows, cols, squeeze=False)).ravel()
    for ax, (name, (labels, matching)) in zip(axes, panels.items(), strict=False):
        colours = _colours(np.asarray(labels), y, matching)
        ax.scatter(xy[show, 0], xy[show, 1], c=colours[show], s=3, linewidths=0)
        ax.set_title(visible(name), fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
    for ax in axes[len(panels):]:
        ax.set_axis_off()
    return _png(fig)


def _colours(labels: np.ndarray, truth: np.ndarray, matching) -> np.ndarray:
    """Colours of the points: classes by index; with a ``matching`` (cluster, class, w)
    the clusters of ``labels`` take their matched class's colour (None: the truth panel)."""
    from matplotlib import colormaps

    palette = colormaps["tab20"].colors
    classes = np.unique(truth).tolist()
    index = {c: i for i, c in enumerate(classes)}
    if matching is not None:
        for clu, cls, _ in matching:
            if clu != -1:  # noise stays grey even when it "recovers" a class
                index[("cluster", clu)] = index[cls]
        extra = len(classes)
        for clu in np.unique(labels).tolist():
            if ("cluster", clu) not in index and clu != -1:
                index[("cluster", clu)] = extra
                extra += 1
        keys = [("cluster", v) for v in labels.tolist()]
    else:
        keys = labels.tolist()
    grey = (0.75, 0.75, 0.75)
    return np.array([palette[index[k] % len(palette)] if k in index else grey for k in keys])


@_plain_text
def coverage_plot(rows: Sequence[Any], level: float) -> bytes:
    """Coverage against sample size (log axis), one panel per (shape, score), one line per
    interval method; the nominal level as a black line and its +-2 binomial standard
    errors (over the study's samples) as a grey band."""
    shapes = list(dict.fromkeys(r.shape for r in rows))
    keys = list(dict.fromkeys(r.metric for r in rows))
    methods = list(dict.fromkeys(r.method for r in rows))
    fig = _figure(2.6 * len(keys), 2.4 * len(shapes) + 0.6)
    axes = np.asarray(fig.subplots(len(shapes), len(keys), squeeze=False, sharey=True))
    for i, shape in enumerate(shapes):
        for j, key in enumerate(keys):
            ax = axes[i, j]
            cells = [r for r in rows if r.shape == shape and r.metric == key]
            if not cells:
                continue
            sizes = sorted({r.n for r in cells})
            se = 2 * np.sqrt(level * (1 - level) / cells[0].n_tables)
            ax.axhspan(level - se, level + se, color="0.9", zorder=0)
            ax.axhline(level, color="k", lw=0.8)
            for method in methods:
                by_n = {r.n: r.coverage for r in cells if r.method == method}
                ax.plot(sizes, [by_n.get(n, np.nan) for n in sizes], marker="o", ms=3,
                        lw=1.2, label=method)
            ax.set_xscale("log")
            ax.set_xticks(sizes, [str(n) for n in sizes], fontsize=7)
            ax.set_xticks([], minor=True)
            ax.set_title(visible(f"{shape}: {key}"), fontsize=8)
            ax.set_ylim(max(0.0, min(0.5, min(r.coverage for r in cells) - 0.05)), 1.01)
            ax.grid(alpha=0.3)
            if i == len(shapes) - 1:
                ax.set_xlabel("sample size n")
            if j == 0:
                ax.set_ylabel("coverage")
    axes[0, 0].legend(fontsize=7, loc="lower right")
    return _png(fig)


HIERARCHY_LINES = 10  # scores per panel of the hierarchy plot (one colour each)
_CURVE_POINTS = 3000  # cuts drawn per curve (log-spaced; best cuts always drawn)


def _range_class(key: str) -> int:
    """Which kind of panel a score goes to, from the registry's bounds: 0 in [0, 1], 1
    other non-negative bounded ranges, 2 bounded above only or also negative, 3 unbounded."""
    lower, upper = METRICS[key].lower, METRICS[key].upper
    if not np.isfinite(upper):
        return 3
    if lower >= 0:
        return 0 if (lower, upper) == (0, 1) else 1
    return 2


def _range_words(order: int, keys: Sequence[str]) -> str:
    uppers = {METRICS[k].upper for k in keys}
    if order == 0:
        return "in [0, 1]"
    if order == 2:
        top = f"at most {next(iter(uppers)):g}" if len(uppers) == 1 else "bounded above"
        return f"{top}, may be negative"
    return "bounded" if order == 1 else "unbounded"


def hierarchy_panels(keys: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The panels of :func:`hierarchy_plot`: (title, scores), every score in exactly one.

    Scores are grouped by their range in the registry (``lower``, ``upper``): [0, 1];
    other bounded ranges; bounded above only or also negative (chance-adjusted scores);
    and unbounded, where each family gets its own panels (nats, statistics and ratios do
    not share a scale). A bounded group whose scores do not fit in one panel is split by
    family too; a group of more than ``HIERARCHY_LINES`` scores is split into panels of
    nearly equal size."""
    groups: dict[int, list[str]] = {}
    for key in keys:
        groups.setdefault(_range_class(key), []).append(key)
    panels = []
    for order, members in sorted(groups.items()):
        by_family: dict[str, list[str]] = {}
        if order == 3 or len(members) > HIERARCHY_LINES:
            for key in members:
                by_family.setdefault(METRICS[key].family, []).append(key)
        else:
            by_family = {"": members}
        for family, chosen in by_family.items():
            words = _range_words(order, chosen)
            title = f"{family} scores, {words}" if family else f"scores {words}"
            parts = -(-len(chosen) // HIERARCHY_LINES)
            size = -(-len(chosen) // parts)
            for i in range(parts):
                part = chosen[i * size:(i + 1) * size]
                panels.append((title if parts == 1 else f"{title} ({i + 1} of {parts})",
                               part))
    return panels


@_plain_text
def hierarchy_plot(n_clusters: np.ndarray, values: Mapping[str, np.ndarray],
                   best: Mapping[str, Any], true_k: int | None = None,
                   title: str = "") -> bytes:
    """Score against the number of clusters of each cut of a dendrogram, log-x, the best
    cut of each score marked; every score drawn, in panels grouped by range
    (:func:`hierarchy_panels`). Scores known only at some cuts are drawn as points."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    panels = hierarchy_panels(list(values))
    n_rows = max(1, -(-len(panels) // 2))
    fig = _figure(11, 1.0 + 3.4 * n_rows)
    axes = np.atleast_1d(fig.subplots(n_rows, 2, squeeze=False)).ravel()
    ks = np.asarray(n_clusters)
    keep = np.unique(np.concatenate([
        np.unique(np.geomspace(1, ks.shape[0], _CURVE_POINTS).astype(np.int64) - 1),
        np.searchsorted(ks, [b.n_clusters for b in best.values()])]))
    styles = ("-", "--", "-.", ":")
    plain = FuncFormatter(lambda x, _: f"{x:g}")
    few = ks.shape[0] == 0 or ks.max() <= 100  # two decades or less: 1, 2, 5, 10, ...
    for ax, (panel_title, keys) in zip(axes, panels, strict=False):
        for j, key in enumerate(keys):
            vals = np.asarray(values[key], dtype=float)
            colour = f"C{j % 10}"
            shown = keep[~np.isnan(vals[keep])]
            line = styles[(j // 10) % len(styles)] \
                if shown.shape[0] > 0.5 * keep.shape[0] else "o"
            ax.plot(ks[shown], vals[shown], line, color=colour, ms=3, lw=1.2,
                    label=visible(key, backslash=False))
            if key in best:
                ax.plot([best[key].n_clusters], [best[key].value], "*", color=colour, ms=11,
                        mec="k", mew=0.6)
        ax.set_xscale("log")
        # plain numbers: the default log labels are mathtext, which is off here; minor
        # ticks (labelled by default when the axis spans less than a decade) unlabelled
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if few else (1.0,)))
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set(xlabel="number of clusters of the cut", title=panel_title)
        ax.grid(alpha=0.3, which="both")
        if true_k is not None:
            ax.axvline(true_k, color="0.4", ls=":", lw=1)
        ax.legend(fontsize=7, loc="best")
    for ax in axes[len(panels):]:
        ax.set_axis_off()
    if title:
        fig.suptitle(visible(title))
    return _png(fig)
