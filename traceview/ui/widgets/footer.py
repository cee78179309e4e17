"""The footer: the same keys as Textual's, with `? Help` first so it survives 80 columns.

Textual's Footer lists bindings in the order the focus chain collects them, so at 80
columns the app's own keys (help, quit) fall off the right edge. This one puts help
first, then back/quit, then the rest; the keys shown are the live (remapped) ones.
"""

from __future__ import annotations

from collections import defaultdict

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: Actions shown first, in this order.
FIRST = ("help", "back", "quit")


def _rank(action: str) -> int:
    name = action.rsplit(".", 1)[-1].split("(", 1)[0]
    return FIRST.index(name) if name in FIRST else len(FIRST)


class KeyFooter(Footer):
    """Footer with `? Help` first and compact labels on narrow screens."""

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self.compact = self.app.size.width < 120
        active = self.screen.active_bindings
        by_action: defaultdict[str, list] = defaultdict(list)
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        ordered = sorted(by_action.values(), key=lambda group: _rank(group[0][0].action))
        self.styles.grid_size_columns = len(ordered)
        for group in ordered:
            binding, enabled, tooltip = group[0]
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            try:
                _node, binding, enabled, tooltip = active[self.app.COMMAND_PALETTE_BINDING]
            except KeyError:
                return
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                classes="-command-palette",
                disabled=not enabled,
                tooltip=binding.tooltip or binding.description,
            )
