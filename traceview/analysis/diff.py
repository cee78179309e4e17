"""Capture vs provider copy: which items both hold, which only one holds, which differ.

Pure functions over lists of dicts. The capture side comes from ``transcript`` (each turn's
request input items, then its response output items); the provider side is the list of
items the provider holds now (a live fetch or a snapshot).

Alignment keeps both orders (difflib over one key per item):
- messages by role and whitespace-normalised text — the provider gives user messages ids
  (``msg_…``) that the capture's request never had, so ids cannot match them;
- ``*_output`` items by ``call_id`` (their ids are assigned by the provider);
- every other item by its ``id``; items with no id by their content.
Inside a stretch that does not line up, items sharing an id or call_id are still paired
(as ``changed``).

Matched items are compared after normalisation. Ignored on purpose, because they differ
between an honest capture and an honest listing without the model reading anything
different: ``id`` (see above), ``status`` (a streamed capture may hold ``in_progress``
snapshots; the listing says ``completed``), ``created_by``, null vs absent vs empty
values (``model_dump()`` writes every declared key), the ``async_``/``schema_`` aliases,
and include-gated fields that were not asked for on the provider side
(``encrypted_content``, ``logprobs``, image URLs). Hosted-tool evidence (file-search
``results``, web-search ``action.sources``, code-interpreter ``outputs``) is compared
strictly: null locally and present at the provider is the central finding.

Token figures are estimates: ceil(UTF-8 bytes of the item's text / 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from traceview.analysis.item_compare import (
    align_key,
    compare,
    estimate_tokens,
    item_type,
    message_text,
    same_identity,
    text_of,
)
from traceview.analysis.transcript import CaptureItem
from traceview.wire import EVIDENCE
from traceview.wire import HOSTED_ITEM_TYPES as HOSTED_TYPES

# Re-exported: renderers and the inspector read these names from here.
__all__ = [
    "EVIDENCE", "HOSTED_TYPES", "KINDS", "SCHEMA", "DiffResult", "DiffRow", "align_key",
    "compare", "diff", "diff_items", "estimate_tokens", "item_type", "message_text",
    "text_of", "verdict",
]

SCHEMA = "traceview.diff/1"
KINDS = ("same", "changed", "provider_only", "capture_only")

@dataclass
class DiffRow:
    """One line of the diff: an item of either side, or a pair of the same item."""

    kind: str  # same | changed | provider_only | capture_only
    turn: int | None
    reason: str
    capture_item: dict[str, Any] | None = None
    provider_item: dict[str, Any] | None = None
    side: str | None = None  # capture side: input | output | added
    tokens: int | None = None  # ≈ tokens one side holds that the other lacks
    evidence: str | None = None  # plain name of the hosted evidence involved, if any

    @property
    def item(self) -> dict[str, Any]:
        return self.provider_item or self.capture_item or {}

    @property
    def item_type(self) -> str:
        return item_type(self.item)

    @property
    def item_id(self) -> str | None:
        for it in (self.provider_item, self.capture_item):
            item_id = it.get("id") if it else None
            if isinstance(item_id, str):
                return item_id
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "turn": self.turn, "side": self.side, "type": self.item_type,
            "id": self.item_id, "reason": self.reason, "tokens": self.tokens,
            "capture_item": self.capture_item, "provider_item": self.provider_item,
        }


@dataclass
class DiffResult:
    """The diff of one conversation, with where the provider copy came from."""

    conversation: str
    rows: list[DiffRow]
    complete: bool
    pages: int
    verdict: str = ""
    kind: str = "conversation"
    origin: str = "live"
    include: list[str] = field(default_factory=list)
    host: str | None = None
    fetched_at: str | None = None
    stopped: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    problems: int = 0  # the capture's damaged lines: the diff may miss what they held

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(KINDS, 0)
        for row in self.rows:
            counts[row.kind] += 1
        return counts

    @property
    def differs(self) -> bool:
        return any(r.kind != "same" for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        """The ``traceview.diff/1`` JSON document."""
        return {
            "schema": SCHEMA, "conversation": self.conversation, "kind": self.kind,
            "complete": self.complete, "pages": self.pages, "origin": self.origin,
            "host": self.host, "fetched_at": self.fetched_at, "include": self.include,
            "stopped": self.stopped, "warnings": self.warnings, "counts": self.counts,
            "verdict": self.verdict, "rows": [r.to_dict() for r in self.rows],
        }


# ------------------------------------------------------------------ rows and verdict


def _provider_only_reason(item: dict[str, Any]) -> str:
    kind = item_type(item)
    if kind == "compaction":
        return "compaction item written by the provider (it stands in for earlier items)"
    if kind in HOSTED_TYPES:
        return f"hosted {kind} the provider ran and stored; the capture has no record of it"
    if kind == "message":
        role = item.get("role") or "unknown"
        if role == "assistant":
            return "assistant message with no local record (a response the capture missed)"
        return (f"{role} message the capture never sent (added by another client or "
                "outside the recorded calls)")
    if kind == "configuration_update":
        return "settings change written by the provider"
    return f"{kind} held by the provider with no local record"


def _where(ci: CaptureItem) -> str:
    if ci.turn is None:
        return "added through the Conversations API" + (f", line {ci.line}" if ci.line else "")
    return f"turn {ci.turn} {ci.side}"


def _capture_only_reason(ci: CaptureItem, complete: bool, compacted: bool) -> str:
    base = f"in the capture ({_where(ci)}) but not in the provider copy"
    if not complete:
        return base + ": the copy is partial, it may be on a page that was not read"
    if compacted:
        return base + ": compacted away (the provider holds a compaction item in its place)"
    return base + ": dropped by compaction or truncation, deleted, or never stored"


def diff_items(capture: Sequence[CaptureItem], provider: Sequence[dict[str, Any]], *,
               include: Sequence[str] = (), complete: bool = True) -> list[DiffRow]:
    """Aligned rows for the two sides, both orders preserved."""
    a = [align_key(ci.item) for ci in capture]
    b = [align_key(it) for it in provider]
    compacted = any(item_type(it) == "compaction" for it in provider)
    rows: list[DiffRow] = []
    last_turn: list[int | None] = [None]

    def pair(ci: CaptureItem, prov: dict[str, Any]) -> None:
        reasons, ev_tokens, ev_name = compare(ci.item, prov, include)
        if reasons:
            rows.append(DiffRow("changed", ci.turn, "; ".join(reasons), ci.item, prov,
                                ci.side, ev_tokens or None, ev_name))
        else:
            rows.append(DiffRow("same", ci.turn, "same item", ci.item, prov, ci.side))
        last_turn[0] = ci.turn if ci.turn is not None else last_turn[0]

    def only_capture(ci: CaptureItem) -> None:
        rows.append(DiffRow("capture_only", ci.turn, _capture_only_reason(ci, complete, compacted),
                            ci.item, None, ci.side, estimate_tokens(ci.item)))
        last_turn[0] = ci.turn if ci.turn is not None else last_turn[0]

    def only_provider(prov: dict[str, Any]) -> None:
        rows.append(DiffRow("provider_only", last_turn[0], _provider_only_reason(prov), None,
                            prov, None, estimate_tokens(prov)))

    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for ci, prov in zip(capture[i1:i2], provider[j1:j2], strict=True):
                pair(ci, prov)
            continue
        pending = list(range(j1, j2))
        for ci in capture[i1:i2]:
            match = next((j for j in pending if same_identity(ci.item, provider[j])), None)
            if match is None:
                only_capture(ci)
                continue
            while pending and pending[0] != match:
                only_provider(provider[pending.pop(0)])
            pending.pop(0)
            pair(ci, provider[match])
        for j in pending:
            only_provider(provider[j])
    rows = _pair_moved(rows, include)
    _fill_leading_turns(rows)
    return rows


def _identity(item: dict[str, Any]) -> list[tuple[str, str, str]]:
    kind = item_type(item)
    return [(kind, key, item[key]) for key in ("id", "call_id") if isinstance(item.get(key), str)]


def _pair_moved(rows: list[DiffRow], include: Sequence[str]) -> list[DiffRow]:
    """Join a capture-only and a provider-only row that are the same item at different places.

    The provider stores a compaction item *before* the turn's input, while the response
    lists it first in ``output``; such an item moved, it did not vanish. The pair takes the
    provider's position.
    """
    by_identity: dict[tuple[str, str, str], DiffRow] = {}
    for row in rows:
        if row.kind == "capture_only" and row.capture_item is not None:
            for key in _identity(row.capture_item):
                by_identity.setdefault(key, row)
    if not by_identity:
        return rows
    consumed: set[int] = set()
    out: list[DiffRow] = []
    for row in rows:
        if row.kind == "provider_only" and row.provider_item is not None:
            match = next((by_identity[k] for k in _identity(row.provider_item)
                          if k in by_identity and id(by_identity[k]) not in consumed), None)
            if match is not None and match.capture_item is not None:
                consumed.add(id(match))
                reasons, ev_tokens, ev_name = compare(match.capture_item, row.provider_item,
                                                      include)
                moved = "listed at a different position"
                if item_type(row.provider_item) == "compaction":
                    moved += " (the provider stores a compaction before the turn's input)"
                out.append(DiffRow(
                    "changed" if reasons else "same", match.turn,
                    "; ".join(reasons + [moved]) if reasons else f"same item, {moved}",
                    match.capture_item, row.provider_item, match.side, ev_tokens or None,
                    ev_name))
                continue
        out.append(row)
    return [r for r in out if id(r) not in consumed]


def _fill_leading_turns(rows: list[DiffRow]) -> None:
    """Provider-only rows before any capture item belong with the first turn that follows."""
    nxt: int | None = None
    for row in reversed(rows):
        if row.kind != "provider_only" and row.turn is not None:
            nxt = row.turn
        elif row.kind == "provider_only" and row.turn is None:
            row.turn = nxt


def verdict(rows: Sequence[DiffRow], *, complete: bool, pages: int,
            stopped: dict[str, Any] | None = None) -> str:
    """A sentence a person can quote in a postmortem."""
    p_only = [r for r in rows if r.kind == "provider_only"]
    c_only = [r for r in rows if r.kind == "capture_only"]
    evidence: dict[str, int] = {}
    other_changed = 0
    for r in rows:
        if r.kind == "changed":
            if r.evidence:
                evidence[r.evidence] = evidence.get(r.evidence, 0) + (r.tokens or 0)
            else:
                other_changed += 1
    sentences: list[str] = []
    held: list[str] = []
    if p_only:
        n = len(p_only)
        toks = sum(r.tokens or 0 for r in p_only)
        held.append(f"{n:,} item{'s' if n != 1 else ''} (≈ {toks:,} tokens)")
    held += [f"≈ {t:,} tokens' worth of {name}" for name, t in evidence.items()]
    if held:
        sentences.append("The provider holds " + " and ".join(held)
                         + " that this capture never recorded.")
    if c_only:
        n = len(c_only)
        sentences.append(f"The capture has {n:,} item{'s' if n != 1 else ''} the provider no "
                         "longer holds (compacted, truncated or deleted).")
    if other_changed:
        sentences.append(f"{other_changed:,} item{'s differ' if other_changed != 1 else ' differs'}"
                         " in content.")
    if not sentences:
        sentences.append(f"The provider copy matches the capture: all {len(rows):,} items "
                         "are the same.")
    elif held or c_only:
        sentences.append("(Token figures are estimates: UTF-8 bytes ÷ 4.)")
    if not complete:
        why = f" ({stopped.get('message')})" if stopped and stopped.get("message") else ""
        sentences.append(f"The provider copy is PARTIAL: {pages} page(s) read, not the whole "
                         f"conversation{why}.")
    return " ".join(sentences)


def diff(capture: Sequence[CaptureItem], provider: Sequence[dict[str, Any]], *,
         conversation: str, complete: bool, pages: int, include: Sequence[str] = (),
         kind: str = "conversation", origin: str = "live", host: str | None = None,
         fetched_at: str | None = None, stopped: dict[str, Any] | None = None,
         warnings: Sequence[str] = ()) -> DiffResult:
    """The whole diff of one conversation, rows plus a quotable verdict."""
    rows = diff_items(capture, provider, include=include, complete=complete)
    return DiffResult(
        conversation=conversation, rows=rows, complete=complete, pages=pages,
        verdict=verdict(rows, complete=complete, pages=pages, stopped=stopped), kind=kind,
        origin=origin, include=list(include), host=host, fetched_at=fetched_at,
        stopped=stopped, warnings=list(warnings),
    )
