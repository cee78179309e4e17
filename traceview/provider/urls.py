"""Whether a provider base URL can be sent to: the one check, for `--base-url` (argparse,
commands/numbers.py) and for the URL a client is made with (client.py, costs.py), which
may come from `$OPENAI_BASE_URL`. Apart from client.py so a command's flags can use it
without importing the SDK."""

from __future__ import annotations


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
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname \
            or any(c.isspace() for c in text):
        return (f"not a URL: {text!r}; give the provider's base URL, e.g. "
                "https://api.openai.com/v1 or http://127.0.0.1:8080/v1")
    return None
