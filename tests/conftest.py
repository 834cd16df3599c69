"""Fixtures shared by the whole test run."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark_session():
    """One local Spark session for every Spark test of the run (a JVM starts once): each
    module sets the shuffle partitions it wants (a runtime setting) through its ``spark``
    fixture."""
    from spark_session import local_spark  # pyspark only where a Spark test runs

    session = local_spark("clustermetrics-tests", cores=2)
    yield session
    session.stop()


def pytest_addoption(parser):
    parser.addoption("--gpu", action="store_true",
                     help="collect tests/gpu (CuPy and PyTorch on a GPU: make test-gpu)")


def pytest_ignore_collect(collection_path, config):
    """tests/gpu needs a GPU and its libraries, which make test installs neither of: it is
    collected only with --gpu."""
    if collection_path.name == "gpu" and collection_path.parent.name == "tests":
        return not config.getoption("--gpu")
    return None
