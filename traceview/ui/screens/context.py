"""What the model was shown on one turn (`i`): the turn's input account as a stack.

Shows the document `traceview context CAPTURE --turn N --format json` prints
(report/context_out.py): each component with its tokens, where it came from and its
basis, the totals by origin, the sum beside the billed input, and every unknown named
with its reason. Nothing here is computed: the lines, origins and sums are the core's.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.text_scroll import TextScroll

if TYPE_CHECKING:
    from traceview.analysis.seams import TurnRow
    from traceview.analysis.session import Analysis

ORIGIN_LABELS = {"request": "request", "tool_definitions": "tool definitions",
                 "resent": "resent history", "stored": "stored (provider)",
                 "hosted": "hosted (provider)"}
BASIS_LABELS = {"known": "known", "estimated": "≈ estimated", "unknown": "? unknown"}


def _tokens(value: int | None) -> Text:
    return Text("?", style="bold") if value is None else Text(fmt.num(value))


def stack_table(doc: dict[str, Any], narrow: bool) -> Table:
    """One row per component, in the account's order: the stack the model was shown."""
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    heads = [("tokens", "right"), ("from", "left"), ("basis", "left"), ("component", "left")]
    if not narrow:
        heads += [("name", "left"), ("turn", "right")]
    for name, justify in heads:
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for line in doc["input_account"] or ():
        cells: list[Any] = [_tokens(line["tokens"]), ORIGIN_LABELS.get(line["origin"],
                            line["origin"]), BASIS_LABELS.get(line["basis"], line["basis"])]
        turn = line["source_turn"]
        if narrow:
            name = fmt.short_id(line["name"], 20) if line["name"] else ""
            what = safe(f"{line['component']} {name}".strip())
            if turn is not None:
                what.append(f" (turn {turn})", style="dim")
            cells.append(what)
        else:
            cells += [safe(line["component"]), safe(line["name"]),
                      fmt.DASH if turn is None else str(turn)]
        table.add_row(*cells)
    return table


