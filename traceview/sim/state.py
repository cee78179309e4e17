"""What the simulated provider remembers: conversations, stored responses, ids, time.

One lock guards everything; the HTTP server is threaded and requests may race.
Deterministic mode (a seed) makes ids and timestamps reproducible, which the checked-in
samples depend on.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

ID_HEX = {"conv": 48}
DEFAULT_EPOCH = 1767225600  # 2026-01-01T00:00:00Z


class SimError(Exception):
    """An error the provider would return: status, message, type, param, code."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": type, "param": param, "code": code}}


class Ids:
    """Provider-shaped ids (``resp_`` + 50 hex); seeded ones repeat run after run."""

    def __init__(self, seed: str | None = None) -> None:
        self.seed = seed
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def new(self, prefix: str) -> str:
        width = ID_HEX.get(prefix, 50)
        if self.seed is None:
            digest = (uuid.uuid4().hex + uuid.uuid4().hex)[:width]
        else:
            with self._lock:
                n = next(self._counter)
            digest = hashlib.sha256(f"{self.seed}:{n}".encode()).hexdigest()[:width]
        return f"{prefix}_{digest}"


class SimClock:
    """Real time, or a frozen clock that only moves by the simulated processing time."""

    def __init__(self, frozen_at: int | None = None) -> None:
        self._frozen = frozen_at
        self._lock = threading.Lock()

    @property
    def frozen(self) -> bool:
        return self._frozen is not None

    def now(self) -> int:
        if self._frozen is None:
            return int(time.time())
        with self._lock:
            return self._frozen

    def advance(self, ms: int) -> None:
        if self._frozen is not None:
            with self._lock:
                self._frozen += max(1, -(-ms // 1000))


@dataclass
class Prefix:
    """What the prompt cache saw last time: enough to compute the shared prefix."""

    head: tuple[str, str]  # instructions, tool definitions (JSON)
    item_ids: tuple[str, ...]
    item_tokens: tuple[int, ...]
    base_tokens: int


@dataclass
class ConversationRecord:
    id: str
    created_at: int
    metadata: dict[str, str]
    items: list[dict[str, Any]] = field(default_factory=list)
    last_prefix: Prefix | None = None


@dataclass
class ResponseRecord:
    body: dict[str, Any]  # full, include-independent
    input_items: list[dict[str, Any]]  # the context rendered for this response
    next_context: list[dict[str, Any]]  # where a previous_response_id continuation starts
    prefix: Prefix
    stored: bool = True


class SimState:
    """All provider-side state of one simulator instance."""

    def __init__(self, seed: str | None = None, frozen_at: int | None = None) -> None:
        self.lock = threading.RLock()
        self.ids = Ids(seed)
        self.clock = SimClock(frozen_at)
        self.conversations: dict[str, ConversationRecord] = {}
        self.responses: dict[str, ResponseRecord] = {}

    def conversation(self, conv_id: str) -> ConversationRecord:
        conv = self.conversations.get(conv_id)
        if conv is None:
            raise SimError(404, f"Conversation with id '{conv_id}' not found.")
        return conv

    def response(self, resp_id: str, *, param: str | None = None) -> ResponseRecord:
        record = self.responses.get(resp_id)
        if record is None or not record.stored:
            if param == "previous_response_id":
                raise SimError(
                    400, f"Previous response with id '{resp_id}' not found.", param=param
                )
            raise SimError(404, f"Response with id '{resp_id}' not found.")
        return record

    def find_item(self, item_id: str) -> dict[str, Any] | None:
        for conv in self.conversations.values():
            for item in conv.items:
                if item.get("id") == item_id:
                    return dict(item)
        for record in self.responses.values():
            for item in record.input_items + record.body.get("output", []):
                if item.get("id") == item_id:
                    return dict(item)
        return None
