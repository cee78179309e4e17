"""`redact_dump` masks exactly what `redact_json` masks in a dump of rows, judging the
rows' keys and values apart (the JSON writer's turn batches: safety/redact.py).

Every key shape of test_redact_json, in every form a capture may carry it, is put where
a row holds strings (a value, an item of a list, a nested value, a nested key, a key of
the row) in rows dumped as the writer dumps them; the verdict judged apart must mask the
dump exactly as the whole dump's pre-check does, and a dump with nothing to check must
come back as it is, without the whole dump's pre-check.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.safety.test_redact_json import SHAPES
from traceview.safety import known_keys, redact
from traceview.safety.redact import dumped_apart, redact_dump, redact_json
from traceview.safety.sanitise import json_shown, json_shown_dump

KEYS = ("index", "user_text", "tools_offered", "cost", "conversation_key", "key")


def _row(i: int, text: str, where: str) -> dict[str, Any]:
    row: dict[str, Any] = {"index": i, "user_text": "plain words", "tools_offered": ["web"],
                           "cost": {"reason": None, "lines": [{"line_item": "gpt"}]},
                           "conversation_key": "c1", "key": "c1"}
    if where == "value":
        row["user_text"] = text
    elif where == "item":
        row["tools_offered"] = ["web", text]
    elif where == "nested":
        row["cost"] = {"reason": text, "lines": []}
    elif where == "nested_key":
        row["cost"] = {text: 1.5, "lines": [{"line_item": "gpt"}]}
    return row


def _dumped(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> tuple[bytes, list[Any]]:
    """The rows as the JSON writer dumps a batch (nested at the document's depth), and
    their columns."""
    body = orjson.dumps({"": rows}, option=orjson.OPT_INDENT_2)
    columns = [[r[k] for r in rows] for k in keys]
    return body, columns


def _texts() -> list[str]:
    out = []
    for text, _ in SHAPES:
        for cased in (text, text.upper(), text.swapcase()):
            out += [cased, orjson.dumps(cased).decode(), f"said {cased}; then"]
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("where", ["value", "item", "nested", "nested_key"])
def test_a_secret_anywhere_in_the_values_is_masked_as_the_whole_dump_masks_it(
        where: str) -> None:
    masked = 0
    for text in _texts():
        rows = [_row(0, "plain", "value"), _row(1, text, where), _row(2, "x", "value")]
        chunk, columns = _dumped(rows, KEYS)
        expected = redact_json(chunk)
        assert redact_dump(chunk, dumped_apart(KEYS, columns)) == expected, text
        masked += expected != chunk
    assert masked > len(_texts()) // 3


def test_a_secret_in_a_key_of_the_rows_is_masked() -> None:
    for text, value in SHAPES:
        if value is None:
            continue
        keys = (*KEYS, text)
        rows = [{**_row(0, "plain", "value"), text: "x"}]
        chunk, columns = _dumped(rows, keys)
        assert redact_dump(chunk, dumped_apart(keys, columns)) == redact_json(chunk), text
        assert value.encode() not in redact_dump(chunk, dumped_apart(keys, columns)), text


def test_rows_with_nothing_to_check_come_back_without_the_whole_dump_checked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [_row(i, f"the policy covers {i} kitchens", "value") for i in range(64)]
    chunk, columns = _dumped(rows, KEYS)
    checked: list[int] = []
    whole = redact._hinted_lines
    monkeypatch.setattr(redact, "_hinted_lines", lambda c: checked.append(len(c)) or whole(c))
    assert redact_dump(chunk, dumped_apart(KEYS, columns)) is chunk
    assert checked and max(checked) < len(chunk) // 2  # the keys and values apart, once


def test_a_registered_key_is_masked_whatever_its_shape() -> None:
    rows = [_row(0, "the code is 12345678 today", "value")]
    chunk, columns = _dumped(rows, KEYS)
    with known_keys.registered("12345678"):
        out = redact_dump(chunk, dumped_apart(KEYS, columns))
    assert b"12345678" not in out
    assert out == redact_json(chunk.replace(b"12345678", redact.MASK.encode()))


@pytest.mark.parametrize("where", ["value", "item", "nested", "nested_key"])
def test_a_character_a_terminal_acts_on_is_escaped_as_in_the_whole_dump(where: str) -> None:
    for char in ("\u009b", "\u202e", "\u200b", "\ufeff", "\U000e0041", "\x7f", "\u00ad",
                 "\x1b", "\n", "\t"):
        rows = [_row(0, "plain", "value"), _row(1, f"a{char}b \u2026", where)]
        chunk, columns = _dumped(rows, KEYS)
        out = json_shown_dump(chunk, dumped_apart(KEYS, columns))
        assert out == json_shown(chunk) != chunk, repr(char)


def test_a_dump_with_nothing_to_escape_comes_back_as_it_is() -> None:
    rows = [_row(i, f"cover \u2026 {i} \u2248 \u00e9t\u00e9", "value") for i in range(8)]
    chunk, columns = _dumped(rows, KEYS)
    assert json_shown_dump(chunk, dumped_apart(KEYS, columns)) is chunk
