"""Replay fidelity over an analysed capture: can a conversation's last input be rebuilt,
exactly, from what is held locally?

The definition, used literally: rebuild the exact input of a conversation's **final**
turn from the capture (its requests and responses in order, plus the hosted evidence it
captured), serialise it canonically, hash it (analysis/hosted/canonical.py), and compare
with the hash of the input the model actually received. A conversation replays only if
the hashes match.

What the model received:
- an owned-state turn (no ``conversation``, no ``previous_response_id``): its own request.
  The rebuild is the previous turn's input and output followed by the final request's new
  items, so an application that silently edited or dropped history does not replay;
- a hosted turn: the provider's ``GET /v1/responses/{id}/input_items`` (every page), given
  by the caller (live, a snapshot) or recorded in the capture itself.

Most hosted conversations are settled by their turns alone (an early reason, or no
provider copy and nothing in the records a late reason could read): their verdict is
held as a code and made again when read, and their rebuilt input is read and hashed only
when its hash is read (`Verdict._rebuild`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from traceview.analysis.by_index import finder
from traceview.analysis.hosted.verdicts import (
    CODES,
    EARLY,
    REASONS,
    Fidelity,
    Received,
    Verdict,
    judge_hosted,
    judge_owned,
)
from traceview.analysis.transcript import capture_items, request_items
from traceview.capture.items import UNHELD_ITEMS
from traceview.capture.items import response_body as _response_body

__all__ = ["REASONS", "Fidelity", "Received", "Verdict", "assess", "recorded_input_items"]


def assess(analysis: Any, received: dict[str, Received] | None = None,
           objects: Any = None, label: str = "now") -> Fidelity:
    """The verdict of every conversation of an analysed capture.

    `received` maps a final response id to the provider's copy of its input; without one,
    a recorded ``GET …/input_items`` listing in the capture is used when there is one.
    `objects` (analysis/hosted/objects.py) tells which provider copies the capture deleted.
    """
    cap = analysis.capture
    turn = finder(analysis.turns)
    held = _Held(cap, received or {}, recorded_input_items(cap), conversation_writes(cap),
                 objects.deleted_ids() if objects is not None else {})
    out = Fidelity(label=label)
    out._remake = _Remake(turn, held.deleted, cap, held.writes)
    for conv in analysis.conversations:
        turns = [t for t in map(turn, conv.turn_indices) if t is not None]
        final, prev = _final(turns)
        if final is None:
            continue
        if final.turn.conversation_id or final.turn.previous_response_id:
            _judge_hosted(out, held, conv, turns, final)
        else:
            out._add(_judge_owned(held, conv, turns, final, prev))
    return out


class _Held:
    """What the pass reads besides the turns: the capture, the provider copies given and
    recorded, the Conversations API writes, and the deleted provider copies."""

    def __init__(self, cap: Any, received: dict[str, Received],
                 recorded: dict[str, Received], writes: dict[str, list[Any]],
                 deleted: dict[str, int]) -> None:
        self.cap = cap
        self.received = received
        self.recorded = recorded
        self.writes = writes
        self.deleted = deleted

    def copy(self, rid: str | None) -> Received | None:
        """The provider's copy of response `rid`'s input: given, else recorded."""
        return self.received.get(rid or "") or self.recorded.get(rid or "")


def _judge_hosted(out: Fidelity, held: _Held, conv: Any, turns: list[Any], final: Any) -> None:
    """Add a hosted conversation's verdict: held as a code when its turns settle it, else
    judged against its rebuilt input (read only when a provider copy can be hashed
    against it, or no reason is certain yet)."""
    rid = final.response_id
    got = held.copy(rid)
    early = _early(conv, turns, final, held.deleted)
    if early is not None and got is None:  # settled: made again when read
        out._add(conv, 1 + EARLY.index(early[0]), final.index, early[2])
        return
    if got is None and not (final.turn.conversation_id and held.writes.get(conv.id or "")) \
            and _items_held(turns, final.index):
        # No item of its rebuild can give a reason: settled from the turns alone.
        late = _late_reason(turns, final, [])
        out._add(conv, 1 + CODES.index(late[0] if late else "no_provider_copy"), final.index)
        return
    static = early[:2] if early is not None else None
    rebuilt = (_rebuilt_hosted(held.cap, conv, turns, final, held.writes)
               if static is None or got is not None else None)
    if static is None and rebuilt is not None:
        static = _late_reason(turns, final, rebuilt)
    out._add(judge_hosted(conv.key, conv.id, final.index, rid, rebuilt, got, static))


def _judge_owned(held: _Held, conv: Any, turns: list[Any], final: Any, prev: Any) -> Verdict:
    """An owned-state conversation's verdict: its final request against the previous
    turn's input and output, from the request and response bodies."""
    cap, rid = held.cap, final.response_id
    markers = {t.index: list(t.markers) for t in turns}
    final_items = _request_items(cap, final)
    previous = (_request_items(cap, prev) + _response_items(cap, prev)
                if prev is not None else None)
    v = judge_owned(conv.key, conv.id, final.index, rid, previous, final_items, markers)
    if rid and rid in held.deleted:
        v.detail += (f"; the provider's stored copy was deleted (line {held.deleted[rid]}), "
                     "which an owned transcript does not need")
    return v


