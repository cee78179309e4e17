"""Follow mode in the app: a cheap timer notices growth, a thread worker reads it.

The timer only calls ``os.stat`` (a few microseconds) every POLL seconds, so an idle
capture costs no CPU worth measuring; when the file grew or its mtime changed (a rewrite
to the same length), a thread worker runs the core's ``FollowSession.poll()`` (which
reads only the appended bytes) and posts the same TurnsLoaded/ProblemsFound messages the
first load posts, plus FollowUpdated with the refreshed conversation totals. The worker
never touches a widget.

With no file at the path the stat fails on every tick; that is one more key (GONE), so
the worker runs once to say the file is gone and once more when a file is back.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

from textual.message import Message

from traceview.ui.messages import ProblemsFound, TurnsLoaded

if TYPE_CHECKING:
    from textual.timer import Timer

    from traceview.analysis.seams import AnalysisView, FollowedSessionView
    from traceview.ui.inspector import Inspector

#: Seconds between stats of the followed file: well under the 250 ms target, and idle.
POLL = 0.1
#: The tick's key while nothing can be stat'ed at the path.
GONE = (-1, -1, -1)


class FollowUpdated(Message):
    """The followed capture grew (``analysis`` refreshed), was replaced, or is gone
    (``gone`` says why; None once a file is at the path again)."""

    def __init__(self, analysis: AnalysisView | None, replaced: bool = False,
                 gone: str | None = None) -> None:
        super().__init__()
        self.analysis = analysis
        self.replaced = replaced
        self.gone = gone


class Follow:
    """Owned by the app: on/off, the timer, and the last size seen."""

    def __init__(self, app: Inspector) -> None:
        self.app = app
        self.on = False
        self.timer: Timer | None = None
        self.seen: tuple[int, int, int] | None = None
        self.busy = False
        self.told_replaced = False
        #: Why the followed file is not there, as last told (set by the handler only).
        self.gone: str | None = None

    def start(self) -> None:
        self.on = True
        if self.timer is None:
            self.timer = self.app.set_interval(POLL, self.tick, name="follow")
        else:
            self.timer.resume()

    def stop(self) -> None:
        self.on = False
        if self.timer is not None:
            self.timer.pause()

    def session(self) -> FollowedSessionView | None:
        """The app's session if it can be followed (it has ``poll``), else None."""
        session = self.app.session
        return cast("FollowedSessionView", session) if hasattr(session, "poll") else None

    def tick(self) -> None:
        session = self.session()
        if not self.on or self.busy or not self.app.state.done or session is None:
            return
        try:
            st = os.stat(session.path)
            key = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = GONE  # polled once, to say so; not again until something is there
        # A hosted-state pass that is due re-polls an unchanged file; not one that is gone
        # or replaced (the pass reads the file: it waits, as the rows do, for a file or R).
        due = getattr(session, "hosted_state_pending", False) and not (
            key == GONE or session.replaced or session.gone)
        if key == self.seen and not due:
            return  # nothing appended, and the carried / replay columns are up to date
        self.seen = key
        self.busy = True
        self.app.run_worker(self._poll, thread=True, name="follow capture", group="follow")

    def _poll(self) -> None:
        session = self.session()
        post = self.app.post_message
        try:
            if session is None:
                return
            was_gone = session.gone
            batch = session.poll()
            if batch is not None:
                if batch.turns:
                    post(TurnsLoaded(list(batch.turns)))
                if batch.problems:
                    post(ProblemsFound(list(batch.problems)))
            if batch is not None or session.replaced or session.gone != was_gone:
                post(FollowUpdated(session.analysis, replaced=session.replaced,
                                   gone=session.gone))
        finally:
            self.busy = False
