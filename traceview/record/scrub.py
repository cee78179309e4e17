"""Keep API keys out of captures.

Headers are never recorded, but keys also leak into bodies (a prompt that quotes a
config file, an error message that echoes the key). Every serialised line is scrubbed
for anything shaped like an OpenAI key and for the exact secrets seen in the
Authorization / api-key headers of the requests being recorded.
"""

from __future__ import annotations

import re
import threading

import orjson

from traceview.safety.known_keys import MIN_SECRET_LENGTH
from traceview.safety.redact import redact, redact_text

KEY_PATTERN = re.compile(rb"(?i:sk)-[A-Za-z0-9_\-]{16,}")  # "SK-…" too (bytes: ASCII case)
REDACTED = b"sk-***REDACTED***"


class Scrubber:
    """Replaces key-shaped strings and registered secrets in serialised records."""

    def __init__(self) -> None:
        self._secrets: set[bytes] = set()
        self._lock = threading.Lock()

    def add_secret(self, value: str | bytes | None) -> None:
        if not value:
            return
        raw = value.encode() if isinstance(value, str) else bytes(value)
        # The scheme in any case ("BEARER <key>" is as valid a header, RFC 9110): the key
        # after it is the secret a body may quote bare.
        if raw[:7].lower() == b"bearer ":
            raw = raw[7:]
        raw = raw.strip()
        if len(raw) >= MIN_SECRET_LENGTH:
            with self._lock:
                self._secrets.add(raw)

    def texts(self) -> list[str]:
        """The secrets seen, as text (a stream's deltas are masked as their join)."""
        with self._lock:
            return [s.decode("utf-8", "replace") for s in self._secrets]

    def scrub_bytes(self, line: bytes, shapes: bool = True) -> bytes:
        """The line with this recorder's secrets and every key shape masked. `shapes`
        False: the caller found nothing for the core redactor in the line (its
        `nothing_to_mask`; then no key pattern either, whose "sk-" is one of its hints),
        and only the exact secrets are looked for."""
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            if secret in line:
                line = line.replace(secret, b"***REDACTED***")
        if not shapes:
            return line
        line = KEY_PATTERN.sub(REDACTED, line)
        # Then the core redactor, so a capture masks every shape it knows (``?api_key=`` in
        # an endpoint the proxy or the SDK's default_query sent, Bearer tokens in bodies,
        # Google and Azure keys): the same redactor every other output path uses.
        text = line.decode("utf-8", "surrogatepass")
        masked = redact_text(text)
        if masked == text:
            return line
        try:  # a mask that ate an escape's backslash would break the line: check it
            orjson.loads(masked)
            return masked.encode("utf-8", "surrogatepass")
        except orjson.JSONDecodeError:  # then mask value by value (rare: masking happened)
            return orjson.dumps(redact(orjson.loads(line)))
