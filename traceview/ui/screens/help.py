"""Help: every key binding (collected from the classes that declare them) and legends."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from traceview.report.diff_output import LEGEND, SYMBOLS
from traceview.ui import format as fmt
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.text_scroll import TextScroll


def binding_groups() -> list[tuple[str, list[Binding]]]:
    """(where, bindings) for every screen/widget of the inspector, in reading order."""
    from traceview.ui.bindings import APP_BINDINGS
    from traceview.ui.screens.context import ContextScreen
    from traceview.ui.screens.detail import DetailScreen
    from traceview.ui.screens.diff import DiffBodiesScreen, DiffScreen
    from traceview.ui.screens.latency import LatencyScreen
    from traceview.ui.screens.ledger import LedgerScreen
    from traceview.ui.screens.lists import ConversationsScreen, ProblemsScreen
    from traceview.ui.screens.main import MainScreen
    from traceview.ui.screens.objects import ObjectsScreen
    from traceview.ui.widgets.row_table import RowTable
    from traceview.ui.widgets.text_scroll import TextScroll

    groups = [
        ("everywhere", APP_BINDINGS),
        ("lists (turns, conversations, problems)", RowTable.BINDINGS),
        ("pages of text (help, ledger, latency, an account, bodies)", TextScroll.BINDINGS),
        ("turns view", MainScreen.BINDINGS),
        ("detail", DetailScreen.BINDINGS),
        ("conversations", ConversationsScreen.BINDINGS),
        ("problems", ProblemsScreen.BINDINGS),
        ("diff vs provider (d)", DiffScreen.BINDINGS),
        ("diff item bodies (enter in the diff)", DiffBodiesScreen.BINDINGS),
        ("carried-context ledger (l)", LedgerScreen.BINDINGS),
        ("provider objects (o)", ObjectsScreen.BINDINGS),
        ("what the model was shown (i)", ContextScreen.BINDINGS),
        ("latency (t)", LatencyScreen.BINDINGS),
        ("help", HelpScreen.BINDINGS),
    ]
    return [(name, [b for b in bindings if isinstance(b, Binding)]) for name, bindings in groups]


def _key_label(keys: str) -> str:
    """Keys as people type them: `]`, `:`, `/`, `esc`, `^p` — never `right_square_bracket`."""
    from textual.keys import key_to_character

    names = {"slash": "/", "escape": "esc", "pagedown": "pgdn", "pageup": "pgup", "backspace": "⌫",
             "enter": "enter", "tab": "tab", "space": "space"}

    def one(key: str) -> str:
        if key in names:
            return names[key]
        if key.startswith("ctrl+"):
            return "^" + one(key[5:])
        char = key_to_character(key) if len(key) > 1 else key
        return char if char and char.isprintable() else key

    return " ".join(one(k.strip()) for k in keys.split(","))


def help_text(keymap: dict[str, str] | None = None, width: int | None = None) -> Text:
    """Every binding with the key that is live now (``keymap``: the user's remapping).

    ``width``: the cells a line has; the legends then wrap between entries and each
    meaning under itself, never a term from its meaning (no width: one line each)."""
    from traceview.ui.legend import hanging, joined, pack
    from traceview.ui.widgets.timing import legend_entries

    keymap = keymap or {}
    out = Text()
    out.append("traceview keys", style="bold")
    out.append("  (ids in brackets can be remapped; ctrl+p opens the command palette)\n\n",
               style="dim")
    for where, bindings in binding_groups():
        out.append(f"{where}\n", style="bold underline")
        for b in bindings:
            key = keymap.get(b.id, b.key) if b.id else b.key
            out.append(f"  {_key_label(key):<14}", style="bold")
            out.append(f"{b.description:<22}")
            out.append(f"[{b.id}]\n", style="dim")
        out.append("\n")
    out.append("  tab / shift+tab  move between panes\n")
    out.append("  mouse           click a row to select it, double-click it to open it\n\n")
    out.append("search and go to\n", style="bold underline")
    out.append(
        "  /  finds response, conversation, call, item and request ids, models, tool names,\n"
        "     markers and user text; the title counts the matches, n / N move between them\n"
        "  &  shows only the matching turns (the same rule); esc clears either\n"
        "  :  goes to a turn number, a line of the capture (L123 or line 123), or an id\n"
        "     (resp_…, conv_…, call_…)\n\n")

    def entry(symbol: str, name: str, meaning: str) -> None:
        lead = Text("  ")
        lead.append(f"{symbol:<4}", style="bold")
        lead.append(f"{name:<22}")
        out.append_text(hanging(lead, meaning, width))
        out.append("\n")

    out.append("markers\n", style="bold underline")
    for marker in fmt.known_markers():
        entry(fmt.marker_symbol(marker), marker, fmt.marker_meaning(marker))
    out.append("\nhosted-call evidence\n", style="bold underline")
    for state, symbol in fmt.EVIDENCE_SYMBOLS.items():
        entry(symbol, state, fmt.EVIDENCE_MEANING[state])
    out.append("\ndiff rows (capture vs provider copy)\n", style="bold underline")
    for kind, symbol in SYMBOLS.items():
        entry(symbol, kind, LEGEND[kind])
    out.append("\ncolumns\n", style="bold underline")
    for column, meaning in COLUMNS:
        lead = Text("  ")
        lead.append(f"{column:<26}", style="bold")
        out.append_text(hanging(lead, meaning, width))
        out.append("\n")
    out.append("\nlatency bars (t)\n", style="bold underline")
    out.append_text(joined(pack(legend_entries(), width, gap=2, indent=2)))
    out.append("\n")
    return out


#: The turns table's columns whose meaning is not in their title.
COLUMNS = (
    ("sent", "request bytes on the wire"),
    ("billed in", "usage.input_tokens"),
    ("unexpl.≈", "billed minus expected input, an estimate (+ deposit, − compaction)"),
    ("—", "not known"),
)


class HelpScreen(Screen[None]):
    VIEW = "help"

    BINDINGS = [Binding("escape,q", "back", "Back", id="help.back")]

    #: Cells the help's lines lose to its padding (2 each side) and scrollbar (2).
    MARGIN = 6

    def compose(self) -> ComposeResult:
        with TextScroll(id="help"):
            yield Static(self._text(), id="help-text")
        yield KeyFooter()

    def _text(self) -> Text:
        return help_text(getattr(self.app, "keymap", None), self.app.size.width - self.MARGIN)

    def on_resize(self) -> None:
        self.query_one("#help-text", Static).update(self._text())

    def action_back(self) -> None:
        self.app.pop_screen()
