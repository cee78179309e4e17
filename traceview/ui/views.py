"""The inspector's views: which one is shown, how each is opened (from a key, the palette
or ``go_to``), and the screenshot of the one shown.

Apart from the app (app.py), which owns the load, its messages and start-up: opening a
view reads only the screens, the load state and the turns view.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.screen import Screen

from traceview.ui.palette import view_of
from traceview.ui.screens.main import MainScreen
from traceview.ui.state import LoadState

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow

VIEWS = ("turns", "detail", "conversations", "problems", "help", "diff", "ledger", "objects",
         "context", "latency")


class InspectorViews(App[int]):
    """The view actions of the inspector app (InspectorApp sets what they read: the turns
    view, the load state, where screenshots go and the capture's names)."""

    main: MainScreen
    state: LoadState
    output_dir: Path

    @property
    def sources(self) -> list[str]:
        """The capture's names as shown (InspectorApp's, which knows the aliases)."""
        raise NotImplementedError

    def selected_turn(self) -> TurnRow | None:
        """The turn the detail shows, else the turns view's selected one."""
        screen = self.screen
        if view_of(screen) == "detail":
            return screen.turn  # type: ignore[attr-defined, no-any-return]
        return self.main.current_turn()

    def action_detail(self, raw: bool = False) -> None:
        from traceview.ui.screens.detail import DetailScreen

        turn = self.main.current_turn()
        if turn is None:
            self.notify("no turn selected yet", markup=False)
            return
        self.push_screen(DetailScreen(turn, raw=raw))

    def action_conversations(self) -> None:
        from traceview.ui.screens.lists import ConversationsScreen

        if view_of(self.screen) != "conversations":
            self._show(ConversationsScreen(id="conversations"))

    def action_problems(self) -> None:
        from traceview.ui.screens.lists import ProblemsScreen

        if view_of(self.screen) != "problems":
            self._show(ProblemsScreen(id="problems"))

    def action_ledger(self) -> None:
        from traceview.ui.screens.ledger import LedgerScreen

        if view_of(self.screen) != "ledger":
            self._show(LedgerScreen(id="ledger-screen"))

    def action_latency(self) -> None:
        from traceview.ui.screens.latency import LatencyScreen

        if view_of(self.screen) != "latency":
            self._show(LatencyScreen(id="latency-screen"))

    def action_objects(self) -> None:
        from traceview.ui.screens.objects import ObjectsScreen

        if view_of(self.screen) != "objects":
            self._show(ObjectsScreen(id="objects-screen"))

    def action_context(self) -> None:
        """i: what the model was shown on the selected turn (the detail's, in the detail)."""
        from traceview.ui.screens.context import ContextScreen

        turn = self.selected_turn()
        if turn is None:
            self.notify("no turn selected yet", markup=False)
        elif view_of(self.screen) != "context":
            self.push_screen(ContextScreen(turn, id="context-screen"))

    def action_help(self) -> None:
        from traceview.ui.screens.help import HelpScreen

        if view_of(self.screen) != "help":
            self._show(HelpScreen(id="help-screen"))

    def _show(self, screen: Screen[Any]) -> None:
        """Show a view over the turns (or the detail). A view already open under others (c,
        i, c) is returned to: popping it and pushing `screen` at once would mount a second
        screen of its id while the first is still being removed."""
        if screen.id is not None and any(s.id == screen.id for s in self.screen_stack[1:]):
            while self.screen.id != screen.id:
                self.pop_screen()
            return
        while len(self.screen_stack) > 1 and view_of(self.screen) != "detail":
            self.pop_screen()
        self.push_screen(screen)

    def view_name(self) -> str:
        """The shown view, one of VIEWS (a screen of its own, like a problem's line, counts
        as the turns view)."""
        view = view_of(self.screen)
        return view if view in VIEWS else "turns"

    def screenshot_what(self) -> str:
        """``<view>-turn<N>`` (or the diff's conversation): what the picture shows."""
        from traceview.ui.output import file_part

        turn = self.selected_turn()
        view = self.view_name()
        suffix = f"-turn{turn.index}" if turn is not None and view in ("turns", "detail") else ""
        target = getattr(self.screen, "target", None) if view == "diff" else None
        if target:
            suffix = "-" + file_part(target)
        return f"{view}{suffix}"

    def action_screenshot(self) -> None:  # type: ignore[override]
        """`s`: a new timestamped file every time, never over an existing one."""
        from traceview.ui.output import output_path

        target = output_path(self.output_dir, self.sources, self.screenshot_what(), "svg")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            written = self.save_screenshot(target.name, str(target.parent))
        except OSError as exc:
            self.notify(f"screenshot failed: {exc.strerror or exc}", severity="error")
            return
        self.notify(f"screenshot written to {Path(written).resolve()}", title="screenshot",
                    markup=False)

    async def go_to(self, view: str, turn_index: int | None = None) -> bool:
        """Open ``view`` (one of VIEWS) at turn ``turn_index``; False if that turn is unknown."""
        ok = True
        if turn_index is not None:
            turn = self.state.by_index.get(turn_index)
            if turn is None:
                ok = False
            else:
                from traceview.ui.state import conversation_key

                self.main.show_conversation(conversation_key(turn), turn_index)
        if view in VIEWS and view != "turns":
            getattr(self, f"action_{view}")()
        return ok
