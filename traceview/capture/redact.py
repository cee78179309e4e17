"""Mask secrets before anything from a capture is shown, exported or written.

Captures written by other tools may hold API keys: a header someone logged into a body,
a prompt that quotes a config file, an error that echoes the key. Values under
secret-named keys are masked whole; key-shaped strings are masked wherever they occur.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "[redacted]"
SECRET_KEYS = {"authorization", "proxy-authorization", "api_key", "api-key", "apikey",
               "x-api-key", "openai-api-key", "openai_api_key", "access_token", "password",
               "client_secret", "secret"}
_PATTERNS = re.compile(
    r"(?P<sk>\bsk-[A-Za-z0-9_\-]{8,})"
    r"|(?P<bearer>\b[Bb]earer\s+)[A-Za-z0-9._~+/\-]{8,}=*"
    r"|(?P<named>\b(?:api[_-]?key|authorization|x-api-key)[\"']?\s*[:=]\s*[\"']?"
    r"(?:[Bb]earer\s+)?)"
    r"(?!\[redacted\])[^\s\"',}]{6,}",
    re.IGNORECASE,
)


def _sub(m: re.Match[str]) -> str:
    if m.group("sk"):
        return "sk-" + MASK
    if m.group("bearer"):
        return m.group("bearer") + MASK
    return m.group("named") + MASK


def redact_text(text: str) -> str:
    """The text with every key-shaped substring masked."""
    if "sk-" not in text and "earer" not in text and not _maybe_named(text):
        return text
    return _PATTERNS.sub(_sub, text)


def _maybe_named(text: str) -> bool:
    low = text.lower()
    return "key" in low or "authorization" in low


def redact(obj: Any) -> Any:
    """A copy of a JSON value with secret-named fields and key-shaped strings masked."""
    if isinstance(obj, dict):
        return {k: (MASK if isinstance(k, str) and k.lower() in SECRET_KEYS and v
                    else redact(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact(v) for v in obj]
    if isinstance(obj, str):
        return redact_text(obj)
    return obj
