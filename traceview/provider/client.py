"""Build the openai client from flags and environment, and translate its errors.

Configuration follows the SDK's own conventions (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``)
so that traceview talks to exactly the host the application talked to. The key is read
from the environment only and never printed, stored or echoed back in an error.
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx2
import openai

from traceview.provider.errors import ProviderError, scrub
from traceview.provider.limits import DEFAULT_MAX_RETRIES as DEFAULT_MAX_RETRIES
from traceview.provider.limits import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from traceview.provider.urls import base_url_fault
from traceview.safety.known_keys import add_secret

DEFAULT_BASE_URL = "https://api.openai.com/v1"  # the other defaults: provider/limits.py


@dataclass(frozen=True)
class ProviderConfig:
    """Where and how to reach the provider; holds the *name* of the key variable, not the key."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES

    def resolved_base_url(self) -> str:
        """The base URL the SDK will use: flag, else ``OPENAI_BASE_URL``, else the default."""
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL

    def checked_base_url(self) -> str:
        """``resolved_base_url()``, refused (ProviderError) before any request when it is
        not a usable URL: ``$OPENAI_BASE_URL`` is checked here as ``--base-url`` is by
        argparse, by the same check (provider/urls.py)."""
        url = self.resolved_base_url()
        fault = base_url_fault(url)
        if fault:  # the inspector passes $OPENAI_BASE_URL on as base_url: named as such
            env = os.environ.get("OPENAI_BASE_URL")
            where = "--base-url" if self.base_url and self.base_url != env \
                else "$OPENAI_BASE_URL"
            raise ProviderError("network", scrub(f"{where}: {fault}."))
        return url

    @property
    def host(self) -> str:
        """Host (and port) only: safe to store in a snapshot (no userinfo, path or query)."""
        return host_of(self.resolved_base_url())


def host_of(url: str) -> str:
    """``hostname[:port]`` of ``url``; userinfo, path and query are dropped on purpose."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return f"{host}:{parts.port}" if parts.port else host


def url_credentials(url: str) -> bool:
    """Whether ``url`` carries ``user:password@``: the HTTP client then sends them as Basic
    auth in place of the Bearer key, so a refusal is theirs, not the key's."""
    try:
        parts = urlsplit(url)
        return parts.username is not None or parts.password is not None
    except ValueError:  # not a URL (an unbalanced "["): said by whoever uses it
        return False


def mask_url_credentials(url: str) -> None:
    """Register the password in ``url`` for masking wherever it appears (a provider
    echoing it back, say), as is the Basic token made of it and the user name."""
    try:
        parts = urlsplit(url)
        if not parts.password:
            return
        user, password = unquote(parts.username or ""), unquote(parts.password)
    except ValueError:
        return
    for secret in (parts.password, password,
                   base64.b64encode(f"{user}:{password}".encode()).decode()):
        add_secret(secret)


def refused(config: ProviderConfig, code: int, key: str = "API key",
            reading: str = "") -> str | None:
    """What a 401/403 refused when it was not the key in ``config.api_key_env``: the base
    URL's credentials; None when it was the key."""
    if not url_credentials(config.resolved_base_url()):
        return None
    return (f"the provider refused the user name and password in the base URL (--base-url "
            f"or $OPENAI_BASE_URL) (HTTP {code}{reading}): they are sent as HTTP Basic auth "
            f"in place of the {key} in ${config.api_key_env}. Check them, or take them out "
            "of the URL to send the key.")


OFFLINE = "use a saved snapshot with --items FILE, which needs no key"


def make_client(config: ProviderConfig, offline: str | None = OFFLINE) -> openai.OpenAI:
    """An ``openai.OpenAI`` configured from ``config``; raises ProviderError(auth) without a
    key, naming `offline`: what the caller's command can do without one (None: nothing)."""
    key = os.environ.get(config.api_key_env, "").strip()
    if not key:
        raise ProviderError(
            "auth",
            f"no API key: ${config.api_key_env} is not set. Set it, or name the variable that "
            "holds the key with --api-key-env NAME" + (f" — or {offline}." if offline else "."),
        )
    add_secret(key)  # the key in use is masked wherever it appears (stored text, errors)
    base_url = config.checked_base_url()
    mask_url_credentials(base_url)  # and so is a password in the base URL
    try:
        return openai.OpenAI(
            api_key=key,
            base_url=base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
            http_client=openai.DefaultHttpxClient(transport=DeadlineTransport(config.timeout)),
        )
    except openai.OpenAIError as exc:  # e.g. an unusable base URL
        msg = f"cannot set up the client: {scrub(str(exc), key)}"
        raise ProviderError("network", msg) from None


