"""The capture's side of a provider diff: the items it holds for one conversation, in order.

A conversation stored by the provider is the concatenation, turn by turn, of each request's
``input`` items and the response's ``output`` items (plus anything the application added
through the Conversations API). This module rebuilds that sequence from what the capture
recorded, in the shapes the provider lists them in, so the diff can line the two up.

Pure: plain data in, plain data out; the adapter at the bottom reads bodies through
``traceview.capture``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from traceview.capture.items import response_body as _response_body

Side = Literal["input", "output", "added"]

# Items that appear in a request but are never stored as items of their own.
NOT_STORED = {"item_reference", "compaction_trigger"}


@dataclass(frozen=True)
class CaptureItem:
    """One item as the capture holds it: which turn, which half of it, and the item."""

    turn: int | None  # None: added through the Conversations API, not by a model turn
    side: Side
    item: dict[str, Any]
    line: int | None = None  # capture line of the record it came from, when known


def normalise_input(entry: Any) -> dict[str, Any] | None:
    """One request ``input`` entry in stored-item shape, or None if it is not stored.

    The easy form ``{role, content}`` (no ``type``) is a message, and string content
    becomes one text part, as the provider stores it.
    """
    if not isinstance(entry, dict):
        return None
    kind = entry.get("type")
    if kind is not None and not isinstance(kind, str):
        return entry  # a type that is not a string: kept as it is, never interpreted
    if kind in NOT_STORED or (kind is None and "role" not in entry and "id" in entry):
        return None  # an item_reference may omit its type
    if kind is None and "role" in entry:
        entry = {"type": "message", **entry}
    if entry.get("type") == "message" and isinstance(entry.get("content"), str):
        part = "output_text" if entry.get("role") == "assistant" else "input_text"
        entry = {**entry, "content": [{"type": part, "text": entry["content"]}]}
    return entry  # type: ignore[no-any-return]


def request_items(body: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The stored items a Responses request contributes (its ``input``)."""
    if not isinstance(body, dict):
        return []
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": raw}]}]
    if not isinstance(raw, list):
        return []
    return [it for it in (normalise_input(e) for e in raw) if it is not None]


def response_items(body: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The stored items a response contributes (its ``output``)."""
    if not isinstance(body, dict):
        return []
    out = body.get("output")
    return [it for it in out if isinstance(it, dict)] if isinstance(out, list) else []


def capture_items(
    turns: Iterable[tuple[int | None, dict[str, Any] | None, dict[str, Any] | None]],
) -> list[CaptureItem]:
    """Items in stored order from ``(turn index, request body, response body)`` tuples.

    A tuple whose turn index is None is a Conversations API write: its items are the
    response's listed ``data`` (which carry ids) or else the request's ``items``.
    """
    result: list[CaptureItem] = []
    for turn, req, res in turns:
        if turn is None:
            data = res.get("data") if isinstance(res, dict) else None
            if not isinstance(data, list):
                data = req.get("items") if isinstance(req, dict) else None
            for entry in data if isinstance(data, list) else []:
                item = normalise_input(entry)
                if item is not None:
                    result.append(CaptureItem(None, "added", item))
            continue
        result.extend(CaptureItem(turn, "input", it) for it in request_items(req))
        result.extend(CaptureItem(turn, "output", it) for it in response_items(res))
    return result


# ---------------------------------------------------------------- over traceview.capture


@dataclass
class Target:
    """A conversation the capture can be diffed on: a ``conversation`` id or a chain."""

    kind: str  # "conversation" | "chain"
    id: str  # conv_… or, for a chain, the id of its last response
    turns: list[int] = field(default_factory=list)
    response_ids: list[str] = field(default_factory=list)


def targets(cap: Any) -> list[Target]:
    """Every conversation and ``previous_response_id`` chain in a loaded capture."""
    convs: dict[str, Target] = {}
    by_response: dict[str, int] = {}
    prev_of: dict[int, str] = {}
    for t in cap.turns:
        if t.api != "responses":
            continue
        if t.conversation_id:
            convs.setdefault(t.conversation_id, Target("conversation", t.conversation_id))
            convs[t.conversation_id].turns.append(t.index)
            continue
        if t.response_id:
            by_response[t.response_id] = t.index
        if t.previous_response_id:
            prev_of[t.index] = t.previous_response_id
    for ex in getattr(cap, "exchanges", []):
        # A conversation only created or written through the Conversations API still has
        # items the provider stores.
        if ex.conversation_id and ex.method == "POST":
            convs.setdefault(ex.conversation_id, Target("conversation", ex.conversation_id))
    chains: list[Target] = []
    referenced = set(prev_of.values())
    rid_of = {idx: rid for rid, idx in by_response.items()}
    for idx, rid in rid_of.items():
        if rid in referenced or idx not in prev_of:
            continue  # not the end of a chain, or a turn with no predecessor
        chain = [idx]
        seen = {idx}  # previous_response_id can loop in a hostile capture: stop at a repeat
        while chain[-1] in prev_of and prev_of[chain[-1]] in by_response:
            nxt = by_response[prev_of[chain[-1]]]
            if nxt in seen:
                break
            seen.add(nxt)
            chain.append(nxt)
        chain.reverse()
        chains.append(Target("chain", rid, chain, [rid_of[i] for i in chain if i in rid_of]))
    return list(convs.values()) + chains


def pick_target(cap: Any, wanted: str | None) -> Target:
    """The target named by ``wanted`` (a conv_ id or any response id of a chain), or the only
    one. Raises ValueError with a message naming the choices."""
    found = targets(cap)
    if wanted:
        for tgt in found:
            if tgt.id == wanted or wanted in tgt.response_ids:
                return tgt
        names = ", ".join(t.id for t in found) or "none"
        raise ValueError(f"the capture has no conversation or chain {wanted} (it has: {names})")
    if not found:
        raise ValueError(
            "the capture holds no conversation or previous_response_id chain: there is no "
            "provider copy to compare it with"
        )
    if len(found) > 1:
        names = ", ".join(t.id for t in found)
        raise ValueError(f"the capture holds several conversations ({names}); pick one with "
                         "--conversation ID")
    return found[0]


def capture_side(cap: Any, target: Target) -> list[CaptureItem]:
    """The capture's items for ``target``, re-reading only that conversation's bodies."""
    rows: list[tuple[int, int, int | None, Any, Any]] = []
    wanted = set(target.turns)
    for t in cap.turns:
        if t.index in wanted:
            req = cap.read(t.request)
            res = cap.read(t.response)
            rows.append((t.source, t.line, t.index, (req or {}).get("body"), _response_body(res)))
    if target.kind == "conversation":
        for ex in cap.exchanges:
            if (ex.conversation_id == target.id and ex.method == "POST"
                    and ex.path.rstrip("/").endswith(("/conversations", "/items"))
                    and (ex.status_code in (None, 200))):
                req = cap.read(ex.request)
                res = cap.read(ex.response)
                rows.append((ex.source, ex.line, None, (req or {}).get("body"),
                             (res or {}).get("body")))
    rows.sort(key=lambda r: (r[0], r[1]))
    items: list[CaptureItem] = []
    for _src, line, turn, req, res in rows:
        for ci in capture_items([(turn, req, res)]):
            items.append(CaptureItem(ci.turn, ci.side, ci.item, line))
    return items
