"""Conversations of an existing capture, as the experiment replays them.

What is replayed is the users' side only: each conversation's user messages in order
(the *new* user message of every turn), plus the instructions the application sent, so
both arms answer the same questions under the same instructions. The source's own
billed tokens are kept for the dry-run estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from traceview.analysis import analyze


@dataclass(frozen=True)
class SourceConversation:
    key: str
    user_messages: tuple[str, ...]
    instructions: str | None
    model: str | None
    input_tokens: int
    cached_tokens: int
    output_tokens: int

    @property
    def turns(self) -> int:
        return len(self.user_messages)


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        joined = "\n".join(p for p in parts if isinstance(p, str))
        return joined or None
    return None


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    raw = body.get("input", body.get("messages"))
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    return [m for m in raw or [] if isinstance(m, dict)]


def last_user_message(body: dict[str, Any]) -> str | None:
    for m in reversed(_messages(body)):
        if m.get("role") == "user" and m.get("type", "message") == "message":
            return _text(m.get("content"))
    return None


def instructions_of(body: dict[str, Any]) -> str | None:
    if isinstance(body.get("instructions"), str):
        return str(body["instructions"])
    for m in _messages(body):
        if m.get("role") in ("system", "developer"):
            return _text(m.get("content"))
    return None


def extract(paths: list[str] | str) -> tuple[list[SourceConversation], list[str]]:
    """The capture's conversations (with at least one user message) and what was skipped."""
    analysis = analyze(paths)
    by_key: dict[str, list[Any]] = {}
    for t in analysis.turns:
        if t.api == "compact":
            continue
        by_key.setdefault(t.conversation_key, []).append(t)
    out: list[SourceConversation] = []
    skipped: list[str] = []
    for key, turns in by_key.items():
        users: list[str] = []
        instructions = None
        for t in turns:
            record = analysis.capture.read(t.request_ref) or {}
            body = record.get("body")
            if not isinstance(body, dict):
                body = {}
            text = last_user_message(body)
            if text is not None:
                users.append(text)
            if instructions is None:
                instructions = instructions_of(body)
        if not users:
            skipped.append(f"{key}: no user message in its requests")
            continue
        out.append(SourceConversation(
            key=key, user_messages=tuple(users), instructions=instructions,
            model=next((t.model for t in turns if t.model), None),
            input_tokens=sum(t.input_tokens or 0 for t in turns),
            cached_tokens=sum(t.cached_tokens or 0 for t in turns),
            output_tokens=sum(t.output_tokens or 0 for t in turns),
        ))
    analysis.capture.close()
    return out, skipped
