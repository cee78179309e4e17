"""Detail of one turn: the core's account of its numbers, hosted calls, and bodies.

Bodies are re-read from the capture in a thread worker (they may be megabytes) and
arrive as a BodiesLoaded message; they are redacted before they reach any widget.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import ContentSwitcher, Input, Static

from traceview.ui import format as fmt
from traceview.ui.loader import read_bodies
from traceview.ui.messages import BodiesLoaded
from traceview.ui.safe_text import safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.widgets.account import account_text, capture_name, findings_text, hosted_line
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.json_tree import BodyTree, Path, find, raw_text
from traceview.ui.widgets.lineage import lineage_text
from traceview.ui.widgets.text_scroll import TextScroll
from traceview.ui.widgets.timing import attempts_text, timing_text

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow


def numbers_line(turn: TurnRow) -> Text:
    """The turn's contract numbers in one line, formatted only."""
    parts = [
        ("sent", fmt.size(turn.request_bytes)),
        ("owned-state equivalent", fmt.size(turn.owned_state_bytes)),
        ("billed in", fmt.num(turn.input_tokens)),
        ("expected", fmt.num(turn.expected_input)),
        ("unexplained ≈", fmt.signed(turn.unexplained_tokens)),
        ("cached", fmt.num(turn.cached_tokens)),
        ("out", fmt.num(turn.output_tokens)),
        ("reasoning", fmt.num(turn.reasoning_tokens)),
        ("ms", fmt.latency_cell(turn)),
        ("cost", fmt.cost(turn.cost_usd)),
    ]
    out = Text()
    for label, value in parts:
        out.append(f"{label} ", style="dim")
        out.append(f"{value}   ", style="bold")
    markers = turn.markers or []
    if markers:
        out.append("\nmarkers ", style="dim")
        for marker in markers:
            out.append(f"{fmt.marker_symbol(marker)} ", style="bold")
            out.append_text(safe(f"{marker} — {fmt.marker_meaning(marker)}   "))
    owner = getattr(turn, "attributed_to", None) or {}  # issue 33: who the turn was for
    keys = [*((owner.get("metadata") or {}).items()),
            *((k, owner[k]) for k in ("user", "safety_identifier", "project") if owner.get(k))]
    if keys:
        out.append("\nfor ", style="dim")
        out.append_text(safe("   ".join(f"{k}={v}" for k, v in keys)))
    return out


def attribution_text(turn: TurnRow, by_index: Mapping[int, TurnRow]) -> Text:
    """The earlier hosted calls the core attributed this turn's unexplained tokens to."""
    attribution = getattr(turn, "attribution", None) or {}
    number = attribution.get("turn")
    source = by_index.get(cast(int, number)) if number else None
    if source is None:
        return Text()
    ids = set(attribution.get("hosted_calls") or [])
    calls = [c for c in source.hosted_calls or [] if not ids or c.get("id") in ids]
    out = Text(f"consistent with hosted calls of turn {source.index}:\n", style="bold")
    for call in calls:
        out.append_text(hosted_line(call))
        out.append("\n")
    return out


