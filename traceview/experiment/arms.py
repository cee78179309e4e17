"""One conversation played on one arm, through the real openai SDK.

**A (owned)** keeps the transcript in its own store: before each turn it reads the
thread back, adds the passages its retriever found for the new message, and resends
everything; after the answer it appends the passages, the message and the answer, so its
transcript holds what the model read, as B's stored conversation holds its file-search
results (the arms differ only in where that state lives).
That store work is timed (``state_ms``) and is part of the latency at the caller.

**B (hosted)** creates a conversation and passes its handle with just the new message;
retrieval is the hosted ``file_search`` over the vector store the runner created.

Both arms send the same model and the same instructions; neither offers other tools.
Every call is written to the arm's capture by ``traceview.record`` and described in one
ledger line (times, ids, usage) that the comparison reads.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from traceview.experiment.plan import Unit
from traceview.experiment.retriever import Retriever
from traceview.experiment.source import SourceConversation
from traceview.experiment.store import TranscriptStore

SIMULATED_HEADER = "x-traceview-simulated-ms"  # the simulator's latency model (sim/latency.py)
DEFAULT_INSTRUCTIONS = "You are a helpful assistant. Answer the user's question."


@dataclass
class Call:
    """One ledger line: a turn as the runner saw it."""

    arm: str
    conversation: str
    run: int
    turn: int
    response_id: str | None
    status: str
    state_ms: float
    call_ms: float
    simulated_ms: int | None
    latency_ms: float
    ts: float
    input_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    hosted_calls: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["state_ms"] = round(self.state_ms, 3)
        d["call_ms"] = round(self.call_ms, 3)
        d["latency_ms"] = round(self.latency_ms, 3)
        return d


class CallFailed(Exception):
    """A turn failed; the rest of its conversation cannot be played on this arm."""


def _usage(resp: Any) -> tuple[int | None, int | None, int | None]:
    u = getattr(resp, "usage", None)
    if u is None:
        return None, None, None
    details = getattr(u, "input_tokens_details", None)
    return u.input_tokens, getattr(details, "cached_tokens", None) or 0, u.output_tokens


def _hosted(resp: Any) -> int:
    return sum(1 for i in getattr(resp, "output", None) or []
               if getattr(i, "type", "").endswith("_call") and getattr(i, "type", "")
               != "function_call")


def passages_message(passages: list[Any]) -> dict[str, str]:
    body = "\n\n".join(f"[{p.source}] {p.text}" for p in passages)
    return {"role": "developer", "content": "Passages from the documents that may help:\n\n"
            + body}


class ArmPlayer:
    """Plays units; ``clients`` maps arm → a recording ``openai.OpenAI``."""

    def __init__(self, clients: dict[str, Any], model: str, *, store: TranscriptStore,
                 retriever: Retriever | None, vector_store_id: str | None,
                 on_call: Callable[[Call], None], clock: Callable[[], float] = time.perf_counter,
                 ) -> None:
        self.clients = clients
        self.model = model
        self.store = store
        self.retriever = retriever
        self.vector_store_id = vector_store_id
        self.on_call = on_call
        self.clock = clock

    def play(self, unit: Unit, conv: SourceConversation) -> None:
        instructions = conv.instructions or DEFAULT_INSTRUCTIONS
        if unit.arm == "A":
            self._owned(unit, conv, instructions)
        else:
            self._hosted(unit, conv, instructions)

    def _call(self, unit: Unit, turn: int, state_ms: float, send: Callable[[], Any]) -> Any:
        """Time one SDK call, write its ledger line; raises CallFailed on an API error."""
        import openai

        started_wall = time.time()
        t0 = self.clock()
        try:
            raw = send()
            resp = raw.parse()
        except openai.APIStatusError as exc:
            call_ms = (self.clock() - t0) * 1000
            self.on_call(Call(unit.arm, unit.conversation, unit.run, turn, None, "failed",
                              state_ms, call_ms, None, state_ms + call_ms, started_wall,
                              error=f"HTTP {exc.status_code}: {exc.message}"))
            raise CallFailed(f"HTTP {exc.status_code}: {exc.message}") from None
        call_ms = (self.clock() - t0) * 1000
        header = raw.headers.get(SIMULATED_HEADER)
        simulated = int(header) if header and header.isdigit() else None
        inp, cached, out = _usage(resp)
        self.on_call(Call(
            unit.arm, unit.conversation, unit.run, turn, resp.id, str(resp.status), state_ms,
            call_ms, simulated, state_ms + call_ms + (simulated or 0), started_wall,
            inp, cached, out, _hosted(resp)))
        return resp

    def _owned(self, unit: Unit, conv: SourceConversation, instructions: str) -> None:
        client = self.clients["A"]
        thread = f"{unit.conversation}#{unit.run}"
        self.store.forget(thread)
        # The store write after turn n delays request n+1, so it counts in that turn's
        # state work; after the last turn the user already has the answer (not counted).
        carry = 0.0
        for turn, message in enumerate(conv.user_messages, 1):
            t0 = self.clock()
            history: list[dict[str, Any]] = self.store.load(thread)
            passages = self.retriever.search(message) if self.retriever else []
            extra = [passages_message(passages)] if passages else []
            input_ = [*history, *extra, {"role": "user", "content": message}]
            state_ms = (self.clock() - t0) * 1000 + carry
            resp = self._call(unit, turn, state_ms, partial(
                client.responses.with_raw_response.create,
                model=self.model, instructions=instructions, input=input_))
            t1 = self.clock()
            kept = [(m["role"], m["content"]) for m in extra]
            self.store.append(thread, *kept, ("user", message), ("assistant", resp.output_text))
            carry = (self.clock() - t1) * 1000

    def _hosted(self, unit: Unit, conv: SourceConversation, instructions: str) -> None:
        client = self.clients["B"]
        handle = client.conversations.create(metadata={"traceview_ab": unit.tag[:500]})
        tools = ([{"type": "file_search", "vector_store_ids": [self.vector_store_id]}]
                 if self.vector_store_id else [])
        for turn, message in enumerate(conv.user_messages, 1):
            extra: dict[str, Any] = {"tools": tools} if tools else {}
            self._call(unit, turn, 0.0, partial(
                client.responses.with_raw_response.create,
                model=self.model, instructions=instructions, conversation=handle.id,
                input=[{"role": "user", "content": message}], **extra))


def simulated_clock() -> Any:
    """The recorder's clock when the provider is the simulator with its latency model:
    ``elapsed_ms`` is the wall time plus the simulated time the server reported."""
    from traceview.record.recorder import Clock

    class SimulatedClock(Clock):
        def elapsed_ms(self, started: float, headers: dict[str, str]) -> int:
            extra = headers.get(SIMULATED_HEADER, "")
            return super().elapsed_ms(started, headers) + (int(extra) if extra.isdigit() else 0)

    return SimulatedClock()
