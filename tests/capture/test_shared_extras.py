"""A chunk's equal `extra` facts are sent and held as one object, and sharing never
changes what a row holds: found by the very objects an extra holds, else by its repr."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from traceview.capture.lines import _shared_extras


def _rows(*extras: Any) -> list[Any]:
    return _shared_extras([SimpleNamespace(extra=e) for e in extras])


def test_extras_holding_the_same_objects_are_one() -> None:
    stores, retrieval = ("vs_case",), ((0, (("file_abc", "policy.pdf", 0.8, None),)),)
    rows = _rows({"vector_stores": stores, "lineage": {"retrieval": retrieval}},
                 {"vector_stores": stores, "lineage": {"retrieval": retrieval}})
    assert rows[0].extra is rows[1].extra


def test_equal_extras_of_other_objects_are_one() -> None:
    rows = _rows({"lineage": {"retrieval": ((0, 0.8),)}}, {"lineage": {"retrieval": ((0, 0.8),)}})
    assert rows[0].extra is rows[1].extra


def test_a_number_keeps_its_type_and_a_key_its_value() -> None:
    one = 1
    rows = _rows({"ts": one}, {"ts": 1.0}, {"ts": -0.0}, {"ts": 0.0}, {"at": one},
                 {"lineage": {"retrieval": one}}, {"lineage": {"other": one}},
                 {"lineage": {"retrieval": 2}})
    assert [type(r.extra["ts"]) for r in rows[:4]] == [int, float, float, float]
    assert len({id(r.extra) for r in rows}) == len(rows)
    assert repr(rows[2].extra) == "{'ts': -0.0}"
    assert "other" in rows[6].extra["lineage"]
    assert rows[7].extra["lineage"]["retrieval"] == 2
