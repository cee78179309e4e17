"""Replay fidelity with the provider's word on it (analysis/fidelity.py scores; this reads).

A hosted conversation's final input is what the provider lists at
``GET /v1/responses/{id}/input_items``: read live (every page), or from snapshots saved
earlier by ``traceview fetch``. Given both, the score is taken twice — *then* from the
snapshot and *now* live — and a live 404 for a response the snapshot still held counts as
expired, with the snapshot's date.
"""

from __future__ import annotations

from datetime import UTC, datetime

from traceview.analysis.hosted.fidelity import Fidelity, Received, assess
from traceview.analysis.session import Analysis, analyze
from traceview.capture.sources import SourceError
from traceview.provider.client import make_client
from traceview.provider.diffing import FetchSettings, InputError
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import fetch_input_items
from traceview.provider.snapshot import InputItemsCopy, SnapshotError, load_input_items
from traceview.report.problems import not_captures


def _saved(paths: list[str]) -> dict[str, InputItemsCopy]:
    found: dict[str, InputItemsCopy] = {}
    for path in paths:
        try:
            found.update(load_input_items(path))
        except SnapshotError as exc:
            raise InputError(str(exc)) from None
    return found


def _as_received(copy: InputItemsCopy) -> Received:
    return Received(copy.items, copy.origin, copy.fetched_at, copy.complete, copy.status,
                    copy.error)


def _hosted_finals(analysis: Analysis) -> list[str]:
    base = assess(analysis, objects=analysis.objects)
    return [v.final_response for v in base.verdicts if v.mode == "hosted" and v.final_response]


def _live(settings: FetchSettings, finals: list[str],
          saved: dict[str, InputItemsCopy]) -> dict[str, Received]:
    settings.check()
    config = settings.config
    try:
        client = make_client(config)
    except ProviderError as err:
        raise InputError(err.message) from None
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    out: dict[str, Received] = {}
    for rid in finals:
        try:
            copy = fetch_input_items(client, rid, include=settings.include_flags,
                                     max_pages=settings.max_pages, config=config)
        except ProviderError as err:
            if err.kind == "not_found":
                then = saved.get(rid)
                held = (f"; the snapshot taken {then.fetched_at or 'earlier'} still held "
                        f"{len(then.items)} item(s)" if then and then.items is not None
                        else "")
                out[rid] = Received(None, "live", now, False, "not_found",
                                    f"HTTP 404 now{held}")
            else:
                out[rid] = Received(None, "live", now, False, "error", err.message)
            continue
        out[rid] = Received(copy.items, "live", copy.fetched_at, copy.complete)
    return out


def scores(capture: str, *, snapshots: list[str] | None = None, live: bool = False,
           settings: FetchSettings | None = None) -> tuple[list[Fidelity], Analysis]:
    """The fidelity of ``capture``: from ``snapshots`` (then), live (now), or from the
    capture alone when neither is asked for. Raises InputError with a message to show."""
    try:
        analysis = analyze([capture])
    except SourceError as exc:
        text = str(exc)
        raise InputError(text if capture in text else f"{capture}: {text}") from None
    foreign = not_captures(analysis.problems, bool(analysis.turns or analysis.capture.exchanges))
    if foreign:
        analysis.capture.close()
        raise InputError(foreign[0])
    saved = _saved(snapshots or [])
    result: list[Fidelity] = []
    if saved:
        when = sorted({c.fetched_at for c in saved.values() if c.fetched_at})
        label = "then: snapshot" + (f" taken {', '.join(when)}" if when else "")
        result.append(assess(analysis, {r: _as_received(c) for r, c in saved.items()},
                             analysis.objects, label))
    if live:
        received = _live(settings or FetchSettings(), _hosted_finals(analysis), saved)
        result.append(assess(analysis, received, analysis.objects, "now: live"))
    if not result:
        result.append(assess(analysis, None, analysis.objects, "now: capture only"))
    return result, analysis
