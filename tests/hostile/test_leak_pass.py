"""Three defects an attack pass found: a secret's value that ran over the next secret's
name (leaving that one in clear), a GitHub or AWS token glued to the end of a word, and
`traceview export` stopping on a time past year 9999.
"""

from __future__ import annotations

import csv
from pathlib import Path

import orjson
import pytest

from traceview.safety.redact import redact_json, redact_text

from .corpus import assert_no_traceback, traceview, write_jsonl
from .test_damaged_times import GOOD, _capture

# (text, the secrets in it): the value of the first secret holds characters a value may
# hold ("?", "=", "/", ":") and runs up to the second secret's name.
RUN_OVER = [
    ("api-key: Xk9Xk9Xk9/path?after=api-key: Yq7Yq7Yq7Yq7", ["Xk9Xk9Xk9", "Yq7Yq7Yq7Yq7"]),
    ("api_key=Ab1Ab1Ab1?x=password=\"Cd2Cd2Cd2Cd2\"", ["Ab1Ab1Ab1", "Cd2Cd2Cd2Cd2"]),
    ("Authorization: Basic Ef3Ef3Ef3?u=api_key: Gh4Gh4Gh4Gh4", ["Ef3Ef3Ef3", "Gh4Gh4Gh4Gh4"]),
    ("was Bearer Ef3Ef3Ef3?u=api_key: Gh4Gh4Gh4Gh4", ["Ef3Ef3Ef3", "Gh4Gh4Gh4Gh4"]),
    ("GET /a?key=Ij5Ij5Ij5/b?c=secret: 'Kl6Kl6Kl6Kl6'", ["Ij5Ij5Ij5", "Kl6Kl6Kl6Kl6"]),
    ("auth_token: Mn7Mn7Mn7Mn7/x:y=Bearer Op8Op8Op8Op8", ["Mn7Mn7Mn7Mn7", "Op8Op8Op8Op8"]),
    ("client_secret=Qr9Qr9Qr9:https://bob:Pw0Pw0Pw0(x@host", ["Qr9Qr9Qr9", "Pw0Pw0Pw0"]),
    ("password: St1St1St1?a=x_api_key:\tUv2Uv2Uv2Uv2?b=auth_token= Wx3Wx3Wx3Wx3",
     ["St1St1St1", "Uv2Uv2Uv2Uv2", "Wx3Wx3Wx3Wx3"]),
    ("api-key: password: Yz4Yz4Yz4Yz4", ["Yz4Yz4Yz4Yz4"]),
]

GH = "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"  # 36: a classic GitHub token's body
GLUED = [
    (f"fooghp_{GH}", f"ghp_{GH}"),
    (f"the token wasgho_{GH}.", f"gho_{GH}"),
    (f"x9ghs_{GH} end", f"ghs_{GH}"),
    ("foogithub_pat_11ABCDEFG0123456789abc_" + "Zy9" * 19 + "Q2",
     "Zy9Zy9Zy9Zy9Zy9Zy9Zy9Zy9"),
    ("xAKIAIOSFODNN7EXAMPL3", "AKIAIOSFODNN7EXAMPL3"),
    ("XAKIAIOSFODNN7EXAMPL3 region", "AKIAIOSFODNN7EXAMPL3"),
    ("id=1ASIAIOSFODNN7EXAMPL3", "ASIAIOSFODNN7EXAMPL3"),
    ("KEYAKIAIOSFODNN7EXAMPL3region", "AKIAIOSFODNN7EXAMPL3"),
    ("mykeysk-proj-Lm3Nb6Vc9Xz2As5Df8Gh1Jk4Lq7We0Rt3Yu", "Lm3Nb6Vc9Xz2As5Df8Gh1Jk4Lq7We0Rt"),
    ("worksess-Hy7uJi8kLo9pQa1wSe2dRf3tGy4hUj5kAa0bB1c2", "Hy7uJi8kLo9pQa1wSe2dRf3tGy4hUj5k"),
]

ORDINARY = [
    "the network-attached-storage and framework-level work-in-progress notes",
    "a highghp_ratio and laughs_a_lot; sigh_of_relief",
    "the MASKIA value: XAKIA12 and AKIAIOSFODNN7EXAMPL3X2 is too long",
    "the session-based and task-specific views",
]


