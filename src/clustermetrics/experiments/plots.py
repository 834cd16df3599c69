"""The experiments' plots, as PNG bytes (matplotlib, imported lazily; no pyplot state).

Figures are built on ``matplotlib.figure.Figure`` and rendered by the Agg canvas, so they
never open a window nor touch the global backend. Text is drawn as written: every plot is
built and rendered with mathtext and TeX off (``text.parse_math`` and ``text.usetex``
False), so a label such as ``cost $a^$`` is text, not a formula to parse; control
characters in labels show as escapes, as in the text tables
(:func:`clustermetrics.render.text.visible`).

With mathtext off, matplotlib's own log-axis labels would print as raw markup, so every
axis follows one of a few rules here: log axes get their limits and labelled ticks from
:func:`_log_axis` (plain numbers, :func:`tick_text`); axes of counts (n, k, clusters)
have integer ticks only; numeric tick labels never touch (:func:`_legible` thins them
after layout); every legend sits outside the axes, so it never covers data; and series
share a panel only when their magnitudes are within a factor of ``SCALE_RATIO``
(:func:`scale_groups`), so a score in [0, 1] is never flattened by an unbounded one (a
score's lines carry its key as their ``gid``). Figures are laid out at 100 dpi and saved
at ``SCALE`` times that, so they stay crisp on high-density screens when shown at their
laid-out size.
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
           "scale_groups", "tick_text", "FIGURES", "PLOT_HINT", "SCALE", "SCALE_RATIO"]

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


DPI = 100  # the figures' layout resolution: one inch is 100 CSS pixels
SCALE = 2  # PNG pixels per CSS pixel: crisp on high-density (2x) screens
SCALE_RATIO = 10.0  # largest ratio of two series' magnitudes within one panel


def _legible(fig: Any) -> Any:
    """``fig`` with no numeric tick labels touching: after layout, an axis whose labels
    run into each other keeps every second one, until none touch (matplotlib's tick
    counts assume labels of three characters; "12500" is five). Heatmaps' class and
    cluster names are categories, never thinned."""
    from matplotlib.ticker import FixedFormatter, FixedLocator

    for _ in range(4):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        crowded = [axis for ax in fig.axes if ax.axison and not ax.images
                   for axis in (ax.xaxis, ax.yaxis) if _touching(axis, renderer)]
        if not crowded:
            break
        for axis in crowded:
            kept = _in_view(axis)[::2]
            locs = [loc for loc, _ in kept]
            if isinstance(axis.get_major_formatter(), FixedFormatter):  # set_ticks' labels
                axis.set_ticks(locs, [tick.label1.get_text() for _, tick in kept])
            else:  # its formatter (and offset text, if any) stays
                axis.set_major_locator(FixedLocator(locs))
    return fig


def _in_view(axis: Any) -> list[tuple[float, Any]]:
    """(location, tick) of ``axis``'s major ticks within its view, after a draw."""
    lo, hi = sorted(axis.get_view_interval())
    slack = 1e-9 * (hi - lo)
    return [(float(loc), tick) for loc, tick in
            zip(axis.get_majorticklocs(), axis.get_major_ticks(), strict=False)
            if lo - slack <= loc <= hi + slack]


def _touching(axis: Any, renderer: Any) -> bool:
    """Whether two of ``axis``'s visible major tick labels overlap."""
    boxes = [label.get_window_extent(renderer) for _, tick in _in_view(axis)
             for label in (tick.label1, tick.label2)
             if label.get_visible() and label.get_text()]
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def _png(fig: Any) -> bytes:
    """The figure, its tick labels thinned where they touch (:func:`_legible`), as PNG at
    ``SCALE`` times its layout resolution; the file records that resolution (its pHYs
    chunk), from which a page shows it at its laid-out size."""
    _legible(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI * SCALE)
    return buf.getvalue()


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075"
                                            "\u2076\u2077\u2078\u2079")
_MINUS = "\N{MINUS SIGN}"


