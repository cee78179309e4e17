"""Ask the provider, object by object, whether what a deletion checklist lists is gone.

One retrieve per object: 200 is `present`, 404 is `gone` (the provider's own "not found";
a 404 for a URL it does not serve stops the check), anything else is `error` with the
provider's reason — never counted as gone. The verdict is `verified` only when every
object answered 404; otherwise `partial` (some present or unanswered). A provider that
cannot be reached at all, or refuses the key, stops the check: a list of nothing but
"could not ask" is no check, and nothing is written for it. `traceview objects --verify
--live` and the objects screen's `v` both run `each_check` then `verify_doc`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import openai

from traceview.provider.client import ProviderConfig, make_client, map_openai_error
from traceview.provider.errors import ProviderError

VERIFY_SCHEMA = "traceview.objects-verify/1"


def _retrieve(client: openai.OpenAI, kind: str) -> Callable[[str], Any]:
    calls: dict[str, Callable[[str], Any]] = {
        "conversation": client.conversations.retrieve,
        "response": client.responses.retrieve,
        "file": client.files.retrieve,
        "vector_store": client.vector_stores.retrieve,
        "container": client.containers.retrieve,
    }
    return calls[kind]


def _absent(exc: openai.NotFoundError) -> bool:
    """Whether a 404 is the provider saying the object is not there: its error object,
    not "Invalid URL (GET …)" (a base URL without /v1) nor another server's page. Either of
    those answers 404 for every object, and a check would read all of them gone."""
    body = exc.body  # the SDK's: the `error` object of a JSON answer, else its text
    msg = body.get("message") if isinstance(body, dict) else None
    return isinstance(msg, str) and not msg.startswith("Invalid URL")


def _ask(client: openai.OpenAI, config: ProviderConfig, row: dict[str, Any]) -> dict[str, Any]:
    """What the provider says of one object now (raises ProviderError when it cannot be
    reached or refuses the key: the check stops there)."""
    kind, oid = row["kind"], row["id"]
    status: int | None
    try:
        _retrieve(client, kind)(oid)
        live, status, why = "present", 200, None
    except openai.NotFoundError as exc:
        if not _absent(exc):
            raise ProviderError("not_found", (
                f"{config.host} answered HTTP 404 for {kind.replace('_', ' ')} {oid} with "
                "no provider's \"not found\" (a URL it does not serve, or not the API at "
                "all): check --base-url or $OPENAI_BASE_URL (it ends in /v1)."),
                status_code=404) from None
        live, status, why = "gone", 404, None
    except openai.OpenAIError as exc:
        err = map_openai_error(exc, what=f"{kind.replace('_', ' ')} {oid}", config=config)
        unreachable = (isinstance(exc, openai.APIConnectionError)
                       and not isinstance(exc, openai.APITimeoutError))
        if unreachable or isinstance(exc, openai.AuthenticationError):
            raise err from None
        live, status, why = "error", getattr(exc, "status_code", None), str(err)
    return {"kind": kind, "id": oid, "capture_state": row["state"], "live": live,
            "http_status": status, "error": why}


def each_check(config: ProviderConfig, rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One answer per listed object, in the checklist's order, as each arrives (the screen
    shows them one by one and may stop between two). Raises ProviderError before the first
    when no client can be made (no key, an unusable base URL), or when the provider cannot
    be reached or refuses the key."""
    client = make_client(config, offline="the checklist itself (without --verify --live, or "
                                          "x on the objects screen) needs no key")
    for row in rows:
        yield _ask(client, config, row)


def verify_doc(config: ProviderConfig, seen: list[dict[str, Any]],
               now: datetime | None = None) -> dict[str, Any]:
    """The `verify` part of the checklist document, from every object's answer."""
    gone = sum(1 for s in seen if s["live"] == "gone")
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"schema": VERIFY_SCHEMA, "checked_at": stamp,
            "host": config.host, "objects": seen,
            "counts": {k: sum(1 for s in seen if s["live"] == k)
                       for k in ("present", "gone", "error")},
            "verdict": "verified" if gone == len(seen) else "partial"}


def check_objects(config: ProviderConfig, rows: list[dict[str, Any]],
                  now: datetime | None = None) -> dict[str, Any]:
    """Every listed object asked, then the verdict (see `each_check` for what raises)."""
    return verify_doc(config, list(each_check(config, rows)), now)
