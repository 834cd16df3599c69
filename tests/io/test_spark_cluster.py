"""Spark on a cluster: the master URL and the paths executors open (io/spark_cluster.py),
and a real standalone cluster on loopback (a master and two workers started with
pyspark's own launcher) counting generated files into the memory engine's tables.

The cluster's reads run in a driver process of their own: a process runs one
SparkContext, and the other Spark tests keep a local one open in this process.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import pickle
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.cli import main
from clustermetrics.io import spark_cluster
from clustermetrics.io.spark_cluster import check_master, cluster_paths, reach_master

SRC = str(Path(cm.__file__).resolve().parents[1])


# ------------------------------------------------------------------ master URLs
@pytest.mark.parametrize("master", [
    "local", "local[1]", "local[16]", "local[*]", "local[4,2]", "local[*,3]", "yarn",
    "spark://127.0.0.1:7077", "spark://node-1.example.org:7077,node-2:7078",
    "spark://[::1]:7077", "k8s://https://10.0.0.1:6443", "k8s://api.example.org",
    "k8s://http://localhost:8080/"])
def test_master_urls_spark_accepts_pass(master):
    assert check_master(master, "--spark-master") == master


@pytest.mark.parametrize("master", [
    "", "local[0]", "local[]", "local[2", "local[-1]", "locale", "spark://", "spark://host",
    "spark://host:0", "spark://host:70000", "spark://host:7077,", "spark://-host:1",
    "mesos://host:5050", "YARN", "yarn-client", "k8s://", "k8s://host:99999",
    "http://host:7077", " local", "spark://host:7077 "])
def test_malformed_masters_are_refused_naming_the_option(master):
    with pytest.raises(ValueError, match=r"^--spark-master .* is not a Spark master URL; "
                                         r"give local, "):
        check_master(master, "--spark-master")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="spark:/lochyt[]*,0123456789.-8", max_size=24))
def test_a_master_is_accepted_only_in_a_form_spark_reads(text):
    """Generated near-misses: whatever is accepted is one of the documented forms, with
    ports in range; everything else is a ValueError, never another exception."""
    try:
        check_master(text)
    except ValueError as exc:
        assert str(exc).startswith(f"master {text!r} is not"), exc
        return
    host = r"([\w.-]+|\[[\d:.a-f]+\])"
    forms = (r"local(\[(\*|[1-9]\d*)(,[1-9]\d*)?\])?", r"yarn",
             rf"spark://{host}:\d+(,{host}:\d+)*", rf"k8s://(https?://)?{host}(:\d+)?/?")
    assert any(re.fullmatch(form, text) for form in forms), text
    assert all(0 < int(port) < 65536 for port in re.findall(r":(\d+)", text)), text


def test_a_master_that_is_no_string_is_refused():
    with pytest.raises(ValueError, match="master must be a Spark master URL .*got int"):
        check_master(7077)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_master_fails_at_once_naming_the_address():
    port = _closed_port()
    start = time.monotonic()
    with pytest.raises(ValueError, match=rf"^master 'spark://127.0.0.1:{port}': cannot "
                                         rf"connect \(127.0.0.1:{port}: "):
        reach_master(f"spark://127.0.0.1:{port}")
    assert time.monotonic() - start < 5


def test_a_silent_master_fails_after_the_timeout():
    """An address that never answers (a listening socket whose backlog is full) costs the
    timeout, not Spark's minutes of retries."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = server.getsockname()[1]
        fillers = []
        try:
            for _ in range(8):  # fill the backlog: later connections hang
                filler = socket.socket()
                filler.setblocking(False)
                filler.connect_ex(("127.0.0.1", port))
                fillers.append(filler)
            start = time.monotonic()
            with pytest.raises(ValueError, match=rf"127.0.0.1:{port} did not answer within "
                                                 r"0.5 s\)$"):
                reach_master(f"spark://127.0.0.1:{port}", timeout=0.5)
            assert time.monotonic() - start < 5
        finally:
            for filler in fillers:
                filler.close()


