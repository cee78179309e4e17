"""The base of the inspector's own screens."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from traceview.ui.inspector import Inspector


class InspectorScreen(Screen[None]):
    """A screen of the inspector: reaches the loaded analysis and the app's shared state
    through `inspector`, typed (ui/inspector.py), instead of the generic `app`.

    A screen that is one of the app's views sets ``VIEW`` (one of ``app.VIEWS``): the app
    tells screens apart by it (screenshot names, `go_to`, which lists follow the load, the
    command palette) without importing the screen's module before it is first opened."""

    @property
    def inspector(self) -> Inspector:
        return cast("Inspector", self.app)
