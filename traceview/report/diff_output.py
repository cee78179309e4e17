"""Render a DiffResult as text (a Rich table), markdown, or the ``traceview.diff/1`` JSON.

Item fields, the snapshot's host and its warnings come from captures, snapshot files and
the provider: untrusted. They reach the terminal only as ``rich.text.Text`` (never markup),
each through the shared sanitiser and redactor (``plain``), and markdown cells are
escaped. Kind symbols (``=`` ``~`` ``+P`` ``-C``) keep the table legible without colour.
"""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from traceview.analysis.diff import KINDS, DiffResult, DiffRow
from traceview.safety.redact import redact_json
from traceview.safety.sanitise import json_shown, plain

SYMBOLS = {"same": "=", "changed": "~", "provider_only": "+P", "capture_only": "-C"}
LEGEND = {
    "same": "same item on both sides",
    "changed": "same item, different content",
    "provider_only": "only the provider holds it",
    "capture_only": "only the capture holds it",
}
_STYLES = {"same": "dim", "changed": "yellow", "provider_only": "cyan", "capture_only": "magenta"}


def _short(value: object, limit: int = 200) -> str:
    """One line of untrusted text, at most `limit` characters: made safe by the shared
    boundary (`plain`: secrets masked, every control and format character an escape,
    newlines included), then cut, so a diff prints a field as every other output does."""
    text = "" if value is None else plain(str(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(result: DiffResult) -> str:
    """Where the provider copy came from, in one line."""
    origin = {"live": "fetched live", "snapshot": "from a snapshot",
              "capture": "from a listing recorded in the capture"}.get(result.origin,
                                                                       result.origin)
    bits = [f"{result.kind} {_short(result.conversation)}", origin]
    if result.host:
        bits.append(f"host {_short(result.host)}")
    if result.fetched_at:
        bits.append(f"at {_short(result.fetched_at)}")
    bits.append(f"{result.pages} page{'s' if result.pages != 1 else ''}")
    bits.append("complete" if result.complete else "PARTIAL")
    return " · ".join(bits)


def _counts_line(result: DiffResult) -> str:
    c = result.counts
    return "  ".join(f"{SYMBOLS[k]} {k} {c[k]:,}" for k in KINDS)


def item_label(row: DiffRow) -> str:
    """``type (role) id`` — what the row is about, in one short untrusted-safe string."""
    role = row.item.get("role") if row.item_type == "message" else None
    label = _short(row.item_type, 40) + (f" ({_short(role, 20)})" if role else "")
    return label + (f" {_short(row.item_id, 80)}" if row.item_id else "")


def _turn(row: DiffRow) -> str:
    return "—" if row.turn is None else str(row.turn)


def render_text(result: DiffResult, width: int = 100, color: bool = False) -> str:
    """A Rich table of rows, with header, counts, verdict and warnings."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=color, no_color=not color,
                      highlight=False, emoji=False, markup=False)
    console.print(Text("traceview diff · " + describe(result)))
    console.print(Text(_counts_line(result)))
    table = Table(show_edge=False, pad_edge=False, expand=False)
    table.add_column("", no_wrap=True)
    table.add_column("turn", justify="right", no_wrap=True)
    table.add_column("item", no_wrap=True, max_width=34, overflow="ellipsis")
    table.add_column("reason", ratio=1)
    for row in result.rows:
        style = _STYLES.get(row.kind, "") if color else ""
        table.add_row(Text(SYMBOLS.get(row.kind, "?"), style=style), Text(_turn(row)),
                      Text(item_label(row)), Text(_short(row.reason, 400)))
    console.print(table)
    console.print(Text(_short(result.verdict, 2000)))
    for warning in result.warnings:
        console.print(Text("note: " + _short(warning, 400)))
    console.print(Text("legend: " + "  ".join(f"{SYMBOLS[k]} {LEGEND[k]}" for k in KINDS)))
    return buf.getvalue()


def _md(value: object) -> str:
    return _short(value, 400).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`") \
        .replace("<", "&lt;")


def render_markdown(result: DiffResult) -> str:
    """A markdown section that pastes into a postmortem document."""
    lines = [
        f"### Provider copy vs capture: {_md(result.conversation)}",
        "",
        f"{_md(describe(result))}",
        "",
        f"**Verdict:** {_md(result.verdict)}",
        "",
        "| " + " | ".join(f"{SYMBOLS[k]} {k}" for k in KINDS) + " |",
        "|" + "---:|" * len(KINDS),
        "| " + " | ".join(f"{result.counts[k]:,}" for k in KINDS) + " |",
        "",
        "| kind | turn | item | reason |",
        "|---|---:|---|---|",
    ]
    for row in result.rows:
        item = _md(item_label(row))
        lines.append(f"| {SYMBOLS.get(row.kind, '?')} {row.kind} | {_turn(row)} | {item} "
                     f"| {_md(row.reason)} |")
    for warning in result.warnings:
        lines.append(f"\n> note: {_md(warning)}")
    return "\n".join(lines) + "\n"


def render_json(result: DiffResult) -> str:
    """The ``traceview.diff/1`` document."""
    doc: dict[str, Any] = result.to_dict()
    # Through the one redactor and the JSON sanitiser, as the report's JSON: every string
    # decodes to the sanitiser's text (a C1 control or bidi override as its escape).
    text = json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8", "surrogatepass")
    return json_shown(redact_json(text)).decode("utf-8", "surrogatepass") + "\n"


def render(result: DiffResult, fmt: str, width: int = 100) -> str:
    """Dispatch on ``fmt``: text | markdown | json."""
    if fmt == "json":
        return render_json(result)
    if fmt == "markdown":
        return render_markdown(result)
    return render_text(result, width=width)