def test_one_reachable_master_of_several_is_enough():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        reach_master(f"spark://127.0.0.1:{_closed_port()},127.0.0.1:{port}")


def test_local_masters_and_yarn_connect_to_nothing_first():
    for master in ("local[2]", "yarn"):
        reach_master(master)  # no address to try: Spark finds its own


# ------------------------------------------------------------------ engine options
def test_a_master_asks_for_spark_and_another_engine_is_an_error(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("t,p\n1,a\n")
    for engine in ("memory", "duckdb"):
        with pytest.raises(ValueError, match=f"^master applies to engine='spark', not "
                                             f"{engine}$"):
            cm.read_table(path, true_col="t", pred_col="p", engine=engine,
                          master="local[1]")
    with pytest.raises(ValueError, match="engine='spark' reads one table"):
        cm.read_table(path, path, master="local[1]")  # auto: the master asks for Spark
    with pytest.raises(ValueError, match="memory_limit is DuckDB's and master Spark's"):
        cm.read_table(path, true_col="t", pred_col="p", memory_limit="1GB",
                      master="local[1]")
    with pytest.raises(ValueError, match="^master 'spark://x' is not a Spark master URL"):
        cm.read_table(path, true_col="t", pred_col="p", master="spark://x")


def test_cli_spark_master_errors_are_one_line_with_status_2(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("t,p\n1,a\n")
    cases = {("--spark-master", "spark://h"): "--spark-master 'spark://h' is not a Spark "
                                              "master URL",
             ("--spark-master", "local", "--engine", "duckdb"): "--spark-master applies to "
                                                                "--engine spark, not duckdb",
             ("--spark-master", "local", "--memory-limit", "1GB"): "--memory-limit is "
                                                                   "DuckDB's and "
                                                                   "--spark-master Spark's"}
    for flags, message in cases.items():
        code = main(["score", str(path), "--true-col", "t", "--pred-col", "p", *flags])
        err = capsys.readouterr().err
        assert code == 2 and message in err and err.count("\n") == 1, err


# ------------------------------------------------------------------ cluster paths
def test_cluster_paths_are_absolute_with_glob_characters_escaped(tmp_path, monkeypatch):
    folder = tmp_path / "a [b] {c}"
    folder.mkdir()
    for name in ("run[1].csv", "x*?.csv", "back\\slash.csv", "d.csv.gz"):
        (folder / name).write_text("")
    monkeypatch.chdir(folder)
    paths = cluster_paths(["run[1].csv", "x*?.csv", "back\\slash.csv", "d.csv.gz"], "src")
    assert list(paths.values()) == ["run[1].csv", "x*?.csv", "back\\slash.csv", "d.csv.gz"]
    for escaped, name in paths.items():
        assert os.path.isabs(escaped)
        # undoing Hadoop's escapes gives the file itself
        assert re.sub(r"\\(.)", r"\1", escaped) == str(folder / name)


@pytest.mark.parametrize("name, problem", [
    ("_part.csv", "starts with '_'"), (".part.parquet", "starts with '.'"),
    ("a:b.csv", "holds ':'"), ("d.csv.bz2", "read it as .bz2 compressed"),
    ("d.csv.GZ", "would not decompress it"), ("d.snappy", "read it as .snappy")])
def test_names_a_cluster_would_skip_or_misread_are_errors(tmp_path, name, problem):
    with pytest.raises(ValueError, match=r"^src: .*: on a Spark cluster executors open each "
                                         r"file by its own name, and .*"
                                         + re.escape(problem)):
        cluster_paths([str(tmp_path / name)], "src")


# ------------------------------------------------------------------ a real cluster
def _spark_class() -> str:
    import pyspark

    return os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-class")


def _launch(cls: str, args: list[str], log: Path, env: dict) -> subprocess.Popen:
    with open(log, "wb") as out:  # each in a process group of its own: killed whole
        return subprocess.Popen([_spark_class(), cls, *args], stdout=out,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)


def _wait(what: str, found, log: Path, timeout: float = 120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"{what} within {timeout} s; {log}:\n{log.read_text()[-3000:]}")


def _master_address(log: Path):
    text = log.read_text(errors="replace")
    url = re.search(r"Starting Spark master at (spark://\S+)", text)
    ui = re.search(r"MasterWebUI: Bound MasterWebUI to \S+, and started at http://[^:]+:(\d+)",
                   text)
    return url and ui and (url.group(1), int(ui.group(1)))


def _state(ui: int) -> dict:
    """The master's own account of its workers and applications."""
    with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=2) as reply:
        return json.load(reply)


def _alive_workers(ui: int) -> int:
    try:
        return sum(worker["state"] == "ALIVE" for worker in _state(ui)["workers"])
    except OSError:
        return 0


class Cluster(NamedTuple):
    url: str  # spark://127.0.0.1:PORT
    ui: int  # the port of the master's web UI and JSON


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """The URL of a standalone master on 127.0.0.1 with two registered workers of one core
    each; every port is chosen by the system (port 0), so parallel test runs never
    collide. The processes are killed however the tests end."""
    folder = tmp_path_factory.mktemp("spark-cluster")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1",
           "SPARK_DAEMON_JAVA_OPTS": "-XX:TieredStopAtLevel=1"}
    processes = []
    try:
        log = folder / "master.log"
        processes.append(_launch("org.apache.spark.deploy.master.Master",
                                 ["--host", "127.0.0.1", "--port", "0", "--webui-port", "0"],
                                 log, env))
        url, ui = _wait("the master started", lambda: _master_address(log), log)
        for i in (1, 2):
            work = folder / f"worker-{i}"
            work.mkdir()
            processes.append(_launch(
                "org.apache.spark.deploy.worker.Worker",
                [url, "--host", "127.0.0.1", "--port", "0", "--webui-port", "0", "--cores",
                 "1", "--memory", "1g", "--work-dir", str(work)], folder / f"worker-{i}.log",
                env))
        _wait("two workers registered", lambda: _alive_workers(ui) == 2, log)
        yield Cluster(url, ui)
    finally:
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()


