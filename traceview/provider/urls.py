"""Whether a provider base URL can be sent to: the one check, for `--base-url` (argparse,
commands/numbers.py) and for the URL a client is made with (client.py, costs.py), which
may come from `$OPENAI_BASE_URL`. Apart from client.py so a command's flags can use it
without importing the SDK."""

from __future__ import annotations

MASK = "[redacted]"
_SPACES = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return"}


def shown_url(text: str) -> str:
    """``text`` quoted for a message with any userinfo masked: everything between ``://``
    (or the start, without one) and the last ``@`` — the password may hold a space, a
    slash or an ``@`` that would stop a pattern-based redactor short."""
    head, sep, rest = text.partition("://")
    if not sep:
        head, rest = "", text
    at = rest.rfind("@")
    if at >= 0:
        rest = MASK + rest[at:]
    return repr(head + sep + rest)


def _whitespace(text: str) -> str | None:
    """Which whitespace ``text`` holds and where (``a space at its end``), or None."""
    kinds = [_SPACES.get(c, f"whitespace (U+{ord(c):04X})")
             for c in dict.fromkeys(c for c in text if c.isspace())]
    if not kinds:
        return None
    stripped = text.strip()
    ends = (text[:1].isspace(), text[-1:].isspace())
    where = ("inside it" if not any(ends) else
             "at its start and end" if all(ends) else
             "at its start" if ends[0] else "at its end")
    if any(ends) and any(c.isspace() for c in stripped):
        where += " and inside it"
    return f"it has {' and '.join(kinds)} {where}, which no URL has"


def base_url_fault(text: str) -> str | None:
    """Why ``text`` is not an http(s) URL with a host (and a port that is a number from 0 to
    65535), or None: a malformed one is refused before any request, not retried as if the
    network had failed (nor left to the HTTP client, which raises ValueError on it)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        parts = None
    malformed = parts is None or parts.scheme not in ("http", "https") or not parts.hostname
    space = _whitespace(text)
    if malformed or space:  # whitespace named when it is what is wrong, not beside more
        cause = f" ({space})" if space and not malformed else ""
        if cause and not _whitespace(shown_url(text)):  # all of it in the masked part
            cause = cause.replace("inside it", "in its user name or password")
        return (f"not a URL: {shown_url(text)}{cause}; give the provider's base URL, e.g. "
                "https://api.openai.com/v1 or http://127.0.0.1:8080/v1")
    return None
