"""A case's deletion checklist: every provider object that holds its data, how long the
provider keeps it, the exact call that deletes it, and its state in the capture.

"Delete everything of case CS-88213" needs the case's conversations (by the `case_id` —
or any metadata value, `user` or `safety_identifier` — its requests or conversation
creations carry, or by conversation id), then every object their turns created or used:
the conversation, its stored responses, the files and vector stores they reference (the
objects inventory, hosted/inventory.py), and the code-interpreter containers their
hosted calls ran in or cited (the turns' lineage).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# The order to delete in: what references others first.
ORDER = ("conversation", "response", "vector_store", "file", "container")
_DELETE = {
    "conversation": ("DELETE /v1/conversations/{id}", "client.conversations.delete({id!r})"),
    "response": ("DELETE /v1/responses/{id}", "client.responses.delete({id!r})"),
    "file": ("DELETE /v1/files/{id}", "client.files.delete({id!r})"),
    "vector_store": ("DELETE /v1/vector_stores/{id}", "client.vector_stores.delete({id!r})"),
    "container": ("DELETE /v1/containers/{id}", "client.containers.delete({id!r})"),
}
CONTAINER_RETENTION = ("containers expire after 20 minutes of inactivity (expires_after "
                       "last_active_at); their files go with them")


def delete_call(kind: str, oid: str) -> dict[str, str]:
    """The HTTP call and the SDK call that delete one object."""
    http, sdk = _DELETE[kind]
    return {"http": http.format(id=oid), "sdk": sdk.format(id=oid)}


def case_turns(turns: Iterable[Any], case: str | None, conversation: str | None,
               created: dict[str, dict[str, str]]) -> set[int]:
    """Indices of the turns of every conversation the case touches (all turns with
    neither filter). `created`: conversation id -> the metadata its creation carried."""
    turns = list(turns)
    if case is None and conversation is None:
        return {t.index for t in turns}
    keys: set[str] = set()
    for t in turns:
        if conversation is not None and conversation in (t.conversation, t.response_id,
                                                         t.conversation_key):
            keys.add(t.conversation_key)
        elif case is not None and (_names(t.lineage, case)
                                   or case in created.get(t.conversation or "", {}).values()):
            keys.add(t.conversation_key)
    return {t.index for t in turns if t.conversation_key in keys}


def _names(lineage: dict[str, Any] | None, case: str) -> bool:
    return bool(lineage and lineage.get("case") and case in lineage["case"].values())


def checklist(turns: list[Any], objects: Any, case: str | None, conversation: str | None,
              created: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The checklist document (`traceview objects --format json`)."""
    chosen = case_turns(turns, case, conversation, created)
    rows = [_row(o.to_dict()) for o in (objects.objects if objects is not None else ())
            if not chosen.isdisjoint(o.turns.tolist())
            or (conversation is not None and o.id == conversation)]
    seen = {r["id"] for r in rows}
    for t in turns:
        if t.index in chosen:
            rows.extend(_containers(t, seen))
    rows.sort(key=lambda r: (ORDER.index(r["kind"]), r["id"]))
    return {"schema": "traceview.objects/1", "case": case, "conversation": conversation,
            "turns": sorted(chosen), "objects": rows,
            "counts": {k: sum(1 for r in rows if r["kind"] == k) for k in ORDER},
            "remaining": sum(1 for r in rows if r["state"] == "exists")}


def _row(o: dict[str, Any]) -> dict[str, Any]:
    return {"kind": o["kind"], "id": o["id"], "state": o["state"], "turns": o["turns"],
            "created_line": o["created_line"], "deleted_line": o["deleted_line"],
            "expires_around": o["expires_around"], "retention": o["expiry"],
            "delete": delete_call(o["kind"], o["id"]) if o["state"] == "exists" else None}


def _containers(t: Any, seen: set[str]) -> list[dict[str, Any]]:
    """The containers a turn's code-interpreter calls ran in or its citations name."""
    lin = t.lineage or {}
    ids = [r["container_id"] for r in lin.get("retrieval", ()) if r.get("container_id")]
    ids += [c["container_id"] for c in lin.get("citations", ()) if c.get("container_id")]
    out = []
    for cid in dict.fromkeys(ids):
        if cid in seen:
            continue
        seen.add(cid)
        out.append({"kind": "container", "id": cid, "state": "exists", "turns": [t.index],
                    "created_line": None, "deleted_line": None, "expires_around": None,
                    "retention": CONTAINER_RETENTION, "delete": delete_call("container", cid)})
    return out


def conversation_metadata(exchanges: Iterable[Any],
                          read: Callable[[Any], dict[str, Any] | None]
                          ) -> dict[str, dict[str, str]]:
    """Conversation id -> the string metadata its creation (POST /v1/conversations)
    carried, from the request or the response."""
    out: dict[str, dict[str, str]] = {}
    for ex in exchanges:
        if ex.method != "POST" or ex.path.rstrip("/") != "/v1/conversations":
            continue
        meta: dict[str, str] = {}
        cid = ex.conversation_id
        for ref in (ex.request, ex.response):
            rec = read(ref) if ref is not None else None
            body = rec.get("body") if isinstance(rec, dict) else None
            if not isinstance(body, dict):
                continue
            got = body.get("metadata")
            if isinstance(got, dict):
                meta.update({str(k): v for k, v in got.items() if isinstance(v, str)})
            if cid is None and isinstance(body.get("id"), str):
                cid = body["id"]  # the response names the conversation it created
        if cid:
            out.setdefault(cid, {}).update(meta)
    return out
