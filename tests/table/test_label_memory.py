"""Memory follows the characters of the labels, not rows x the longest label.

numpy's fixed-width string arrays pad every label to the longest: one label of 2*10^4
characters among 5*10^3 rows costs 400 MB as a 'U' array, and 10^5 among 10^6 rows
400 GB. Every way labels come in (Python lists, text files, Parquet, chunks, merged
tables) must keep the peak a small multiple of the characters read; tracemalloc sees
numpy's buffers, so a padded array anywhere fails the bound below.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from clustermetrics import Contingency
from clustermetrics.cli.engines import table_from_files
from clustermetrics.io import from_chunks

ROWS, LONG = 5000, 20_000
# the padded array of one column would take ROWS * LONG * 4 bytes = 400 MB; the bound
# leaves room for the reader's fixed buffers (16 MiB windows) and nothing like that
BOUND = 40 << 20


def _labels(where: int):
    t = [f"a{i % 7}" for i in range(ROWS)]
    t[where] = "x" * LONG
    p = [f"b{i % 5}" for i in range(ROWS)]
    return t, p


def _peak(call) -> int:
    call()  # imports and caches first: they are not the labels' memory
    tracemalloc.start()
    try:
        result = call()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def _csv(folder, t, p):
    path = folder / "long.csv"
    path.write_text("t,p\n" + "".join(f"{a},{b}\n" for a, b in zip(t, p, strict=True)))
    return str(path)


def _lines(folder, name, labels):
    path = folder / name
    path.write_text("".join(f"{a}\n" for a in labels))
    return str(path)


READERS = {
    "list": lambda d, t, p: lambda: Contingency.from_labels(t, p),
    "tuple": lambda d, t, p: lambda: Contingency.from_labels(tuple(t), tuple(p)),
    "table file": lambda d, t, p: (lambda path: lambda: table_from_files(
        "memory", path, None, true_col="t", pred_col="p"))(_csv(d, t, p)),
    "two files": lambda d, t, p: (lambda a, b: lambda: table_from_files(
        "memory", a, b, true_col=None, pred_col=None))(_lines(d, "t.txt", t),
                                                      _lines(d, "p.txt", p)),
    "parquet": lambda d, t, p: (lambda path: lambda: table_from_files(
        "memory", path, None, true_col="t", pred_col="p"))(_parquet(d, t, p)),
    "chunks": lambda d, t, p: lambda: from_chunks(
        [(t[i:i + 1000], p[i:i + 1000]) for i in range(0, ROWS, 1000)]),
    # two tables of numpy string arrays of different widths: merging must not pad the
    # short labels of one to the width of the other
    "merge": lambda d, t, p: (lambda a, b: lambda: Contingency.merge([a, b]))(
        Contingency.from_labels(np.array(["x" * LONG]), np.array(["c"])),
        Contingency.from_labels(np.array([f"{i}" for i in range(ROWS)]), np.array(p))),
}


def _parquet(folder, t, p):
    path = folder / "long.parquet"
    pq.write_table(pa.table({"t": t, "p": p}), path)
    return str(path)


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("where", [0, ROWS // 2, ROWS - 1])
def test_a_long_label_costs_its_characters_not_rows_times_its_length(tmp_path, reader,
                                                                     where):
    t, p = _labels(where)
    peak, table = _peak(READERS[reader](tmp_path, t, p))
    assert peak < BOUND, f"{reader}: peak {peak / 2**20:.0f} MiB"
    if reader != "merge":  # and the table is the table of the labels
        assert table.n_samples == ROWS and "x" * LONG in table.class_labels.tolist()
        assert table == Contingency.from_labels(np.array(t, dtype=object),
                                                np.array(p, dtype=object))


@pytest.mark.parametrize("first", [7, 2.5, None, b"x", True])
def test_mixed_sequences_with_a_long_label_are_not_padded(first):
    # numpy would make [7, "x" * 20000, ...] a padded string array before anything else
    t, p = _labels(ROWS // 2)
    labels = [first] + t[1:]
    if first is None:  # a missing label: the error, without the padded array first
        peak, _ = _peak(lambda: pytest.raises(ValueError, Contingency.from_labels, labels, p))
    else:
        peak, table = _peak(lambda: Contingency.from_labels(labels, p))
        assert first in table.class_labels.tolist() and table.n_samples == ROWS
    assert peak < BOUND, f"peak {peak / 2**20:.0f} MiB"
