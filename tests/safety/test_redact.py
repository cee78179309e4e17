"""Secrets in a capture never reach output."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures_shared import run_cli
from traceview.safety.redact import redact, redact_text


def test_key_shapes_and_secret_fields_are_masked() -> None:
    body = {"metadata": {"x-api-key": "sk-proj-FAKEKEY1234567890abcdef", "note": "fine"},
            "input": "use Authorization: Bearer abcdefghijklmnop and sk-live_0123456789abcdef",
            "headers": [{"Authorization": "Bearer zzzzzzzzzzzz"}], "api_key": ""}
    out = redact(body)
    flat = str(out)
    assert "FAKEKEY" not in flat and "abcdefghijklmnop" not in flat
    assert "0123456789abcdef" not in flat and "zzzzzzzzzzzz" not in flat
    assert out["metadata"]["note"] == "fine"
    assert out["api_key"] == ""  # an empty value is not a secret
    assert body["metadata"]["x-api-key"].startswith("sk-proj")  # the input is not modified


def test_ordinary_text_is_untouched() -> None:
    text = "The key point: ask about the risk-based excess and my desk-top notes."
    assert redact_text(text) == text


KEY = "sk-proj-FAKEKEY1234567890abcdef"


def _leaky_capture(path: Path) -> Path:
    """A capture whose *shown* fields carry a key and escapes: the user text, an error, an
    exchange endpoint. (The hostile sample keeps its keys in fields no report shows, so a
    report without redaction passed over it unnoticed.)"""
    import orjson

    records = [
        {"dir": "req", "body": {"model": "gpt-4o", "input": f"my key is {KEY} \x1b[31mred"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_1", "status": "failed",
                                "error": {"code": "x", "message": f"echo {KEY}"},
                                "output": [], "usage": {"input_tokens": 3,
                                                        "output_tokens": 1}}},
        {"dir": "req", "body": {"model": "gpt-4o", "input": "\x1b[31mred\x07 text"}},
        {"dir": "res", "body": {"object": "response", "id": "resp_2", "status": "completed",
                                "output": [], "usage": {"input_tokens": 3,
                                                        "output_tokens": 1}}},
        {"dir": "req", "endpoint": f"GET /v1/models?api_key={KEY}"},
        {"dir": "res", "status_code": 200, "body": {"object": "list", "data": []}},
    ]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def test_report_of_a_leaky_capture_holds_no_key(tmp_path: Path) -> None:
    cap = _leaky_capture(tmp_path / "leaky.jsonl")
    for fmt in ("text", "markdown", "json"):
        out = run_cli("report", str(cap), "--format", fmt, "--width", "300")
        assert out.returncode in (0, 1), out.stderr
        assert b"FAKEKEY" not in out.stdout, fmt
        assert b"[redacted]" in out.stdout, fmt  # the field was shown, masked


def test_report_shows_markup_and_escapes_literally(tmp_path: Path) -> None:
    cap = _leaky_capture(tmp_path / "leaky.jsonl")
    for fmt in ("text", "markdown"):
        out = run_cli("report", str(cap), "--format", fmt, "--width", "300")
        assert b"\x1b" not in out.stdout, fmt
        assert b"\\x1b[31mred" in out.stdout, fmt  # shown, as text
    for fmt in ("text", "markdown"):
        out = run_cli("report", "sample_traces/hostile.jsonl", "--format", fmt, "--width", "200")
        assert not any(c in out.stdout for c in (b"\x1b", b"\x07", b"\x00", b"\xe2\x80\xae"))
    assert b"[bold red]pwned[/]" in out.stdout  # markup printed as text, never applied


def test_redact_json_masks_only_hinted_lines_and_repeats_of_them() -> None:
    """A large serialised chunk: every line holding a key is masked (repeats too), the rest
    is left byte for byte, and the document still parses to the same shape."""
    import orjson

    from traceview.safety.redact import redact_json

    doc = {"conversations": [{"key": f"turn-{i}", "note": "share = a / b; split"}
                             for i in range(200)],
           "leak": ["ok"] * 50 + ["Authorization: Bearer abcdef1234567890", "sk-proj-" + "a1" * 20,
                                  "https://x.test/v1?api_key=zzzz9999", "plain"]}
    raw = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    out = redact_json(raw)
    back = orjson.loads(out)
    assert back["conversations"] == doc["conversations"]
    leak = back["leak"]
    assert leak[:50] == ["ok"] * 50 and leak[-1] == "plain"
    assert "abcdef1234567890" not in out.decode() and "a1a1a1a1" not in out.decode()
    assert "zzzz9999" not in out.decode() and out.count(b"[redacted]") == 3


# A key with no recognisable shape, after its name and a separator set apart by whitespace:
# the pattern always allowed this, but the pre-checks (one space at most) skipped the text.
SPACED = ("api_key  =Q7x9Lm2Pz8Kd4Rt6", "Azure api-key\t: 8c1f0e9b7a6d5c4b3a2f1e0d",
          "password\n: hunter2hunter2", "client_secret \u00a0= Zq8Wn4Ht2Xk9")


def test_a_secret_set_apart_from_its_name_by_whitespace_is_masked(tmp_path: Path) -> None:
    import orjson

    secrets = ("Q7x9Lm2Pz8Kd4Rt6", "8c1f0e9b7a6d5c4b3a2f1e0d", "hunter2hunter2", "Zq8Wn4Ht2Xk9")
    for text, secret in zip(SPACED, secrets, strict=True):
        assert secret not in redact_text(text), text
    cap = tmp_path / "spaced.jsonl"
    cap.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in (
        {"dir": "req", "body": {"model": "gpt-4o", "input": " ".join(SPACED)}},
        {"dir": "res", "body": {"object": "response", "id": "resp_1", "status": "failed",
                                "error": {"code": "x", "message": "\n".join(SPACED)},
                                "output": [], "usage": {"input_tokens": 3,
                                                        "output_tokens": 1}}})))
    for fmt in ("text", "markdown", "json"):
        out = run_cli("report", str(cap), "--format", fmt, "--width", "300")
        assert out.returncode in (0, 1), out.stderr
        for secret in secrets:
            assert secret.encode() not in out.stdout, (fmt, secret)


def test_the_pre_check_never_skips_text_a_pattern_would_mask() -> None:
    """The pre-check spares most text the full patterns: it must say yes to every text
    they would change. Fuzz from pieces of every shape, separators and near misses."""
    import random

    from traceview.safety import mask, shapes

    pieces = ["sk-", "sess-", "rk-", "eyJ", "AIza", "AKIA", "ghp_", "github_pat_", "://",
              "user:", "@", "Bearer ", "basic ", "secret", "password", "passwd", "cookie",
              "api_key", "api-key", "access_token", "client_secret", "key", "token", "auth",
              "sig", "signature", "code", "=", ":", " ", "  ", "\t", "\n", "\\t", "\\n",
              "\\u00a0", "\u00a0", '"', "'", "\\", "?", "&", ";", "include=[", "cached;",
              "Q7x9Lm2Pz8Kd4Rt6", "abcdefgh", "0123456789", "_", ".", "x"]
    rnd = random.Random(5)
    checked = 0
    for _ in range(20_000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(2, 9)))
        if shapes._PATTERNS.search(text):
            checked += 1
            assert redact_text(text) == mask.mask(text), repr(text)
    assert checked > 2_000  # the fuzz does reach the patterns


def test_an_auth_scheme_spaced_as_json_escapes_it_does_not_hide_the_token() -> None:
    """"Bearer" then a tab or a no-break space as JSON writes them (\\t, \\u00a0): the
    token after the escape is masked, not the word "Bearer" in its place."""
    for sep in ("\\t", "\\u00a0", "\\\\t", "\\n", "\u00a0", " \\t "):
        for text in (f"Authorization: Bearer{sep}opaque0Token9value",
                     f'{{"authorization": "Basic{sep}opaque0Token9value"}}',
                     f"was x Bearer{sep}opaque0Token9value"):
            out = redact_text(text)
            assert "opaque0Token9value" not in out, text
            assert out.endswith(("[redacted]", '[redacted]"}')), out


def test_masking_twice_is_masking_once() -> None:
    """A masked document fed back (a report of a report, a snapshot re-exported) is left
    as it is: "Authorization: Bearer [redacted]" was masked again as "[redacted] [redacted]"."""
    from tests.hostile.corpus import KEY_SHAPES

    texts = [text for _, text, _ in KEY_SHAPES] + [
        "Authorization: Bearer abcdefgh12345", "proxy-authorization: bearer sk-abcdefghijkl",
        '{"Authorization": "Token abcdefgh12345"}', "Authorization: Digest abcdefgh12345",
        "Authorization: Bearer\\tabcdefgh12345", '"api_key": "Bearer abcdefgh12345"']
    for text in texts:
        once = redact_text(text)
        assert once != text, text
        assert redact_text(once) == once, (text, once)
