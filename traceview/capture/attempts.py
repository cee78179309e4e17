"""Attempts: whether a request retries the failed turn before it (same API and chain
handles, its input the failed input extended, or repaired after a 400), and the failed
turn kept as an attempt of the one that retried it.

Apart from the reader (reader.py), which pairs records into turns: this decides only
which two turns are one, from their inputs and handles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from traceview.capture.model import Attempt, Turn


def lazy_input(api: str, record: Callable[[], dict[str, Any]]) -> Callable[[], Any]:
    """The request's input, read when a retry check needs it: in one process from the
    parsed record (kept, as before, one at a time), else re-read from the file."""
    return lambda: _input_of(api, record().get("body") or {})


def retries(failed: Turn, old_input: Callable[[], Any], api: str,
            body: dict[str, Any]) -> bool:
    """Whether request `body` retries `failed` (a turn of the same API and source): the
    same chain handles, and its input the failed one's, possibly extended, or (the
    provider rejected it, 400) repaired."""
    if failed.req is None:
        return False
    old, new = old_input(), _input_of(api, body)
    g = body.get
    conv = g("conversation")
    conv = conv.get("id") if isinstance(conv, dict) else conv
    same_handles = (failed.req.previous_response_id == (g("previous_response_id") or None)
                    and failed.req.conversation_id == (conv or None))
    rejected = failed.res is not None and failed.res.http_status == 400
    return same_handles and (_extends(old, new) or (rejected and _repairs(old, new)))


def _input_of(api: str, body: dict[str, Any]) -> Any:
    return body.get("messages") if api == "chat" else body.get("input")


def _extends(old: Any, new: Any) -> bool:
    """True when `new` is the same input as `old`, possibly with items added at the end."""
    if old is None or new is None:
        return False
    if isinstance(old, list) and isinstance(new, list):
        return len(new) >= len(old) > 0 and new[: len(old)] == old
    return bool(old == new)


def _repairs(old: Any, new: Any) -> bool:
    """True when `new` is `old`'s history repaired after the provider rejected it (400):
    the same first item, with items inserted (a missing call output) or dropped (a
    dangling call), the rest in the same order — the same conversation, tried again."""
    if not (isinstance(old, list) and isinstance(new, list) and old and new
            and old[0] == new[0]):
        return False
    short, long = (old, new) if len(old) <= len(new) else (new, old)
    rest = iter(long)
    return all(any(item == other for other in rest) for item in short)


def attempt_of(turn: Turn) -> Attempt:
    """The failed turn `turn` as an attempt of the turn that retried it."""
    res = turn.res
    req_x = turn.req.extra if turn.req is not None else None
    res_x = res.extra if res is not None else None
    return Attempt(turn.line, res.status if res else "unknown",
                   res.http_status if res else None, res.error if res else None,
                   res.error_code if res else None, res.elapsed_ms if res else None,
                   req_x.get("ts") if req_x else None,
                   res_x.get("limits") if res_x else None)
