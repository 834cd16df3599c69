"""Replicates scored on several threads give exactly what one thread gives: the draws stay in
the calling thread, in order, and the results come back in that order."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.compute import dispatch
from clustermetrics.compute import threads as _threads
from clustermetrics.compute.threads import scored_in_order
from clustermetrics.evaluation.paired import paired_comparison


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=40), st.integers(1, 4))
def test_results_come_back_in_input_order(delays, threads):
    drawn_in = []

    def inputs():
        for i, d in enumerate(delays):
            drawn_in.append(threading.get_ident())
            yield i, d

    def work(item):
        i, d = item
        time.sleep(d / 2000)  # later items often finish first
        return i * 10

    out = list(_threads.scored_in_order(work, inputs(), threads))
    assert out == [i * 10 for i in range(len(delays))]
    assert set(drawn_in) <= {threading.get_ident()}  # inputs drawn in the calling thread


def test_an_error_in_a_replicate_propagates_and_stops_the_drawing():
    drawn = []

    def inputs():
        for i in range(100):
            drawn.append(i)
            yield i

    def work(i):
        if i == 3:
            raise ValueError("replicate 3")
        return i

    with pytest.raises(ValueError, match="replicate 3"):
        list(_threads.scored_in_order(work, inputs(), 2))
    assert len(drawn) < 100  # at most two replicates per thread in flight


def test_an_error_returns_without_waiting_for_the_replicates_being_scored():
    release = threading.Event()

    def work(i):
        if i == 1:
            raise KeyboardInterrupt
        if i > 1:
            release.wait(5)  # a long replicate still running when the error comes back
        return i

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        list(_threads.scored_in_order(work, iter(range(10)), 2))
    assert time.perf_counter() - start < 2
    release.set()


def _noisy(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = rng.integers(0, n // 10, n)
    return t, np.where(rng.random(n) < 0.4, rng.integers(0, n // 10, n), t)


@pytest.mark.parametrize("metrics", [["ari", "ami", "recovery_rate"], ["fmi", "psi"]])
def test_bootstrap_intervals_do_not_depend_on_the_threads(metrics):
    """Scores from counts (ARI, AMI, recovery rate) and from each replicate's table."""
    t, p = _noisy(60_000, 1)
    table = cm.Contingency.from_labels(t, p)
    assert table.nnz >= _threads.MIN_CELLS
    runs = []
    for threads in (1, 3):
        old = _threads.set_threads(threads)
        try:
            runs.append(cm.evaluate(table, metrics=metrics, ci=0.9, n_boot=12, seed=4))
        finally:
            _threads.set_threads(old)
    assert runs[0].intervals == runs[1].intervals
    assert set(runs[0].intervals) == set(metrics)


def test_paired_comparison_does_not_depend_on_the_threads():
    t, a = _noisy(60_000, 2)
    b = np.where(np.random.default_rng(3).random(t.shape[0]) < 0.2, 0, a)
    runs = []
    for threads in (1, 2):
        old = _threads.set_threads(threads)
        try:
            runs.append(paired_comparison(t, a, b, ["ari", "recovery_rate", "fmi"]))
        finally:
            _threads.set_threads(old)
    for k in ("ari", "recovery_rate", "fmi"):
        assert runs[0][k].interval == runs[1][k].interval, k
        assert runs[0][k].pvalue == runs[1][k].pvalue, k


def test_small_tables_score_in_the_calling_thread():
    assert _threads.replicate_threads(_threads.MIN_CELLS - 1) == 1


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", "+2", "1_0", "\uff12", "1e1"])
def test_a_bad_thread_count_in_the_environment_is_refused_by_name(value, monkeypatch):
    monkeypatch.setenv("CLUSTERMETRICS_THREADS", value)
    for cells in (10, 10**6):  # refused whatever the table
        with pytest.raises(ValueError, match="CLUSTERMETRICS_THREADS"):
            _threads.replicate_threads(cells)


def test_the_environment_sets_the_threads(monkeypatch):
    monkeypatch.setenv("CLUSTERMETRICS_THREADS", " 3 ")
    assert _threads.replicate_threads(10**6) == 3
    monkeypatch.delenv("CLUSTERMETRICS_THREADS")
    assert 1 <= _threads.replicate_threads(10**6) <= 4


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "2"])
def test_set_threads_refuses_what_is_not_a_count(value):
    with pytest.raises(ValueError, match="threads"):
        _threads.set_threads(value)


def test_a_bad_thread_count_is_a_one_line_error_in_the_cli(tmp_path):
    truth, pred = tmp_path / "t.txt", tmp_path / "p.txt"
    truth.write_text("a\na\nb\nb\n")
    pred.write_text("1\n1\n1\n2\n")
    run = subprocess.run([sys.executable, "-m", "clustermetrics", "score", str(truth),
                          str(pred), "--metrics", "ari", "--ci", "0.9"],
                         capture_output=True, text=True,
                         env={**os.environ, "CLUSTERMETRICS_THREADS": "x"})
    assert run.returncode == 2
    assert "CLUSTERMETRICS_THREADS" in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_ctrl_c_in_the_cli_is_one_line_and_status_130(tmp_path):
    import signal

    rng = np.random.default_rng(0)
    truth, pred = tmp_path / "t.txt", tmp_path / "p.txt"
    t = rng.integers(0, 300, 20_000)
    truth.write_text("\n".join(map(str, t)) + "\n")
    pred.write_text("\n".join(map(str, np.where(rng.random(t.shape[0]) < 0.5, t,
                                                rng.integers(0, 300, t.shape[0])))) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "clustermetrics", "score", str(truth),
                             str(pred), "--metrics", "ari,recovery_rate,fmi", "--ci", "0.9",
                             "--n-boot", "1000000"], stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # imports done, replicates under way
    proc.send_signal(signal.SIGINT)
    start = time.perf_counter()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["clustermetrics: error: interrupted"]
    assert time.perf_counter() - start < 10


def test_repeats_hold_per_task_and_never_leak_across_threads():
    """Each replicate task sees the caller's repeats and its own scaling only; tasks
    scaling at once on several threads leave the caller's count as it was (a shared
    global would let one task restore another's value)."""
    barrier = threading.Barrier(2, timeout=10)
    seen = []

    def task(share):
        with dispatch.repeated(share):
            inside = dispatch.repeats()
            if threading.current_thread() is not threading.main_thread():
                barrier.wait()  # both pool tasks inside their scaling at once
            time.sleep(0.01 * share)
        seen.append((share, inside))
        return dispatch.repeats()

    with dispatch.repeated(1000):
        after = list(scored_in_order(task, [0.5, 0.02, 0.5], threads=2))
        assert dispatch.repeats() == 1000
    assert dispatch.repeats() == 1
    assert after == [1000, 1000, 1000]
    assert sorted(seen) == [(0.02, 20), (0.5, 500), (0.5, 500)]
