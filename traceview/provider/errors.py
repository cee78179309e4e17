"""The one error type the provider layer raises.

Every failure that can happen while talking to the provider is turned into a
``ProviderError`` whose ``message`` tells a person what to do next. Callers print
``str(err)`` and never a traceback. When some pages were read before the failure, the
partial copy rides along on ``err.partial`` (labelled incomplete) so that nothing partial
is ever passed off as the whole conversation.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from traceview.provider.provider_copy import ProviderCopy

ErrorKind = Literal[
    "auth",
    "not_found",
    "rate_limited",
    "server_error",
    "bad_request",
    "timeout",
    "network",
    "malformed",
    "cursor_runaway",
]

ERROR_KINDS: tuple[str, ...] = get_args(ErrorKind)

# Server messages are shown to the user; a 401 from the real provider echoes a masked key
# ("Incorrect API key provided: sk-proj-****abcd"). Strip anything key-shaped regardless.
_KEYLIKE = re.compile(r"\b(?ai:sk|sess|rk)-[A-Za-z0-9_\-*]{4,}")  # in any case: "SK-PROJ-…"


def scrub(text: str, secret: str | None = None) -> str:
    """Remove API-key-shaped substrings (and the configured key itself) from ``text``."""
    from traceview.safety.redact import redact_text

    if secret:
        text = text.replace(secret, "***")
    return redact_text(_KEYLIKE.sub("***", text))


class ProviderError(Exception):
    """A failure talking to the provider, with a message a person can act on."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status_code: int | None = None,
        partial: ProviderCopy | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.status_code = status_code
        self.partial = partial

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, object]:
        """The form stored in a snapshot's ``stopped`` field and in JSON output."""
        return {"kind": self.kind, "message": self.message, "status_code": self.status_code}
