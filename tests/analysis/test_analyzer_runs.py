"""`Analyzer.add_all` binds the columns and sums the capture's totals in locals for a run of
turns: however the turns are cut into runs (one at a time, as `add` and a follow do; in
steps, as the session does; all at once), every turn's report, every conversation and the
totals must come out the same, on every fixture, real capture and sample."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis.analyzer import Analyzer
from traceview.capture import load

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("tests/fixtures/*.jsonl"), *ROOT.glob("tests/fixtures/real/*.jsonl"),
                *ROOT.glob("sample_traces/*.jsonl")])


def _analysed(turns: list[Any], names: list[str], cuts: int | None) -> dict[str, Any]:
    an = Analyzer()
    kept: list[Any] = []
    if cuts is None:  # one turn at a time, through add
        kept = [an.add(t, names[t.source]) for t in turns]
    else:
        for start in range(0, len(turns), cuts):
            an.add_all(turns[start:start + cuts], names, kept.append)
    return {"kept": [r.to_dict() for r in kept],
            "reports": [r.to_dict() for r in an.reports],
            "conversations": [c.to_dict() for c in an.conversations()],
            "totals": an.totals.to_dict()}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_runs_of_any_length_analyse_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    cap = load(str(path))
    turns = list(cap.turns)
    names = cap.sources
    want = _analysed(turns, names, None)
    assert len(want["kept"]) == len(turns)
    for cuts in (3, 256, max(1, len(turns))):
        assert _analysed(turns, names, cuts) == want, cuts
    cap.close()


def test_fixtures_are_there() -> None:
    assert len(FILES) >= 30
    assert os.path.exists(ROOT / "sample_traces" / "service_day.jsonl")
