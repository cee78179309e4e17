"""Checks the reader skips work with must give what the work gives: media found in a
request's new input (facts._media) equals media_parts over every fixture's requests and
over shapes that hold media where _flat must not pass them over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from traceview.capture.facts import _dumps, _flat, _media
from traceview.capture.media import media_parts

ROOT = Path(__file__).resolve().parents[2]

SHAPES: list[list[Any]] = [
    [{"role": "user", "content": "plain"}],
    [{"role": "user", "content": [{"type": "input_image", "image_url": "data:x"}]}],
    [{"type": "input_file", "file_id": "file-1"}],
    [{"type": "function_call_output", "output": [{"type": "input_image", "file_id": "f"}]}],
    [{"type": "message", "content": {"type": "input_audio", "data": "AAAA"}}],
    [[{"type": "input_image", "image_url": "https://x/y.png"}]],
    ["bare string", 3, None],
    [{"role": "user", "content": "mentions \"input_image\" in text only"}],
]


def _requests() -> list[list[Any]]:
    found: list[list[Any]] = list(SHAPES)
    for p in [*ROOT.glob("tests/fixtures/real/*.jsonl"), *ROOT.glob("sample_traces/*.jsonl")]:
        for line in p.read_bytes().splitlines():
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            body = rec.get("body") if isinstance(rec, dict) else None
            if isinstance(body, dict):
                for key in ("input", "messages"):
                    if isinstance(body.get(key), list):
                        found.append(body[key])
    return found


def test_media_skips_only_inputs_that_hold_none() -> None:
    items = _requests()
    assert len(items) > 60
    with_media = 0
    for new in items:
        want = media_parts(new, "gpt-4o")
        assert _media(new, "gpt-4o", _dumps(new)) == want, new
        with_media += bool(want)
        if want:
            assert not _flat(new)
    assert with_media >= 5
