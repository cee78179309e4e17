"""The prompt before a file is written: the default path filled in, enter writes, esc
cancels. Its footer says exactly that (not the keys of the screen below)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from traceview.ui.safe_text import safe
from traceview.ui.widgets.footer import KeyFooter


class PathPrompt(ModalScreen[Path | None]):
    """Asks where to write; dismisses with the path (None: cancelled)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
        Binding("enter", "write", "Write", id="prompt.write", priority=True),
    ]

    def __init__(self, what: str, default: Path) -> None:
        super().__init__()
        self.what = what
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(id="path-prompt"):
            yield Static(safe(f"write {self.what} to (a file, or a directory ending in /):"))
            yield Input(str(self.default), id="path-input")
        yield KeyFooter()

    def on_mount(self) -> None:
        box = self.query_one("#path-input", Input)
        box.focus()
        box.cursor_position = len(box.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_write()

    def action_write(self) -> None:
        from traceview.ui.output import typed_path

        self.dismiss(typed_path(self.query_one("#path-input", Input).value, self.default))

    def action_cancel(self) -> None:
        self.dismiss(None)
