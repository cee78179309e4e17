"""What the output boundary judges of a batch's columns (turn_rows.py `judged`): a value
the batch's rows share is listed once, and every string of the columns is still there,
so a secret in a shared value (a model, a line of the input account) is masked as the
whole dump's pre-check masks it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from traceview.analysis import analyze
from traceview.analysis.turn_batch import Batch
from traceview.analysis.turn_row import WHOLE_KEYS
from traceview.analysis.turn_rows import (
    DICTS,
    SHARED,
    SHARED_ITEMS,
    batch_columns,
    judged,
    rows_of,
)
from traceview.safety.redact import MASK, dumped_apart, redact_dump, redact_json

ROOT = Path(__file__).parent.parent.parent
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0" * 2


def _strings(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            _strings(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _strings(v, out)
    return out


def test_a_shared_value_is_judged_once_and_a_lists_shared_items_once() -> None:
    shared = {"line_item": "gpt", "usd": 1.0}
    own = {"line_item": "own"}
    columns = [["m1", "m1", "m2", "m1"], [[shared, own], [shared], None, [shared]],
               [shared, shared, shared, shared]]
    keys = ("model", "input_account", "lineage")
    assert "model" in SHARED and "input_account" in SHARED_ITEMS
    assert "lineage" not in SHARED | SHARED_ITEMS | DICTS
    got = judged(keys, columns)
    assert got[0] == ["m1", "m2"]
    assert got[1] == [shared, own, None]
    assert got[2] is columns[2]  # a key judged as it is
    assert _strings(got, set()) == _strings(columns, set())


def test_a_column_of_dicts_is_judged_by_their_keys_once_and_each_ones_values() -> None:
    assert "timing" in DICTS
    columns = [[{"ttft_ms": 1, "basis": "ts"}, {"ttft_ms": None, "basis": "elapsed"}],
               [{"ttft_ms": 1}, None]]
    got = judged(("timing", "timing"), columns)
    assert sorted(got[0][0]) == ["basis", "ttft_ms"] and got[0][1:] == [[1, "ts"],
                                                                        [None, "elapsed"]]
    assert got[1] is columns[1]  # a value that is not a dict: the column judged whole


def test_every_string_of_a_real_batch_is_judged() -> None:
    a = analyze(str(ROOT / "sample_traces/claims.jsonl"))
    turns = a.turns
    cols = turns[0]._cols
    columns = batch_columns(Batch(cols, list(range(len(turns)))), WHOLE_KEYS)
    got = judged(WHOLE_KEYS, columns)
    assert _strings(got, set()) == _strings(columns, set())
    assert len(dumped_apart(WHOLE_KEYS, got)) < len(dumped_apart(WHOLE_KEYS, columns))


def test_a_secret_in_a_shared_value_or_item_is_masked_in_the_dump() -> None:
    line = {"component": "message", "name": SECRET, "tokens": 3}
    for where in ("model", "input_account", "timing", "timing key"):
        value: Any = {"model": SECRET, "input_account": [line], "timing": {"basis": SECRET},
                      "timing key": {SECRET: 1}}[where]
        where = where.split()[0]
        rows = [{"index": i, "model": "gpt", "input_account": [], "timing": {"basis": None},
                 where: value} for i in range(4)]
        keys = ("index", "model", "input_account", "timing")
        columns = [[r[k] for r in rows] for k in keys]
        chunk = orjson.dumps({"": rows}, option=orjson.OPT_INDENT_2)
        out = redact_dump(chunk, dumped_apart(keys, judged(keys, columns)))
        assert out == redact_json(chunk) != chunk, where
        assert SECRET.encode() not in out and MASK.encode() in out, where
    assert rows_of(keys, columns) == rows
