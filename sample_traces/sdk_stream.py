"""Stream event lists for streamed sample turns, built from the SDK's event models.

A recorder that logs ``stream=True`` calls keeps every event the SDK yielded
(``ev.model_dump()``); the samples reproduce that list for a one-message response,
optionally cut off before the terminal event, as a dropped connection leaves it.
"""

from __future__ import annotations

from typing import Any

from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)
from sdk_build import dump


def _chunks(text: str, size: int) -> list[str]:
    """Split text into fixed-size deltas (real deltas are token-sized; size is cosmetic)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def message_stream(final: Response, *, delta_chars: int = 24,
                   cut_after_deltas: int | None = None) -> list[dict[str, Any]]:
    """Events for a response whose output is one assistant message.

    With ``cut_after_deltas`` the list stops after that many text deltas: no
    ``*.done`` events and no terminal ``response.completed``, hence no usage.
    """
    msg = final.output[0]
    assert isinstance(msg, ResponseOutputMessage)
    text = msg.content[0].text  # type: ignore[union-attr]
    snapshot = final.model_copy(update={"status": "in_progress", "output": [], "usage": None,
                                        "completed_at": None})
    seq = iter(range(10_000))
    events: list[Any] = [
        ResponseCreatedEvent(type="response.created", sequence_number=next(seq),
                             response=snapshot),
        ResponseInProgressEvent(type="response.in_progress", sequence_number=next(seq),
                                response=snapshot),
        ResponseOutputItemAddedEvent(
            type="response.output_item.added", sequence_number=next(seq), output_index=0,
            item=msg.model_copy(update={"status": "in_progress", "content": []})),
        ResponseContentPartAddedEvent(
            type="response.content_part.added", sequence_number=next(seq), item_id=msg.id,
            output_index=0, content_index=0,
            part={"type": "output_text", "text": "", "annotations": [], "logprobs": []}),
    ]
    deltas = _chunks(text, delta_chars)
    if cut_after_deltas is not None:
        deltas = deltas[:cut_after_deltas]
    for n, piece in enumerate(deltas):
        events.append(ResponseTextDeltaEvent(
            type="response.output_text.delta", sequence_number=next(seq), item_id=msg.id,
            output_index=0, content_index=0, delta=piece, logprobs=[],
            obfuscation=f"{n:04x}pad"[: 16 - len(piece) % 8]))
    if cut_after_deltas is not None:
        return [dump(e) for e in events]
    events += [
        ResponseTextDoneEvent(type="response.output_text.done", sequence_number=next(seq),
                              item_id=msg.id, output_index=0, content_index=0, text=text,
                              logprobs=[]),
        ResponseContentPartDoneEvent(type="response.content_part.done",
                                     sequence_number=next(seq), item_id=msg.id,
                                     output_index=0, content_index=0, part=msg.content[0]),
        ResponseOutputItemDoneEvent(type="response.output_item.done", sequence_number=next(seq),
                                    output_index=0, item=msg),
        ResponseCompletedEvent(type="response.completed", sequence_number=next(seq),
                               response=final),
    ]
    return [dump(e) for e in events]
