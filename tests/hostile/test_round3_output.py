"""Round 3's output findings: `diff --format json` printed a provider's raw C1 CSI
(U+009B) and a right-to-left override (U+202E); JSON leaves through the sanitiser, each
string decoding to the sanitiser's text (as the report's JSON: `jq -r` writes it raw)."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from tests.hostile.corpus import assert_no_traceback, traceview

ROOT = Path(__file__).resolve().parents[2]


def test_diff_json_escapes_c1_controls_and_bidi_overrides(tmp_path: Path) -> None:
    hostile = "pay \x9b31m\u202eevil\u202c \x9d0;title\x9c done"
    doc = json.loads((ROOT / "sample_traces" / "claims.snapshot.json").read_text())
    doc["items"][0]["content"][0]["text"] = hostile
    doc["items"].append({"id": "msg_extra", "type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": hostile}]})
    snap = tmp_path / "s.json"
    snap.write_bytes(orjson.dumps(doc))
    out = traceview("diff", str(ROOT / "sample_traces" / "claims.jsonl"), "--items", str(snap),
                    "--format", "json")
    assert_no_traceback(out)
    text = out.stdout.decode("utf-8")
    assert text, out.stderr
    for raw in ("\x9b", "\x9d", "\x9c", "\u202e", "\u202c"):
        assert raw not in text, repr(raw)
    shown = "pay \\x9b31m\\u202eevil\\u202c \\x9d0;title\\x9c done"
    assert json.dumps(shown)[1:-1] in text  # each value decodes to the sanitiser's text


def test_a_keymap_key_string_holding_osc_is_refused(tmp_path: Path) -> None:
    import pytest

    from traceview.ui.keymap import KeymapError, load_keymap

    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keys]\n"app.quit" = "q\\u001b]0;pwned\\u0007"\n')
    with pytest.raises(KeymapError, match="app.quit"):
        load_keymap(keymap)
    keymap.write_text('[keys]\n"app.quit" = "\\u202eq"\n')
    with pytest.raises(KeymapError, match="app.quit"):
        load_keymap(keymap)
    keymap.write_text('[keys]\n"app.quit" = "ctrl+q"\n')
    assert load_keymap(keymap) == {"app.quit": "ctrl+q"}


def test_a_keymap_that_is_a_fifo_or_a_device_is_refused_unread(tmp_path: Path) -> None:
    import os

    import pytest

    from traceview.ui.keymap import KeymapError, load_keymap

    fifo = tmp_path / "keymap.toml"
    os.mkfifo(fifo)
    with pytest.raises(KeymapError, match="not a regular file"):
        load_keymap(fifo)
    with pytest.raises(KeymapError, match="not a regular file"):
        load_keymap("/dev/zero")