@pytest.mark.parametrize(("text", "secrets"), RUN_OVER)
def test_a_value_does_not_swallow_the_next_secret(text: str, secrets: list[str]) -> None:
    masked = redact_text(text)
    for s in secrets:
        assert s not in masked, masked
    assert redact_text(masked) == masked  # masking again changes nothing
    doc = orjson.dumps({"a": text, "b": [f"quoted {text!r}"]})
    out = redact_json(doc)
    for s in secrets:
        assert s.encode() not in out, out
    orjson.loads(out)  # still valid JSON
    assert redact_json(out) == out


@pytest.mark.parametrize(("text", "secret"), GLUED)
def test_a_token_glued_to_a_word_is_masked(text: str, secret: str) -> None:
    masked = redact_text(text)
    assert secret not in masked, masked
    assert secret.encode() not in redact_json(orjson.dumps({"t": text}))
    assert redact_text(masked) == masked


@pytest.mark.parametrize("text", ORDINARY)
def test_words_holding_a_prefix_are_left_alone(text: str) -> None:
    assert redact_text(text) == text


def test_export_masks_both_secrets_and_glued_tokens(tmp_path: Path) -> None:
    said = " | ".join([t for t, _ in RUN_OVER] + [t for t, _ in GLUED])
    cap = write_jsonl(tmp_path / "c.jsonl", [
        {"dir": "req", "id": "a", "endpoint": f"POST /v1/responses?note={said}",
         "body": {"model": "gpt-4o", "input": said}},
        {"dir": "res", "id": "a", "status_code": 401,
         "body": {"error": {"message": f"bad key {said}"}}},
    ])
    out = traceview("export", str(cap), "--to", "csv", "-o", str(tmp_path / "csv"))
    assert_no_traceback(out)
    rep = traceview("report", str(cap), "--format", "json")
    assert_no_traceback(rep)
    written = b"".join(p.read_bytes() for p in (tmp_path / "csv").glob("*.csv"))
    assert b"[redacted]" in written and b"[redacted]" in rep.stdout
    for s in [s for _, ss in RUN_OVER for s in ss] + [s for _, s in GLUED]:
        for where in (written, rep.stdout, out.stdout, out.stderr):
            assert s.encode() not in where, s


@pytest.mark.parametrize("created", [300_000_000_000, 1_764_480_000_123, 3e11 + 0.5, 1e300],
                         ids=["year-11476", "milliseconds", "fraction", "1e300"])
def test_export_reads_a_time_past_the_calendar_as_unknown(tmp_path: Path,
                                                          created: float) -> None:
    """As the report does (tests/hostile/test_damaged_times.py): the turn's time is
    unknown, the other turn's time is still read, every sink writes."""
    cap = write_jsonl(tmp_path / "c.jsonl", _capture(created))
    out = traceview("export", str(cap), "--to", "csv", "-o", str(tmp_path / "csv"))
    assert_no_traceback(out)
    assert out.returncode == 0, out.stderr
    with open(tmp_path / "csv" / "turns.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["ts"] for r in rows] == ["", "2025-11-30T05:20:00Z"]
    assert [r["date"] for r in rows] == ["unknown", "2025-11-30"]
    with open(tmp_path / "csv" / "conversations.csv", encoding="utf-8") as f:
        firsts = sorted(r["first_ts"] for r in csv.DictReader(f))
    assert firsts == ["", "2025-11-30T05:20:00Z"] or firsts == ["2025-11-30T05:20:00Z"]
    for kind, target in (("parquet", "pq"), ("duckdb", "f.duckdb"), ("otlp", "spans.json")):
        out = traceview("export", str(cap), "--to", kind, "-o", str(tmp_path / target))
        assert_no_traceback(out)
        assert out.returncode == 0, (kind, out.stderr)
    spans = orjson.loads((tmp_path / "spans.json").read_bytes())
    starts = sorted(int(s["startTimeUnixNano"])
                    for rs in spans["resourceSpans"] for ss in rs["scopeSpans"]
                    for s in ss["spans"])
    assert starts[-1] == GOOD * 1_000_000_000


def test_a_value_of_many_names_masks_the_last_secret() -> None:
    """Names are tried from the value's end, a few at most: 20,000 query keys in one value
    are masked in one pass (trying each to the value's end was quadratic)."""
    for tail, shown in (("?x=api_key: Sc9Sc9Sc9Sc9", "api_key: [redacted]"),
                        (",Sc9Sc9Sc9Sc9 end", "?key=[redacted] end")):
        text = "api_key: " + "?key=abcd" * 20_000 + tail
        masked = redact_text(text)
        assert "Sc9Sc9Sc9Sc9" not in masked and "abcd" not in masked
        assert masked.endswith(shown), masked[-60:]
