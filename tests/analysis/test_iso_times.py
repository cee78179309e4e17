"""A report's times (a turn's `ts`, an object's `created_at`) are written with their
hours, minutes and seconds looked up (retention.py TWO_DIGITS), not formatted: they must
read as datetime writes them, every second of a day, on either side of the epoch."""

from __future__ import annotations

from datetime import UTC, datetime

from traceview.analysis.hosted.retention import iso_time
from traceview.analysis.turn_sides import iso_utc


def _written(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_every_second_of_a_day_is_written_as_datetime_writes_it() -> None:
    for day in (-1, 0, 20454):
        for second in range(0, 86400, 1 if day == 20454 else 97):
            at = day * 86400 + second
            assert iso_utc(at) == _written(at)
            assert iso_time(float(at)) == _written(at)
            assert iso_time(at + 0.25) == _written(at)
