"""A table per conversation that reads in a 100-column terminal, colour optional."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.control import STRIP_CONTROL_CODES, strip_control_codes
from rich.text import Text

from traceview.analysis.by_index import finder
from traceview.analysis.markers import MARKER_LEGEND, MARKER_SHORT, MARKER_SYMBOLS
from traceview.analysis.report_rows import row_dicts
from traceview.analysis.session import Analysis
from traceview.analysis.turn_report import TurnReport
from traceview.analysis.turn_row import explain_row
from traceview.report.copy_text import copy_text
from traceview.report.cost_text import cost_text
from traceview.report.fmt import hosted_cell, ms, num, signed, size, timing_lines, usd
from traceview.report.problems import problem_line
from traceview.safety.sanitise import plain, visible

EXPLAIN_MARKERS = {"deposit", "compaction", "compaction_likely", "evidence_missing", "failed",
                   "stream_cut", "incomplete"}


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _markers(markers: list[str]) -> str:
    return " ".join(f"{MARKER_SYMBOLS.get(m, '?')}{MARKER_SHORT.get(m, m)}" for m in markers)


# (heading, widest it may grow, right-aligned): the text columns fit their content up to
# the cap, so a typical conversation reads in 100 columns; a number (None) is never cut,
# however wide it is; markers come last and are never cut either.
_COLUMNS: list[tuple[str, int | None, bool]] = [
    ("#", None, True), ("user", 17, False), ("sent", None, True), ("billed in", None, True),
    ("unexpl.", None, True), ("cached", None, True), ("out", None, True),
    ("hosted", 14, False), ("ms", None, True), ("markers", 0, False)]


def _cell(value: str, width: int, right: bool) -> str:
    if len(value) > width:
        value = value[: width - 1] + "…"
    return value.rjust(width) if right else value.ljust(width)


_HOSTED_WIDTH = next(cap for h, cap, _ in _COLUMNS if h == "hosted") or 0


def _hosted_fit(calls: list[dict[str, Any]], unknown: list[dict[str, Any]] | None,
                clean: Callable[[str], str]) -> str:
    """The hosted cell within its column, made safe by `clean` before anything is cut (a
    key cut short would no longer be masked): every call when they fit, else the first
    call's name abbreviated with its evidence glyph and how many more (the glyph is the
    signal, the name is context; the inspector's column does the same)."""
    cell = clean(hosted_cell(calls, unknown))
    if len(cell) <= _HOSTED_WIDTH or not calls:
        return cell
    name, _, glyph = clean(hosted_cell(calls[:1])).rpartition(" ")
    tail = f" {glyph}" + (f" +{len(calls) - 1}" if len(calls) > 1 else "")
    room = _HOSTED_WIDTH - len(tail)
    return (name if len(name) <= room else name[: room - 1] + "…") + tail


def _latency(r: dict[str, Any]) -> str:
    """fmt.latency from a row: caller latency in ms, ``×N`` when it took N attempts."""
    shown, n = num(r["caller_elapsed_ms"]), len(r["attempts"])
    return f"{shown}×{n}" if n > 1 else shown


def _table_lines(rows: list[dict[str, Any]],
                 hosted: dict[str, str] | None = None) -> tuple[str, str]:
    """A conversation's turns as fixed-width lines, from their rows (the same rows the
    JSON report writes): the header line, and the body. `hosted`: the hosted cells made
    safe so far in this report (a few distinct texts, each through `plain` once)."""
    seen = {} if hosted is None else hosted

    def hosted_text(r: dict[str, Any]) -> str:
        key = hosted_cell(r["hosted_calls"], r["unknown_items"])
        text = seen.get(key)
        if text is None:
            text = seen[key] = _hosted_fit(r["hosted_calls"], r["unknown_items"], plain)
        return text

    cells = [
        (str(r["index"]), plain(r["user_text"] or ""), size(r["request_bytes"]),
         num(r["input_tokens"]), signed(r["unexplained_tokens"]), num(r["cached_tokens"]),
         num(r["output_tokens"]), hosted_text(r), _latency(r), _markers(r["markers"]))
        for r in rows
    ]
    widths = [0 if cap == 0 else min(cap or sys.maxsize, max([len(h)] + [len(r[i]) for r in cells]))
              for i, (h, cap, _) in enumerate(_COLUMNS)]
    header = "  ".join(_cell(h, w, r) if w else h
                       for (h, _, r), w in zip(_COLUMNS, widths, strict=True))
    body = "\n".join(
        "  ".join(_cell(v, w, r) if w else v
                  for v, w, (_, _, r) in zip(row, widths, _COLUMNS, strict=True)).rstrip()
        for row in cells)
    return header.rstrip(), body


