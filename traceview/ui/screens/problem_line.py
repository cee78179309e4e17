"""The line a problem is about, shown literally (enter on the problems view).

The line is untrusted: it is read as bytes, decoded with replacement, clipped, and
rendered through ``safe`` (control characters and markup shown, never interpreted).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from traceview.ui.safe_text import clip, safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.text_scroll import TextScroll

LIMIT = 8000  # characters of the line shown; the rest is counted, not rendered


def read_line(path: str, number: int, limit: int = LIMIT * 4) -> tuple[bytes | None, str | None]:
    """Bytes of 1-based line ``number`` (at most ``limit``), or None and why not."""
    try:
        with open(path, "rb") as handle:
            for n, raw in enumerate(handle, start=1):
                if n == number:
                    return raw[:limit], None
    except OSError as exc:
        return None, f"could not read {path}: {exc.strerror or exc}"
    return None, f"{path} has no line {number} now"


def source_path(app: Any, source: str) -> str:
    """The file to read for a problem's source name (a spooled copy for .gz/stdin)."""
    capture = getattr(app.session, "capture", None)
    for src in getattr(capture, "_files", None) or []:
        if src.name == source or src.path == source:
            return str(src.path)
    return source


class ProblemLineScreen(InspectorScreen):
    """One problem with the offending line under it."""

    BINDINGS = [Binding("escape,q", "back", "Back", id="problem_line.back")]

    def __init__(self, problem: Any) -> None:
        super().__init__(id="problem-line")
        self.problem = problem

    def compose(self) -> ComposeResult:
        p = self.problem
        title = Text("problem", style="bold")
        title.append_text(safe(f" · {p.source}:{p.line} · {p.kind}"))
        yield Static(title, id="problem-line-title")
        raw, error = read_line(source_path(self.inspector, str(p.source)), int(p.line or 0))
        body = Text()
        body.append_text(safe(p.message, multiline=True))
        body.append("\n\n")
        if raw is None:
            body.append_text(safe(error or "line not available", style="italic"))
        else:
            body.append(f"line {p.line} as written ({len(raw):,} bytes shown, "
                        "control characters made visible):\n", style="dim")
            body.append_text(safe(clip(raw.decode("utf-8", "replace"), LIMIT)))
        with TextScroll(id="problem-line-body"):
            yield Static(body, id="problem-line-text")
        yield KeyFooter()

    def action_back(self) -> None:
        self.app.pop_screen()