def _driver_env() -> dict:
    """A driver process of ours: the quick JIT for it and its executors (halves their start)."""
    quick = "-XX:TieredStopAtLevel=1"
    return {**os.environ, "PYTHONPATH": SRC,
            "PYSPARK_SUBMIT_ARGS": f"--conf spark.driver.extraJavaOptions={quick} "
                                   f"--conf spark.executor.extraJavaOptions={quick} "
                                   "pyspark-shell"}


def _write_csv(path: Path, header: list[str], rows: list[list], gz: bool = False) -> None:
    opener = gzip.open if gz else open
    with opener(path, "wt", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter="\t" if ".tsv" in path.name else ",")
        writer.writerow(header)
        writer.writerows(rows)


def _cases(folder: Path) -> dict[str, dict]:
    """Generated tables, each as ``read_table``'s keywords: CSV (plain and gzip) and
    Parquet, integer, string and float labels, integer and real weights, missing labels
    with ``drop_null``, a glob of parts given as a relative path, awkward names."""
    rng = np.random.default_rng(20)
    n = 400
    t_int = rng.integers(-3, 6, n)
    p_int = rng.integers(0, 7, n) + 2**53
    words = np.array(["a", "b,c", 'q"uote', "line\nbreak", "ü", " sp "])
    t_str, p_str = words[rng.integers(0, 6, n)], words[rng.integers(0, 4, n)]
    floats = np.array([0.5, -0.0, 1e300, 2.25, 3.0])
    cases: dict[str, dict] = {}

    def add(name, path, **options):
        cases[name] = {"path": str(path), "true_col": "t", "pred_col": "p", **options}

    odd = folder / "a [dir] {x}"
    odd.mkdir()
    _write_csv(odd / "run[1].csv", ["t", "p"], [[a, b] for a, b in zip(t_str, p_str, strict=True)])
    add("csv strings, odd names", odd / "run[1].csv")
    _write_csv(folder / "ints.csv.gz", ["p", "x", "t"],
               [[b, "", a] for a, b in zip(t_int, p_int, strict=True)], gz=True)
    add("gzip csv integers", folder / "ints.csv.gz")
    weights = rng.integers(0, 5, n)
    _write_csv(folder / "weighted.tsv", ["t", "p", "w"],
               [[a, b, w] for a, b, w in zip(t_int, p_str, weights, strict=True)])
    add("tsv integer weights", folder / "weighted.tsv", weight_col="w")
    real = rng.choice([0.5, 1.25, 2.0, 0.0], n)
    _write_csv(folder / "real.csv", ["t", "p", "w"],
               [[a, b, w] for a, b, w in zip(t_str, p_int, real, strict=True)])
    add("csv real weights", folder / "real.csv", weight_col="w")
    missing = [[a if i % 7 else "", b if i % 11 else " "] for i, (a, b)
               in enumerate(zip(t_int, p_str, strict=True))]
    _write_csv(folder / "missing.csv", ["t", "p"], missing)
    add("csv missing labels dropped", folder / "missing.csv", drop_null=True)
    pq.write_table(pa.table({"t": t_int, "p": p_int}), folder / "ints.parquet")
    add("parquet integers", folder / "ints.parquet")
    float_t = floats[rng.integers(0, 5, n)]
    float_t[::9] = np.nan
    pred = pa.array(list(p_str), mask=np.arange(n) % 13 == 0)
    pq.write_table(pa.table({"t": float_t, "p": pred, "w": pa.array(weights, pa.int32())}),
                   folder / "floats.parquet")
    add("parquet floats, nulls dropped, weights", folder / "floats.parquet", drop_null=True,
        weight_col="w")
    parts = folder / "parts"
    parts.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(n), 3)):
        pq.write_table(pa.table({"p": p_str[rows], "t": t_str[rows]}),
                       parts / f"part-{i}.parquet")
    add("relative glob of parquet parts", "parts/*.parquet")
    return cases


