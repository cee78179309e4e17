"""A key whose name and value are escaped twice before the redactor sees them.

Text a capture holds can already be escaped once: JSON quoted inside a string (a tool's
output, an error quoting a request body: `{\\"api_key\\": \\"…\\"}`), or a repr of a
model name (`'OPENAI_API_KEY\\t=\\t…'`) in a message. The JSON report escapes it again, so
the redactor sees `\\\\\\"` and `\\\\t` between name and value where it expected at most one
backslash: the value was written in clear (on every version up to this one).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.hostile.corpus import assert_no_traceback, secret_capture, traceview, write_jsonl
from traceview.safety.redact import redact, redact_json, redact_text

SECRET = "Zq9Xw8Vu7Ts6Rq5Po4"
SHAPES = [
    '{\\"api_key\\": \\"' + SECRET + '\\"}',           # JSON quoted in a string
    "{\\'refresh_token\\': \\'" + SECRET + "\\'}",      # a repr'd dict
    "OPENAI_API_KEY\\t=\\t" + SECRET,                  # a repr'd tab
    "Authorization:\\n Bearer " + SECRET,
    "client_secret\\u0020=\\u0020" + SECRET,
    "api-key: \\xa0" + SECRET,                       # a repr'd no-break space
]


@pytest.mark.parametrize("text", SHAPES)
def test_the_redactor_masks_a_key_escaped_twice(text: str) -> None:
    assert SECRET not in redact_text(text)
    once = orjson.dumps({"m": text})  # what the JSON report's bytes hold
    assert SECRET.encode() not in redact_json(once)
    assert SECRET.encode() not in redact_json(orjson.dumps({"m": text}, option=orjson.OPT_INDENT_2))
    assert SECRET not in orjson.dumps(redact({"m": text})).decode()
    assert orjson.loads(redact_json(once))  # still valid JSON


@pytest.mark.parametrize("text", [*SHAPES[:3], "api-key: \xa0" + SECRET])
def test_no_report_writes_a_key_escaped_twice(tmp_path: Path, text: str) -> None:
    recs = secret_capture(text)
    recs[1]["body"]["model"] = f"gpt-4o {text}"  # quoted again in the unpriced-model reason
    cap = write_jsonl(tmp_path / "c.jsonl", recs)
    for fmt in ("json", "text", "markdown"):
        out = traceview("report", str(cap), "--format", fmt, "--width", "400")
        assert_no_traceback(out)
        assert SECRET.encode() not in out.stdout, fmt
        assert SECRET.encode() not in out.stderr, fmt


@pytest.mark.parametrize("gap", ["\n", "\t", " ", "\n ", "\u00a0"])
def test_masking_masked_text_again_keeps_the_json_valid(gap: str) -> None:
    """A capture's error is masked when read and again in the report's bytes: the second
    pass must not take the backslash of an escape (`:\\nBasic [redacted]`) for a quote's and
    mask from the letter after it, which left `\\[` (invalid JSON: the whole report
    unreadable) on 799b371."""
    for text in (f"Authorization:{gap}Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==",
                 f"api_key:{gap}Bearer Zq9Xw8Vu7Ts6Rq5Po4", f"OPENAI_API_KEY={gap}sk-proj-abc"):
        masked = redact_text(text)
        once = orjson.dumps({"e": masked})
        again = redact_json(once)
        assert orjson.loads(again)["e"].endswith("[redacted]"), again  # valid, still masked
