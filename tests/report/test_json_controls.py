"""Every string of the JSON report decodes to the sanitiser's text, never to a control.

The writer's boundary escaped C1, bidi and invisible characters as `\\uXXXX` and let orjson
write C0 controls as `\\u001b`: valid JSON that decodes back to ESC, so `jq -r
.turns[0].model` wrote a capture's OSC 52 (clipboard) raw to the terminal, while
`cost.reason`, made with the sanitiser, already read `\\x1b`. The boundary now writes
each string as the sanitiser shows it, in every batch and in the document's own bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from tests.hostile.corpus import assert_no_traceback, traceview, write_jsonl

MODEL = "gpt\u001b]52;c;aGVsbG8=\u0007\u009b2J\u202e"
SHOWN = "gpt\\x1b]52;c;aGVsbG8=\\x07\\x9b2J\\u202e"


def _capture(path: Path) -> Path:
    return write_jsonl(path, [
        {"dir": "req", "body": {"model": MODEL, "input": "hi\u001b[2J\nthere", "store": True,
                                "metadata": {"note\u200b": "a\tb\u2028c"}}},
        {"dir": "res", "elapsed_ms": 10, "body": {
            "id": "resp_1", "object": "response", "status": "completed", "model": MODEL,
            "output": [], "usage": {"input_tokens": 5, "output_tokens": 1}}}])


@pytest.mark.parametrize("explain", [[], ["--explain"]])
def test_a_control_in_a_data_string_decodes_to_its_escape(tmp_path: Path,
                                                           explain: list[str]) -> None:
    out = traceview("report", str(_capture(tmp_path / "c.jsonl")), "--format", "json",
                    *explain)
    assert_no_traceback(out)
    raw = out.stdout
    for char in ("\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\u2028"):
        assert char.encode() not in raw
    assert b"\\u001b" not in raw and b"\\u0007" not in raw
    assert b'"model": "gpt\\\\x1b]52;c;aGVsbG8=\\\\x07\\\\x9b2J\\\\u202e",' in raw
    doc = orjson.loads(raw)
    turn = doc["turns"][0]
    assert turn["model"] == SHOWN
    assert SHOWN in turn["cost"]["reason"]  # the field made with the sanitiser: alike
    strings: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            strings.extend(value)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(doc)
    assert all(s.isprintable() for s in strings), [s for s in strings if not s.isprintable()]


def test_json_shown_is_visible_of_every_string() -> None:
    from traceview.safety.sanitise import UNSAFE, json_shown, visible

    chars = [chr(c) for c in range(0x110000) if UNSAFE.match(chr(c))
             and not 0xD800 <= c <= 0xDFFF]
    text = "".join(chars) + ' \\n "q" \u2248 \u2014 \U0001f600'
    for dump in (orjson.dumps({text: [text]}, option=orjson.OPT_INDENT_2),
                 json.dumps({text: [text]}, indent=1, ensure_ascii=True).encode()):
        doc = json.loads(json_shown(dump))
        assert doc == {visible(text): [visible(text)]}
