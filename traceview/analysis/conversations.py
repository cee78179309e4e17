"""Which conversation a turn belongs to, decided as turns arrive.

A `conversation` handle names it outright; a `previous_response_id` joins the chain of
the response it names; a stateless turn continues the previous stateless turn of the
same file when its input extends that turn's input (same first user message, more
items) — otherwise it starts a conversation of its own, so independent calls and
several sub-chats in one file are told apart. A stateless turn that resends a compaction
item an earlier turn produced continues that turn's conversation: compaction shortens a
conversation, it does not start a new one. Likewise a stateless turn that answers a call
an earlier stateless response made, or resends its items by reference (`item_reference`),
continues that response's conversation even when its first message is not resent as text.
"""

from __future__ import annotations

from dataclasses import dataclass

from traceview.analysis.rules.facts import TurnFacts
from traceview.capture.model import Turn

_ACTIONS_KEPT = 4096  # action ids remembered for a later answer or reference


@dataclass(slots=True)
class _Tail:
    key: str
    api: str
    input_count: int
    first_sig: int | None


class ConversationGrouper:
    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        self.ids: dict[str, str | None] = {}
        self._by_response: dict[str, str] = {}
        self._stateless_tail: dict[int, _Tail] = {}
        # Compaction item keys (capture/facts.compaction_keys) -> the conversation that
        # produced or first sent them; a handful per capture.
        self._by_compaction: dict[str, str] = {}
        # Call ids and item ids of the actions stateless responses asked for -> their
        # conversation: a later request that answers or references one continues it.
        self._by_action: dict[str, str] = {}

    def assign(self, turn: Turn, f: TurnFacts) -> str:
        """The key of `turn`'s conversation (`f`: its facts)."""
        cid = f.conversation_id
        if cid:  # the common case on a large capture: one dict lookup
            if cid not in self.kinds:
                self._new(cid, "conversation", cid)
            if f.req_extra or f.res_extra:  # where compaction items are noted
                self._note_compactions(f, cid)
            return cid
        res = turn.res
        rid = res.response_id if res is not None else None
        key = self._key(turn, f, rid)
        self._note_compactions(f, key)
        # Only responses outside a conversation handle can be continued by a chain
        # (the API refuses `conversation` with `previous_response_id`); mapping the rest
        # would cost a dict entry per turn for nothing.
        if rid:
            self._by_response[rid] = key
        if self.kinds.get(key) == "stateless":
            self._note_actions(f, key)
        return key

    def _key(self, turn: Turn, f: TurnFacts, rid: str | None) -> str:
        """The key of a turn without a conversation handle."""
        prev = f.previous_response_id
        if prev:
            key = self._by_response.get(prev)
            if key is None:
                key = prev  # the chain's earlier responses are not in this capture
                self._new(key, "chain", key)
            elif self.kinds.get(key) == "stateless":
                self.kinds[key] = "chain"
                self.ids[key] = key
            return key
        req = turn.req
        joined = self._compaction_owner(f)
        if joined is not None:
            if req is not None:
                self._stateless_tail[f.source] = _Tail(joined, f.api, req.input_count,
                                                       req.first_user_sig)
            return joined
        tail = self._stateless_tail.get(f.source)
        # A standalone compact call continues the stateless conversation it compacts.
        if (req is not None and tail is not None
                and (tail.api == f.api or f.api == "compact")
                and req.first_user_sig is not None and req.first_user_sig == tail.first_sig
                and req.input_count > tail.input_count):
            tail.input_count = req.input_count
            return tail.key
        owner = self._action_owner(f)
        if owner is not None and req is not None:
            self._stateless_tail[f.source] = _Tail(owner, f.api, req.input_count,
                                                       req.first_user_sig)
            return owner
        key = rid or f"turn-{f.index}"
        if key in self.kinds:
            key = f"{key}#{f.index}"
        self._new(key, "stateless", None)
        if req is not None:
            self._stateless_tail[f.source] = _Tail(key, f.api, req.input_count,
                                                       req.first_user_sig)
        return key

    def _compaction_owner(self, f: TurnFacts) -> str | None:
        """The conversation whose compaction item this request resends, if any."""
        extra = f.req_extra
        keys = extra.get("compaction_keys") if extra else None
        if not keys or not self._by_compaction:
            return None
        for k in keys:
            owner = self._by_compaction.get(k)
            if owner is not None:
                return owner
        return None

    def _action_owner(self, f: TurnFacts) -> str | None:
        """The stateless conversation whose call this request answers or whose items it
        references by id, if any."""
        extra = f.req_extra
        if not extra or not self._by_action:
            return None
        for name in ("answered", "item_refs"):
            for k in extra.get(name, ()):
                owner = self._by_action.get(k)
                if owner is not None:
                    return owner
        return None

    def _note_actions(self, f: TurnFacts, key: str) -> None:
        """Remember the recent actions' ids (the oldest forgotten first: a request answers
        or references the calls of the turns just before it)."""
        extra = f.res_extra
        for _kind, call_id, _name, item_id in (extra or {}).get("actions", ()):
            for k in (call_id, item_id):
                if k is not None:
                    self._by_action.setdefault(k, key)
        while len(self._by_action) > _ACTIONS_KEPT:
            del self._by_action[next(iter(self._by_action))]

    def _note_compactions(self, f: TurnFacts, key: str) -> None:
        """Remember which conversation each compaction item (sent or produced) belongs to."""
        for extra in (f.req_extra, f.res_extra):
            if extra and "compaction_keys" in extra:
                for k in extra["compaction_keys"]:
                    self._by_compaction.setdefault(k, key)

    def _new(self, key: str, kind: str, cid: str | None) -> None:
        if key not in self.kinds:
            self.kinds[key] = kind
            self.ids[key] = cid
