"""The export's fast path for JSON columns: the text it writes without walking the value
through the redactor must be exactly what the redactor would have written (a property,
over hostile text)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.export.rows import _dumps_redacted
from traceview.safety import redact as redact_module
from traceview.safety.redact import inert_json, redact

# Pieces that make the sanitiser or the redactor act, mixed with ordinary text.
PIECES = st.sampled_from([
    "a", "Z", " ", '"', "\\", "\n", "\t", "\x00", "\x1b[31m", "\x7f", "\x85", "\u202e",
    "\u200b", "\ufeff", "≈", "é", "\u212aey", "sk-", "sk-LEAKLEAK12345678", "Bearer ",
    "bearer abcdefgh1234", "api_key=", "Authorization: ", "key", "KEY", "password",
    "secret", "token", "access_token", "tokens", "cached", "://", "https://u:", "pw1@h",
    "eyJ", "eyJabcdefgh12.eyJabcdefgh12.abcdefgh12", "AKIA", "AKIAABCDEFGHIJKLMNOP",
    "?", "&", ";", "=", "?key=abcd1234", "&token=", "cookie", "Set-Cookie", "ghp_",
    "AIza", "sess-", "rk-", "key:", "token:", "'", ":", "passwd", "Basic ",
])
TEXT = st.lists(PIECES, max_size=8).map("".join)
KEYS = st.sampled_from(["type", "id", "evidence", "api_key", "Authorization", "secret",
                        "access_token", "tokens", "note", "x-api-key", "Cookie", "passwd",
                        "refresh_token", "Ocp-Apim-Subscription-Key", "conversation_key",
                        "Set-Cookie", "\u212aey"])
JSON = st.recursive(st.none() | st.integers(-5, 5) | st.booleans() | TEXT,
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_json_columns_are_redacted_exactly_as_before(value) -> None:
    import orjson

    assert _dumps_redacted(value) == orjson.dumps(redact(value)).decode()


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_a_value_judged_inert_is_unchanged_by_the_redactor(value) -> None:
    import orjson

    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        return
    if inert_json(text):
        assert redact(value) == value


def test_nothing_is_inert_while_a_key_is_known(monkeypatch) -> None:
    """A known key is masked whatever its shape, so no text can be judged safe unread."""
    monkeypatch.setattr(redact_module, "_known_sorted", ["plainvalue123"])
    assert not inert_json('{"note":"plainvalue123"}')

