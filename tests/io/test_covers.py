"""read_cover: a file of (item, community) rows gives, through every engine, the cover of
its distinct pairs, equal to the cover built in memory from the same pairs."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Cover

ROWS = [("n1", "A"), ("n2", "A"), ("n2", "B"), ("n3", "B"), ("n2", "B"), ("n4", "C")]


@pytest.fixture(scope="module")
def spark(spark_session):
    spark_session.conf.set("spark.sql.shuffle.partitions", "1")
    return spark_session


def _write(folder, kind: str, rows) -> str:
    if kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = str(folder / "cover.parquet")
        pq.write_table(pa.table({"node": [r[0] for r in rows],
                                 "community": [r[1] for r in rows]}), path)
        return path
    path = str(folder / f"cover.{kind}")
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t" if kind == "tsv" else ",",
                            lineterminator="\n")
        writer.writerow(["node", "community"])
        writer.writerows(rows)
    return path


@pytest.mark.parametrize("kind", ["csv", "tsv", "parquet"])
@pytest.mark.parametrize("engine", ["memory", "duckdb",
                                    pytest.param("spark", marks=pytest.mark.slow)])
def test_every_engine_reads_the_cover_of_the_distinct_pairs(tmp_path, kind, engine, request):
    spark = request.getfixturevalue("spark") if engine == "spark" else None
    path = _write(tmp_path, kind, ROWS)
    cover = cm.read_cover(path, item_col="node", community_col="community", engine=engine,
                          spark=spark)
    expected = Cover.from_pairs([r[0] for r in ROWS], [r[1] for r in ROWS])
    assert cover.to_communities() == expected.to_communities() == {
        "A": ["n1", "n2"], "B": ["n2", "n3"], "C": ["n4"]}
    assert cover.n_memberships == 5


def test_a_missing_id_is_refused_by_its_column_or_dropped(tmp_path):
    path = _write(tmp_path, "csv", ROWS + [("n5", "")])
    with pytest.raises(ValueError, match="community"):
        cm.read_cover(path, item_col="node", community_col="community", engine="memory")
    stats: dict = {}
    cover = cm.read_cover(path, item_col="node", community_col="community",
                          engine="memory", drop_null=True, stats=stats)
    assert stats["skipped"] == 1 and cover.n_items == 4


def test_a_cover_read_from_a_file_scores_as_the_same_cover_in_memory(tmp_path):
    path = _write(tmp_path, "csv", ROWS)
    cover = cm.read_cover(path, item_col="node", community_col="community")
    truth = [["n1", "n2"], ["n3", "n4"]]
    assert cm.overlapping_nmi_score(truth, cover) == pytest.approx(
        cm.overlapping_nmi_score(truth, [["n1", "n2"], ["n2", "n3"], ["n4"]]), abs=1e-15)


@settings(max_examples=20, deadline=None)
@given(missing=st.from_regex(r"[a-z]{1,8}", fullmatch=True),
       which=st.sampled_from(["item_col", "community_col"]),
       engine=st.sampled_from(["memory", "duckdb"]))
def test_a_missing_column_is_named_by_read_covers_parameter(tmp_path_factory, missing, which,
                                                            engine):
    """The engines read a (true_col, pred_col) table; their message must name item_col or
    community_col, the parameters the caller gave, never read_table's."""
    path = _write(tmp_path_factory.mktemp("c"), "csv", ROWS)
    columns = {"item_col": "node", "community_col": "community"}
    if missing in columns.values():
        return
    columns[which] = missing
    with pytest.raises(ValueError, match=rf"no column '{missing}' \({which}\)"):
        cm.read_cover(path, engine=engine, **columns)
