"""How two versions of one item are compared: normalisation, gated fields, plain reasons.

The capture and the provider can hold the same item in different clothes — ids the
provider assigned, `status` snapshots, `model_dump()` nulls, aliased keys, include-gated
fields. `compare` strips what legitimately differs (see `diff` for the full list) and
says in plain words what remains different. Token figures are estimates:
ceil(UTF-8 bytes of the item's text / 4).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from traceview.wire import EVIDENCE, TEXT_PART_TYPES

_IGNORED_KEYS = {"id", "status", "created_by"}
_ALIASES = {"async_": "async", "schema_": "schema"}
_TEXT_PARTS = TEXT_PART_TYPES
# Fields the provider fills only when the listing asked for them (never compared when
# the provider side lacks them).
_GATED = {"encrypted_content", "logprobs", "image_url"}
_NO_TEXT = {"id", "call_id", "type", "status", "role", "encrypted_content", "file_id",
            "container_id", "created_by", "approval_request_id"}


def item_type(item: dict[str, Any]) -> str:
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else "unknown"


def message_text(item: dict[str, Any]) -> str:
    """All text of a message, whitespace-collapsed (the alignment key's text)."""
    content = item.get("content")
    if isinstance(content, str):
        return " ".join(content.split())
    parts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict):
            text = part.get("text", part.get("refusal"))
            parts.append(text if isinstance(text, str) else f"<{part.get('type')}>")
    return " ".join(" ".join(parts).split())


def _get(item: dict[str, Any], path: str) -> Any:
    cur: Any = item
    for key in path.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(key)
    return cur


def text_of(obj: Any) -> str:
    """The text an item carries for the model (ids, types and opaque blobs left out)."""
    out: list[str] = []

    def walk(o: Any, key: str | None) -> None:
        if isinstance(o, str):
            if key not in _NO_TEXT:
                out.append(o)
        elif isinstance(o, dict):
            for k, v in o.items():
                walk(v, k)
        elif isinstance(o, list):
            for v in o:
                walk(v, key)

    walk(obj, None)
    return "\n".join(out)


def estimate_tokens(obj: Any) -> int:
    """≈ tokens: ceil(UTF-8 bytes of the text / 4). An estimate, and labelled as one."""
    return math.ceil(len(text_of(obj).encode("utf-8")) / 4)


def align_key(item: dict[str, Any]) -> tuple[Any, ...]:
    kind = item_type(item)
    if kind == "message":
        role = item.get("role")  # the key is hashed: a list or dict here is not a role
        return ("message", role if isinstance(role, str) else None, message_text(item))
    if kind.endswith("_output") and isinstance(item.get("call_id"), str):
        return (kind, item["call_id"])
    if isinstance(item.get("id"), str):
        return ("id", item["id"])
    return ("content", kind, json.dumps(normalise(item), sort_keys=True, default=str))


