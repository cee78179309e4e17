"""The pre-check's scans decide which lines `_HINT` is tried on: a chunk whose scans find
nothing is answered without looking at any line (most short texts: a prompt's excerpt, a
query). The verdict must be the one `_HINT` gives each line searched whole, and a text the
pre-check passes over must be one the masker leaves as it is (properties, over random and
adversarial text)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.safety import mask
from traceview.safety.redact import _HINT, _hinted_lines, redact_text

# Each piece of _HINT, its anchors' neighbours, separators raw and escaped, the report's
# own field names, non-ASCII runs and the Kelvin sign, among ordinary words.
PIECES = st.sampled_from([
    "sk-", "sess-", "rk-", "eyJ", "AIza", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_",
    "ghr_", "github_pat_", "://", "https://u:pw@h", "Bearer ", "bearer", "secret", "passw",
    "Authoriz", "cookie", "key", "KEY", "\u212aey", "token", "tokens", "api-key", "api_key",
    '"key"', '"conversation_key"', '"prompt_cache_key"', 'key"', 'token"', "?", "&", ";",
    "\\u0026", "key=", "sig=", "code=", "client-secret=", "signature=", "-Credential=", "=",
    ":", "'", "\\", "\\t", "\\n", "\\u00a0", "\\x1f", "\u00a0", "\u2003", "\n", "\t", " ",
    "\x1c", "0123456789abcdef", "Q7x9Lm2Pz8Kd4Rt6", "kitchen", "flood", "wage", "jazz",
    "swbg", "yj", "ysj", "keyboard", "monkey", "stoken", "é", "\x80", "x", "_",
])
TEXT = st.one_of(st.lists(PIECES, max_size=12).map("".join), st.text(max_size=40),
                 st.lists(PIECES | st.text(max_size=3), max_size=12).map("".join))


def _lines_hinted_whole(chunk: bytes) -> list[int]:
    """The verdict the scans stand in for: each line's lower-cased text searched whole."""
    starts, at = [], 0
    for line in chunk.split(b"\n"):
        if _HINT.search(line.lower()) is not None:
            starts.append(at)
        at += len(line) + 1
    return starts


@settings(max_examples=1000, deadline=None)
@given(TEXT)
def test_the_scans_name_exactly_the_lines_hint_finds(text: str) -> None:
    chunk = text.encode("utf-8", "surrogatepass")
    assert _hinted_lines(chunk) == _lines_hinted_whole(chunk)


@settings(max_examples=1000, deadline=None)
@given(TEXT)
def test_a_text_the_pre_check_passes_over_is_one_the_masker_leaves(text: str) -> None:
    assert redact_text(text) == mask.mask(text)
