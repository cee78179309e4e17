"""The load worker: runs the core's Session in a thread and posts messages.

It is a plain function of (session, post, cancelled) so tests and the benchmark can
drive it without an app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message

from traceview.ui.gc_quiet import no_full_collections
from traceview.ui.messages import (
    BodiesLoaded,
    LoadFinished,
    LoadProgress,
    ProblemsFound,
    TurnsLoaded,
)

#: The most turns one TurnsLoaded carries. Its handler files each turn under its
#: conversation (a few µs a turn, on the event loop): a bounded batch keeps every handler
#: well under the ~50 ms a key may wait, however many turns the core finished at once.
MAX_TURNS_PER_MESSAGE = 2000


def run_session(
    session: Any, post: Callable[[Message], object], cancelled: Callable[[], bool]
) -> None:
    """Iterate ``session.run()`` and post one message per kind of news in each batch.

    Any exception from the core ends the load with a readable message instead of
    crashing the app: a damaged capture must still open.
    """
    # No full collection while loading, whatever the session (a followed capture's too):
    # one walks every object the load made with the GIL held, and the event loop waits.
    with no_full_collections():
        try:
            for batch in session.run():
                if cancelled():
                    return
                turns = batch.turns
                for start in range(0, len(turns), MAX_TURNS_PER_MESSAGE):
                    post(TurnsLoaded(list(turns[start:start + MAX_TURNS_PER_MESSAGE])))
                if batch.problems:
                    post(ProblemsFound(list(batch.problems)))
                progress = batch.progress
                if progress is not None:
                    post(LoadProgress(progress.bytes_read, progress.total_bytes,
                                      progress.lines))
        except Exception as exc:  # noqa: BLE001 - reported to the user, never swallowed
            post(LoadFinished(getattr(session, "analysis", None),
                              f"{type(exc).__name__}: {exc}"))
            return
    post(LoadFinished(session.analysis))


def capture_turn(capture: Any, index: int) -> Any | None:
    """The capture's Turn with this 1-based index, or None (turns are in index order)."""
    turns = getattr(capture, "turns", None) or []
    if 0 < index <= len(turns) and turns[index - 1].index == index:
        return turns[index - 1]
    for turn in turns:
        if turn.index == index:
            return turn
    return None


def read_bodies(session: Any, report: Any) -> BodiesLoaded:
    """Re-read and redact one turn's request/response records (they are never kept)."""
    redact = _redactor()
    turn_index = report.index
    capture = getattr(session, "capture", None)
    request_ref = getattr(report, "request_ref", None)
    response_ref = getattr(report, "response_ref", None)
    if request_ref is None and response_ref is None and capture is not None:
        turn = capture_turn(capture, turn_index)
        if turn is not None:
            request_ref, response_ref = turn.request, turn.response
    if capture is None or (request_ref is None and response_ref is None):
        return BodiesLoaded(turn_index, None, None, "no records of this turn to show")
    try:
        request = capture.read(request_ref) if request_ref is not None else None
        response = capture.read(response_ref) if response_ref is not None else None
    except OSError as exc:
        return BodiesLoaded(turn_index, None, None, f"could not re-read the capture: {exc}")
    return BodiesLoaded(turn_index, redact(request), redact(response), None)


def _redactor() -> Callable[[Any], Any]:
    """The core's redact: secret-named fields and key-shaped strings masked."""
    from traceview.safety.redact import redact

    return redact
