"""The structure fuzz with a fixed CI budget; `TRACEVIEW_FUZZ_EXAMPLES=5000` runs it longer,
with fresh random cases instead of the fixed ones."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings

from .structure_fuzz import captures, check

LONG = os.environ.get("TRACEVIEW_FUZZ_EXAMPLES")


@settings(max_examples=int(LONG or 300), deadline=None, derandomize=not LONG, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(captures())
def test_swapped_types_depth_and_size_never_raise(records: list[Any]) -> None:
    check(records)