def turns_table(turns: list[TurnReport]) -> Text:
    """The turns of one conversation as fixed-width lines: a hundred thousand rows print
    in seconds (a rich.Table measures every cell of every row)."""
    return _table_text(*_table_lines(list(row_dicts(turns, explained=False, whole=False))))


def _table_text(header: str, body: str) -> Text:
    out = Text()
    out.append(header + "\n", style="bold underline")
    out.append(body)
    out.rstrip()
    return out


def _fill(text: str, width: int) -> str:
    """Greedy word wrap with a hanging indent: a note's first line at two spaces, the rest
    at four (textwrap's regex split is much slower, and a large capture marks thousands
    of turns)."""
    lines: list[str] = []
    line = "  "
    for word in text.split(" "):
        if len(line) + len(word) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = "    "
        line += word + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


_STRIPPED = "".join(map(chr, STRIP_CONTROL_CODES))  # what Rich drops from any Text


class _Out:
    """Where the report's parts go. Without colour (a pipe or a file: what a large report
    is written to) each part is written as the plain text Rich would print for it; on a
    terminal, Rich prints the styled Text. Parts laid out here (tables, notes) are never
    re-wrapped; other parts go through Rich whenever they need wrapping."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.plain = console.color_system is None and not console.is_jupyter
        self.width = console.width
        self.write = console.file.write
        self.hosted: dict[str, str] = {}  # hosted cells made safe, for _table_lines

    def part(self, text: str, style: str | None = None, *, laid_out: bool = False) -> None:
        # The one boundary every line passes: whatever a field held (a file name, a model,
        # a status), no control reaches the terminal and no key is written.
        if not text.replace("\n", "").isprintable():  # else visible() would walk it all
            text = visible(text, multiline=True)
        if self.plain and "\t" not in text:
            if any(c in text for c in _STRIPPED):  # translate() walks every character
                text = strip_control_codes(text)
            if laid_out or all(cell_len(line) <= self.width for line in text.split("\n")):
                self.write(text + "\n")
                return
            if not laid_out:  # Rich's wrap, without the space it leaves where it breaks
                for line in Text(text).wrap(self.console, self.width):
                    self.write(line.plain.rstrip(" ") + "\n")
                return
        self.console.print(Text(text, style=style or ""), soft_wrap=laid_out)

    def table(self, header: str, body: str) -> None:
        if self.plain:
            self.part((header + "\n" + body).rstrip(), laid_out=True)
        else:
            self.console.print(_table_text(visible(header, multiline=True),
                                           visible(body, multiline=True)), soft_wrap=True)


def render_text(analysis: Analysis, console: Console) -> None:
    width = console.width
    out = _Out(console)
    by_index = finder(analysis.turns)  # no map of every turn: its reports are made on read
    src = ", ".join(map(plain, analysis.capture.sources))  # one line: a name's \n escaped
    out.part(f"traceview · {src} · {_plural(len(analysis.turns), 'turn')} · "
             f"{_plural(len(analysis.conversations), 'conversation')}", style="bold")
    for conv in analysis.conversations:
        _conversation(out, conv, by_index, width)
    totals = _totals(analysis)
    out.part(totals.plain, style=str(totals.style) or None)
    for line in timing_lines(analysis.totals):
        out.part(line)
    used = sorted({m for t in analysis.turns for m in t.markers})
    if used:
        out.part("\nmarkers:")
        for m in used:
            if m in MARKER_LEGEND:
                out.part(f"  {MARKER_SHORT.get(m, m):<8} {m}: {MARKER_LEGEND[m]}")
    out.part("unexpl. = billed input − expected input (an estimate); "
             "hosted: ✓ captured ∅ empty ✗ missing", style="dim")
    for line in cost_text(analysis.cost):  # issue 33: tenants, storage, projection, budget
        out.part(plain(line))
    copy = analysis.provider_copy  # --items/--live: the carried lines it counted
    for line in copy_text(copy.to_dict() if copy is not None else None):
        out.part(plain(line))
    if analysis.capture.exchanges:
        out.part(f"{len(analysis.capture.exchanges)} non-turn exchanges recorded "
                 "(listings, retrieves, deletes); see --format json.")
    for imp in getattr(analysis.capture, "imports", ()):
        out.part(plain(_imported(imp)))
    if analysis.problems:
        out.part(f"\n{_plural(len(analysis.problems), 'problem')} while reading:",
                 style="bold")
        for p in analysis.problems:
            out.part(plain(f"  {problem_line(p)}"))


def _conversation(out: _Out, conv: Any, by_index: Callable[[int], TurnReport | None],
                  width: int) -> None:
    """One conversation's title, table of turns and notes on its marked turns."""
    rows = list(row_dicts((t for t in map(by_index, conv.turns) if t is not None),
                          explained=False, whole=False))
    out.part("")
    title = (f"{conv.kind} {conv.id or conv.key} · {_plural(len(rows), 'turn')} · "
             f"billed in {num(conv.input_tokens)} · cost {usd(conv.cost_usd)}")
    out.part(plain(title))
    header, body = _table_lines(rows, out.hosted)
    out.table(header, body)
    # The notes wrap at the table's width: one column of reading, not two.
    table_width = max((len(line) for line in (header + "\n" + body).rstrip().splitlines()),
                      default=width)
    note_width = max(60, min(width, table_width))
    notes = [_fill(f"turn {r['index']}: " + plain(" ".join(explain_row(r)[:6])), note_width)
             for r in rows if EXPLAIN_MARKERS.intersection(r["markers"])]
    if notes:
        out.part("\n".join(notes), laid_out=True)


