"""The provider copy of a capture's conversation: fetched (every page) and diffed against
what the capture holds. Shared by ``traceview fetch``/``diff``, ``fidelity`` and the
inspector's diff view, so the three say the same thing about the same conversation.

Failures come back as messages a person can act on: ``InputError`` for a capture, snapshot
or setting that cannot be used, and the provider's own errors as text beside a partial copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from traceview.analysis.diff import DiffResult, diff
from traceview.analysis.hosted.object_calls import deletions
from traceview.analysis.transcript import CaptureItem, Target, capture_side, pick_target
from traceview.capture import SourceError, load
from traceview.provider.client import OFFLINE, ProviderConfig, make_client
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import (
    DEFAULT_MAX_PAGES,
    fetch_chain_items,
    fetch_conversation_items,
    fetch_input_items,
)
from traceview.provider.provider_copy import ProviderCopy
from traceview.provider.snapshot import SnapshotError, load_items
from traceview.report.problems import not_captures
from traceview.safety.redact import redact
from traceview.wire import HOSTED_EVIDENCE_INCLUDE


class InputError(Exception):
    """A capture, snapshot or setting that cannot be used; the message says which and why."""


@dataclass
class FetchSettings:
    """How to read the provider copy: where (``config``), with which include flags (None:
    the flags that capture hosted tools' evidence) and at most how many pages. ``offline``:
    what the command can do without a key, said when there is none (None: nothing)."""

    config: ProviderConfig = field(default_factory=ProviderConfig)
    include: list[str] | None = None
    max_pages: int = DEFAULT_MAX_PAGES
    offline: str | None = OFFLINE

    @property
    def include_flags(self) -> list[str]:
        return list(HOSTED_EVIDENCE_INCLUDE) if self.include is None else list(self.include)

    def check(self) -> None:
        """Refuse settings that could never read a page (before any request is made)."""
        c = self.config
        if c.timeout <= 0 or c.max_retries < 0 or self.max_pages < 1:
            raise InputError("--timeout must be > 0, --max-retries ≥ 0 and --max-pages ≥ 1")


def load_target(capture: str, conversation: str | None, *,
                allow_unlisted: bool) -> tuple[Any, Target]:
    """The capture and the conversation (or chain) in it to compare. ``allow_unlisted``: an
    id the capture does not hold is still a target (fetching a copy needs only the id)."""
    try:
        cap = load([capture])
    except SourceError as exc:  # its message names the file
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{capture}: {exc}") from None
    foreign = not_captures(cap.problems, bool(cap.turns or cap.exchanges))
    if foreign:
        cap.close()
        raise InputError(foreign[0])
    try:
        return cap, pick_target(cap, conversation)
    except ValueError as exc:
        wanted = conversation or ""
        if allow_unlisted and wanted.startswith(("conv_", "resp_")):
            kind = "conversation" if wanted.startswith("conv_") else "chain"
            return cap, Target(kind, wanted)
        raise InputError(f"{capture}: {exc}") from None


def fetch_copy(settings: FetchSettings,
               target: Target) -> tuple[ProviderCopy | None, ProviderError | None]:
    """(copy, error). A partial copy comes back with the error that stopped it; a copy of
    no page at all is None."""
    settings.check()
    config = settings.config
    try:
        client = make_client(config, settings.offline)
        fetch = fetch_conversation_items if target.kind == "conversation" else fetch_chain_items
        return fetch(client, target.id, include=settings.include_flags,
                     max_pages=settings.max_pages, config=config), None
    except ProviderError as err:
        partial = err.partial if err.partial and err.partial.pages else None
        return partial, err


def final_response_id(cap: Any, target: Target) -> str | None:
    """The id of the target's last response in the capture (its final turn)."""
    if target.kind == "chain" and target.response_ids:
        return target.response_ids[-1]
    by_index = {t.index: t for t in cap.turns}
    for index in reversed(target.turns):
        t = by_index.get(index)
        if t is not None and t.response_id:
            return str(t.response_id)
    return target.id if target.id.startswith("resp_") else None


def fetch_final_input(settings: FetchSettings, cap: Any,
                      target: Target) -> ProviderCopy | dict[str, Any] | None:
    """The final response's input items, for replay fidelity later. Never fails: a refusal
    comes back as ``{"response", "status", "error"}``, saved in the snapshot as such."""
    rid = final_response_id(cap, target)
    if rid is None:
        return None
    config = settings.config
    try:
        client = make_client(config, settings.offline)
        return fetch_input_items(client, rid, include=settings.include_flags,
                                 max_pages=settings.max_pages, config=config)
    except ProviderError as err:
        return {"response": rid, "status": "not_found" if err.kind == "not_found" else "error",
                "error": err.message}


def build_diff(capture: str, conversation: str | None, *, items: str | None = None,
               settings: FetchSettings | None = None) -> tuple[DiffResult | None, str | None]:
    """The diff of ``capture`` against a snapshot (``items``) or the live provider copy, or
    (None, message) when it cannot be made."""
    try:
        cap, target = load_target(capture, conversation, allow_unlisted=False)
        if items:
            try:
                copy: ProviderCopy | None = load_items(items, conversation=target.id)
            except SnapshotError as exc:
                raise InputError(str(exc)) from None
            error = None
        else:
            copy, failure = fetch_copy(settings or FetchSettings(), target)
            error = failure.message if failure else None
    except InputError as exc:
        return None, str(exc)
    if copy is None:
        line = deletions(cap.exchanges).get(target.id)
        if line is not None:
            return None, (f"provider copy deleted (line {line}): the capture itself deleted "
                          f"{target.id}, so there is nothing live to compare; the local record "
                          "is whole (`traceview report`), and a snapshot taken before the "
                          "deletion still diffs with --items FILE")
        return None, error
    return compare(cap, target, copy, error), None


def compare(cap: Any, target: Any, copy: ProviderCopy, error: str | None = None) -> DiffResult:
    """Diff a provider copy against the capture's side of `target` (CLI and inspector).

    `error` is the reason a partial copy stopped; it leads the warnings.
    """
    warnings = list(copy.warnings)
    if error:
        warnings.insert(0, error)
    if cap.problems:
        warnings.append(f"the capture had {len(cap.problems)} problem(s) while loading; "
                        "see `traceview report`")
    # Both sides redacted before comparing: every output of the diff (text, markdown, json,
    # the inspector) then holds no key, and a masked key cannot show up as a difference.
    items = [CaptureItem(ci.turn, ci.side, redact(ci.item), ci.line)
             for ci in capture_side(cap, target)]
    copy.items = redact(copy.items)
    if not copy.covers_output and target.turns:
        last = target.turns[-1]
        items = [ci for ci in items if not (ci.turn == last and ci.side == "output")]
    result = diff(
        items, copy.items, conversation=target.id,
        complete=copy.complete, pages=copy.pages, include=copy.include, kind=copy.kind,
        origin=copy.origin, host=copy.host, fetched_at=copy.fetched_at, stopped=copy.stopped,
        warnings=warnings,
    )
    result.problems = len(cap.problems)
    return result
