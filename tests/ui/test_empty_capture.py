"""A file with no turns in it, read to the end: the turns view says so and why, not "no
turns yet" (which reads as still loading)."""

from __future__ import annotations

from pathlib import Path

from traceview.ui.app import make_app
from traceview.ui.widgets.chart import TurnChart


async def _empty_text(path: Path) -> str:
    app = make_app([str(path)])
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        return app.screen.query_one(TurnChart).empty


async def test_a_json_document_that_is_not_a_capture_says_why(tmp_path: Path) -> None:
    path = tmp_path / "package.json"
    path.write_text('{"name": "pkg", "version": "1.0"}\n')
    assert await _empty_text(path) == (
        f"{path}: this is a JSON document (keys: name, version), not a capture; nothing read "
        "(traceview reads JSONL records, HAR, OpenAI Batch and OTLP JSON files)")


async def test_a_capture_with_only_damaged_lines_points_at_the_problems(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    # No line makes a turn: a response no request asked for, then a request cut mid-write.
    # (A whole request before a cut response is a turn of its own, shown request-only:
    # this test read the chart's words for that capture, racing its first highlight.)
    path.write_bytes(b'{"dir": "res", "body": {"id": "r"}}\n{"dir": "req", "bo')
    assert await _empty_text(path) == "no turns in this capture: 2 problems (p lists them)"


async def test_an_empty_file_says_it_has_no_turns(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert await _empty_text(path) == "no turns in this capture"