def tick_text(x: float) -> str:
    """A tick's number as plain text: decimals from 0.0001 to 100,000, powers of ten
    with superscript exponents beyond (mathtext is off in these plots).

    >>> [tick_text(x) for x in (0, 0.001, 2.5, 20000, 1e-5, 3e7, -1e6)]
    ['0', '0.001', '2.5', '20000', '10⁻⁵', '3×10⁷', '−10⁶']
    """
    if x == 0:
        return "0"
    sign = _MINUS if x < 0 else ""
    if 1e-4 <= abs(x) < 1e6:
        return sign + f"{abs(x):.6g}"
    mantissa, exponent = f"{abs(x):.3e}".split("e")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    digits = f"{float(mantissa):g}"
    return sign + (power if digits == "1" else f"{digits}\N{MULTIPLICATION SIGN}{power}")


def _rounded(x: float) -> str:
    """``x`` to three significant digits, as :func:`tick_text` writes numbers."""
    return tick_text(float(f"{x:.3g}"))


def _positive(values: Any) -> np.ndarray:
    v = np.asarray(values, dtype=float).ravel()
    return v[np.isfinite(v) & (v > 0)]


def _log_axis(ax: Any, which: str, values: Any, *, integer: bool = False,
              at: Sequence[float] | None = None) -> None:
    """Log scale on ``ax``'s ``which`` axis ("x" or "y"), its limits around ``values``
    and its labelled ticks plain numbers: the values ``at`` when given and spread enough
    to stay legible; else 1-2-5 steps of each decade over up to two and a half decades,
    decades (at most eight labelled) beyond; linear steps below one decade. A span under
    0.6 decade (one point) is widened to it, so at least two ticks are labelled; minor
    ticks draw grid lines only. ``integer``: counts, so only whole ticks."""
    from matplotlib.ticker import MaxNLocator, NullFormatter

    v = _positive(values)
    lo, hi = (float(v.min()), float(v.max())) if v.size else (1.0, 10.0)
    span = np.log10(hi / lo)
    pad = 10 ** max(0.05 * span, 0.3 - span / 2)
    lo, hi = lo / pad, hi * pad
    span = np.log10(hi / lo)
    if at is not None and _spread(at, span):
        ticks = np.asarray(at, dtype=float)
    elif span < 1:
        ticks = MaxNLocator(nbins=4, integer=integer).tick_values(lo, hi)
    else:
        subs = (1.0, 2.0, 5.0) if span <= 2.5 else (1.0,)
        decades = np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)
        decades = decades[::max(1, int(np.ceil(decades.shape[0] / 8)))]
        ticks = np.array([s * 10.0 ** d for d in decades for s in subs])
    ticks = ticks[(ticks >= lo) & (ticks <= hi)]
    if integer:
        ticks = ticks[ticks == np.round(ticks)]
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)
    axis.set_ticks(ticks, [tick_text(t) for t in ticks])
    axis.set_minor_formatter(NullFormatter())


def _spread(at: Sequence[float], span: float) -> bool:
    """Whether the ticks ``at`` are few and far enough apart on a log axis of ``span``
    decades to be labelled without touching (at most 8, none closer than 1/10 of it)."""
    logs = np.log10(np.sort(_positive(at)))
    return 2 <= logs.shape[0] <= 8 and bool(np.all(np.diff(logs) >= span / 10))


def _integer_axis(ax: Any, which: str, values: Any) -> None:
    """Integer ticks on ``ax``'s linear ``which`` axis, for counts (n, k); a span under
    2 (one point) is widened to one on each side, so at least two ticks show."""
    from matplotlib.ticker import MaxNLocator

    axis = ax.xaxis if which == "x" else ax.yaxis
    # "auto": as many ticks as the axis's length holds labels, as matplotlib's default
    axis.set_major_locator(MaxNLocator(nbins="auto", integer=True, steps=[1, 2, 2.5, 5, 10]))
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if v.size and v.max() - v.min() < 2:
        (ax.set_xlim if which == "x" else ax.set_ylim)(v.min() - 1, v.max() + 1)


def _legend_beside(ax: Any, fontsize: float = 7, **kwargs: Any) -> None:
    """``ax``'s legend outside it, to its right (the constrained layout makes room), so
    it never covers data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              fontsize=fontsize, **kwargs)


def _figure_legend(fig: Any, axes: Sequence[Any], fontsize: float = 8) -> None:
    """One legend for series shared by several panels, outside them on the right."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="outside right upper",
                   fontsize=fontsize)


