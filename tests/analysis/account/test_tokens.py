"""Token counts in the model's own encoding, offline, and the labelled fallback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from traceview.analysis.account import tokens
from traceview.analysis.account.tokens import CL100K, O200K, counter_for, encoding_name, estimate


@pytest.mark.parametrize(("model", "encoding", "known"), [
    ("gpt-4o", O200K, True), ("gpt-4o-mini-2024-07-18", O200K, True),
    ("gpt-4.1-nano", O200K, True), ("gpt-5.4-nano", O200K, True), ("o3-mini", O200K, True),
    ("o4-mini-2025-04-16", O200K, True), ("gpt-4-turbo", CL100K, True),
    ("gpt-4", CL100K, True), ("gpt-3.5-turbo", CL100K, True),
    ("openai/gpt-4o", O200K, True), ("some-new-model", O200K, False), (None, O200K, False),
])
def test_model_to_encoding(model: str | None, encoding: str, known: bool) -> None:
    assert encoding_name(model) == (encoding, known)


@pytest.mark.parametrize(("text", "o200k", "cl100k"), [
    # tiktoken's README: "hello world" is 2 tokens, "tiktoken is great!" 6, in both.
    ("hello world", 2, 2),
    ("tiktoken is great!", 6, 6),
    ("Hello, world!", 4, 4),
    ("antidisestablishmentarianism", 6, 6),
    ("  indented\n\nnew line 12345 ✓ 日本語", 12, 14),
    ("<|endoftext|>", 7, 7),  # special tokens in user text are counted as plain text
    ("", 0, 0),
])
def test_known_counts(text: str, o200k: int, cl100k: int) -> None:
    assert counter_for("gpt-4o").count(text) == o200k
    assert counter_for("gpt-4").count(text) == cl100k


def test_counters_are_exact_and_named() -> None:
    assert counter_for("gpt-5") == tokens.Counter(O200K, exact=True)
    assert counter_for("gpt-3.5-turbo") == tokens.Counter(CL100K, exact=True)


def test_fallback_is_labelled_four_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_backend", lambda _encoding: None)
    monkeypatch.setattr(tokens, "_bindings", lambda: None)  # the package not installed
    counter_for.cache_clear()  # counters are made once per model
    counter = counter_for("gpt-4o")
    counter_for.cache_clear()
    assert counter == tokens.Counter(tokens.FALLBACK, exact=False)
    assert counter.count("hello world") == 3  # ceil(11 / 4)
    assert estimate("abcd") == 1 and estimate("abcde") == 2 and estimate("é") == 1


def test_counts_with_the_network_unplugged() -> None:
    """The vocabularies ship in the wheel: a fresh interpreter with every proxy pointing at
    a closed port and no cache directory still counts exactly."""
    env = dict(os.environ, HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9",
               ALL_PROXY="http://127.0.0.1:9", TIKTOKEN_CACHE_DIR="/nonexistent",
               XDG_CACHE_HOME="/nonexistent")
    code = ("from traceview.analysis.account.tokens import counter_for as c;"
            "print(c('gpt-4o').count('tiktoken is great!'), c('gpt-4').count('hello world'),"
            " c('gpt-4o').exact)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    assert out.stdout.split() == ["6", "2", "True"]
