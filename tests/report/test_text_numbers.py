"""The text report's turn table never cuts a number: found by an attack pass, a turn billed
99,999,999 tokens showed '+99,999,…' and '123,456…' ms even at --width 250 (each numeric
column had a cap); a number cut short reads as another number."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import req, res, response, write
from traceview.cli import main


@pytest.mark.parametrize("width", [80, 250])
def test_every_number_of_a_wide_turn_is_whole(tmp_path: Path, width: int,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "big.jsonl", [
        req({"model": "gpt-4o-mini", "input": "hi"}),
        res(response("r", 99_999_999, 9_999_999, cached=33_333_333, created_at=1767225600),
            elapsed=123_456_789)])
    assert main(["report", "--format", "text", "--width", str(width), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    [row] = [line for line in lines if line.startswith("1  hi")]
    # #, user, sent (2 words), billed in, unexpl., cached, out, hosted, ms
    assert row.split()[4:10] == ["99,999,999", "+99,999,991", "33,333,333", "9,999,999", "—",
                                 "123,456,789"]
    assert "…" not in row


def test_latency_reads_the_same_in_text_and_markdown(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """Found by a newcomer: the markdown report's totals said p95 16,317.8 ms where the text
    report said 16,318 (a percentile of whole-ms timings is not more precise than they are).
    Both now take fmt.ms."""
    from tests.fixtures_shared import SAMPLES

    path = str(SAMPLES / "service_day.jsonl")
    assert main(["report", "--format", "markdown", path]) == 0
    markdown = capsys.readouterr().out
    assert main(["report", "--format", "text", "--width", "200", path]) == 0
    text = capsys.readouterr().out
    assert "latency p50 2,025 ms / p95 16,318 ms." in markdown
    assert "latency p50 2,025 ms, p95 16,318 ms" in text