_DRIVER = """
import json, pickle, sys
import clustermetrics as cm
from pyspark.sql import SparkSession

master, cases, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
# the session the reads find active: one application and one set of executors for all
session = (SparkSession.builder.master(master).appName("clustermetrics-tests")
           .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
           .config("spark.sql.shuffle.partitions", "2").getOrCreate())
session.sparkContext.setLogLevel("OFF")
results = {}
for name, options in cases.items():
    stats = {}
    try:
        results[name] = (cm.read_table(engine="spark", master=master, stats=stats, **options),
                         stats)
    except ValueError as exc:
        results[name] = (str(exc), stats)
executors = len(session.sparkContext._jsc.sc().statusTracker().getExecutorInfos()) - 1
session.stop()
# a cluster too small for the executor asked for: an error within the time allowed
from clustermetrics.io import spark_cluster
spark_cluster.EXECUTOR_TIMEOUT_S = 3
SparkSession.builder._options.clear()
from pyspark import SparkContext
SparkContext._jvm.java.lang.System.setProperty("spark.executor.memory", "64g")
try:
    cm.read_table(master=master, **next(iter(cases.values())))
    too_small = "read"
except ValueError as exc:
    too_small = str(exc)
with open(out, "wb") as fh:
    pickle.dump({"tables": results, "executors": executors, "too_small": too_small}, fh)
"""


@pytest.fixture(scope="session")
def cluster_reads(cluster, tmp_path_factory):
    """The generated cases, and what a driver process read of each on the cluster."""
    folder = tmp_path_factory.mktemp("cluster-files")
    cases = _cases(folder)
    out = folder / "reads.pickle"
    done = subprocess.run([sys.executable, "-c", _DRIVER, cluster.url, json.dumps(cases),
                           str(out)], cwd=folder, env=_driver_env(), capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-4000:]
    with open(out, "rb") as fh:
        return folder, cases, pickle.load(fh)


