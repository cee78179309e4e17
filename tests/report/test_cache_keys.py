"""The writer's caches give each value its own text: a key that compares equal to another
value of another type (5 == 5.0 == True) must not hand one the other's text."""

from __future__ import annotations

from traceview.analysis.explain import _n


def test_grouped_counts_keep_their_type() -> None:
    assert _n(1234) == "1,234"
    assert _n(1234.0) == "1,234.0"  # not the cached text of the int 1234
    assert _n(5) == "5"
    assert _n(5.0) == "5.0"
    assert _n(1234.5) == "1,234.5"
    assert _n(None) == "unknown"
