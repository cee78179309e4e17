"""Files and vector stores, as far as an experiment needs them.

The ``ab`` runner's hosted arm uploads its documents and creates a vector store for
``file_search`` (and deletes both afterwards). The simulator keeps the objects so
those calls succeed and are recorded, but its ``file_search`` always searches the
bundled policy (``corpus.py``): the objects are bookkeeping, not an index.
"""

from __future__ import annotations

import re
from typing import Any

from traceview.sim.state import SimError, SimState

_FILENAME = re.compile(rb'filename="([^"\r\n]{1,255})"')


def multipart_body(raw: bytes) -> dict[str, Any]:
    """What the simulator keeps of an upload: its file name and size, not its bytes."""
    match = _FILENAME.search(raw)
    purpose = re.search(rb'name="purpose"\r\n\r\n([a-z_-]{1,40})', raw)
    return {
        "filename": match.group(1).decode("utf-8", "replace") if match else "upload",
        "purpose": purpose.group(1).decode() if purpose else "assistants",
        "bytes": len(raw),
    }


def _objects(state: SimState, name: str) -> dict[str, dict[str, Any]]:
    table = getattr(state, name, None)
    if table is None:
        table = {}
        setattr(state, name, table)
    return table


def create_file(state: SimState, body: dict[str, Any]) -> dict[str, Any]:
    with state.lock:
        obj: dict[str, Any] = {
            "id": state.ids.new("file"), "object": "file", "bytes": body.get("bytes", 0),
            "created_at": state.clock.now(), "filename": body.get("filename", "upload"),
            "purpose": body.get("purpose", "assistants"), "status": "processed",
            "status_details": None, "expires_at": None}
        _objects(state, "files")[obj["id"]] = obj
        return obj


def delete_file(state: SimState, fid: str) -> dict[str, Any]:
    with state.lock:
        if _objects(state, "files").pop(fid, None) is None:
            raise SimError(404, f"No such File object: {fid}", param="id")
        return {"id": fid, "object": "file", "deleted": True}


def create_vector_store(state: SimState, body: dict[str, Any]) -> dict[str, Any]:
    with state.lock:
        files = [f for f in body.get("file_ids") or [] if isinstance(f, str)]
        now = state.clock.now()
        obj: dict[str, Any] = {
            "id": state.ids.new("vs"), "object": "vector_store", "created_at": now,
            "name": str(body.get("name") or ""), "usage_bytes": 0, "status": "completed",
            "file_counts": {"in_progress": 0, "completed": len(files), "failed": 0,
                            "cancelled": 0, "total": len(files)},
            "last_active_at": now, "metadata": dict(body.get("metadata") or {}),
            "expires_after": None, "expires_at": None,
        }
        _objects(state, "vector_stores")[obj["id"]] = obj
        return obj


def get_vector_store(state: SimState, vid: str) -> dict[str, Any]:
    with state.lock:
        obj = _objects(state, "vector_stores").get(vid)
        if obj is None:
            raise SimError(404, f"No vector store found with id '{vid}'.")
        return obj


def delete_vector_store(state: SimState, vid: str) -> dict[str, Any]:
    with state.lock:
        if _objects(state, "vector_stores").pop(vid, None) is None:
            raise SimError(404, f"No vector store found with id '{vid}'.")
        return {"id": vid, "object": "vector_store.deleted", "deleted": True}


def get_object(state: SimState, table: str, oid: str, missing: str) -> dict[str, Any]:
    """One stored file or container, or the provider's 404."""
    with state.lock:
        obj = _objects(state, table).get(oid)
        if obj is None:
            raise SimError(404, f"{missing}: {oid}", param="id")
        return obj


def delete_object(state: SimState, table: str, oid: str, missing: str) -> None:
    with state.lock:
        if _objects(state, table).pop(oid, None) is None:
            raise SimError(404, f"{missing}: {oid}", param="id")


def create_container(state: SimState, body: dict[str, Any]) -> dict[str, Any]:
    """A code-interpreter container: expires `expires_after.minutes` (20 by default)
    after it was last active, with the memory it was asked for (1g by default)."""
    after = body.get("expires_after")
    minutes = after.get("minutes") if isinstance(after, dict) else None
    memory = body.get("memory_limit")
    with state.lock:
        now = state.clock.now()
        obj: dict[str, Any] = {
            "id": state.ids.new("cntr"), "object": "container", "created_at": now,
            "name": str(body.get("name") or ""), "status": "running",
            "expires_after": {"anchor": "last_active_at",
                              "minutes": minutes if type(minutes) is int else 20},
            "last_active_at": now,
            "memory_limit": memory if memory in ("1g", "4g", "16g", "64g") else "1g"}
        _objects(state, "containers")[obj["id"]] = obj
        return obj
