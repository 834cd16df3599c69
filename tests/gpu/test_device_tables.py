"""Labels on a GPU (CuPy arrays, PyTorch CUDA tensors) give exactly the table and scores
of the same labels in numpy. Collected only with --gpu (make test-gpu): make test installs
no GPU library."""

from __future__ import annotations

import cupy as cp
import numpy as np
import pytest
import torch

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.io.chunks import ContingencyBuilder

LIBRARIES = {"cupy": cp.asarray, "torch": lambda a: torch.from_numpy(a).to("cuda")}
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.float32, np.float64, np.bool_]


def _labels(rng, dtype, n, shape):
    """Labels of ``dtype``: a dense range, a spread over the whole type, or one class."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if shape == "one":
        return np.full(n, 3, dtype=dtype)
    if dtype.kind == "f":
        values = rng.normal(size=max(n // 7, 1)).astype(dtype)
        values[0] = -0.0
        return rng.choice(values, n)
    info = np.iinfo(dtype)
    if shape == "spread":
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return rng.integers(max(info.min, -50), min(info.max, 200), n).astype(dtype)


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ["dense", "spread", "one"])
@pytest.mark.parametrize("n", [1, 1000, 300_000])
def test_device_labels_give_the_numpy_table_and_scores(library, dtype, shape, n):
    rng = np.random.default_rng(n + len(shape))
    t, p = _labels(rng, dtype, n, shape), _labels(rng, np.int64, n, "dense")
    to = LIBRARIES[library]
    want = Contingency.from_labels(t, p)
    got = Contingency.from_labels(to(t), to(p))
    assert got == want and got.class_labels.dtype == want.class_labels.dtype
    assert cm.adjusted_rand_score(to(t), to(p)) == cm.adjusted_rand_score(t, p)
    assert cm.evaluate(to(t), to(p)).to_json() == cm.evaluate(t, p).to_json()


@pytest.mark.parametrize("library", LIBRARIES)
def test_builder_and_weights_on_the_device(library):
    rng = np.random.default_rng(7)
    to = LIBRARIES[library]
    t, p = rng.integers(0, 50, 10_000), rng.integers(-5, 5000, 10_000)
    for w in (rng.integers(0, 4, 10_000), rng.random(10_000).astype(np.float32)):
        want = Contingency.from_labels(t, p, w)
        assert Contingency.from_labels(to(t), to(p), to(w)) == want
        builder = ContingencyBuilder(merge_every=2)
        for part in np.array_split(np.arange(10_000), 5):
            builder.update(to(t[part]), to(p[part]), to(w[part]))
        assert builder.result() == want


def test_per_rank_tables_merge_to_the_whole():
    """What DistributedDataParallel ranks do (docs/guide/gpu.md): a builder each, one merge."""
    rng = np.random.default_rng(3)
    t, p = rng.integers(0, 1000, 10**6), rng.integers(0, 1000, 10**6)
    ranks = [ContingencyBuilder() for _ in range(4)]
    for i, part in enumerate(np.array_split(np.arange(10**6), 40)):
        ranks[i % 4].update(torch.from_numpy(t[part]).cuda(), torch.from_numpy(p[part]).cuda())
    assert Contingency.merge(b.result() for b in ranks) == Contingency.from_labels(t, p)


def test_labels_on_two_devices_are_refused():
    with pytest.raises(ValueError, match="labels_true is on device cuda:0 .* but labels_pred "
                                         "is on device cpu"):
        cm.adjusted_rand_score(torch.arange(3).cuda(), torch.arange(3))
    with pytest.raises(ValueError, match=r"\(cupy\) but labels_pred is on device .*\(torch\)"):
        cm.adjusted_rand_score(cp.arange(3), torch.arange(3).cuda())
