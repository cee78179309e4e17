"""Views held while a followed capture grows (issue #11: reports and conversations are
views of columns that keep growing and widening): after each poll, every turn and
conversation view made before reads what a fresh analysis of the file so far gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.hostile import widening_capture
from traceview.analysis.follow import FollowSession
from traceview.analysis.session import analyze

FIELDS = ("index", "conversation", "model", "input_tokens", "cached_tokens", "elapsed_ms",
          "expected_input", "cumulative_input_tokens", "markers", "user_text", "hosted_calls")


def _turn(t: Any) -> tuple[Any, ...]:
    return tuple(getattr(t, name) for name in FIELDS)


def _conv(c: Any) -> dict[str, Any]:
    d = c.to_dict()
    d.pop("carried_context")  # the hosted-state passes run once a capture is read
    return d


def test_views_held_while_following_read_the_file_so_far(tmp_path: Path) -> None:
    lines = widening_capture.lines()
    path = tmp_path / "live.jsonl"
    cuts = [200, 290, 330, 600, len(lines)]  # each at a turn's end
    path.write_bytes(b"\n".join(lines[:cuts[0]]) + b"\n")
    session = FollowSession(str(path), step_lines=1, interval=0.0, first_interval=0.0)
    turns = [t for batch in session.run() for t in batch.turns]
    convs = list(session.analysis.conversations)
    done = cuts[0]
    for cut in cuts[1:]:
        with open(path, "ab") as f:
            f.write(b"\n".join(lines[done:cut]) + b"\n")
        done = cut
        batch = session.poll()
        assert batch is not None
        turns += batch.turns
        convs = [*convs, *(c for c in session.analysis.conversations if c not in convs)]
        fresh = analyze(str(path))
        by_index = {t.index: _turn(t) for t in fresh.turns}
        assert [_turn(t) for t in turns] == [by_index[t.index] for t in turns]
        assert len(turns) == len(fresh.turns)
        by_key = {c.key: _conv(c) for c in fresh.conversations}
        assert {c.key: _conv(c) for c in convs} == by_key