def _magnitude(values: Any) -> float:
    """The scale of a series: its largest finite absolute value, 1 at least (a score
    within [-1, 1] is on the unit scale however small its values)."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    return max(1.0, float(np.abs(v).max())) if v.size else 1.0


def scale_groups(keys: Sequence[str], values: Mapping[str, Any],
                 ratio: float = SCALE_RATIO) -> list[list[str]]:
    """``keys`` grouped so that within a group no series' magnitude exceeds another's by
    more than ``ratio`` (magnitudes under 1 count as 1): groups by increasing magnitude,
    each in the order of ``keys``. On one linear axis a series of a group is then never
    flattened by another's range.

    >>> scale_groups(["mcnemar", "ari", "southwood"],
    ...              {"mcnemar": [-87, 87], "ari": [0, 0.9], "southwood": [0.2, 3]})
    [['ari', 'southwood'], ['mcnemar']]
    """
    groups: list[list[str]] = []
    first = 0.0
    for key in sorted(keys, key=lambda k: _magnitude(values[k])):
        m = _magnitude(values[key])
        if groups and m <= first * ratio:
            groups[-1].append(key)
        else:
            groups.append([key])
            first = m
    rank = {k: i for i, k in enumerate(keys)}
    return [sorted(g, key=rank.__getitem__) for g in groups]


@_plain_text
def recovery_plot(rates: Mapping[str, Mapping[int, Sequence[float]]],
                  pseudo: Mapping[str, Mapping[int, Sequence[float]]]) -> bytes:
    """Exact recovery rate against n per algorithm (mean over runs, bars: min..max), and
    the pseudo rate beside it. ``rates[algorithm][n]`` lists the rates of its runs."""
    fig = _figure(11, 4.2)
    left, right = fig.subplots(1, 2, sharey=True)
    ns_all = sorted({n for data in (rates, pseudo) for by_n in data.values() for n in by_n})
    for ax, data, title in ((left, rates, "exact recovery rate"),
                            (right, pseudo, "pseudo recovery rate")):
        for name, by_n in data.items():
            ns = sorted(by_n)
            vals = [np.asarray(by_n[n], dtype=float) * 100 for n in ns]
            mean = np.array([v.mean() for v in vals])
            err = np.array([[m - v.min() for v, m in zip(vals, mean, strict=True)],
                            [v.max() - m for v, m in zip(vals, mean, strict=True)]])
            ax.errorbar(ns, mean, yerr=err, marker="o", ms=4, capsize=2,
                        label=visible(name))
        ax.set(title=title, xlabel="n (number of true clusters)", ylim=(0, 105))
        _integer_axis(ax, "x", ns_all)
        ax.grid(alpha=0.3)
    left.set_ylabel("%")
    _figure_legend(fig, [left, right])
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
    if paper:
        ns = sorted(paper)
        left.plot(ns, [paper[n] for n in ns], "x--", color="k", label="paper, Algorithm 1")
    for ax, rows, extra in ((left, small, paper), (right, large, {})):
        for method, (colour, label) in styles.items():
            pts = sorted((r.n, r.seconds) for r in rows if r.method == method)
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", ms=4, color=colour, label=label)
        _log_axis(ax, "y", [r.seconds for r in rows] + list(extra.values()))
        ax.set(xlabel="n (classes = clusters)", ylabel="seconds")
        ax.grid(alpha=0.3, which="both")
    _integer_axis(left, "x", [r.n for r in small] + list(paper))
    _log_axis(right, "x", [r.n for r in large], integer=True)
    left.set_title("recovery rate of an n x n table")
    right.set_title("exact and greedy on sparse tables")
    _figure_legend(fig, [left, right])
    return _png(fig)


@_plain_text
def chance_plot(curves: Sequence[Any]) -> bytes:
    """Mean score against k, one column per experiment: bounded scores on top, adjusted
    ones thick and named, the others thin and coloured by family; unbounded scores (MI,
    chi2, ...) below, in panels of similar magnitude (:func:`scale_groups`)."""
    columns = [_chance_panels(c) for c in curves]
    n_rows = max([len(panels) for panels in columns] + [1])
    fig = _figure(7.5 * max(1, len(curves)), 0.6 + 3.6 * n_rows)
    axes = np.asarray(fig.subplots(n_rows, max(1, len(curves)), squeeze=False))
    adjusted = list(dict.fromkeys(k for c in curves for k in c.mean if METRICS[k].adjusted))
    for col, (c, panels) in enumerate(zip(curves, columns, strict=True)):
        for row, (bounded, keys) in enumerate(panels):
            _chance_panel(axes[row, col], c, keys, bounded, adjusted)
        axes[0, col].set_title(visible(c.setup.title))
        for ax in axes[len(panels):, col]:
            ax.set_axis_off()
    return _png(fig)


def _chance_panels(c: Any) -> list[tuple[bool, list[str]]]:
    """(bounded, scores) of each panel of one experiment: the scores with a finite upper
    bound, then the unbounded ones, each split by magnitude."""
    bounded = [k for k in c.mean if np.isfinite(METRICS[k].upper)]
    unbounded = [k for k in c.mean if not np.isfinite(METRICS[k].upper)]
    return [(True, g) for g in scale_groups(bounded, c.mean)] + \
        [(False, g) for g in scale_groups(unbounded, c.mean)]


def _chance_panel(ax: Any, c: Any, keys: Sequence[str], bounded: bool,
                  adjusted: Sequence[str]) -> None:
    """One panel of :func:`chance_plot`: adjusted scores thick, each its own colour
    (they overlap near 0); in a bounded panel the others thin in their family's colour."""
    from matplotlib import colormaps

    strong = colormaps["tab20"].colors[::2] + colormaps["tab20"].colors[1::2]
    families = set()
    for key in keys:
        entry = METRICS[key]
        if entry.adjusted:
            ax.plot(c.ks, c.mean[key], lw=2.2, marker="o", ms=3, label=key, zorder=3,
                    color=strong[adjusted.index(key) % len(strong)], gid=key)
        elif bounded:
            ax.plot(c.ks, c.mean[key], lw=0.8, color=_FAMILY_COLOURS[entry.family], gid=key)
            families.add(entry.family)
        else:
            ax.plot(c.ks, c.mean[key], lw=1.2, marker="o", ms=2, label=key, gid=key)
    for family, colour in _FAMILY_COLOURS.items():
        if family in families:
            ax.plot([], [], lw=0.8, color=colour, label=f"{family} (not adjusted)")
    ax.axhline(0, color="k", lw=0.6)
    if bounded:
        low = min([-0.1] + [float(np.nanmin(c.mean[k])) - 0.05 for k in keys])
        ax.set_ylim(low, 1.05)
    scale = f"up to {_rounded(max(_magnitude(c.mean[k]) for k in keys))}"
    ax.set(xlabel=f"k (n_samples = {c.setup.n_samples})",
           ylabel="mean score" if bounded else f"mean score (unbounded, {scale})")
    _integer_axis(ax, "x", c.ks)
    ax.grid(alpha=0.3)
    _legend_beside(ax)




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
    fig = _figure(1.2 + 2.6 * len(keys), 2.4 * len(shapes) + 0.6)
    axes = np.asarray(fig.subplots(len(shapes), len(keys), squeeze=False, sharey=True))
    low = max(0.0, min([0.5] + [r.coverage - 0.05 for r in rows]))
    for i, shape in enumerate(shapes):
        for j, key in enumerate(keys):
            ax = axes[i, j]
            cells = [r for r in rows if r.shape == shape and r.metric == key]
            if not cells:
                ax.set_axis_off()
                continue
            sizes = sorted({r.n for r in cells})
            se = 2 * np.sqrt(level * (1 - level) / cells[0].n_tables)
            ax.axhspan(level - se, level + se, color="0.9", zorder=0)
            ax.axhline(level, color="k", lw=0.8)
            for method in methods:
                by_n = {r.n: r.coverage for r in cells if r.method == method}
                ax.plot(sizes, [by_n.get(n, np.nan) for n in sizes], marker="o", ms=3,
                        lw=1.2, label=visible(method))
            _log_axis(ax, "x", sizes, integer=True, at=sizes)
            ax.tick_params(axis="x", labelsize=7)
            ax.set_title(visible(f"{shape}: {key}"), fontsize=8)
            ax.set_ylim(low, 1.01)
            ax.grid(alpha=0.3)
            if i == len(shapes) - 1:
                ax.set_xlabel("sample size n")
            if j == 0:
                ax.set_ylabel("coverage")
    _figure_legend(fig, list(axes.ravel()), fontsize=7)
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


