"""Provider objects (`o`): the conversations, stored responses, files and vector stores the
capture created, used or deleted, with the retention each implies.

Renders the core's `objects` inventory (analysis/objects.py), the same as
`traceview report --format json` carries.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from traceview.analysis.hosted.checklist import ORDER as DELETE_KINDS
from traceview.analysis.hosted.checklist import delete_call
from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.screens.base import InspectorScreen
from traceview.ui.widgets.footer import KeyFooter
from traceview.ui.widgets.row_table import Column, RowHeader, RowTable

_STATE = {"exists": "exists", "deleted": "DELETED", "not_found": "gone (404)",
          "not_stored": "not stored"}


def _lines(o: dict[str, Any]) -> str:
    return fmt.num(o.get("created_line")) if o.get("created_line") else "—"


def _fee(o: dict[str, Any]) -> str:
    fee = o.get("storage_usd_per_day")
    return fmt.DASH if fee is None else f"{fmt.cost(fee)}/day"


OBJECT_COLUMNS = [
    Column("kind", 13, lambda o: o["kind"].replace("_", " "), align="left"),
    Column("id", 0, lambda o: o["id"], align="left", min_width=20),
    Column("state", 11, lambda o: _STATE.get(o["state"], o["state"]), align="left"),
    Column("created", 8, _lines),
    Column("uses", 6, lambda o: fmt.num(o.get("uses"))),
    Column("deleted", 8, lambda o: fmt.num(o.get("deleted_line") or o.get("missing_line"))),
    # At 80 columns these two wait past the right edge, whole (→ reaches them).
    Column("expires", 26, lambda o: o.get("expires_around") or o.get("expiry") or fmt.DASH,
           align="left", priority=1),
    Column("storage", 12, _fee, priority=2),
]


def object_detail(o: dict[str, Any] | None,
                  defaults: dict[str, Any] | None = None) -> Text:
    if o is None:
        return Text("no provider objects in this capture", style="dim")
    out = Text()
    out.append(o["kind"].replace("_", " ") + " ", style="bold")
    out.append_text(safe(o["id"], style="bold"))
    if o.get("name"):
        out.append_text(safe(f" ({o['name']})"))
    out.append(f" · {o['expiry']}\n")
    used = ", ".join(str(n) for n in o.get("used_lines") or []) or "—"
    out.append(f"created line {fmt.num(o.get('created_line'))}, used on lines {used}, "
               f"turns {', '.join(str(t) for t in o.get('turns') or []) or '—'}")
    if o.get("store") is not None:
        out.append(f", store={'true' if o['store'] else 'false'}")
    if o.get("deleted_line"):
        out.append(f", deleted line {o['deleted_line']}")
    if o.get("missing_line"):
        out.append(f", HTTP 404 on line {o['missing_line']}")
    ret = o.get("retention")
    if not isinstance(ret, dict):
        ret = (defaults or {}).get(o["kind"]) or {}
    out.append("\n")
    out.append_text(safe(f"retention: {ret.get('text')} — source: {ret.get('source')}, "
                         f"as of {ret.get('as_of')}", style="dim"))
    if o["state"] == "exists" and o["kind"] in DELETE_KINDS:  # the deletion checklist's
        call = delete_call(o["kind"], o["id"])
        out.append_text(safe(f"\ndelete with: {call['http']}  ({call['sdk']})"))
    return out


class ObjectsScreen(InspectorScreen):
    """What the capture created, used and deleted on the provider's side."""

    VIEW = "objects"

    BINDINGS = [Binding("escape,o", "back", "Back", id="objects.back")]

    def compose(self) -> ComposeResult:
        yield Static(id="objects-title")
        table = RowTable(OBJECT_COLUMNS, marked=lambda o: o["state"] in ("deleted", "not_found"),
                         id="object-table")
        yield RowHeader(table)
        yield table
        yield Static(id="object-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.refresh_data()
        self.query_one(RowTable).focus()

    def refresh_data(self) -> None:
        state = self.inspector.state
        objects = getattr(state.analysis, "objects", None)
        doc = objects.to_dict() if objects is not None else None
        rows = doc["objects"] if doc else []
        self._defaults = doc["retention_defaults"] if doc else {}
        table = self.query_one(RowTable)
        table.set_rows(rows, table.cursor)
        title = Text("provider objects", style="bold")
        if doc is None:
            title.append(" · listed once the capture is read", style="italic")
        else:
            counts = doc["counts"]
            title.append(" · " + ", ".join(f"{n} {k.replace('_', ' ')}{'s' if n != 1 else ''}"
                                           for k, n in counts.items()))
        self.query_one("#objects-title", Static).update(title)
        self._show(table.current())

    @on(RowTable.Highlighted)
    def _highlighted(self, event: RowTable.Highlighted) -> None:
        self._show(event.table.current())

    def _show(self, o: dict[str, Any] | None) -> None:
        self.query_one("#object-detail", Static).update(
            object_detail(o, getattr(self, "_defaults", None)))

    def action_back(self) -> None:
        self.app.pop_screen()
