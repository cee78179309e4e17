"""The inspector app's side of the load: the worker that runs the core's session in a
thread of its own, the handlers that file what it posts into the app's state (turns,
problems, progress, the end, a followed file's growth), and following or reading the
capture again (`F`, `R`). The app (app.py) owns its construction, app-wide actions and
start-up.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from traceview.ui.loader import run_in_own_thread
from traceview.ui.messages import LoadFinished, LoadProgress, ProblemsFound, TurnsLoaded
from traceview.ui.palette import view_of
from traceview.ui.state import LoadState
from traceview.ui.tuning import load_nice, lower_this_threads_priority, tuned_for_loading
from traceview.ui.views import InspectorViews

if TYPE_CHECKING:
    from traceview.analysis.seams import FollowedSessionView, SessionView
    from traceview.ui.follow import Follow, FollowUpdated

SessionFactory = Callable[[list[str], Any], "SessionView"]


def default_session(paths: list[str], options: Any) -> SessionView:
    from traceview.analysis import Options, Session

    return Session(paths, options if options is not None else Options())


def follow_session(paths: list[str], options: Any) -> FollowedSessionView:
    """A session that keeps reading what is appended (``--follow``, ``F``)."""
    from traceview.analysis import Options
    from traceview.analysis.follow import FollowSession

    return FollowSession(paths, options if options is not None else Options())


class InspectorLoad(InspectorViews):
    """The load's handlers of the inspector app (InspectorApp sets what they use: the
    paths, options, session and its factory, the follow state and the turns view)."""

    paths: list[str]
    options: Any
    session: Any
    session_factory: SessionFactory
    follow: Follow

    def start_workers(self) -> None:
        """Start the session's worker processes, each yielding the CPU as the load thread
        will once the first rows are out: below the event loop, level with the thread
        that pairs what they send. At start-up they are forked (one thread yet); after
        `R` or `F` they are spawned when the load starts, at the same priority."""
        fork_workers = getattr(self.session, "fork_workers", None)
        if fork_workers is not None:
            fork_workers(partial(lower_this_threads_priority, load_nice()))

    def _load(self) -> None:
        """The load worker: the core's session runs in a thread of its own and posts
        messages; the handlers below own every piece of UI state."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        lowered = False

        def post(message: Any) -> None:
            nonlocal lowered
            self.post_message(message)
            if not lowered and isinstance(message, TurnsLoaded):
                # The first rows are out at full speed; the rest of the load now yields
                # the CPU to the event loop, so keys are answered while it runs.
                lowered = True
                lower_this_threads_priority(load_nice())

        with tuned_for_loading():
            run_in_own_thread(self.session, post, lambda: worker.is_cancelled)

    # -- messages from the load worker ---------------------------------------------------
    def on_turns_loaded(self, message: TurnsLoaded) -> None:
        touched = self.state.add_turns(message.turns)
        self.main.turns_added(message.turns, touched)
        self._refresh_lists()

    def on_problems_found(self, message: ProblemsFound) -> None:
        self.state.problems.extend(message.problems)
        self.main.refresh_title()
        self._refresh_lists(problems=True)

    def on_load_progress(self, message: LoadProgress) -> None:
        self.state.bytes_read = message.bytes_read
        self.state.total_bytes = message.total_bytes
        self.state.lines = message.lines
        self.main.refresh_title()

    def on_load_finished(self, message: LoadFinished) -> None:
        self.state.finish(message.analysis, message.error)
        # Problems the end-of-load passes added; by identity and by content, in one pass
        # (a list membership test per problem is quadratic on a damaged capture).
        known = {id(p) for p in self.state.problems}
        seen = {_problem_key(p) for p in self.state.problems}
        for problem in getattr(message.analysis, "problems", None) or []:
            if id(problem) not in known and _problem_key(problem) not in seen:
                seen.add(_problem_key(problem))
                self.state.problems.append(problem)
        if message.error:
            self.notify(f"load stopped: {message.error}", severity="error", markup=False)
        if self.main.key is None and self.state.by_key:
            self.main.show_conversation(next(iter(self.state.by_key)))
        elif not self.state.turns:  # read to the end with nothing: say why, not "yet"
            self.main.show_current()
        if self.follow.on:
            self.follow.start()
        self.main.refresh_title()
        self.main.show_legend()
        self._refresh_lists(problems=True)

    def on_follow_updated(self, message: FollowUpdated) -> None:
        analysis = message.analysis
        self.state.analysis = analysis
        for conv in getattr(analysis, "conversations", None) or []:
            self.state.conversations[str(conv.key)] = conv
        if message.gone != self.follow.gone:
            self._say_gone(message.gone, message.replaced)
        if message.replaced and len(self.paths) == 1 and os.path.islink(self.paths[0]):
            # `traceview proxy --rotate` keeps the path as a link to the current file: a
            # rotation is a new file to follow, read from its start.
            target = os.path.basename(os.readlink(self.paths[0]))
            self.notify(f"the capture rotated to {target}: following it", markup=False)
            self.action_reload()
            return
        if message.replaced and not self.follow.told_replaced:
            self.follow.told_replaced = True  # the title says so until R
            self.notify("the capture file was replaced or truncated: R reads it again",
                        severity="warning", markup=False)
        self.main.refresh_title()
        self.main.show_legend()
        self._refresh_lists(problems=True)

    def _say_gone(self, gone: str | None, replaced: bool) -> None:
        """The followed file went away or is back: said once each way, and in the title
        while it is away (the rows shown stay); a file back that is another one is said
        replaced, as any new file at the path is."""
        self.follow.gone = gone
        if gone is not None:
            self.notify(f"{self.paths[0]} {gone}: the rows shown stay, and following "
                        "resumes when a file is there again", severity="warning",
                        markup=False)
        elif not replaced:
            self.notify(f"{self.paths[0]} is back: following it", markup=False, timeout=3)

    def _refresh_lists(self, problems: bool = False) -> None:
        """The conversations list follows every batch; the other lists follow problems
        and the end of the load."""
        view = view_of(self.screen)
        if view == "conversations" or (problems and view in ("problems", "ledger", "objects",
                                                                 "latency")):
            self.screen.refresh_data()  # type: ignore[attr-defined]

    def action_follow(self) -> None:
        """F: follow the capture as it grows, or pause following."""
        if self.follow.on:
            self.follow.stop()
            self.notify("following paused", markup=False, timeout=2)
        elif hasattr(self.session, "poll"):
            self.follow.start()
            self.notify("following the capture", markup=False, timeout=2)
        else:
            from traceview.capture.sources import unfollowable

            why = unfollowable(self.paths)
            if why is not None:  # reloaded, the view read so far was lost to an error
                self.notify(why, severity="warning", markup=False)
                return
            # Opened without --follow: read it again as a followed capture.
            self.follow.on = True
            self.session_factory = follow_session
            self.action_reload()
            return
        self.main.refresh_title()

    def action_reload(self) -> None:
        """R: read the capture again from the start (after it was replaced). Not while the
        followed file is gone: the read would fail and take the rows shown with it."""
        if self.follow.gone is not None and not os.path.isfile(self.paths[0]):
            self.notify(f"{self.paths[0]} {self.follow.gone}: nothing to read again; the "
                        "rows shown stay", severity="warning", markup=False)
            return
        self.workers.cancel_group(self, "load")
        self.workers.cancel_group(self, "follow")
        while len(self.screen_stack) > 1 and self.screen is not self.main:
            self.pop_screen()
        try:
            self.session = self.session_factory(self.paths, self.options)
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.notify(f"reload failed: {exc}", severity="error", markup=False)
            return
        self.start_workers()
        self.state = LoadState()
        self.follow.seen = None
        self.follow.told_replaced = False
        self.follow.gone = None
        self.follow.busy = False
        self.main.reset()
        self.run_worker(self._load, thread=True, name="load capture", group="load")


def _problem_key(problem: Any) -> tuple[Any, ...]:
    return tuple(getattr(problem, name, None) for name in ("source", "line", "kind", "message"))
