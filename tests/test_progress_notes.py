"""Long steps of evaluate say so on a terminal, and only there."""

from __future__ import annotations

import contextlib
import io
import sys
import time

import clustermetrics as cm
from clustermetrics import _progress

evaluation = sys.modules["clustermetrics.evaluate"]  # the module (the name is also a function)


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
