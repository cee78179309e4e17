"""What one provider object reads as on the objects screen (`o`): the columns of its
inventory and of its deletion checklist, and the text of the detail pane under each —
the rows the screen shows, apart from how the screen moves between them."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from traceview.analysis.hosted.checklist import ORDER as DELETE_KINDS
from traceview.analysis.hosted.checklist import delete_call
from traceview.ui import format as fmt
from traceview.ui.safe_text import safe
from traceview.ui.widgets.row_table import Column

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


CHECKLIST_COLUMNS = [
    Column("kind", 13, lambda o: o["kind"].replace("_", " "), align="left"),
    Column("id", 0, lambda o: o["id"], align="left", min_width=20),
    Column("state", 11, lambda o: _STATE.get(o["state"], o["state"]), align="left"),
    Column("provider", 11, lambda o: o.get("live") or "not checked", align="left"),
    Column("delete with", 34, lambda o: o["delete"]["http"] if o["delete"] else fmt.DASH,
           align="left"),
    Column("expires", 26, lambda o: o.get("expires_around") or o.get("retention") or fmt.DASH,
           align="left", priority=1),
]


def checklist_title(doc: dict[str, Any]) -> Text:
    """The checklist's head, as `traceview objects` prints it."""
    who = f"case {doc['case']}" if doc["case"] else "the capture"
    return Text.assemble(("deletion checklist", "bold"), " · ", safe(who),
                         f" · {len(doc['turns'])} turn(s) · {len(doc['objects'])} object(s)"
                         f" · {doc['remaining']} not deleted")


def checklist_detail(o: dict[str, Any] | None) -> Text:
    if o is None:
        return Text("no provider object holds this case's data in the capture", style="dim")
    out = Text()
    out.append(o["kind"].replace("_", " ") + " ", style="bold")
    out.append_text(safe(o["id"], style="bold"))
    out.append(f" · turns {', '.join(str(t) for t in o.get('turns') or []) or '—'}\n")
    if o["delete"]:  # the call first: the retention text runs long
        out.append("delete with: ")
        out.append_text(safe(f"{o['delete']['http']}  ({o['delete']['sdk']})"))
    else:
        out.append(f"{_STATE.get(o['state'], o['state'])} in the capture: nothing to delete")
    out.append("\n")
    out.append_text(safe(f"retention: {o.get('retention')}", style="dim"))
    answer = o.get("answer")
    if answer is not None:
        said = f"HTTP {answer['http_status']}" if answer["http_status"] else "no answer"
        out.append("\n")
        out.append_text(safe(f"provider now: {o['live']} ({said})"
                             + (f": {answer['error']}" if answer["error"] else "")))
    return out


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
        out.append("\n")
        out.append_text(safe(f"delete with: {call['http']}  ({call['sdk']})"))
    return out