def hierarchy_panels(keys: Sequence[str], values: Mapping[str, Any] | None = None
                     ) -> list[tuple[str, list[str]]]:
    """The panels of :func:`hierarchy_plot`: (title, scores), every score in exactly one.

    Scores are grouped by their range in the registry (``lower``, ``upper``): [0, 1];
    other bounded ranges; bounded above only or also negative (chance-adjusted scores);
    and unbounded, where each family gets its own panels (nats, statistics and ratios do
    not share a scale). A bounded group whose scores do not fit in one panel is split by
    family too. With ``values`` (each score's values at the cuts), a group whose
    magnitudes differ by more than ``SCALE_RATIO`` is split by magnitude
    (:func:`scale_groups`: McNemar's statistic, up to hundreds, would flatten Kendall's
    tau). A group of more than ``HIERARCHY_LINES`` scores is split into panels of
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
            scaled = [chosen] if values is None else scale_groups(chosen, values)
            for group in scaled:
                top = f", |value| up to {_rounded(max(_magnitude(values[k]) for k in group))}" \
                    if len(scaled) > 1 and values is not None else ""
                panels += _parts(title + top, group)
    return panels


def _parts(title: str, keys: list[str]) -> list[tuple[str, list[str]]]:
    """``keys`` in panels of at most ``HIERARCHY_LINES``, of nearly equal size."""
    parts = -(-len(keys) // HIERARCHY_LINES)
    size = -(-len(keys) // parts)
    return [(title if parts == 1 else f"{title} ({i + 1} of {parts})",
             keys[i * size:(i + 1) * size]) for i in range(parts)]


@_plain_text
def hierarchy_plot(n_clusters: np.ndarray, values: Mapping[str, np.ndarray],
                   best: Mapping[str, Any], true_k: int | None = None,
                   title: str = "") -> bytes:
    """Score against the number of clusters of each cut of a dendrogram, log-x, the best
    cut of each score marked; every score drawn, in panels grouped by range and
    magnitude (:func:`hierarchy_panels`). Scores known only at some cuts are drawn as
    points."""
    panels = hierarchy_panels(list(values), values)
    n_rows = max(1, -(-len(panels) // 2))
    fig = _figure(12, 1.0 + 3.4 * n_rows)
    axes = np.atleast_1d(fig.subplots(n_rows, 2, squeeze=False)).ravel()
    ks = np.asarray(n_clusters)
    keep = np.unique(np.concatenate([
        np.unique(np.geomspace(1, ks.shape[0], _CURVE_POINTS).astype(np.int64) - 1),
        np.searchsorted(ks, [b.n_clusters for b in best.values()])]))
    styles = ("-", "--", "-.", ":")
    for ax, (panel_title, keys) in zip(axes, panels, strict=False):
        for j, key in enumerate(keys):
            vals = np.asarray(values[key], dtype=float)
            colour = f"C{j % 10}"
            shown = keep[~np.isnan(vals[keep])]
            line = styles[(j // 10) % len(styles)] \
                if shown.shape[0] > 0.5 * keep.shape[0] else "o"
            ax.plot(ks[shown], vals[shown], line, color=colour, ms=3, lw=1.2,
                    label=visible(key, backslash=False), gid=key)
            if key in best:
                ax.plot([best[key].n_clusters], [best[key].value], "*", color=colour, ms=11,
                        mec="k", mew=0.6, gid=key)
        _log_axis(ax, "x", [*ks.tolist(), *([true_k] if true_k is not None else [])],
                  integer=True)
        ax.set(xlabel="number of clusters of the cut", title=panel_title)
        ax.grid(alpha=0.3, which="both")
        if true_k is not None:
            ax.axvline(true_k, color="0.4", ls=":", lw=1)
        _legend_beside(ax)
    for ax in axes[len(panels):]:
        ax.set_axis_off()
    if title:
        fig.suptitle(visible(title))
    return _png(fig)


#: Every figure the reports draw, by kind (the gallery's file name for it).
FIGURES: dict[str, Callable[..., bytes]] = {
    "heatmap": heatmap_plot, "projection": projection_plot, "recovery": recovery_plot,
    "timing": timing_plot, "chance": chance_plot, "coverage": coverage_plot,
    "hierarchy": hierarchy_plot,
}
