"""A turn's row is its properties, in the report contract's order; a row made for a table
is explained later to the same sentences (the text report's notes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from traceview.analysis.report_rows import explained_batches, row_dicts
from traceview.analysis.session import analyze
from traceview.analysis.turn_row import CONTRACT_KEYS, EXTRA_KEYS, explain_row

ROOT = Path(__file__).parent.parent.parent
FIXTURES = sorted((ROOT / "tests/fixtures/real").glob("*.jsonl"))


@pytest.mark.parametrize("path", [*FIXTURES[:4], ROOT / "sample_traces/claims.jsonl"],
                         ids=lambda p: p.name)
def test_rows_are_the_contract_keys_and_explained_later_alike(path: Path) -> None:
    a = analyze([str(path)])
    rows = list(row_dicts(a.turns))
    bare = list(row_dicts(a.turns, explained=False, whole=False))
    assert len(rows) == len(bare) == len(a.turns)
    for t, row, plain in zip(a.turns, rows, bare, strict=True):
        assert list(row) == [*CONTRACT_KEYS, *EXTRA_KEYS]
        assert row["index"] == t.index and row["markers"] == t.markers
        assert explain_row(plain) == row["explanation"] == t.explanation
        assert plain["cost"] is None and plain["explanation"] is None


def test_rows_of_other_values_are_their_dicts() -> None:
    class Other:
        def to_dict(self) -> dict[str, int]:
            return {"index": 7}

    assert list(row_dicts([Other()])) == [{"index": 7}]
    assert list(row_dicts([])) == []


def test_each_turn_is_priced_once_for_its_row_and_its_prose(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The row's batch prices its turns (turn_batch.py); the view the prose reads the price
    # through (`priced`, `cost_hosted_usd`) is handed those prices, not priced again.
    from traceview.analysis import turn_batch
    from traceview.analysis.cost import price as price_module

    a = analyze([str(ROOT / "sample_traces/claims.jsonl")])
    calls: list[object] = []
    real = price_module.price

    def counted(*args: object) -> object:
        calls.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(turn_batch, "price", counted)
    monkeypatch.setattr(price_module, "price", counted)
    rows = list(row_dicts(a.turns))
    assert any(s.startswith("Cost ≈") for row in rows for s in row["explanation"])
    assert len(calls) == len(a.turns) > 0
    bare = list(row_dicts(a.turns, explained=False, whole=False))
    assert [explain_row(b) for b in bare] == [row["explanation"] for row in rows]
    assert len(calls) == 2 * len(a.turns)


@pytest.mark.parametrize("path", [*FIXTURES[:2], ROOT / "sample_traces/claims.jsonl"],
                         ids=lambda p: p.name)
def test_explained_batches_are_the_rows_and_the_columns_they_were_made_of(path: Path) -> None:
    # An exporter reads a batch's columns, not its rows taken apart again: the same values.
    a = analyze([str(path)])
    batches = list(explained_batches(a.turns))
    assert [d for b in batches for d in b.rows] == list(row_dicts(a.turns))
    for b in batches:
        assert list(b.columns) == [*CONTRACT_KEYS, *EXTRA_KEYS]
        for key, values in b.columns.items():
            if key not in ("explanation", "findings"):  # the rows hold the sentences
                assert values == [d[key] for d in b.rows], key
        assert b.batch.rows == [a.turns[d["index"] - 1]._r for d in b.rows]


def test_explained_batches_take_only_turn_reports() -> None:
    class Other:
        def to_dict(self) -> dict[str, int]:
            return {"index": 7}

    with pytest.raises(TypeError):
        list(explained_batches([Other()]))  # type: ignore[list-item]