@pytest.mark.parametrize("case", [
    "csv strings, odd names", "gzip csv integers", "tsv integer weights", "csv real weights",
    "csv missing labels dropped", "parquet integers", "parquet floats, nulls dropped, weights",
    "relative glob of parquet parts"])
@pytest.mark.slow
@pytest.mark.xdist_group("spark-cluster")
@pytest.mark.filterwarnings("ignore:.* left out. they need integer item counts:UserWarning")
def test_a_cluster_counts_the_memory_engines_table(cluster_reads, case, monkeypatch):
    folder, cases, reads = cluster_reads
    monkeypatch.chdir(folder)  # the relative glob, as the driver read it
    table, stats = reads["tables"][case]
    assert isinstance(table, cm.Contingency), table
    memory_stats: dict = {}
    memory = cm.read_table(engine="memory", stats=memory_stats, **cases[case])
    assert table == memory
    assert table.class_labels.dtype == memory.class_labels.dtype
    assert table.cluster_labels.dtype == memory.cluster_labels.dtype
    assert table.real_valued == memory.real_valued
    assert (table.n_samples, table.nnz) == (memory.n_samples, memory.nnz)
    assert stats == memory_stats
    on_cluster, in_memory = cm.evaluate(table), cm.evaluate(memory)
    assert list(on_cluster) == list(in_memory)
    for key in in_memory:
        assert repr(on_cluster[key]) == repr(in_memory[key]), key


@pytest.mark.slow
@pytest.mark.xdist_group("spark-cluster")
def test_the_cluster_ran_executors_and_a_too_small_one_fails_in_bounded_time(cluster_reads,
                                                                          cluster):
    reads = cluster_reads[2]
    assert reads["executors"] == 2  # one per worker: the counting ran outside the driver
    assert reads["too_small"].startswith(f"master {cluster.url!r}: no executor started within "
                                         "3 s; the workers may lack the memory or cores"), \
        reads["too_small"]


@pytest.mark.slow
@pytest.mark.xdist_group("spark-cluster")
def test_cli_on_a_cluster_prints_the_memory_engines_scores(cluster, cluster_reads, capsys):
    folder, cases, _ = cluster_reads
    path = cases["tsv integer weights"]["path"]
    flags = [path, "--true-col", "t", "--pred-col", "p", "--weight-col", "w", "--format",
             "csv"]
    before = _state(cluster.ui)["completedapps"]
    done = subprocess.run([sys.executable, "-m", "clustermetrics", "score", *flags,
                           "--spark-master", cluster.url], env=_driver_env(), cwd=folder,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-4000:]
    # the command's own session ran as an application of the cluster, and ended
    after = _state(cluster.ui)["completedapps"]
    assert [app["name"] for app in after if app not in before] == ["clustermetrics"]
    # the memory engine's run in a fresh process too: a process that has compiled a kernel
    # may take its compiled path, whose sums can differ from numpy's in the last bit
    memory = subprocess.run([sys.executable, "-m", "clustermetrics", "score", *flags,
                             "--engine", "memory"], env=_driver_env(), cwd=folder,
                            capture_output=True,
                            text=True, timeout=180)
    assert memory.returncode == 0, memory.stderr[-4000:]
    assert done.stdout == memory.stdout


def test_cli_with_an_unreachable_master_fails_fast_in_one_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("t,p\n1,a\n2,b\n")
    master = f"spark://127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "clustermetrics", "score", str(path),
                           "--true-col", "t", "--pred-col", "p", "--spark-master", master],
                          env={**os.environ, "PYTHONPATH": SRC}, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"clustermetrics: error: --spark-master {master!r}: cannot "
                                  "connect"), done.stderr
    assert time.monotonic() - start < spark_cluster.CONNECT_TIMEOUT_S + 20
