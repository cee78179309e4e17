"""`redact()` passes over a value with nothing to mask (its JSON text holds no hint and no
secret-named field) and walks every other: the value it passes over is one the walk leaves
unchanged (a property, over hostile text)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.safety.known_keys import registered
from traceview.safety.redact import redact

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
                        "Set-Cookie", "\u212aey", "prompt_cache_key", "my_secret_key"])
JSON = st.recursive(st.none() | st.integers(-5, 5) | st.booleans() | TEXT,
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_a_value_passed_over_is_one_the_walk_leaves_unchanged(value) -> None:
    plain = redact(value)
    with registered("zq-not-in-any-text-zq"):  # while a key is registered, every value is walked
        walked = redact(value)
    assert plain == walked


def test_a_value_with_nothing_to_mask_is_returned_as_it_is() -> None:
    value = {"type": "message", "content": [{"text": "plain words, 12 tokens"}]}
    assert redact(value) is value
    assert redact({"note": "sk-proj-Ab12Cd34Ef56Gh78"}) == {"note": "sk-[redacted]"}
    assert redact({"Set-Cookie": "x"}) == {"Set-Cookie": "[redacted]"}


def test_a_responses_body_with_its_prompt_cache_key_is_passed_over() -> None:
    """`"prompt_cache_key"` is on every Responses body; no name the masker reads ends in
    "cache_key", so it alone does not make a recorded line masked value by value (what a
    proxy paid on every call), while a secret beside it, or under a name that is one (in the
    line's text, as the recorder masks it too), is still masked."""
    body = {"id": "resp_1", "object": "response", "prompt_cache_key": None,
            "output": [{"type": "message", "content": [{"text": "plain words"}]}]}
    assert redact(body) is body
    assert redact({**body, "prompt_cache_key": "sk-proj-Ab12Cd34Ef56Gh78"})[
        "prompt_cache_key"] == "sk-[redacted]"
    from traceview.safety.redact import redact_text
    assert redact_text('{"prompt_cache_key": null, "my_secret_key": "hunter2hunter2"}') == (
        '{"prompt_cache_key": null, "my_secret_key": "[redacted]"}')
