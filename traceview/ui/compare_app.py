"""A small app around the compare screen (``traceview compare --open``, ``demo --ab``,
``screenshot --view compare``): the document is computed in a worker, then shown."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import App
from textual.message import Message
from textual.widgets import Static

from traceview.ui.safe_text import safe
from traceview.ui.screens.compare import CompareScreen


class CompareReady(Message):
    """The compare worker computed the document."""

    def __init__(self, doc: dict[str, Any]) -> None:
        super().__init__()
        self.doc = doc


class CompareFailed(Message):
    """The compare worker could not compute it: ``error`` says why."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class CompareApp(App[int]):
    CSS_PATH = "inspector.tcss"  # the inspector's one stylesheet
    TITLE = "traceview compare"

    def __init__(self, paths: list[str] | None = None, *, doc: dict[str, Any] | None = None,
                 seed: int = 0) -> None:
        super().__init__()
        self.paths = list(paths or [])
        self.doc = doc
        self.seed = seed
        self.error: str | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("comparing…", id="cmp-loading")

    def on_mount(self) -> None:
        if self.doc is not None:
            self.push_screen(CompareScreen(self.doc))
        else:
            self._build()

    @work(thread=True, exclusive=True)
    def _build(self) -> None:
        """Computes the comparison and posts it; the handlers below show it."""
        from traceview.report.compare_output import build

        try:
            doc = build(self.paths, seed=self.seed)
        except Exception as exc:  # shown, never a traceback over the screen
            self.post_message(CompareFailed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(CompareReady(doc))

    def on_compare_ready(self, message: CompareReady) -> None:
        self.doc = message.doc
        self.push_screen(CompareScreen(message.doc))

    def on_compare_failed(self, message: CompareFailed) -> None:
        self.error = message.error
        self.query_one("#cmp-loading", Static).update(safe(f"cannot compare: {message.error}"))


def run_compare_app(paths: list[str], doc: dict[str, Any] | None = None) -> int:
    return CompareApp(paths, doc=doc).run() or 0


async def render_compare_svg(paths: list[str], size: tuple[int, int] = (160, 48),
                             doc: dict[str, Any] | None = None
                             ) -> tuple[str, str | None, int]:
    """The compare screen's SVG once the comparison is computed (no warning), and how many
    problems reading the arms' captures had (`compare` exits 1 on them, as `screenshot`
    then does); raises ScreenshotRefused when no comparison could be made: a picture of
    the error is not the picture that was asked for."""
    import os

    from traceview.ui.screenshot import ScreenshotRefused

    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    app = CompareApp(paths, doc=doc)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        svg = app.export_screenshot(title="traceview · compare")
    if app.error is not None:
        raise ScreenshotRefused(f"cannot compare: {app.error}")
    arms = (app.doc or {}).get("arms") or {}
    problems = sum(a.get("problems") or 0 for a in (
        arms.values() if isinstance(arms, dict) else arms) if isinstance(a, dict))
    return svg, None, problems
