"""Follow mode in the app: a cheap timer notices growth, a thread worker reads it.

The timer only calls ``os.stat`` (a few microseconds) every POLL seconds, so an idle
capture costs no CPU worth measuring; when the file grew, a thread worker runs the
core's ``FollowSession.poll()`` (which reads only the appended bytes) and posts the same
TurnsLoaded/ProblemsFound messages the first load posts, plus FollowUpdated with the
refreshed conversation totals. The worker never touches a widget.
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


class FollowUpdated(Message):
    """The followed capture grew (``analysis`` refreshed) or was replaced."""

    def __init__(self, analysis: AnalysisView | None, replaced: bool = False) -> None:
        super().__init__()
        self.analysis = analysis
        self.replaced = replaced


class Follow:
    """Owned by the app: on/off, the timer, and the last size seen."""

    def __init__(self, app: Inspector) -> None:
        self.app = app
        self.on = False
        self.timer: Timer | None = None
        self.seen: tuple[int, int] | None = None
        self.busy = False
        self.told_replaced = False

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
        except OSError:
            return
        key = (st.st_ino, st.st_size)
        if key == self.seen and not getattr(session, "hosted_state_pending", False):
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
            batch = session.poll()
            if batch is not None:
                if batch.turns:
                    post(TurnsLoaded(list(batch.turns)))
                if batch.problems:
                    post(ProblemsFound(list(batch.problems)))
            if batch is not None or session.replaced:
                post(FollowUpdated(session.analysis, replaced=session.replaced))
        finally:
            self.busy = False