def _items_held(turns: list[Any], last: int) -> bool:
    """Whether the records of `turns` up to turn `last` hold every item a late reason
    could read: facts for every record there is, none marked UNHELD_ITEMS."""
    for t in turns:
        if t.index > last:
            continue
        turn = t.turn
        for ref, facts in ((turn.request, turn.req), (turn.response, turn.res)):
            if facts is None:
                if ref is not None:  # a record without facts: read, never settled
                    return False
            elif UNHELD_ITEMS in (facts.extra or ()):
                return False
    return True


def _calls(t: Any) -> Sequence[Any]:
    """A turn's hosted calls as its facts hold them (type, id, evidence, include)."""
    res = t.turn.res
    return res.hosted_calls if res is not None else ()


def _final(turns: Sequence[Any]) -> tuple[Any, Any]:
    """The final turn with a request (a compact call is not one), and the one before it:
    found from the end, so most turns are not read at all here."""
    final = prev = None
    for t in reversed(turns):
        if t.request_ref is not None and t.api != "compact":
            if final is not None:
                prev = t
                break
            final = t
    return final, prev


class _Remake:
    """The verdict of a hosted conversation the capture alone settled (`assess` held the
    conversation, the reason's code, its final turn and the turn the reason names): the
    same verdict from those two turns, no body read and no walk of the conversation.

    A conversation with no provider copy whose records hold no item `_late_reason` reads
    (the facts' UNHELD_ITEMS) is settled too: its late reason is read from its turns (no
    item), and its rebuilt input — read, hashed — only when the verdict's hash or length
    is read (`Verdict._rebuild`)."""

    __slots__ = ("_turn", "_deleted", "_cap", "_writes")

    def __init__(self, turn: Callable[[int], Any], deleted: dict[str, int],
                 cap: Any = None, writes: dict[str, list[Any]] | None = None) -> None:
        self._turn = turn
        self._deleted = deleted
        self._cap = cap
        self._writes = writes or {}

    def __call__(self, conv: Any, code: int, final_at: int, reason_at: int) -> Verdict:
        final = self._turn(final_at)
        rid = final.response_id
        reason = CODES[code - 1]
        if code > len(EARLY):  # no provider copy, no item read: its hash made when read
            turns = [t for t in map(self._turn, conv.turn_indices) if t is not None]
            # `assess` found the late reason already: its sentence is read again only
            # when there is one (outside_capture), not to find that there is none.
            late = _late_reason(turns, final, []) if reason != "no_provider_copy" else None
            v = judge_hosted(conv.key, conv.id, final_at, rid, None, None, late)
            v._rebuild = partial(_rebuilt_hosted, self._cap, conv, turns, final,
                                 self._writes)
            return v
        static: tuple[str, Any] | None
        if reason == "deleted":
            static = _deleted_reason(conv, rid, self._deleted)
        elif reason == "compaction":
            static = _compaction_reason(self._turn(reason_at))
        else:
            t = self._turn(reason_at)
            static = reason, (reason_at, next(c for c in _calls(t)
                                              if c.evidence == "missing"))
        assert static is not None
        return judge_hosted(conv.key, conv.id, final_at, rid, None, None, static)


