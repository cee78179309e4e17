"""What a capture's calls to the objects API say about each provider object: a create
(`POST /v1/files`…) names it and its details, a retrieval that it was there, a delete
that it is gone (or an item of a conversation is), a 404 that it was not found. The
inventory (inventory.py) applies them after the turns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from traceview.analysis.hosted.objects import ProviderObject
from traceview.safety.redact import redact_text

PATHS = {"conversations": "conversation", "responses": "response", "files": "file",
          "vector_stores": "vector_store"}


def path_parts(ex: Any) -> list[str]:
    """An exchange's path as its parts, without a leading v1."""
    parts = [p for p in ex.path.split("/") if p]
    return parts[1:] if parts and parts[0] == "v1" else parts


def exchange_into(ex: Any, obj: Callable[[str, str], ProviderObject],
              use: Callable[[ProviderObject, int, int | None, float | None], None],
              read_raw: Callable[[Any], bytes | None]) -> None:
    """One exchange applied to the object its path names (`obj`: found or made by kind
    and id; `use`: a use of it at a line), its body read again only for the details."""
    parts = path_parts(ex)
    if not parts or parts[0] not in PATHS:
        return
    kind = PATHS[parts[0]]
    ok = ex.status_code in (None, 200, 201)
    if len(parts) == 1:  # a create
        if ex.method == "POST" and ok:
            raw = read_raw(ex.response)
            body = _json(raw)
            oid = body.get("id") if isinstance(body, dict) else None
            if isinstance(oid, str):
                o = obj(kind, oid)
                o.created_line = ex.line
                _details(o, body)
        return
    oid = parts[1]
    if kind == "response" and oid == "compact":
        return
    o = obj(kind, oid)
    sub = parts[2:]
    if ex.method == "DELETE" and ok:
        if sub and kind == "conversation" and sub[0] == "items":
            o.items_deleted_lines.append(ex.line)
        elif not sub:
            o.deleted_line = o.deleted_line or ex.line
        return
    if ex.status_code == 404 and not sub:
        o.missing_line = o.missing_line or ex.line
        return
    if ex.status_code == 404 and kind == "response" and sub == ["input_items"]:
        o.missing_line = o.missing_line or ex.line
        return
    use(o, ex.line, None, None)
    if ok and not sub and ex.method in ("GET", "POST"):
        body = _json(read_raw(ex.response))
        if isinstance(body, dict) and body.get("id") == oid:
            _details(o, body)


def _details(o: ProviderObject, body: dict[str, Any]) -> None:
    created = body.get("created_at")
    if isinstance(created, int | float) and o.created_at is None:
        o.created_at = float(created)
    for key in ("filename", "name"):
        if isinstance(body.get(key), str) and o.name is None:
            o.name = redact_text(body[key])  # names are the application's text
    size = body.get("usage_bytes", body.get("bytes"))
    if isinstance(size, int):
        o.usage_bytes = size
    if isinstance(body.get("expires_after"), dict):
        o.expires_after = body["expires_after"]
    if isinstance(body.get("expires_at"), int | float):
        o.expires_at = float(body["expires_at"])
    if o.kind == "response" and isinstance(body.get("store"), bool):
        o.store = body["store"]


def _json(raw: bytes | None) -> Any:
    if not raw:
        return None
    try:
        rec = orjson.loads(raw)
    except ValueError:
        return None
    return rec.get("body") if isinstance(rec, dict) else None


def deletions(exchanges: list[Any]) -> dict[str, int]:
    """Object id -> the line of the ``DELETE`` exchange that removed it (no body reads)."""
    out: dict[str, int] = {}
    for ex in exchanges:
        if ex.method != "DELETE" or ex.status_code not in (None, 200):
            continue
        parts = path_parts(ex)
        if len(parts) == 2 and parts[0] in PATHS:
            out.setdefault(parts[1], ex.line)
    return out
