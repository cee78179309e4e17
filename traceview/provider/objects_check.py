"""Ask the provider, object by object, whether what a deletion checklist lists is gone.

One retrieve per object: 200 is `present`, 404 is `gone`, anything else is `error` with
the provider's reason — never counted as gone. The verdict is `verified` only when every
object answered 404; otherwise `partial` (some present or unanswered).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import openai

from traceview.provider.client import ProviderConfig, make_client, map_openai_error


def _retrieve(client: openai.OpenAI, kind: str) -> Callable[[str], Any]:
    calls: dict[str, Callable[[str], Any]] = {
        "conversation": client.conversations.retrieve,
        "response": client.responses.retrieve,
        "file": client.files.retrieve,
        "vector_store": client.vector_stores.retrieve,
        "container": client.containers.retrieve,
    }
    return calls[kind]


def check_objects(config: ProviderConfig, rows: list[dict[str, Any]],
                  now: datetime | None = None) -> dict[str, Any]:
    """What the provider says of each listed object now (raises ProviderError only when no
    client can be made: no key, an unusable base URL)."""
    client = make_client(config)
    seen = []
    for row in rows:
        kind, oid = row["kind"], row["id"]
        status: int | None
        try:
            _retrieve(client, kind)(oid)
            live, status, why = "present", 200, None
        except openai.NotFoundError:
            live, status, why = "gone", 404, None
        except openai.OpenAIError as exc:
            err = map_openai_error(exc, what=f"{kind.replace('_', ' ')} {oid}", config=config)
            live, status, why = "error", getattr(exc, "status_code", None), str(err)
        seen.append({"kind": kind, "id": oid, "capture_state": row["state"], "live": live,
                     "http_status": status, "error": why})
    gone = sum(1 for s in seen if s["live"] == "gone")
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"schema": "traceview.objects-verify/1", "checked_at": stamp,
            "host": config.host, "objects": seen,
            "counts": {k: sum(1 for s in seen if s["live"] == k)
                       for k in ("present", "gone", "error")},
            "verdict": "verified" if gone == len(seen) else "partial"}
