"""A turn's analysed counts (expected input, owned-state bytes, cumulative input) are kept
in columns by table row: they must read back as computed, whatever mixes of captures one
analyzer sees."""

from __future__ import annotations

from pathlib import Path

from traceview.analysis import analyze
from traceview.analysis.analyzer import Analyzer
from traceview.capture import load

ROOT = Path(__file__).parent.parent.parent
COUNTS = ("expected_input", "owned_state_bytes", "cumulative_input_tokens")


def _counts(reports: list) -> list[tuple]:
    return [tuple(getattr(r, c) for c in COUNTS) for r in reports]


def test_counts_read_back_per_turn_and_unknown_stays_none() -> None:
    a = analyze(str(ROOT / "sample_traces/claims.jsonl"))
    # Pinned: the claims sample's turns 1-4.
    assert _counts(a.turns) == [(None, 410, 1210), (1673, 2533, 2900),
                                (2109, 4682, 9010), (6425, 6156, 15590)]


def test_one_analyzer_over_two_captures_keeps_each_turns_counts() -> None:
    """Two captures have two tables whose rows both start at 0: the counts of the second
    must not overwrite the first's."""
    paths = [ROOT / "sample_traces/claims.jsonl", ROOT / "sample_traces/long_conversation.jsonl"]
    alone = [_counts(analyze(str(p)).turns) for p in paths]
    caps = [load(str(p)) for p in paths]
    # Each turn's request is read again by its capture (turns of two captures: two readers).
    reading = [caps[0]]
    analyzer = Analyzer(read=lambda ref: reading[0].read(ref))
    for p, cap in zip(paths, caps, strict=True):
        reading[0] = cap
        for turn in cap.turns:
            analyzer.add(turn, str(p))
    mixed = _counts(analyzer.reports)
    assert mixed == alone[0] + alone[1]
