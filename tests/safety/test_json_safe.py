"""json_safe's byte pre-check never lets a character it must escape through.

The JSON report skips decoding a chunk when no UTF-8 form of an unsafe character is in it
(`_maybe_json_unsafe`); a code point the pre-check missed would reach the terminal raw.
"""

from __future__ import annotations

import orjson

from traceview.safety.sanitise import _JSON_UNSAFE, _maybe_json_unsafe, json_safe


def test_every_unsafe_code_point_is_caught_by_the_byte_check() -> None:
    missed = [cp for cp in range(0x110000)
              if not 0xD800 <= cp <= 0xDFFF and _JSON_UNSAFE.match(chr(cp))
              and not _maybe_json_unsafe(chr(cp).encode())]
    assert missed == []


def test_unsafe_characters_are_escaped_among_safe_non_ascii_text() -> None:
    for ch in ("\u200b", "\u202e", "\u2066", "\x85", "\u00ad", "\ufeff", "\U000e0041", "\x7f"):
        raw = orjson.dumps({"text": f"≈ 3 — ok… {ch} ×"})
        out = json_safe(raw)
        assert ch.encode() not in out
        assert orjson.loads(out) == orjson.loads(raw)


def test_safe_non_ascii_text_is_left_byte_for_byte() -> None:
    raw = orjson.dumps({"text": "≈ 1,234 tokens — billed… × ✓ ∅ ✗ é 日本"})
    assert json_safe(raw) is raw
