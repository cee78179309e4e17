"""Text the redactor returns unchanged, told by a few passes in C instead of its pre-check.

`redact_text` lower-cases a text and tests ~40 substrings before it knows the text holds no
secret shape (~2 us for a user message): it runs on the user excerpt and hosted-call
queries of every turn while a capture loads. Text of ASCII letters, digits and spaces can
hold only four of the shapes (capture/redact.py): every other one needs a "-", "_", ":",
"=", ".", "/" or one of "?&;", and those four begin with "Bearer", "AIza", "AKIA" or
"ASIA". A registered key (`add_secret`) may be any word: while one is known, nothing is
passed over. tests/core/test_facts_fast_paths.py compares with redact_text on every
fixture's text and on keys of each shape.
"""

from __future__ import annotations

from traceview.safety import redact

# ASCII letters, digits and the space: an ASCII text's bytes with these deleted are empty
# only when the text is made of them (one C pass; str.isalnum is ~5x slower).
_PLAIN = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 "


def holds_no_secret(text: str) -> bool:
    """True only when redact_text(text) is surely `text` itself."""
    if redact.registered_keys() or not text.isascii():  # the registered keys, read each time
        return False
    if text.encode().translate(None, _PLAIN):  # a byte not a letter, digit or space
        return False
    low = text.lower()  # str searches: twice as fast as the same on bytes
    return not ("bearer" in low or "aiza" in low or "akia" in low or "asia" in low)
