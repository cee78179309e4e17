"""The structure fuzz with a fixed CI budget (the long run: ``bench/fuzz_structure.py``)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

from .structure_fuzz import captures, check


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(captures())
def test_swapped_types_depth_and_size_never_raise(records: list[Any]) -> None:
    check(records)