def _imported(imp: dict[str, Any]) -> str:
    """One line per imported file: what it was, how many calls, what was left out."""
    line = (f"imported {imp.get('source')} as {imp.get('format')}: "
            f"{imp.get('provider_calls')} provider calls")
    if imp.get("ignored"):
        kinds = ", ".join(f"{n} {k}" for k, n in (imp.get("ignored_kinds") or {}).items())
        line += f", {imp['ignored']} other entries ignored ({kinds})"
    if imp.get("cannot_carry"):
        line += "; the format cannot carry: " + "; ".join(imp["cannot_carry"])
    return line


def _coverage(t: dict[str, Any]) -> str:
    """Which turns a token total covers, when it is not all of them."""
    n, turns = t.get("usage_turns"), t.get("turns")
    return f"(over {n} of {turns} turns with usage) " if n is not None and n != turns else ""


def _totals(analysis: Analysis) -> Text:
    t = analysis.totals
    lat = t.get("latency_ms", {})
    return Text(
        f"\ntotals: {t.get('turns')} turns · billed in {num(t.get('input_tokens'))} "
        + _coverage(t)
        + f"({num(t.get('cached_tokens'))} cached) · out {num(t.get('output_tokens'))} · "
        f"{t.get('hosted_calls')} hosted calls · cost {usd(t.get('cost_usd'))}"
        + (f" ({t['cost_unknown_turns']} turns unpriced)" if t.get("cost_unknown_turns") else "")
        + f" · latency p50 {ms(lat.get('p50'))} ms, p95 {ms(lat.get('p95'))} ms"
    )
