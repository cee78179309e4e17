"""Read the organization's Costs and Usage APIs over HTTP, every page, with an admin key.

The openai SDK has no admin-costs API, so this goes through httpx2 (the SDK's own HTTP
client) with the same seams as the rest of provider/: the key comes from the environment
only and is registered for redaction before the first request, every response is bounded
by :class:`DeadlineTransport`, and failures are :class:`ProviderError`\\ s that say what to
do. Paging follows ``next_page`` to the end; a read that stops early is returned labelled
partial, never passed off as the whole bill.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import httpx2

from traceview.capture import bounded
from traceview.provider.client import (
    DeadlineTransport,
    ProviderConfig,
    mask_url_credentials,
    refused,
)
from traceview.provider.errors import ProviderError, scrub
from traceview.provider.org_pages import PageError, read_page
from traceview.report.reconcile import BillRead
from traceview.safety.known_keys import add_secret

ADMIN_KEY_ENV = "OPENAI_ADMIN_KEY"
MAX_RETRY_WAIT = 60.0  # a Retry-After longer than this is not waited for
# (path, group_by, page limit): the Costs API and the usage endpoints reconcile reads.
ENDPOINTS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("organization/costs", ("project_id", "line_item"), 180),
    ("organization/usage/completions", ("project_id", "model"), 31),
    ("organization/usage/embeddings", ("project_id", "model"), 31),
    ("organization/usage/moderations", ("project_id", "model"), 31),
    ("organization/usage/images", ("project_id", "model"), 31),
    ("organization/usage/vector_stores", ("project_id",), 31),
    ("organization/usage/code_interpreter_sessions", ("project_id",), 31),
)


@dataclass(frozen=True)
class Window:
    """The time range read: Unix seconds, start inclusive, end exclusive (whole UTC days)."""

    start: int
    end: int

    @classmethod
    def days(cls, first: str, last: str) -> Window:
        """From the start of UTC day ``first`` to the end of ``last`` (ISO dates)."""
        def ts(day: str) -> int:
            return int(datetime.combine(date.fromisoformat(day), datetime.min.time(),
                                        UTC).timestamp())
        return cls(ts(first), ts(last) + 86_400)


def admin_key(config: ProviderConfig) -> str:
    """The admin key from ``config.api_key_env``, registered for redaction; ProviderError
    (auth) when unset."""
    key = os.environ.get(config.api_key_env, "").strip()
    if not key:
        raise ProviderError(
            "auth", f"no admin key: ${config.api_key_env} is not set. The Costs and Usage "
            "APIs need an organization admin key; set it, name another variable with "
            "--api-key-env NAME, or reconcile saved pages with --costs FILE.")
    add_secret(key)
    return key


def _status_error(resp: httpx2.Response, what: str, config: ProviderConfig) -> ProviderError:
    code = resp.status_code
    try:
        body = bounded.loads(resp.text)
        inner = body.get("error", body) if isinstance(body, dict) else None
        msg = inner.get("message") if isinstance(inner, dict) else None
    except ValueError:
        msg = None
    said = f" The provider said: {scrub(' '.join(msg.split()))[:300]}" if isinstance(msg, str) \
        else ""
    tries = f"after {config.max_retries} retr{'y' if config.max_retries == 1 else 'ies'}"
    if code in (401, 403) and (url := refused(config, code, "admin key", f" reading {what}")):
        return ProviderError("auth", f"{url}{said}", status_code=code)
    if code in (401, 403):
        return ProviderError("auth", f"the provider refused the admin key in "
                             f"${config.api_key_env} (HTTP {code}) reading {what}. The Costs "
                             f"and Usage APIs need an organization admin key.{said}",
                             status_code=code)
    if code == 429:
        after = resp.headers.get("retry-after")
        wait = f"the provider asks to wait {scrub(after)[:20]} s (Retry-After)" if after \
            else "wait a minute"
        return ProviderError("rate_limited", f"rate limited reading {what} (HTTP 429, {tries}): "
                             f"{wait}, then try again, or raise --max-retries.{said}",
                             status_code=code)
    if code >= 500:
        return ProviderError("server_error", f"{config.host} had a server error reading {what} "
                             f"(HTTP {code}, {tries}); try again later.{said}", status_code=code)
    return ProviderError("bad_request", f"{config.host} refused the request for {what} "
                         f"(HTTP {code}).{said}", status_code=code)


def _retry_wait(resp: httpx2.Response | None, attempt: int) -> float:
    """Retry-After when the provider sends one (capped), else a short doubling backoff."""
    after = resp.headers.get("retry-after") if resp is not None else None
    try:
        wait = float(after) if after else 0.5 * 2.0 ** attempt
    except ValueError:
        wait = 0.5 * 2.0 ** attempt
    return min(wait, MAX_RETRY_WAIT)


class OrgReader:
    """One client for one read of the bill; ``sleep`` waits between retries (tests record)."""

    def __init__(self, config: ProviderConfig, *, max_pages: int = 1000,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.key = admin_key(config)
        base_url = config.checked_base_url()  # a malformed one refused before any request
        mask_url_credentials(base_url)  # its password masked, as the key is
        self.max_pages = max_pages
        self.sleep = sleep
        self.client = httpx2.Client(
            base_url=base_url.rstrip("/") + "/",
            headers={"authorization": f"Bearer {self.key}"},
            transport=DeadlineTransport(config.timeout), timeout=config.timeout)

    def close(self) -> None:
        self.client.close()

    def get(self, path: str, params: list[tuple[str, Any]]) -> Any:
        """One page as JSON, retried on 429/5xx/timeouts; ProviderError otherwise."""
        what = f"/v1/{path}"
        for attempt in range(self.config.max_retries + 1):
            resp: httpx2.Response | None = None
            try:
                resp = self.client.get(path, params=params)
            except httpx2.TimeoutException:
                err = ProviderError("timeout", f"timed out: {self.config.host} did not answer "
                                    f"{what} within {self.config.timeout:g} s.")
            except httpx2.HTTPError as exc:
                err = ProviderError("network", f"cannot reach {self.config.host} for {what}: "
                                    f"{scrub(str(exc), self.key)}. Check the network and "
                                    "--base-url.")
            else:
                if resp.status_code == 200:
                    try:
                        return bounded.loads(resp.text)
                    except ValueError:
                        raise ProviderError("malformed", f"{self.config.host} sent a page of "
                                            f"{what} that is not JSON.") from None
                err = _status_error(resp, what, self.config)
                if resp.status_code != 429 and resp.status_code < 500:
                    raise err
            if attempt < self.config.max_retries:
                self.sleep(_retry_wait(resp, attempt))
        raise err

    def read(self, path: str, group_by: tuple[str, ...], limit: int, window: Window,
             bill: BillRead) -> int:
        """Every page of one endpoint into ``bill``; the page count. Raises ProviderError
        (the pages read so far stay in ``bill``)."""
        base: list[tuple[str, Any]] = [("start_time", window.start), ("end_time", window.end),
                                       ("bucket_width", "1d"), ("limit", limit)]
        base += [("group_by[]", g) for g in group_by]
        cursor: str | None = None
        seen: set[str] = set()
        for n in range(1, self.max_pages + 1):
            page = self.get(path, base + ([("page", cursor)] if cursor else []))
            try:
                has_more, cursor = read_page(page, bill, f"page {n} of /v1/{path}",
                                             costs=path.endswith("costs"))
            except PageError as exc:
                raise ProviderError("malformed", str(exc)) from None
            if not has_more:
                return n
            if not cursor or cursor in seen:
                raise ProviderError("cursor_runaway" if cursor else "malformed",
                                    f"page {n} of /v1/{path} says has_more but its next_page "
                                    f"is {'a repeat' if cursor else 'missing'}: the rest "
                                    "cannot be read.")
            seen.add(cursor)
        raise ProviderError("cursor_runaway", f"/v1/{path} still had more pages after "
                            f"{self.max_pages}: stopped (raise --max-pages).")


def read_bill(config: ProviderConfig, window: Window, *, max_pages: int = 1000,
              sleep: Callable[[float], None] = time.sleep) -> tuple[BillRead, ProviderError | None]:
    """The Costs API and every usage endpoint over ``window``. Nothing read of the costs:
    ProviderError raised. Stopped later: the bill so far, partial, and the error."""
    reader = OrgReader(config, max_pages=max_pages, sleep=sleep)
    bill = BillRead([], [], set(), False, [])
    try:
        for path, group_by, limit in ENDPOINTS:
            try:
                pages = reader.read(path, group_by, limit, window, bill)
            except ProviderError as err:
                if not bill.sources and not bill.days_read:
                    raise
                bill.sources.append(f"{config.host}/v1/{path} (stopped)")
                bill.stopped = err.message
                return bill, err
            bill.sources.append(f"{config.host}/v1/{path} ({pages} page"
                                f"{'s' if pages != 1 else ''})")
    finally:
        reader.close()
    bill.complete = True
    return bill, None