def _body(cap: Any, ref: Any) -> dict[str, Any] | None:
    rec = cap.read(ref) if ref is not None else None
    body = rec.get("body") if isinstance(rec, dict) else None
    return body if isinstance(body, dict) else None


def _request_items(cap: Any, t: Any) -> list[dict[str, Any]]:
    body = _body(cap, t.request_ref)
    if body is None:
        return []
    if isinstance(body.get("messages"), list):  # Chat Completions
        return [m for m in body["messages"] if isinstance(m, dict)]
    items = request_items(body)
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        items = [{"type": "message", "role": "developer",
                  "content": [{"type": "input_text", "text": body["instructions"]}]}, *items]
    return items


def _response_items(cap: Any, t: Any) -> list[dict[str, Any]]:
    rec = cap.read(t.response_ref) if t.response_ref is not None else None
    if not isinstance(rec, dict):
        return []
    body = rec.get("body")
    if isinstance(body, dict) and isinstance(body.get("choices"), list):  # Chat Completions
        msgs = [c.get("message") for c in body["choices"] if isinstance(c, dict)]
        return [m for m in msgs[:1] if isinstance(m, dict)]
    body = _response_body(rec)
    out = body.get("output") if isinstance(body, dict) else None
    return [i for i in out if isinstance(i, dict)] if isinstance(out, list) else []


