"""`--rotate daily|SIZE`: a proxy that runs for weeks writes whole captures, file by file."""

from __future__ import annotations

import os
import time

import pytest

from tests.record.conftest import read_records
from traceview.record.rotate import RotateError, RotatingCaptureWriter, parse_rotate


def test_rotate_values():
    assert parse_rotate("daily") == "daily"
    assert parse_rotate("100MB") == 100 << 20
    assert parse_rotate("1G") == 1 << 30
    assert parse_rotate("500k") == 500 << 10
    assert parse_rotate("4096") == 4096
    for bad in ("weekly", "10", "-1M", ""):
        with pytest.raises(RotateError):
            parse_rotate(bad)


def test_daily_rotation_starts_a_file_per_day_and_links_the_current_one(tmp_path):
    day = [time.mktime((2026, 11, 30, 23, 59, 0, 0, 0, -1))]
    link = tmp_path / "trace.jsonl"
    writer = RotatingCaptureWriter(link, "daily", now=lambda: day[0])
    writer.write({"dir": "req", "n": 1})
    assert os.readlink(link) == "trace-2026-11-30.jsonl"
    day[0] += 120  # past midnight
    writer.write({"dir": "req", "n": 2})
    writer.write({"dir": "res", "n": 3})
    writer.close()
    assert os.readlink(link) == "trace-2026-12-01.jsonl"
    assert [r["n"] for r in read_records(tmp_path / "trace-2026-11-30.jsonl")] == [1]
    assert [r["n"] for r in read_records(link)] == [2, 3]  # the link reads the current file


def test_size_rotation_keeps_whole_lines_and_masks_keys_in_every_file(tmp_path):
    clock = [time.mktime((2026, 11, 30, 12, 0, 0, 0, 0, -1))]
    link = tmp_path / "trace.jsonl"
    writer = RotatingCaptureWriter(link, 1024, now=lambda: clock[0])
    writer.scrubber.add_secret("Bearer secret-value-123")
    for n in range(30):
        writer.write({"dir": "req", "n": n, "text": "x" * 100 + " secret-value-123"})
    writer.close()
    files = sorted(p for p in tmp_path.iterdir() if not p.is_symlink())
    assert len(files) >= 3  # same second: -2, -3… suffixes, never an overwrite
    numbers = [r["n"] for f in files for r in read_records(f)]
    assert sorted(numbers) == list(range(30))
    assert all(f.stat().st_size <= 1024 + 200 for f in files)
    assert not any(b"secret-value-123" in f.read_bytes() for f in files)


def test_rotate_refuses_to_replace_an_existing_capture(tmp_path):
    existing = tmp_path / "trace.jsonl"
    existing.write_text('{"dir":"req"}\n')
    with pytest.raises(RotateError, match="not a symlink"):
        RotatingCaptureWriter(existing, "daily")
    assert existing.read_text() == '{"dir":"req"}\n'