def same_identity(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if item_type(a) != item_type(b):
        return False
    for key in ("id", "call_id"):
        if isinstance(a.get(key), str) and a.get(key) == b.get(key):
            return True
    return False


def as_item(obj: dict[str, Any], top: bool) -> dict[str, Any]:
    """An input item as the comparison reads it: a bare {"role", "content"} is a message."""
    if top and "role" in obj and "type" not in obj:
        return {"type": "message", **obj}
    return obj


def keyed(obj: dict[str, Any], key: str, val: Any, top: bool) -> tuple[str | None, Any]:
    """One key of `obj` and its value as the comparison reads them: the key's alias, a
    message's string content as one text part, every text part's type as "text"; None for
    a key the comparison ignores. The one statement of these rules: `normalise` and the
    fidelity hash's one-walk form (fidelity._canon) both apply it."""
    key = _ALIASES.get(key, key)
    if top and key in _IGNORED_KEYS:
        return None, val
    if key == "content" and isinstance(val, str) and obj.get("type") == "message":
        return key, [{"type": "text", "text": val}]
    if key == "type" and isinstance(val, str) and val in _TEXT_PARTS and not top:
        return key, "text"
    return key, val


def normalise(obj: Any, *, top: bool = True) -> Any:
    """A comparable form: no nulls or empties, no aliases, text parts unified."""
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        obj = as_item(obj, top)
        for key, val in obj.items():
            key, val = keyed(obj, key, val, top)
            if key is None:
                continue
            norm = normalise(val, top=False)
            if norm in (None, [], {}, ""):
                continue
            out[key] = norm
        return out
    if isinstance(obj, list):
        return [normalise(v, top=False) for v in obj]
    return obj


def _drop(obj: Any, keys: set[str]) -> Any:
    if isinstance(obj, dict):
        return {k: _drop(v, keys) for k, v in obj.items() if k not in keys}
    if isinstance(obj, list):
        return [_drop(v, keys) for v in obj]
    return obj


def _gated_missing(a: Any, b: Any) -> set[str]:
    """Gated keys present (non-null) on one side only: not compared."""
    def found(o: Any, acc: set[str]) -> set[str]:
        if isinstance(o, dict):
            for k, v in o.items():
                if k in _GATED and v not in (None, [], ""):
                    acc.add(k)
                found(v, acc)
        elif isinstance(o, list):
            for v in o:
                found(v, acc)
        return acc
    return found(a, set()) ^ found(b, set())


def _count(val: Any, noun: str) -> str:
    """"5 results" for a list; "a value" for anything else."""
    if isinstance(val, list):
        return f"{len(val):,} {noun}"
    return "a value"


def compare(cap: dict[str, Any], prov: dict[str, Any], include: Sequence[str]
            ) -> tuple[list[str], int, str | None]:
    """Differences between two copies of one item: (reasons, evidence tokens, evidence name).

    No reasons means the same item.
    """
    reasons: list[str] = []
    ev_tokens = 0
    ev_name: str | None = None
    kind = item_type(prov)
    cap_n, prov_n = normalise(cap), normalise(prov)
    if kind in EVIDENCE:
        path, flag, name = EVIDENCE[kind]
        c_val, p_val = _get(cap, path), _get(prov, path)
        field_name = path
        noun = path.split(".")[-1]
        if c_val is None and p_val is not None:
            ev_tokens = estimate_tokens(p_val)
            ev_name = name
            reasons.append(
                f"{field_name}: not captured locally (null); the provider has "
                f"{_count(p_val, noun)}, ≈ {ev_tokens:,} tokens (needs include={flag})"
            )
        elif c_val is not None and p_val is None:
            if flag in include:
                reasons.append(f"{field_name}: the capture has {_count(c_val, noun)}; the provider "
                               "copy has none although it was listed with that include flag")
        elif c_val != p_val and normalise(c_val, top=False) != normalise(p_val, top=False):
            reasons.append(f"{field_name} differ: capture {_count(c_val, noun)}, "
                           f"provider {_count(p_val, noun)}")
        drop = set(path.split(".")[-1:])
        cap_n, prov_n = _drop(cap_n, drop), _drop(prov_n, drop)
    gated = _gated_missing(cap_n, prov_n)
    if gated:
        cap_n, prov_n = _drop(cap_n, gated), _drop(prov_n, gated)
    if cap_n != prov_n:
        keys = sorted(k for k in set(cap_n) | set(prov_n) if cap_n.get(k) != prov_n.get(k))
        if keys == ["content"] and kind == "message":
            c_text, p_text = text_of(cap.get("content")), text_of(prov.get("content"))
            if message_text(cap) == message_text(prov):
                reasons.append("text differs in whitespace only")
            else:
                reasons.append(f"text differs: capture {len(c_text):,} chars, "
                               f"provider {len(p_text):,} chars")
        else:
            shown = ", ".join(keys[:4]) + (" …" if len(keys) > 4 else "")
            reasons.append(f"content differs in: {shown}")
    return reasons, ev_tokens, ev_name