def _rebuilt_hosted(cap: Any, conv: Any, turns: list[Any], final: Any,
                    writes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The capture's items of a hosted conversation up to the final turn's input, in stored
    order: each turn's input and output, and items the application wrote through the
    Conversations API (`writes`, by conversation id). Reads only this conversation's bodies."""
    rows: list[tuple[int, int, int | None, Any, Any]] = []
    for t in turns:
        if t.api != "responses" or t.index > final.index:
            continue
        req = _body(cap, t.request_ref)
        # The final turn's output is not part of its input: its response is not read.
        ref = t.response_ref if t.index != final.index else None
        res = _response_body(cap.read(ref)) if ref is not None else None
        rows.append((t.turn.source, t.line, t.index, req, res))
    for ex in writes.get(conv.id or "", []) if final.turn.conversation_id else []:
        if (ex.source, ex.line) < (final.turn.source, final.line):
            rows.append((ex.source, ex.line, None, _body(cap, ex.request),
                         _body(cap, ex.response)))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [ci.item for _s, _l, turn, req, res in rows
            for ci in capture_items([(turn, req, res)])]


def conversation_writes(cap: Any) -> dict[str, list[Any]]:
    """Conversations API writes (create with items, add items) by conversation id."""
    out: dict[str, list[Any]] = {}
    for ex in getattr(cap, "exchanges", []):
        if (ex.conversation_id and ex.method == "POST" and ex.status_code in (None, 200)
                and ex.path.rstrip("/").endswith(("/conversations", "/items"))):
            out.setdefault(ex.conversation_id, []).append(ex)
    return out


def _early(conv: Any, turns: list[Any], final: Any, deleted: dict[str, int],
           ) -> tuple[str, Any, int] | None:
    """Reasons known from the analysed turns alone, no body read: deleted, compaction,
    hosted results not captured (the first three of the order), with the index of the
    turn the reason names (0: none)."""
    found = _deleted_reason(conv, final.response_id, deleted)
    if found is not None:
        return found[0], found[1], 0
    last = final.index
    before = [(t, i) for t in turns if (i := t.index) <= last]
    for t, i in before:
        if t.markers:
            found = _compaction_reason(t)
            if found is not None:
                return found[0], found[1], i
    for t, i in before:
        if i == last:
            continue
        for c in _calls(t):
            if c.evidence == "missing":
                return "evidence_missing", (i, c), i  # its sentence: missing_sentence
    return None



def _deleted_reason(conv: Any, rid: str | None, deleted: dict[str, int],
                    ) -> tuple[str, str] | None:
    for oid in (conv.id, rid):
        if oid and oid in deleted:
            return "deleted", (f"provider copy deleted (line {deleted[oid]}); the local record "
                               "stays whole and readable")
    return None


def _compaction_reason(t: Any) -> tuple[str, str] | None:
    m = t.markers
    if "compaction" in m:
        return "compaction", (f"compaction on turn {t.index}: an encrypted summary replaced "
                              "earlier items")
    if "compaction_likely" in m:
        return "compaction", (f"likely compaction on turn {t.index}: billed input fell with "
                              "no signal in the capture, so the provider dropped or "
                              "summarised items")
    return None




def _late_reason(turns: list[Any], final: Any,
                 rebuilt: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Reasons that need the rebuilt items: a compaction summary in them, encrypted
    reasoning, then items added outside the capture."""
    if any(i.get("type") == "compaction" for i in rebuilt):
        return "compaction", "the rebuilt input holds an encrypted compaction summary"
    for i in rebuilt:
        if i.get("type") == "reasoning" and not i.get("encrypted_content"):
            return "encrypted_reasoning", (
                "the provider holds reasoning items the capture has only by id; capture them "
                'with include=["reasoning.encrypted_content"]')
    first = turns[0] if turns else None
    if (first is not None and first.turn.previous_response_id
            and not any(t.response_id == first.turn.previous_response_id for t in turns)):
        return "outside_capture", (f"the chain continues response "
                                   f"{first.turn.previous_response_id}, which is not in the "
                                   "capture")
    for t in turns:
        if t.index <= final.index and "deposit" in t.markers and not t.attribution:
            # No count when the usage contradicts itself (cached above input): the deposit
            # is still named, without a number the capture does not support.
            n = t.unexplained_tokens
            what = f"≈ {n:,} tokens" if isinstance(n, int) else "context"
            return "outside_capture", (f"{what} entered before turn {t.index} with no "
                                       "request or hosted call in the capture")
    return None


def recorded_input_items(cap: Any) -> dict[str, Received]:
    """``GET /responses/{id}/input_items`` listings recorded in the capture, pages merged
    (a page with ``after=`` continues the listing before it), oldest first."""
    walks: dict[str, tuple[bool, list[dict[str, Any]], bool]] = {}
    found: dict[str, Received] = {}
    for ex in getattr(cap, "exchanges", []):
        if ex.method != "GET" or not ex.path.rstrip("/").endswith("/input_items"):
            continue
        rid = ex.path.rstrip("/").split("/")[-2]
        if ex.status_code not in (None, 200):
            if ex.status_code == 404:
                found[rid] = Received(None, "capture", status="not_found",
                                      error=f"HTTP 404 at line {ex.line}")
            continue
        rec = cap.read(ex.response)
        body = rec.get("body") if isinstance(rec, dict) else None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            continue
        items = [i for i in data if isinstance(i, dict)]
        desc = "order=asc" not in (ex.query or "")
        more = isinstance(body, dict) and body.get("has_more") is True
        if rid in walks and "after=" in (ex.query or ""):
            walks[rid][1].extend(items)
            walks[rid] = (walks[rid][0], walks[rid][1], more)
        else:
            walks[rid] = (desc, items, more)
    for rid, (desc, items, more) in walks.items():
        found[rid] = Received(list(reversed(items)) if desc else items, "capture",
                              complete=not more)
    return found
