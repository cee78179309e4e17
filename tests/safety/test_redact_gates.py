"""The redactor's cheap pre-check tests its literals in groups behind a shared piece:
every literal must still send its text to the full patterns, in any case."""

from __future__ import annotations

from traceview.safety.redact import _LITERALS, _maybe_secret, redact_text


def test_every_literal_still_reaches_the_patterns() -> None:
    for lit in _LITERALS:
        for text in (f"plain words {lit} more words", f"{lit}".upper(), f"x{lit}x"):
            assert _maybe_secret(text), text


def test_plain_prose_is_passed_over_and_keys_are_still_masked() -> None:
    assert not _maybe_secret("schedule policy excess kitchen flood cover appliance water")
    assert redact_text("my GitHub token is ghp_" + "a1" * 15) == "my GitHub token is [redacted]"
    assert redact_text("Api-Key:  abcdef123456") == "Api-Key:  [redacted]"