def origins_table(doc: dict[str, Any]) -> Table:
    """Tokens by origin: a floor (≥) where an origin has an unknown line."""
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    for name, justify in (("from", "left"), ("lines", "right"), ("tokens", "right"),
                          ("unknown", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for o in doc["origins"]:
        tokens = fmt.num(o["tokens"]) if o["tokens"] is not None \
            else f"≥ {fmt.num(o['known_tokens'])}"
        table.add_row(ORIGIN_LABELS.get(o["origin"], o["origin"]), fmt.num(o["lines"]),
                      tokens, fmt.num(o["unknown"]) if o["unknown"] else "")
    return table


def totals_text(doc: dict[str, Any]) -> Text:
    """The stack's sum beside the billed input and the core's expected input."""
    out = Text()
    out.append("counted ", style="dim")
    out.append(fmt.num(doc["known_tokens"]), style="bold")
    if doc["unknown_lines"]:
        out.append(f" + {doc['unknown_lines']} unknown", style="bold")
    out.append("   expected ", style="dim")
    out.append(fmt.num(doc["expected_input"]), style="bold")
    out.append("   billed ", style="dim")
    out.append(fmt.num(doc["input_tokens"]), style="bold")
    out.append(f" (cached {fmt.num(doc['cached_tokens'])})")
    out.append("   unexplained ≈ ", style="dim")
    out.append(fmt.signed(doc["unexplained_tokens"]), style="bold")
    if doc["expected_input_unknown"]:
        out.append("\n")
        out.append_text(safe(doc["expected_input_unknown"], multiline=True))
    return out


def notes_text(doc: dict[str, Any]) -> Text:
    """Every line that is not counted exactly, named with the core's reason."""
    out = Text()
    for line in doc["input_account"] or ():
        if line["basis"] == "known" or not line["reason"]:
            continue
        mark = "?" if line["tokens"] is None else "≈"
        out.append(f"{mark} ", style="bold")
        out.append_text(safe(f"{line['component']} {line['name']}".strip(), style="bold"))
        out.append(": ")
        out.append_text(safe(line["reason"], multiline=True))
        out.append("\n")
    out.rstrip()
    return out


def provider_text(doc: dict[str, Any]) -> Text:
    """The items the provider listed before the turn's own input (`--items`, or the
    capture's snapshot): the carried line's count, item by item, as the core made it."""
    out = Text()
    for item in doc.get("provider_items") or ():
        out.append_text(_tokens(item["tokens"]))
        out.append("  ")
        out.append_text(safe(f"{item['component']} {fmt.short_id(item['name'], 24)}".strip()))
        out.append("\n")
    out.rstrip()
    return out


def context_renderable(doc: dict[str, Any], narrow: bool) -> Group:
    head = Text(f"turn {doc['turn']}", style="bold")
    head.append_text(safe(f" · {doc['model'] or '?'} · {doc['api']}"))
    if doc["conversation"]:
        head.append_text(safe(f" · {fmt.short_id(doc['conversation'], 24)}"))
    for marker in doc["markers"]:
        head.append(f"  {fmt.marker_symbol(marker)} {marker}", style="bold")
    if doc["input_account"] is None:
        return Group(head, Text("the request body could not be read again: no account",
                                style="italic"), Text(""), totals_text(doc))
    parts: list[Any] = [head, Text(""), stack_table(doc, narrow), Text(""),
                        totals_text(doc), Text(""), Text("by origin", style="underline"),
                        origins_table(doc)]
    notes = notes_text(doc)
    if notes.plain:
        parts += [Text(""), Text("not counted exactly", style="underline"), notes]
    listed = provider_text(doc)
    if listed.plain:
        parts += [Text(""), Text("carried, counted from the provider's items",
                                 style="underline"), listed]
    return Group(*parts)


class ContextScreen(InspectorScreen):
    """The selected turn's input account; `]`/`[` step through the turns view's turns."""

    VIEW = "context"

    BINDINGS = [
        Binding("escape,i", "back", "Back", id="context.back"),
        Binding("right_square_bracket", "step(1)", "Next turn", id="context.next_turn"),
        Binding("left_square_bracket", "step(-1)", "Prev turn", id="context.previous_turn"),
        Binding("j", "scroll(1)", "Down", show=False, id="context.down"),
        Binding("k", "scroll(-1)", "Up", show=False, id="context.up"),
    ]
    #: Below this many columns the name and source turn share the component's column.
    NARROW = 120

    def __init__(self, turn: TurnRow, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.turn = turn
        self._narrow: bool | None = None
        #: The turns whose carried line was looked up in the snapshot (filled or not).
        self._tried: set[int] = set()

    def compose(self) -> ComposeResult:
        yield Static(id="context-title")
        with TextScroll(id="context"):
            yield Static(id="context-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.refresh_data()
        self.query_one("#context", TextScroll).focus()

    def on_resize(self) -> None:
        if (self.app.size.width < self.NARROW) != self._narrow:
            self.refresh_data()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#context", TextScroll).scroll_relative(y=lines, animate=False)

    def document(self) -> dict[str, Any]:
        """The core's context document for the turn (the finished analysis's turn when
        the load is done, else the row the turns view holds), its carried line counted
        from the provider's items when a snapshot is at hand (`--items`, or the one `d`
        uses beside the capture)."""
        from traceview.analysis.session import Analysis
        from traceview.report.context_out import turn_context

        analysis = self.inspector.state.analysis
        find = getattr(analysis, "turn", None)
        turn = find(self.turn.index) if callable(find) else None
        if turn is not None and isinstance(analysis, Analysis):
            self._fill(analysis, turn.index)
        return turn_context(turn if turn is not None else self.turn)

    def _fill(self, analysis: Analysis, index: int) -> None:
        """Count the turn's carried line from the snapshot once (the one count `context
        --items` and `report --items` use, attached to the turn); a file that cannot be
        used is said once and the line stays as the capture counts it."""
        from traceview.provider.context_items import fill_from_copy, hosted_turns
        from traceview.provider.snapshot import SnapshotError
        from traceview.ui.screens.diff import snapshot_for

        path = snapshot_for(self.inspector)
        if path is None or index in self._tried:
            return
        self._tried.add(index)
        turns = hosted_turns(analysis, [index])
        if not turns:
            return
        try:
            fill_from_copy(analysis, turns, items=path)
        except SnapshotError as exc:
            self.notify(f"carried line not counted from the provider: {exc}",
                        severity="warning", markup=False)

    def _snapshot_used(self) -> Any:
        """The snapshot this view counts carried lines from, else None."""
        if not self._tried:
            return None
        from traceview.ui.screens.diff import snapshot_for

        return snapshot_for(self.inspector)

    def refresh_data(self) -> None:
        self._narrow = narrow = self.app.size.width < self.NARROW
        body = context_renderable(self.document(), narrow)  # first: it may count from a copy
        # The command that prints the same document: with the snapshot when one counted
        # the carried line (`--items`, or the one beside the capture that `d` reads).
        path = self._snapshot_used()
        n = self.turn.index
        if narrow:  # the command whole, in 80 columns: file names without their folders
            title = Text(f"turn {n} · ", style="bold")
            title.append_text(safe(self._command(os.path.basename, path), style="dim"))
        else:
            title = Text("what the model was shown", style="bold")
            title.append(f" · turn {n} · input account (", style="dim")
            title.append_text(safe(self._command(str, path) + ")", style="dim"))
        self.query_one("#context-title", Static).update(title)
        self.query_one("#context-body", Static).update(body)

    def _command(self, name: Callable[[str], str], snapshot: str | None) -> str:
        """`traceview context CAPTURE… --turn N [--items SNAPSHOT]`, as it can be run (each
        path quoted for a shell; `name` shortens it)."""
        files = " ".join(shlex.quote(name(p)) for p in self.inspector.sources)
        items = f" --items {shlex.quote(name(snapshot))}" if snapshot else ""
        return f"traceview context {files} --turn {self.turn.index}{items}"

    def action_step(self, direction: int) -> None:
        """]/[: the next or previous turn of the turns view, moving its selection too."""
        main = self.inspector.main
        rows = main.rows
        at = next((i for i, t in enumerate(rows) if t.index == self.turn.index), None)
        target = None if at is None else at + direction
        if target is None or not 0 <= target < len(rows):
            self.notify("no more turns " + ("below" if direction > 0 else "above"), markup=False)
            return
        main.table.move_to(target)
        self.turn = rows[target]
        self.refresh_data()
        self.query_one("#context", TextScroll).scroll_home(animate=False)

    def action_back(self) -> None:
        self.app.pop_screen()
