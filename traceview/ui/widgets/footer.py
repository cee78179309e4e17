"""The footer: the same keys as Textual's, with `? Help` first so it survives 80 columns.

Textual's Footer lists bindings in the order the focus chain collects them, so at 80
columns the app's own keys (help, quit) fall off the right edge, and the last one shows
half-cut against the palette key (`^p paletteF`). This one puts help first, then
back/quit, then the rest, and leaves out whole keys that do not fit; the keys shown are
the live (remapped) ones. `q` says Back where it goes back, and while a prompt has the
focus the footer shows that prompt's keys, not the screen's.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.binding import Binding

#: Actions shown first, in this order.
FIRST = ("help", "back", "quit")

#: What enter does in each prompt (by the Input's id); esc always cancels.
PROMPTS = {"search": "Search", "filter": "Filter", "goto": "Go to", "path-input": "Write",
           "body-search": "Search"}


def _rank(action: str) -> int:
    name = action.rsplit(".", 1)[-1].split("(", 1)[0]
    return FIRST.index(name) if name in FIRST else len(FIRST)


def key_width(key: str, description: str, compact: bool) -> int:
    """Cells a FooterKey takes (its padding and margin as Textual's CSS sets them)."""
    return len(key) + len(description) + (2 if compact else 3)


class KeyFooter(Footer):
    """Footer with `? Help` first, whole keys only, and compact labels on narrow screens."""

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self.compact = self.app.size.width < 120
        focused = self.screen.focused
        if isinstance(focused, Input) and focused.id in PROMPTS:
            yield FooterKey("enter", "⏎", PROMPTS[focused.id], "submit").data_bind(
                compact=Footer.compact)
            yield FooterKey("escape", "esc", "Cancel", "cancel").data_bind(compact=Footer.compact)
            return
        active = self.screen.active_bindings
        by_action: defaultdict[str, list[tuple[Binding, bool, str]]] = defaultdict(list)
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        ordered = sorted(by_action.values(), key=lambda group: _rank(group[0][0].action))
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        room = self.app.size.width - 1
        if palette is not None:
            room -= key_width(self.app.get_key_display(palette[1]), palette[1].description,
                              self.compact) + 1
        goes_back = getattr(self.app, "quit_goes_back", None)
        going_back = bool(goes_back()) if callable(goes_back) else False
        has_back = any(_rank(group[0][0].action) == 1 for group in ordered)
        for group in ordered:
            binding, enabled, tooltip = group[0]
            description = binding.description
            if binding.action in ("quit", "app.quit") and going_back:
                if has_back:
                    continue  # `esc Back` says it already (q does the same, help lists it)
                description = "Back"  # the app's q goes back on every screen but the first
            display = self.app.get_key_display(binding)
            room -= key_width(display, description, self.compact)
            if room < 0:
                break  # whole keys only: the rest are in help (?) and the palette
            yield FooterKey(
                binding.key, display, description, binding.action,
                disabled=not enabled, tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
        if palette is not None:
            _node, binding, enabled, tooltip = palette
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                classes="-command-palette",
                disabled=not enabled,
                tooltip=binding.tooltip or binding.description,
            )
