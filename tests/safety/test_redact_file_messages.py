"""A message about a file whose name looks like a secret's keeps its words: the redactor
read "/etc/passwd: neither a snapshot …" as a `passwd:` field and masked "neither". Real
secrets after such a name stay masked."""

from __future__ import annotations

import pytest

from tests.fixtures_shared import SAMPLES
from traceview.cli import main
from traceview.safety.redact import redact_text


@pytest.mark.parametrize("text", [
    "/etc/passwd: neither a snapshot nor a capture",
    "traceview context: /run/secrets/api_key: Restarting the reader",
    "~/.config/openai/secret_key: contains one line",
    "./auth_token: afterwards",
    "../conf/client_secret: configuration missing",
    "reading '/srv/private_key: permission denied'",
])
def test_the_word_after_a_path_ending_in_a_secret_name_survives(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(("text", "masked"), [
    ("api_key: hunter2secret", "api_key: [redacted]"),
    ("username/password: correcthorse", "username/password: [redacted]"),  # not a path
    ("/etc/api_key=production", "/etc/api_key=[redacted]"),  # a value, not a message
    ("/etc/api_key: 0123456789abcdef", "/etc/api_key: [redacted]"),  # key-like: content
    ("/etc/api_key: hunter2secret", "/etc/api_key: [redacted]"),
    ("https://host/api_key: restarting", "https://host/api_key: [redacted]"),  # a URL
    ("/etc/api_key: sk-proj-abcdefghijklmnopqrstuvwx1234", "/etc/api_key: [redacted]"),
])
def test_secrets_after_such_names_are_still_masked(text, masked):
    assert redact_text(text) == masked


def test_a_long_run_of_path_messages_is_read_in_linear_time():
    text = "/a/api_key: word " * 10_000
    assert redact_text(text) == text


def test_context_names_the_file_it_cannot_read_in_plain_words(capsys):
    assert main(["context", str(SAMPLES / "claims.jsonl"), "--turn", "3",
                 "--items", "/etc/passwd"]) == 2
    assert "/etc/passwd: neither a snapshot nor a capture" in capsys.readouterr().err
