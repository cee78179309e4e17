"""An auth scheme word followed by an escaped line break and a "name: value" pair.

Text pasted from a log or a repr of headers holds escapes as two characters ("\\n"), and the
JSON report holds every line break of a string as one: "Bearer\\napi_key: <secret>". The scheme
word must not swallow the name after the escape as its token (masking "api_key:" and leaving
the secret after it in clear): the secret after the name is what must be masked. 6808ef7 masked
it in every format; the one-scan redactor of issue #11's fifth pass (p5-redact) showed it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from traceview.cli import main
from traceview.safety.redact import redact, redact_json

SECRETS = ("abcdef123456LEAKA", "abcdef123456LEAKB", "hunter2hunter2LEAKC",
           "wrefreshtokenzLEAKD")
TEXTS = ("config:\nBearer\napi_key: abcdef123456LEAKA",
         "logged: Bearer\\napi_key: abcdef123456LEAKB",
         "Bearer\\npassword: hunter2hunter2LEAKC",
         "headers {'x': 'Bearer\\\\nAuthorization: wrefreshtokenzLEAKD'}")


def _capture(path: Path) -> Path:
    lines = []
    for k, text in enumerate(TEXTS):
        lines.append({"dir": "req", "body": {"model": "gpt-4o", "input": text, "store": True}})
        lines.append({"dir": "res", "elapsed_ms": 5, "body": {
            "id": f"resp_{k}", "object": "response", "status": "completed", "model": "gpt-4o",
            "output": [{"id": f"ws_{k}", "type": "web_search_call", "status": "completed",
                        "action": {"type": "search", "query": text}},
                       {"id": f"m{k}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": "echo " + text}]}],
            "usage": {"input_tokens": 5, "output_tokens": 1}}})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


@pytest.mark.parametrize("text", ["Bearer\\napi_key: abcdef123456LEAKB",
                                  "Bearer\\npassword: hunter2hunter2LEAKC",
                                  "bearer\\tauthorization: wrefreshtokenzLEAKD"])
def test_redact_masks_the_value_after_the_name(text: str) -> None:
    assert "LEAK" not in redact(text)


@pytest.mark.parametrize("text", ["Bearer\napi_key: abcdef123456LEAKA",
                                  "Bearer\\napi_key: abcdef123456LEAKB"])
def test_redact_json_masks_the_value_after_the_name(text: str) -> None:
    assert b"LEAK" not in redact_json(json.dumps({"user_text": text}).encode())


@pytest.mark.parametrize("fmt", [("json",), ("markdown",), ("text", "--width", "200")])
def test_no_report_format_shows_the_secret(fmt: tuple[str, ...], tmp_path: Path,
                                          capsysbinary: pytest.CaptureFixture[bytes],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
    main(["report", str(_capture(tmp_path / "c.jsonl")), "--format", *fmt])
    out = capsysbinary.readouterr().out
    assert b"[redacted]" in out
    for secret in SECRETS:
        assert secret.encode() not in out, secret
