"""Hint patterns are linear on hostile text: a name followed by a long run of non-ASCII.

The hint for "key  =" / "token\\t:" lets bytes over 0x7f (a non-ASCII space's UTF-8) stand
between the name and its separator. Taken in 2–4-byte pieces, a run of them with no
separator after it can be cut many ways, and the line check of the one-scan hints tried
them all: "key" then 16 "≈" (what traceview's own explanations write) took 22 s in its
first version. The run is now taken whole (possessive), in every form of the pattern.
"""

from __future__ import annotations

from tests.hostile.corpus import finishes
from traceview.safety.redact import _HINT, _hinted_lines, redact_json

# Run in a child, so that a pattern gone exponential fails this test instead of hanging
# the suite; the bound is generous (each input takes microseconds), not a timing check.
_CHILD = """
from traceview.safety.redact import redact_json, redact_text, _HINT, _hinted_lines
for name in (b"key", b"token", b"KEY", b"api_key"):
    for run in ("\\u2248", "\\u8a2d", "\\u00a0", "\\U0001f600"):
        chunk = name + (run * 400).encode() + b"a\\n" + name + (run * 400).encode()
        redact_json(chunk)
        _HINT.search(chunk.lower())
        _hinted_lines(chunk)
        redact_text(chunk.decode())
print("done")
"""


def test_a_name_before_a_long_non_ascii_run_is_searched_in_linear_time() -> None:
    finishes(_CHILD)


def test_a_non_ascii_space_between_name_and_separator_still_hints() -> None:
    """The run taken whole still spans what it spanned: "key\\u00a0\\u00a0:" is hinted
    (and the value after it masked), "key\\u00a0x" is not."""
    assert _HINT.search("api_key\u00a0\u2003: value".encode()) is not None
    assert _HINT.search("key\u00a0x".encode()) is None
    assert _hinted_lines("api_key\u00a0\u2003: value".encode()) == [0]
    out = redact_json('{"note": "api_key\u00a0\u2003: Zx12Cv34Bn56Qw"}'.encode())
    assert b"Zx12Cv34Bn56Qw" not in out
