"""The organization and project a call was billed to, as the provider's response headers
(`openai-project`, `openai-organization`) or the client's request headers name them: ids,
not secrets, read once for the turn's facts and the exchanges' (issue 33)."""

from __future__ import annotations

from typing import Any

from traceview.safety.redact import redact_text

BILLED_TO = (("openai-project", "project"), ("openai-organization", "organization"))


def billed_to(low: dict[str, Any]) -> dict[str, str]:
    """`project` / `organization` from lower-cased headers, when they are plain ids."""
    out = {}
    for header, key in BILLED_TO:
        v = low.get(header)
        if isinstance(v, str) and v.strip() and len(v) <= 200:
            out[key] = redact_text(v.strip())[:100]
    return out
