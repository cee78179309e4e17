"""A number too wide for its column is never cut: the column widens to it (a 1M-token
context caches 1,234,567 tokens; an output may be 128,000). `1,234,…` read as nothing."""

from __future__ import annotations

import json

from traceview.ui.widgets.row_table import RowTable

from .conftest import opened


def _capture(path):
    usage = {"input_tokens": 1_900_000, "input_tokens_details": {"cached_tokens": 1_234_567},
             "output_tokens": 123_456, "output_tokens_details": {"reasoning_tokens": 100_000}}
    lines = [{"dir": "req", "body": {"model": "gpt-4.1-2025-04-14", "input": "hi"}},
             {"dir": "res", "elapsed_ms": 1_234_567, "body": {
                 "id": "resp_1", "object": "response", "status": "completed",
                 "model": "gpt-4.1-2025-04-14", "usage": usage,
                 "output": [{"type": "message", "role": "assistant",
                             "content": [{"type": "output_text", "text": "ok"}]}]}}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


async def test_a_number_wider_than_its_column_widens_it(tmp_path):
    async with opened(_capture(tmp_path / "big.jsonl"), (160, 30)) as (app, pilot):
        await pilot.pause()
        table = app.screen.query_one("#turns", RowTable)
        row = table.row_text(table.rows[0], table.size.width).plain
        header = table.header_text(table.size.width).plain
        assert "…" not in row
        for number in ("1,900,000", "+1,899,9", "1,234,567", "123,456", "100,000"):
            assert number in row
        # each number under its own title: the header widened with it
        assert header.index("cached") < row.index("1,234,567") + len("1,234,567")
        assert header.rstrip().endswith("markers")


async def test_at_80_columns_a_widened_column_is_still_reached_whole(tmp_path):
    async with opened(_capture(tmp_path / "big.jsonl"), (80, 24)) as (app, pilot):
        await pilot.pause()
        table = app.screen.query_one("#turns", RowTable)
        row = table.row_text(table.rows[0], table.size.width).plain
        assert "…" not in row and "1,234,567" in row and "123,456" in row
