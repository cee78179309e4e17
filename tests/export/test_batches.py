"""The export builds a capture's rows a batch of turns at a time (the batch is its
transient memory): how it is cut never changes a row, and no batch is larger than the bound."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.export import rows


def _tables(path: str) -> tuple[dict[str, list[Any]], list[int]]:
    got: dict[str, list[Any]] = {}
    sizes = []
    for table, raw in rows.capture_raw(path):
        cols = rows.columns(table, raw)
        if table == "turns":
            sizes.append(len(cols["capture_index"]))
        got.setdefault(table, []).extend(zip(*cols.values(), strict=True))
    return got, sizes


def test_batches_of_turns_never_change_a_row(monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(SAMPLES / "service_day.jsonl")
    whole, sizes = _tables(path)
    assert sizes == [12]  # under the bound: one batch
    monkeypatch.setattr(rows, "BATCH_TURNS", 5)
    cut, sizes = _tables(path)
    assert sizes == [5, 5, 2]
    assert cut == whole


def test_rows_made_a_few_at_a_time_make_the_batch_they_would_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's rows are made ROWS_AT_ONCE turns at a time (their dicts are not all
    alive at once) and joined into the batch's columns, row for row, hosted calls too."""
    path = str(SAMPLES / "service_day.jsonl")
    whole, _ = _tables(path)
    assert whole.get("hosted_calls")  # the joined calls are checked as well
    monkeypatch.setattr(rows, "ROWS_AT_ONCE", 5)
    joined, sizes = _tables(path)
    assert sizes == [12]  # still one batch
    assert joined == whole
