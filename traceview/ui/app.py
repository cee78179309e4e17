"""The inspector app: its bindings, app-wide actions, start-up.

``make_app`` is the factory the CLI, the screenshot command, the benchmark and the
tests all use; the data source is injectable (``session_factory``) so tests can feed a
fixed capture without the filesystem. Only the turns view is imported up front: every
other screen is imported when it is first opened, so the first screen comes sooner.
Opening the views and screenshotting them is InspectorViews' (views.py); the load worker
and its messages, following and reloading are InspectorLoad's (app_load.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.app import SystemCommand
from textual.screen import Screen

from traceview.ui.app_load import InspectorLoad, SessionFactory, default_session, follow_session
from traceview.ui.bindings import APP_BINDINGS
from traceview.ui.palette import inspector_commands, view_of
from traceview.ui.screens.main import MainScreen
from traceview.ui.state import LoadState
from traceview.ui.terminal import has_terminal, refusal_of, spool_stdin


class InspectorApp(InspectorLoad):
    """Turns side by side with what they cost; everything else is one key away."""

    CSS_PATH = "inspector.tcss"
    TITLE = "traceview"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = APP_BINDINGS

    def __init__(
        self,
        paths: list[str],
        options: Any = None,
        *,
        screenshot_dir: str | os.PathLike[str] | None = None,
        session_factory: SessionFactory | None = None,
        follow: bool = False,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        # A crash's traceback goes to stderr, which shows every control character as text
        # (safety's SafeStream): written without colour, it stays readable there.
        self.error_console = Console(markup=False, highlight=False, stderr=True,
                                     color_system=None)
        #: The theme to start with (--theme, else the remembered one); saved when changed.
        self.start_theme = theme
        #: Remember the theme, hidden columns and sort in the config file (the CLI's app
        #: does; tests and screenshots do not).
        self.remember_theme = False
        from traceview.ui.follow import Follow

        self.paths = list(paths)
        self.options = options
        #: Where `E`, `s`, `w` and the palette's exports write (ui/output.py): the
        #: directory given, else the one traceview was started in.
        self.output_dir = Path(screenshot_dir) if screenshot_dir else Path(".")
        self.session_factory = session_factory or (follow_session if follow else default_session)
        self.session = self.session_factory(self.paths, options)
        # Forked now, before the app's threads exist: the load runs in a thread, where
        # they would start as new interpreters (each importing traceview first).
        self.start_workers()
        self.follow = Follow(self)
        self.follow.on = follow
        self.state = LoadState()
        self.main = MainScreen()
        # The diff view (`d`): a snapshot to compare with offline instead of fetching, and
        # fetch settings (None: the CLI's defaults).
        self.items_path: str | None = None
        self.diff_timeout: float | None = None
        self.diff_max_retries: int | None = None

    #: Display names for paths the user never typed (stdin spooled to a temp file).
    source_aliases: dict[str, str] = {}
    #: Binding id → key string, from the user's keymap file (see ui/keymap.py).
    keymap: dict[str, str] = {}

    @property
    def sources(self) -> list[str]:
        capture = getattr(self.session, "capture", None)
        names = list(getattr(capture, "sources", None) or self.paths)
        return [self.source_aliases.get(n, n) for n in names]

    def follow_label(self) -> str:
        """What the title says about follow mode ("" when not following)."""
        if self.follow.on:
            return "◌ waiting for a file there (F pauses)" if self.follow.gone \
                else "● following (F pauses)"
        if hasattr(self.session, "poll"):
            return "following paused (F)"
        return ""

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def notify(self, message: str, *, title: str = "", **kwargs: Any) -> None:
        """Every notification (from any screen) made visible and redacted, never markup.

        Screens' ``self.notify`` lands here, so no call site can forget: messages quote
        file names, load errors and provider replies.
        """
        from traceview.safety.sanitise import line

        kwargs["markup"] = False
        super().notify(line(message), title=line(title) if title else "", **kwargs)

    def on_mount(self) -> None:
        if self.keymap:
            self.set_keymap(self.keymap)
        if self.start_theme:
            if self.start_theme in self.available_themes:
                self.theme = self.start_theme
            else:
                known = ", ".join(sorted(self.available_themes))
                self.notify(f"unknown theme {self.start_theme!r}; themes: {known}",
                            severity="warning", markup=False)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.run_worker(self._load, thread=True, name="load capture", group="load")

    def _theme_changed(self, theme: Any) -> None:
        """Repaint every cached row now (not at the next resize), and remember the theme."""
        from traceview.ui.widgets.row_table import RowTable

        for screen in self.screen_stack:
            for table in screen.query(RowTable):
                table.restyle()
        if self.remember_theme:
            from traceview.config import save_theme

            if save_theme(theme.name) is None:
                self.notify("could not save the theme to the config file", markup=False)

    # -- actions -------------------------------------------------------------------------
    async def action_quit(self) -> None:
        """`q` quits from the turns view (or a screen opened on its own); anywhere else it
        goes back, like esc (most screens bind q to back themselves)."""
        screen = self.screen
        if isinstance(screen, MainScreen) or len(self.screen_stack) <= 1:
            self.exit()
            return
        back = getattr(screen, "action_back", None)
        if back is not None:
            result = back()
            if hasattr(result, "__await__"):
                await result
        else:
            self.pop_screen()

    def action_help_quit(self) -> None:
        """ctrl+c: say how to quit in plain words (Textual's own message is markup, and
        every notification here is shown literally)."""
        keys = sorted((key for key, active in self.active_bindings.items()
                       if active.binding.action in ("quit", "app.quit")), key=len)
        if keys:
            where = "quit" if isinstance(self.screen, MainScreen) else "go back"
            self.notify(f"press {keys[0]} to {where} (ctrl+c copies text in a prompt)",
                        title="quit?", markup=False)

    def quit_goes_back(self) -> bool:
        """Whether `q` goes back here (the footer then says Back): see action_quit."""
        return not isinstance(self.screen, MainScreen) and len(self.screen_stack) > 1

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `d` means nothing inside the diff itself: keep it out of that footer.
        return not (action == "diff" and view_of(self.screen) == "diff")

    def action_diff(self) -> None:
        """Open the diff of the selected turn's conversation against the provider copy."""
        if view_of(self.screen) == "diff":
            return
        if not self.state.done:
            self.notify("the capture is still loading: d works once it is read", markup=False)
            return
        turn = self.selected_turn()
        if turn is None:
            self.notify("no turn selected yet", markup=False)
            return
        from traceview.ui.screens.diff import DiffScreen, diff_request

        self.push_screen(DiffScreen(diff_request(self, turn)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every action as "group: action", offered only where it applies."""
        for command in super().get_system_commands(screen):
            # Textual's own entry writes an unnamed SVG to the working directory.
            if "screenshot" not in command.title.lower():
                yield command
        yield from inspector_commands(self, screen)


# -- start-up ------------------------------------------------------------------------------
def make_app(
    paths: list[str],
    options: Any = None,
    *,
    screenshot_dir: str | os.PathLike[str] | None = None,
    session_factory: SessionFactory | None = None,
    follow: bool = False,
    theme: str | None = None,
) -> InspectorApp:
    """The inspector on ``paths``; nothing is read until the app runs."""
    return InspectorApp(
        paths, options, screenshot_dir=screenshot_dir, session_factory=session_factory,
        follow=follow, theme=theme,
    )


def run_inspector(
    paths: list[str],
    options: Any = None,
    screenshot_dir: str | os.PathLike[str] | None = None,
    items: str | None = None,
    follow: bool = False,
    theme: str | None = None,
) -> int:
    """Run the inspector in this terminal; the exit code for the CLI.

    ``items`` (a provider-copy snapshot, or a capture with a recorded listing): `d` diffs
    against it offline instead of fetching the provider copy.
    """
    from traceview.ui.keymap import KeymapError, load_keymap

    refusal = refusal_of(paths, follow)
    if refusal is None:
        try:
            keymap = load_keymap()
        except KeymapError as exc:
            refusal = str(exc)
    if refusal is None and not has_terminal(paths):
        refusal = ("the inspector needs a terminal (stdout and stdin are not one); "
                   "try `traceview report CAPTURE` or `traceview screenshot`")
    if refusal is not None:
        print(f"traceview: {refusal}", file=sys.stderr)
        return 2
    try:
        paths, temp = spool_stdin(paths)
    except OSError as exc:
        print(f"traceview: no terminal to read keys from after stdin: {exc}", file=sys.stderr)
        return 2
    try:
        from traceview.config import load_settings

        app = make_app(paths, options, screenshot_dir=screenshot_dir, follow=follow,
                       theme=theme or load_settings().get("theme"))
        app.remember_theme = True
        app.items_path = items
        app.keymap = keymap
        if temp:
            app.source_aliases = {temp: "<stdin>"}
        result = app.run()
    finally:
        if temp:
            os.unlink(temp)
    return int(result or 0) if app.return_code is None else app.return_code
