"""The JSON writer's lists of dicts (provider objects, conversations, verdicts, explained
rows) judged at the boundary by their keys and values (report/json_out.py `_apart`): the
chunk comes out exactly as when its whole indented dump is judged, a secret in any key or
value masked, a character a terminal acts on escaped."""

from __future__ import annotations

from typing import Any

from tests.safety.test_redact_json import SHAPES
from traceview.report.json_out import _apart, _items


def _dicts(text: str, where: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"kind": "file", "id": f"file-{i}", "turns": [i, i + 1],
                                  "expires_after": None} for i in range(5)]
    if where == "value":
        out[2]["id"] = text
    elif where == "nested":
        out[3]["expires_after"] = {"anchor": text, "days": 3}
    elif where == "nested_key":
        out[3]["expires_after"] = {text: 3}
    elif where == "item":
        out[1]["turns"] = [1, text]
    elif where == "key":
        out[4][text] = "x"
    return out


def _written(batch: list[dict[str, Any]], apart: Any) -> bytes:
    return b"".join(_items(iter([(batch, apart)]), b"    "))


def test_a_batch_of_dicts_is_judged_by_its_keys_once_and_each_dicts_values() -> None:
    batch = [{"a": 1, "b": "x"}, {"a": 2, "c": ["y"]}]
    keys, values = _apart(batch)
    assert sorted(keys) == ["a", "b", "c"]
    assert values == [[1, "x"], [2, ["y"]]]
    assert _apart([{"a": 1}, ["not a dict"]]) is None


def test_a_secret_anywhere_in_the_dicts_is_masked_as_when_judged_whole() -> None:
    masked = 0
    for text, _ in SHAPES:
        for where in ("value", "nested", "nested_key", "item", "key"):
            batch = _dicts(text, where)
            whole = _written(batch, None)
            assert _written(batch, _apart(batch)) == whole, (text, where)
            masked += text.encode() not in whole
    assert masked > len(SHAPES)


def test_a_character_a_terminal_acts_on_is_escaped_as_when_judged_whole() -> None:
    for char in ("\u009b", "\u202e", "\u200b", "\ufeff", "\U000e0041", "\x7f"):
        batch = _dicts(f"a{char}b", "nested")
        whole = _written(batch, None)
        assert _written(batch, _apart(batch)) == whole
        assert char.encode() not in whole
