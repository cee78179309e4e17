"""The provider's word on what one turn received, for `traceview context` and the inspector's
context view: a saved listing (`--items`) or one read now (`--live`), as listings by
response id that report/context_out.py's `fill_from_provider` counts (one count for both)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traceview.analysis.session import Analysis
from traceview.provider.client import make_client
from traceview.provider.diffing import FetchSettings
from traceview.provider.fetch import fetch_input_items
from traceview.provider.snapshot import SnapshotError, load_input_items, load_items
from traceview.report.context_out import turn_listing

Listings = dict[str, list[dict[str, Any]]]


def saved_listings(path: str | Path, analysis: Analysis, index: int) -> Listings:
    """The whole listings a file holds: its `input_items` listings by response id, and —
    from a conversation snapshot (what `d` diffs with) — turn `index`'s cut of it. Raises
    SnapshotError when the file holds neither."""
    found: Listings = {}
    try:
        copy = load_items(path)
    except SnapshotError:
        copy = None
    if copy is not None and copy.kind == "conversation" and copy.complete:
        found.update(turn_listing(analysis, index, copy.items))
    try:
        copies = load_input_items(path)
    except SnapshotError:
        if not found:
            raise
        return found
    found.update({rid: c.items for rid, c in copies.items()
                  if c.items is not None and c.complete and c.status == "ok"})
    return found


def live_listing(settings: FetchSettings, response_id: str) -> Listings:
    """`GET /v1/responses/{id}/input_items` now, every page, with the provider flags of
    `diff`/`fidelity --live`. Raises InputError (settings) or ProviderError (the provider's
    refusal, a timeout, a listing that stopped part way)."""
    settings.check()
    config = settings.config
    copy = fetch_input_items(make_client(config), response_id, include=settings.include_flags,
                             max_pages=settings.max_pages, config=config)
    return {response_id: copy.items}
