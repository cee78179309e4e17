"""The carried conversation of a hosted turn counted from the provider's own listing.

A hosted turn's `carried` line is what the provider held before the turn's own input; the
capture alone can size it only by difference from the previous turn. A provider copy (the
`input_items` of the turn's response, or the conversation cut at the turn) lists those
items, so they can be counted one by one. This is the one count `traceview context`,
`traceview report --items/--live` and the inspector's context view use: the count is
attached to the turn, and its `input_account` reads it (rules/account.py `report_lines`).

It changes the account's carried line only: expected input, unexplained tokens and the
markers stay what the application's own traffic lets one expect (docs/input-account.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from traceview.analysis.account.account import account

Listing = list[dict[str, Any]]


@dataclass(frozen=True)
class CarriedCount:
    """A turn's carried line as the provider's listing counts it.

    `held`: the items listed before the turn's own input; `lines`: one account line each
    (the context document's `provider_items`); `listing`: `input_items` (the response's
    own listing) or `conversation` (a conversation snapshot cut at the turn's output)."""

    response_id: str
    held: int
    tokens: int | None
    basis: str
    lines: tuple[dict[str, Any], ...]
    listing: str = "input_items"

    @property
    def reason(self) -> str:
        return (f"{self.held} items the provider listed before this turn's own input"
                f" (input_items of {self.response_id})")

    def fill(self, lines: list[dict[str, Any]]) -> None:
        """Size the carried line of an `input_account` (in place) from this count."""
        carried = next((c for c in lines if c["component"] == "carried"), None)
        if carried is not None:
            carried.update(tokens=self.tokens, basis=self.basis, reason=self.reason)


def count_carried(model: str | None, response_id: str, own_inputs: int, listing: Listing,
                  kind: str = "input_items") -> CarriedCount | None:
    """Count what the listing holds before the turn's `own_inputs` input items (the listing
    is everything the model received, oldest first; `kind`: how it was listed); None when
    it holds fewer items than the turn sent itself (not this turn's listing)."""
    if own_inputs > len(listing):
        return None
    held = listing[: len(listing) - own_inputs]
    acc = account({"model": model, "input": held}, model)
    parts = [c for c in acc.components if c.component != "request"]
    counted = [c.tokens for c in parts]
    total = None if None in counted else sum(t for t in counted if t is not None)
    basis = "unknown" if total is None else (
        "estimated" if any(c.basis != "known" for c in parts) else "known")
    return CarriedCount(response_id, len(held), total, basis,
                        tuple(c.to_dict() for c in parts), kind)


def carried_line(lines: Iterable[Mapping[str, Any]] | None) -> Mapping[str, Any] | None:
    """The account's `carried` line, if the turn has one (a hosted turn)."""
    return next((c for c in lines or () if c["component"] == "carried"), None)


@dataclass
class CopyFill:
    """What a provider copy filled in a report: the report's top-level `provider_copy`.

    `source`: `items` (a file) or `live`; `filled`: one entry per turn whose carried line
    the copy counted; `missing`: the hosted turns it could not, each with its reason."""

    source: str
    path: str | None
    host: str | None
    fetched_at: str | None
    filled: list[dict[str, Any]]
    missing: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        conversations = sorted({f["conversation"] for f in self.filled if f["conversation"]})
        return {"source": self.source, "path": self.path, "host": self.host,
                "fetched_at": self.fetched_at, "conversations_filled": conversations,
                "turns_filled": [f["turn"] for f in self.filled], "turns": self.filled,
                "missing": self.missing}


def fill_turns(turns: Iterable[Any], listings: Mapping[str, Listing],
               origins: Mapping[str, str], gone: Mapping[str, str]) -> tuple[
                   list[dict[str, Any]], list[dict[str, Any]]]:
    """Attach each hosted turn's count from `listings` (by response id; `origins`: how each
    was listed, `gone`: why one could not be, by response id): the entries filled, and the
    turns left unknown with their reason. A turn without a carried line is skipped."""
    filled: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    for turn in turns:
        turn.columns.carried_copy.pop(turn.index, None)  # the line as the capture sizes it
        before = carried_line(turn.input_account)
        if before is None:
            continue
        rid = turn.response_id or ""
        listing = listings.get(rid)
        req = turn.turn.req
        count = None
        if listing is not None and req is not None:
            count = count_carried(turn.model, rid, req.input_count, listing,
                                  origins.get(rid, "input_items"))
        if count is None:
            missing.append({"turn": turn.index, "response_id": turn.response_id,
                            "reason": _why_not(rid, listing, req, gone)})
            continue
        turn.columns.carried_copy[turn.index] = count
        filled.append({"turn": turn.index, "conversation": turn.conversation_key,
                       "response_id": rid, "listing": count.listing, "items": count.held,
                       "tokens": count.tokens, "basis": count.basis,
                       "by_difference": before["tokens"]})
    return filled, missing


def _why_not(rid: str, listing: Listing | None, req: Any, gone: Mapping[str, str]) -> str:
    if not rid:
        return "the turn has no response id to look its input_items up by"
    if rid in gone:
        return gone[rid]
    if req is None:
        return "the turn's request was not recorded: its own input cannot be told apart"
    if listing is None:
        return f"the provider copy holds no complete listing of {rid}"
    return (f"the provider listed {len(listing)} items for {rid}, fewer than the"
            f" {req.input_count} the turn sent itself")
