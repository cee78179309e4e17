"""A report's times (a turn's `ts`, an object's `created_at`) are written with their
hours, minutes and seconds looked up (retention.py TWO_DIGITS), not formatted: they must
read as datetime writes them, every second of a day, on either side of the epoch."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from random import Random

from traceview.analysis.hosted.retention import _day_and_second, iso_time
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


def _as_timedelta(epoch: float) -> tuple[int, int] | None:
    try:
        t = timedelta(seconds=epoch)
    except (OverflowError, ValueError):
        return None
    return t.days, t.seconds


def test_a_time_is_split_into_day_and_second_as_timedelta_rounds_it() -> None:
    """`_day_and_second` rounds in integers as `timedelta(seconds=…)` does: a fraction's
    microseconds half to even (a second's last half microsecond, either side of the
    epoch, decides the day), NaN and times past its days none."""
    edges = [0.0, -0.0, 5, -5, 0.5e-6, 1.5e-6, 2.5e-6, -0.5e-6, -1.5e-6, -2.5e-6, 1e-7, -1e-7,
             86399.9999995, 86399.9999996, -86399.9999995, 1767225599.9999995, 2.0 ** 53,
             86_399_999_999_999.99, -86_399_999_999_999.99, 8.64e13, -8.64e13, 1e20, 10 ** 30,
             float("nan"), float("inf"), -float("inf")]
    rng = Random(29)
    spread = [rng.choice((1, -1)) * rng.random() * 10 ** rng.randrange(0, 15)
              for _ in range(20_000)]
    near_midnight = [rng.randrange(-10 ** 5, 10 ** 5) * 86400 + k * 0.5e-6
                     for k in range(-3, 4) for _ in range(200)]
    for epoch in edges + spread + near_midnight:
        assert _day_and_second(epoch) == _as_timedelta(epoch), epoch
