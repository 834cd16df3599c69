"""Long steps of evaluate say so on a terminal, and only there."""

from __future__ import annotations

import contextlib
import io
import sys
import time

import pytest

import clustermetrics as cm
from clustermetrics.compute import progress as _progress

# the module (clustermetrics.evaluate is the function)
evaluation = sys.modules["clustermetrics.evaluation.evaluate"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_note_only_after_the_delay_and_only_on_a_terminal(monkeypatch):
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    with _progress.slow_step_note("quick", after=5.0):
        pass
    with _progress.slow_step_note("slow", after=0.05):
        time.sleep(0.3)
    text = term.getvalue()
    assert "quick" not in text
    assert "clustermetrics: slow still running" in text
    assert "clustermetrics: slow done in" in text
    pipe = io.StringIO()  # not a terminal: silent
    monkeypatch.setattr("sys.stderr", pipe)
    with _progress.slow_step_note("slow", after=0.0):
        time.sleep(0.05)
    assert pipe.getvalue() == ""


def test_evaluate_watches_every_score_by_key_and_name(monkeypatch):
    watched = []

    @contextlib.contextmanager
    def recorder(what, after=2.0, enabled=None):
        watched.append((what, after))
        yield

    monkeypatch.setattr(evaluation, "slow_step_note", recorder)
    cm.evaluate([0, 0, 1, 1], [0, 1, 1, 1], metrics=["ari", "recovery_rate"])
    assert watched == [("ari (Adjusted Rand index)", 2.0),
                       ("recovery_rate (Recovery rate (exact))", 2.0)]


def test_the_counter_redraws_when_blocks_of_updates_cross_its_steps(capsys):
    """Replicates are reported in blocks: every block that crosses a step redraws."""
    counter = _progress._Counter(1000, "bootstrap")
    for _ in range(20):
        counter.update(50)
    counter.close()
    shown = capsys.readouterr().err.split("\r")
    assert [s.strip() for s in shown if s.strip()][-1] == "bootstrap 1000/1000"
    assert len([s for s in shown if s.strip()]) == 20


@pytest.mark.parametrize("progress, shown", [(True, True), (False, False), (None, False)])
def test_evaluate_shows_its_bootstrap_progress_as_asked(progress, shown, capsys):
    """True: a bar; False: nothing; None: a bar on a terminal only (not under pytest)."""
    cm.evaluate([0, 0, 1, 1, 2], [0, 0, 1, 2, 2], "ari", ci=0.9, n_boot=40, seed=0,
                progress=progress)
    err = capsys.readouterr().err
    assert ("bootstrap" in err) == shown
