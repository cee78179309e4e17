"""Fetch the provider copy of one conversation and diff it, off the event loop.

Runs in the diff screen's thread worker. It is the same work as ``traceview diff``
(``provider.diffing.build_diff``) but keeps the ProviderCopy too, because the screen's
``w`` saves it as a snapshot. Nothing here touches a widget: the outcome is returned as
plain data and posted as a ``DiffReady`` message by the caller.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from traceview.analysis.diff import DiffResult
from traceview.analysis.transcript import Target, pick_target, targets


@dataclass(frozen=True)
class DiffRequest:
    """What to diff: which capture, which turn's conversation, against what.

    ``items_path`` set: compare offline with that snapshot (no network). Otherwise fetch
    live, configured like the CLI (``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``); ``timeout``
    and ``max_retries`` of None mean the CLI's defaults.
    """

    paths: list[str]
    turn_index: int | None = None
    conversation: str | None = None
    items_path: str | None = None
    timeout: float | None = None
    max_retries: int | None = None
    capture: Any = None  # an already loaded Capture (the session's), else paths are read

    @property
    def live(self) -> bool:
        return self.items_path is None


@dataclass
class DiffOutcome:
    """The result of one diff attempt.

    ``result`` is None when no diff could be made (``error`` says why). A partial copy has
    both a ``result`` (labelled incomplete) and the ``error`` that stopped the listing.
    """

    result: DiffResult | None
    copy: Any = None  # ProviderCopy, kept for `w` (save snapshot)
    error: str | None = None
    error_kind: str | None = None
    target: str | None = None
    warnings: list[str] = field(default_factory=list)


class _Stop(Exception):
    def __init__(self, message: str, kind: str = "capture") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


def pick_for_turn(cap: Any, turn_index: int | None, conversation: str | None) -> Target:
    """The conversation or chain the selected turn belongs to (the one on screen)."""
    found = targets(cap)
    if turn_index is not None:
        for tgt in found:
            if turn_index in tgt.turns:
                return tgt
        if conversation is None and len(found) != 1:
            raise _Stop(
                f"turn {turn_index} belongs to no conversation or previous_response_id chain: "
                "the provider holds no copy of it to compare with"
            )
    try:
        return pick_target(cap, conversation)
    except ValueError as exc:
        raise _Stop(str(exc)) from None


def _load_capture(request: DiffRequest) -> Any:
    if request.capture is not None and getattr(request.capture, "turns", None) is not None:
        return request.capture
    from traceview.capture import SourceError, load

    try:
        return load(list(request.paths))
    except (SourceError, OSError) as exc:
        raise _Stop(f"cannot read the capture: {exc}") from None


def _provider_copy(request: DiffRequest, target: Target) -> tuple[Any, str | None, str | None]:
    """(copy, error message, error kind); a partial copy comes back with its error."""
    if request.items_path is not None:
        from traceview.provider.snapshot import SnapshotError, load_items

        try:
            return load_items(request.items_path, conversation=target.id), None, None
        except SnapshotError as exc:
            raise _Stop(str(exc), "snapshot") from None
    from traceview.provider.client import (
        DEFAULT_MAX_RETRIES,
        DEFAULT_TIMEOUT,
        ProviderConfig,
        make_client,
    )
    from traceview.provider.errors import ProviderError
    from traceview.provider.fetch import fetch_chain_items, fetch_conversation_items
    from traceview.wire import HOSTED_EVIDENCE_INCLUDE

    config = ProviderConfig(
        base_url=os.environ.get("OPENAI_BASE_URL") or None,
        timeout=request.timeout if request.timeout is not None else DEFAULT_TIMEOUT,
        max_retries=request.max_retries if request.max_retries is not None
        else DEFAULT_MAX_RETRIES,
    )
    try:
        client = make_client(config)
        fetch = fetch_conversation_items if target.kind == "conversation" else fetch_chain_items
        copy = fetch(client, target.id, include=list(HOSTED_EVIDENCE_INCLUDE), config=config)
        return copy, None, None
    except ProviderError as err:
        partial = err.partial if err.partial is not None and err.partial.pages else None
        return partial, err.message, err.kind


def compute_diff(
    request: DiffRequest, cancelled: Callable[[], bool] = lambda: False
) -> DiffOutcome:
    """Fetch (or load) the provider copy for the request's conversation and diff it.

    Never raises for bad input or a failing provider: the outcome says what went wrong.
    ``cancelled`` is checked between stages; a cancelled run's outcome is discarded.
    """
    try:
        cap = _load_capture(request)
        if cancelled():
            return DiffOutcome(None, error="cancelled", error_kind="cancelled")
        target = pick_for_turn(cap, request.turn_index, request.conversation)
        copy, error, kind = _provider_copy(request, target)
    except _Stop as stop:
        return DiffOutcome(None, error=stop.message, error_kind=stop.kind)
    if copy is None:
        return DiffOutcome(None, error=error or "no provider copy", error_kind=kind,
                           target=target.id)
    if cancelled():
        return DiffOutcome(None, error="cancelled", error_kind="cancelled", target=target.id)
    from traceview.provider.diffing import compare

    result = compare(cap, target, copy, error)
    return DiffOutcome(result, copy=copy, error=error, error_kind=kind, target=target.id,
                       warnings=list(result.warnings))
