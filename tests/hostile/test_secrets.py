"""Secrets never leave through traceview: a table of key shapes against every output."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from traceview.safety.redact import redact, redact_text
from traceview.sim import SimServer

from .corpus import KEY_SHAPES, assert_no_traceback, secret_capture, traceview, write_jsonl

IDS = [name for name, _, _ in KEY_SHAPES]


def test_the_table_holds_at_least_25_shapes() -> None:
    assert len(KEY_SHAPES) >= 25


@pytest.mark.parametrize(("name", "text", "secret"), KEY_SHAPES, ids=IDS)
def test_redactor_masks_every_shape(name: str, text: str, secret: str) -> None:
    assert secret in text
    assert secret not in redact_text(text)
    assert secret not in orjson.dumps(redact({"x": text, "nested": [{"y": text}]})).decode()


@pytest.mark.parametrize(("name", "text", "secret"), KEY_SHAPES, ids=IDS)
def test_no_report_format_writes_the_key(name: str, text: str, secret: str,
                                         tmp_path: Path) -> None:
    cap = write_jsonl(tmp_path / "c.jsonl", secret_capture(text))
    for fmt in ("text", "markdown", "json"):
        out = traceview("report", str(cap), "--format", fmt, "--width", "400")
        assert_no_traceback(out)
        assert secret.encode() not in out.stdout, fmt
        assert secret.encode() not in out.stderr, fmt


def test_ordinary_text_is_left_alone() -> None:
    for text in ("The key point: ask about the risk-based excess and my desk-top notes.",
                 "max_output_tokens=500 and the key=value pairs of a dict",
                 "Use monkey-patching and whisk-based batter; token budget 4,096.",
                 "https://example.com/search?q=weather&page=2"):
        assert redact_text(text) == text, text


def _chain_capture(path: Path, quote: str) -> Path:
    return write_jsonl(path, [
        {"dir": "req", "body": {"model": "gpt-4o", "input": f"remember {quote}"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_a", "status": "completed",
                                "output": [], "usage": {"input_tokens": 3,
                                                        "output_tokens": 1}}},
        {"dir": "req", "body": {"model": "gpt-4o", "previous_response_id": "resp_a",
                                "input": "next"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_b", "status": "completed",
                                "output": [], "usage": {"input_tokens": 3,
                                                        "output_tokens": 1}}},
    ])


def test_fetch_and_live_diff_mask_the_key_in_use(tmp_path: Path) -> None:
    """The provider's stored text quotes the key the command runs with (not sk- shaped)."""
    key = "MyCustomGatewayKey-5f5f5f5f"
    env = {"OPENAI_API_KEY": key}
    with SimServer() as sim:
        import openai

        client = openai.OpenAI(base_url=sim.base_url, api_key=key, max_retries=0)
        conv = client.conversations.create(items=[
            {"type": "message", "role": "user", "content": f"my key is {key} and "
             "sk-proj-Qw3rTy6uIo9pAs2dFg5hJk8lZx1cVb4nM7qW0eR3tY6u"}])
        cap = write_jsonl(tmp_path / "c.jsonl", [
            {"dir": "req", "body": {"model": "m", "conversation": conv.id, "input": "hi"}},
            {"dir": "res", "body": {"object": "response", "id": "resp_1",
                                    "status": "completed", "output": []}}])
        snap = tmp_path / "snap.json"
        out = traceview("fetch", str(cap), "-o", str(snap), "--base-url", sim.base_url,
                        env=env)
        assert_no_traceback(out)
        assert snap.exists(), out.stderr
        written = snap.read_bytes() + out.stdout + out.stderr
        assert key.encode() not in written
        assert b"Qw3rTy6uIo9pAs2dFg5hJk8l" not in written
        for fmt in ("text", "markdown", "json"):
            out = traceview("diff", str(cap), "--live", "--format", fmt, "--base-url",
                            sim.base_url, env=env)
            assert_no_traceback(out)
            assert out.returncode in (0, 1), out.stderr
            assert key.encode() not in out.stdout + out.stderr, fmt
            assert b"Qw3rTy6uIo9pAs2dFg5hJk8l" not in out.stdout, fmt
        client.close()


def test_diff_json_item_bodies_are_redacted(tmp_path: Path) -> None:
    secret = "sk-proj-Lm3Nb6Vc9Xz2As5Df8Gh1Jk4Lq7We0Rt3Yu"
    cap = _chain_capture(tmp_path / "c.jsonl", secret)
    snap = tmp_path / "s.json"
    snap.write_bytes(orjson.dumps({"object": "traceview.snapshot", "conversation": "resp_b",
                                   "kind": "chain", "complete": True, "pages": 1,
                                   "items": [{"type": "message", "role": "user", "id": "m",
                                              "content": [{"type": "input_text",
                                                           "text": f"other {secret}"}]}]}))
    for fmt in ("text", "markdown", "json"):
        out = traceview("diff", str(cap), "--items", str(snap), "--format", fmt)
        assert_no_traceback(out)
        assert b"Lm3Nb6Vc9Xz2As5Df8Gh1" not in out.stdout + out.stderr, (fmt, out.stderr)


def test_a_401_that_echoes_a_non_sk_key_is_masked_on_stderr(tmp_path: Path) -> None:
    key = "gw-PlainGatewayKey-0a0b0c0d0e"
    cap = write_jsonl(tmp_path / "c.jsonl", [
        {"dir": "req", "body": {"model": "m", "conversation": "conv_1", "input": "hi"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_1", "status": "completed",
                                "output": []}}])
    with SimServer() as sim:
        sim.inject(status=401, message=f"Incorrect API key provided: {key}", times=5)
        out = traceview("fetch", str(cap), "-o", str(tmp_path / "s.json"), "--base-url",
                        sim.base_url, "--max-retries", "0", env={"OPENAI_API_KEY": key})
    assert_no_traceback(out)
    assert out.returncode == 2
    assert key.encode() not in out.stderr + out.stdout