class DeadlineTransport(httpx2.BaseTransport):
    """Every request done within ``total`` seconds, body included. The client's timeout bounds
    each read, so a server sending one byte a second would never time out; this bounds the
    whole response (an SDK retry starts a new one)."""

    def __init__(self, total: float) -> None:
        self.total = total
        self.inner = httpx2.HTTPTransport()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        end = time.monotonic() + self.total
        response = self.inner.handle_request(request)
        response.stream = _Bounded(response.stream, end, request, self.total)
        return response

    def close(self) -> None:
        self.inner.close()


class _Bounded(httpx2.SyncByteStream):
    """A response body that ends in ReadTimeout once its deadline has passed."""

    def __init__(self, stream: Any, end: float, request: httpx2.Request, total: float) -> None:
        self.stream, self.end, self.request, self.total = stream, end, request, total

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.stream:
            if time.monotonic() > self.end:
                raise httpx2.ReadTimeout(f"the response took over {self.total:g} s in all",
                                         request=self.request)
            yield chunk

    def close(self) -> None:
        self.stream.close()


def _server_message(exc: openai.APIStatusError) -> str:
    """The provider's own error text, if it sent one, cleaned of anything key-shaped."""
    body = exc.body
    msg: object = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = inner.get("message") if isinstance(inner, dict) else inner
    if not isinstance(msg, str) or not msg.strip():
        return ""
    msg = " ".join(msg.split())
    return f" The provider said: {scrub(msg)[:300]}"


def map_openai_error(exc: Exception, *, what: str, config: ProviderConfig) -> ProviderError:
    """Translate an SDK exception into a ProviderError that says what to do about it.

    ``what`` names the thing being fetched ("conversation conv_…"), so a 404 can say which.
    """
    host = config.host
    tries = f"after {config.max_retries} retr{'y' if config.max_retries == 1 else 'ies'}"
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(
            "timeout",
            f"timed out: {host} did not answer within {config.timeout:g} s ({tries}). "
            "Raise --timeout or --max-retries, or check the network.",
        )
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError(
            "network",
            f"cannot reach {host}: the connection failed ({tries}). Check the network and the "
            "base URL (--base-url or $OPENAI_BASE_URL).",
        )
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc, what=what, config=config, tries=tries)
    if isinstance(exc, openai.APIResponseValidationError | ValueError):
        return ProviderError(
            "malformed", f"{host} sent a response for {what} that is not valid JSON: {exc}"
        )
    return ProviderError("network", f"request for {what} failed: {scrub(str(exc))}")


def _status_error(exc: openai.APIStatusError, *, what: str, config: ProviderConfig,
                  tries: str) -> ProviderError:
    """The provider answered with an HTTP error: what it means and what to do."""
    host = config.host
    code = exc.status_code
    said = _server_message(exc)
    if code in (401, 403) and (url := refused(config, code)):
        return ProviderError("auth", f"{url}{said}", status_code=code)
    if code in (401, 403):
        return ProviderError(
            "auth",
            f"the provider refused the API key in ${config.api_key_env} (HTTP {code}). "
            "Check that the key is valid and belongs to the project that owns "
            f"{what}, or name another variable with --api-key-env NAME.{said}",
            status_code=code,
        )
    if code == 404:
        return ProviderError(
            "not_found",
            f"{what} was not found at {host} (HTTP 404): it was deleted, its retention "
            "ended, or it belongs to another project. Provider copy unavailable — diff "
            f"against a saved snapshot with --items FILE.{said}",
            status_code=code,
        )
    if code == 429:
        after = exc.response.headers.get("retry-after") if exc.response is not None else None
        wait = (f"The provider asks to wait {scrub(after)[:20]} s (Retry-After)"
                if after else "Wait a minute")
        return ProviderError(
            "rate_limited",
            f"rate limited by {host} (HTTP 429, {tries}). {wait} and try again, "
            f"or raise --max-retries.{said}",
            status_code=code,
        )
    if code >= 500:
        return ProviderError(
            "server_error",
            f"{host} had a server error (HTTP {code}, {tries}). This is on the provider's "
            f"side: try again later.{said}",
            status_code=code,
        )
    return ProviderError(
        "bad_request",
        f"{host} refused the request for {what} (HTTP {code}).{said}",
        status_code=code,
    )