class DetailScreen(InspectorScreen):
    """Everything about one turn; `r` flips the bodies between tree and raw text."""

    VIEW = "detail"

    BINDINGS = [
        Binding("escape,q,backspace", "back", "Back", id="detail.back"),
        Binding("r", "toggle_raw", "Raw/tree", id="detail.raw"),
        Binding("slash", "search", "Search bodies", id="detail.search"),
        Binding("n", "next_match(1)", "Next match", id="detail.next_match"),
        Binding("N", "next_match(-1)", "Prev match", show=False, id="detail.previous_match"),
        Binding("right_square_bracket", "step(1)", "Next turn", id="detail.next_turn"),
        Binding("left_square_bracket", "step(-1)", "Prev turn", id="detail.previous_turn"),
        Binding("Y", "copy_json", "Copy JSON", show=False, id="detail.copy_json"),
        Binding("i", "app.context", "Context", id="detail.context"),
    ]

    def __init__(self, turn: TurnRow, *, raw: bool = False) -> None:
        super().__init__(id="detail")
        self.turn = turn
        self.raw = raw
        self.bodies: list[tuple[str, Any]] = []
        self.matches: list[Path] = []
        self.match_at = -1


    def compose(self) -> ComposeResult:
        title = Text("traceview", style="bold")
        title.append(" · ")
        title.append_text(safe(capture_name(self.inspector.sources)))
        title.append(f" · turn {self.turn.index}")
        conv = getattr(self.turn, "conversation", None)
        if conv:
            title.append_text(safe(f" · {fmt.short_id(conv, 24)}"))
        yield Static(title, id="detail-title")
        with TextScroll(id="account"):
            # The finding first: at 80x24 it is the one thing that must be on screen.
            findings = Static(findings_text(self.turn), id="findings")
            findings.display = bool(getattr(self.turn, "findings", None))
            yield findings
            yield Static(numbers_line(self.turn), id="numbers")
            yield Static(account_text(self.turn, with_findings=False), id="account-text")
            attribution = attribution_text(self.turn, self.inspector.state.by_index)
            yield Static(attribution, id="attribution")
            yield Static(timing_text(self.turn), id="timing")
            tries = attempts_text(self.turn)
            if tries.plain:
                yield Static(tries, id="attempts")
            lineage = Static(lineage_text(getattr(self.turn, "lineage", None)), id="lineage")
            lineage.display = bool(getattr(self.turn, "lineage", None))
            yield lineage
        yield Static(Text("bodies: loading…", style="dim"), id="bodies-title")
        with ContentSwitcher(initial="raw" if self.raw else "tree", id="bodies"):
            yield BodyTree(id="tree")
            with TextScroll(id="raw"):
                yield Static(id="raw-text")
        yield Input(placeholder="search bodies (enter: next match)", id="search")
        yield KeyFooter()

    def on_mount(self) -> None:
        session = self.inspector.session
        turn = self.turn
        index = turn.index
        self.query_one("#tree", BodyTree).focus()
        self.run_worker(
            lambda: self.post_message(read_bodies(session, turn)),
            thread=True,
            group="bodies",
            name=f"read bodies of turn {index}",
        )

    def on_bodies_loaded(self, message: BodiesLoaded) -> None:
        title = self.query_one("#bodies-title", Static)
        if message.error:
            title.update(safe(f"bodies: {message.error}", style="italic"))
            return
        self.bodies = [("request", message.request), ("response", message.response)]
        self.query_one("#lineage", Static).update(lineage_text(  # quotes the cited spans
            getattr(self.turn, "lineage", None), message.response))
        self.query_one("#tree", BodyTree).load(self.bodies)
        self._show_mode()

    def _show_mode(self) -> None:
        switcher = self.query_one("#bodies", ContentSwitcher)
        switcher.current = "raw" if self.raw else "tree"
        if self.raw and self.bodies:
            self.query_one("#raw-text", Static).update(raw_text(self.bodies))
        mode = "raw JSON (r: tree)" if self.raw else "tree (r: raw JSON, / search)"
        title = Text("bodies", style="bold")
        title.append(f" · {mode} · redacted, long strings clipped · sizes are of the recorded "
                     "lines; `sent` counts only the request body on the wire", style="dim")
        self.query_one("#bodies-title", Static).update(title)

    def action_back(self) -> None:
        search = self.query_one("#search", Input)
        if search.has_class("visible"):
            search.remove_class("visible")
            self.query_one("#tree", BodyTree).focus()
            return
        self.app.pop_screen()

    async def action_step(self, direction: int) -> None:
        """]/[: the next or previous turn of the turns view, without going back to it."""
        main = self.inspector.main
        rows = main.rows
        at = next((i for i, t in enumerate(rows) if t is self.turn), None)
        target = None if at is None else at + direction
        if target is None or not 0 <= target < len(rows):
            self.notify("no more turns " + ("below" if direction > 0 else "above"), markup=False)
            return
        main.table.move_to(target)
        app = self.app
        await app.pop_screen()
        await app.push_screen(DetailScreen(rows[target], raw=self.raw))

    def action_copy_json(self) -> None:
        """Y: the body node under the cursor (else both bodies) as JSON, redacted, to the
        clipboard through Textual's copy_to_clipboard (the terminal's OSC 52)."""
        import json

        from traceview.ui.table_export import clean

        node = self.query_one("#tree", BodyTree).cursor_node
        data = node.data if node is not None else None
        if data is not None and data.value is not None and not self.raw:
            value, what = data.value, ".".join(str(p) for p in data.path)
        else:
            value, what = dict(self.bodies), "both bodies"
        if not value and value != 0:
            self.notify("nothing to copy yet", markup=False, timeout=2)
            return
        text = json.dumps(clean(value), ensure_ascii=False, indent=1, default=str)
        self.app.copy_to_clipboard(text)
        self.notify(f"{what} copied as JSON ({len(text):,} characters) through the "
                    "terminal's clipboard (OSC 52)", markup=False, timeout=3)

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self._show_mode()
        self.query_one("#raw" if self.raw else "#tree").focus()

    def action_search(self) -> None:
        if self.raw:
            self.raw = False
            self._show_mode()
        box = self.query_one("#search", Input)
        box.add_class("visible")
        box.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.search(event.value)
        self.query_one("#tree", BodyTree).focus()

    def search(self, query: str) -> int:
        """Find ``query`` in keys and values; put the cursor on the first match."""
        self.matches = find(self.bodies, query) if query else []
        self.match_at = -1
        if not self.matches:
            self.notify(f"no match for “{query}”" if query else "empty search", markup=False)
            return 0
        self.action_next_match(1)
        return len(self.matches)

    def action_next_match(self, direction: int) -> None:
        if not self.matches:
            return
        self.match_at = (self.match_at + direction) % len(self.matches)
        self.query_one("#tree", BodyTree).reveal(self.matches[self.match_at])
        self.notify(f"match {self.match_at + 1} of {len(self.matches):,}", timeout=2, markup=False)
