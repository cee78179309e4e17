"""The provider's word on what hosted turns received, for `traceview context`, `traceview
report --items/--live` and the inspector's context view: a saved copy (`--items`) or
listings read now (`--live`), counted by the one count (analysis/account/carried.py) and
attached to the turns, whose `input_account` then reads it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from traceview.analysis.account.carried import CopyFill, carried_line, fill_turns
from traceview.analysis.session import Analysis
from traceview.capture.items import response_body
from traceview.provider.client import make_client
from traceview.provider.diffing import FetchSettings
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import fetch_input_items
from traceview.provider.snapshot import SnapshotError, load_input_items, load_items

Listing = list[dict[str, Any]]


@dataclass
class Listings:
    """What a copy says each response received, by response id: `items` the listing,
    `origins` how it was listed (`input_items`, or `conversation`: cut from a conversation
    snapshot), `gone` why one could not be read; with where and when the copy was taken."""

    items: dict[str, Listing] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    gone: dict[str, str] = field(default_factory=dict)
    host: str | None = None
    fetched_at: str | None = None


def hosted_turns(analysis: Analysis, indices: Sequence[int] | None = None) -> list[Any]:
    """The turns (all, or those of `indices`) whose account has a carried line."""
    turns = analysis.turns if indices is None else [
        t for t in map(analysis.turn, indices) if t is not None]
    return [t for t in turns if carried_line(t.input_account) is not None]


def saved_listings(path: str | Path, analysis: Analysis, turns: Sequence[Any]) -> Listings:
    """The listings a file holds: its `input_items` listings by response id, and — from a
    conversation snapshot (what `d` diffs with) — each of `turns`' cut of it. Raises
    SnapshotError when the file holds neither."""
    found = Listings()
    try:
        copy = load_items(path)
    except SnapshotError:
        copy = None
    if copy is not None and copy.kind == "conversation" and copy.complete:
        found.fetched_at, found.host = copy.fetched_at, copy.host
        for turn in turns:
            cut = turn_listing(analysis, turn, copy.items)
            if not cut and turn.response_id:
                found.gone[turn.response_id] = (
                    f"the snapshot's items ({copy.conversation}) do not hold this turn's output"
                    " (another conversation, or the turn was not stored)")
            for rid, items in cut.items():
                found.items[rid] = items
                found.origins[rid] = "conversation"
    try:
        copies = load_input_items(path)
    except SnapshotError:
        if copy is None or copy.kind != "conversation":
            raise
        if not copy.complete:
            raise SnapshotError(f"{path}: the snapshot's listing stopped part way (complete:"
                                " false); its items cannot size what a turn carried") from None
        return found
    for rid, c in copies.items():
        if c.items is not None and c.complete and c.status == "ok":
            found.gone.pop(rid, None)
            found.items[rid] = c.items
            found.origins[rid] = "input_items"
            found.fetched_at = found.fetched_at or c.fetched_at
        elif c.status == "not_found":
            found.gone[rid] = f"the provider had no response {rid} when the copy was taken"
        else:
            why = "stopped part way" if c.status == "ok" else c.error or c.status
            found.gone[rid] = f"the copy's listing of {rid} is not whole: {why}"
    return found


def turn_listing(analysis: Analysis, turn: Any, conversation: Listing) -> dict[str, Listing]:
    """What `turn` received, cut from a provider listing of its whole conversation
    (a `traceview fetch` snapshot): every item before the turn's first output item, keyed
    by its response id as an `input_items` listing would be; empty when the listing does
    not hold the turn's output (another conversation, or the turn was not stored)."""
    if not turn.response_id:
        return {}
    body = response_body(analysis.capture.read(turn.turn.response))
    outputs = {it.get("id") for it in (body or {}).get("output") or ()
               if isinstance(it, dict) and isinstance(it.get("id"), str)}
    # A snapshot is someone's file: an item id that is not a string (a list, an object)
    # matches no output, rather than stopping the report with a traceback.
    first = next((n for n, it in enumerate(conversation)
                  if isinstance(it, dict) and isinstance(it.get("id"), str)
                  and it["id"] in outputs), None)
    return {} if first is None else {turn.response_id: conversation[:first]}


def live_listings(settings: FetchSettings, turns: Sequence[Any], *,
                  keep_going: bool = False) -> Listings:
    """`GET /v1/responses/{id}/input_items` of each turn's response now, every page, with
    the provider flags of `diff`/`fidelity --live`. Raises InputError (settings) or
    ProviderError (the provider's refusal, a timeout, a listing that stopped part way);
    with `keep_going`, a response the provider does not have (404) is noted in `gone`."""
    found = Listings()
    ids = [t.response_id for t in turns if t.response_id]
    if not ids:
        return found
    settings.check()
    config = settings.config
    client = make_client(config)
    for rid in ids:
        try:
            copy = fetch_input_items(client, rid, include=settings.include_flags,
                                     max_pages=settings.max_pages, config=config)
        except ProviderError as exc:
            if not keep_going or exc.kind != "not_found":
                raise
            found.gone[rid] = str(exc)
            continue
        found.items[rid] = copy.items
        found.origins[rid] = "input_items"
        found.host = found.host or copy.host
        found.fetched_at = found.fetched_at or copy.fetched_at
    return found


def fill_from_copy(analysis: Analysis, turns: Sequence[Any], *, items: str | None = None,
                   settings: FetchSettings | None = None, keep_going: bool = False) -> CopyFill:
    """Count each of `turns`' carried line from the copy (`items`: a file; else `settings`:
    read now) and attach it to the turn; what was filled and what could not be. Raises
    SnapshotError, InputError or ProviderError."""
    if items is not None:
        found = saved_listings(items, analysis, turns)
    elif settings is not None:
        found = live_listings(settings, turns, keep_going=keep_going)
    else:
        raise ValueError("a provider copy needs a file or the provider's settings")
    filled, missing = fill_turns(turns, found.items, found.origins, found.gone)
    return CopyFill("items" if items is not None else "live", items, found.host,
                    found.fetched_at, filled, missing)
