"""``traceview fidelity CAPTURE [--live] [--items SNAPSHOT] [--format text|markdown|json]``.

Scores replay fidelity (analysis/fidelity.py). A hosted conversation's final input is what
the provider lists at ``GET /v1/responses/{id}/input_items``: read live (``--live``, every
page), or from a snapshot saved earlier by ``traceview fetch`` (``--items``). Given both,
the score is taken twice — *then* from the snapshot and *now* live — and a live 404 for a
response the snapshot still held counts as expired, with the snapshot's date.

Exit status: 0 every conversation replays; 1 some do not (or are unverified), or the
capture was read with problems; 2 bad arguments or an unreadable file.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from traceview.analysis.hosted.fidelity import Fidelity, Received, assess
from traceview.analysis.session import Analysis, analyze
from traceview.capture.sources import SourceError
from traceview.provider.client import make_client
from traceview.provider.commands import _config, _Fail, add_provider_arguments
from traceview.provider.errors import ProviderError
from traceview.provider.fetch import HOSTED_EVIDENCE_INCLUDE, fetch_input_items
from traceview.provider.snapshot import InputItemsCopy, SnapshotError, load_input_items
from traceview.report.fidelity_output import render
from traceview.safety.redact import redact_text
from traceview.safety.sanitise import visible

EXIT_ALL, EXIT_SOME, EXIT_ERROR = 0, 1, 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("capture", metavar="CAPTURE", help="the capture to score")
    p.add_argument("--live", action="store_true",
                   help="read each hosted conversation's final input_items from the provider now")
    p.add_argument("--items", action="append", metavar="SNAPSHOT",
                   help="a snapshot saved by `traceview fetch` (or a capture that recorded a "
                        "GET …/input_items listing); repeatable")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    add_provider_arguments(p)


def _saved(paths: list[str]) -> dict[str, InputItemsCopy]:
    found: dict[str, InputItemsCopy] = {}
    for path in paths:
        try:
            found.update(load_input_items(path))
        except SnapshotError as exc:
            raise _Fail(str(exc)) from None
    return found


def _as_received(copy: InputItemsCopy) -> Received:
    return Received(copy.items, copy.origin, copy.fetched_at, copy.complete, copy.status,
                    copy.error)


def _hosted_finals(analysis: Analysis) -> list[str]:
    base = assess(analysis, objects=analysis.objects)
    return [v.final_response for v in base.verdicts if v.mode == "hosted" and v.final_response]


def _live(ns: argparse.Namespace, finals: list[str],
          saved: dict[str, InputItemsCopy]) -> dict[str, Received]:
    config = _config(ns)
    include = ns.include if ns.include is not None else list(HOSTED_EVIDENCE_INCLUDE)
    try:
        client = make_client(config)
    except ProviderError as err:
        raise _Fail(err.message) from None
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    out: dict[str, Received] = {}
    for rid in finals:
        try:
            copy = fetch_input_items(client, rid, include=include, max_pages=ns.max_pages,
                                     config=config)
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


def scores(ns: argparse.Namespace) -> tuple[list[Fidelity], Analysis]:
    """The fidelity scores the arguments ask for (exposed for tests and the compare command)."""
    try:
        analysis = analyze([ns.capture])
    except SourceError as exc:
        text = str(exc)
        raise _Fail(text if ns.capture in text else f"{ns.capture}: {text}") from None
    saved = _saved(ns.items or [])
    result: list[Fidelity] = []
    if saved:
        when = sorted({c.fetched_at for c in saved.values() if c.fetched_at})
        label = "then: snapshot" + (f" taken {', '.join(when)}" if when else "")
        result.append(assess(analysis, {r: _as_received(c) for r, c in saved.items()},
                             analysis.objects, label))
    if ns.live:
        live = _live(ns, _hosted_finals(analysis), saved)
        result.append(assess(analysis, live, analysis.objects, "now: live"))
    if not result:
        result.append(assess(analysis, None, analysis.objects, "now: capture only"))
    return result, analysis


def run(ns: argparse.Namespace) -> int:
    try:
        result, analysis = scores(ns)
    except _Fail as exc:
        print(f"traceview fidelity: {visible(redact_text(str(exc)), multiline=True)}",
              file=sys.stderr)
        return EXIT_ERROR
    try:
        sys.stdout.write(render(result, analysis.capture.sources, ns.format))
        sys.stdout.flush()
    except BrokenPipeError:
        return EXIT_SOME
    finally:
        analysis.capture.close()
    if analysis.problems:  # a damaged or hostile capture never scores "all replay" silently
        first = analysis.problems[0]
        print(visible(redact_text(
            f"traceview fidelity: {len(analysis.problems)} problem(s) reading the capture; "
            f"first: {first.source} line {first.line}: {first.message}")), file=sys.stderr)
        return EXIT_SOME
    return EXIT_ALL if all(v.replays for f in result for v in f.verdicts) else EXIT_SOME
