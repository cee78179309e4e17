"""A Rich table per conversation that reads in a 100-column terminal, colour optional."""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from traceview.analysis.markers import MARKER_LEGEND, MARKER_SHORT, MARKER_SYMBOLS
from traceview.analysis.session import Analysis
from traceview.analysis.turn_report import TurnReport
from traceview.report.fmt import hosted_cell, num, signed, size, usd
from traceview.report.safe import plain

EXPLAIN_MARKERS = {"deposit", "compaction", "compaction_likely", "evidence_missing", "failed",
                   "stream_cut", "incomplete"}


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _markers(t: TurnReport) -> Text:
    return Text(" ".join(f"{MARKER_SYMBOLS.get(m, '?')}{MARKER_SHORT.get(m, m)}"
                         for m in t.markers) or "")


def turns_table(turns: list[TurnReport], title: str) -> Table:
    table = Table(title=Text(title), title_justify="left", expand=False, pad_edge=False,
                  show_edge=False, header_style="bold underline", box=None, padding=(0, 1))
    for col, just in [("#", "right"), ("user", "left"), ("sent", "right"),
                      ("billed in", "right"), ("unexpl.", "right"), ("cached", "right"),
                      ("out", "right"), ("hosted", "left"), ("ms", "right")]:
        table.add_column(col, justify=just, no_wrap=True,
                         max_width=17 if col == "user" else None, overflow="ellipsis")
    table.add_column("markers", overflow="fold", min_width=16)
    for t in turns:
        table.add_row(
            str(t.index), Text(plain(t.user_text or "")), size(t.request_bytes),
            num(t.input_tokens), signed(t.unexplained_tokens), num(t.cached_tokens),
            num(t.output_tokens), Text(hosted_cell(t.hosted_calls)), num(t.elapsed_ms),
            _markers(t),
        )
    return table


def render_text(analysis: Analysis, console: Console) -> None:
    parts: list = []
    by_index = {t.index: t for t in analysis.turns}
    src = ", ".join(analysis.capture.sources)
    parts.append(Text(f"traceview · {src} · {_plural(len(analysis.turns), 'turn')} · "
                      f"{_plural(len(analysis.conversations), 'conversation')}", style="bold"))
    for conv in analysis.conversations:
        turns = [by_index[i] for i in conv.turns if i in by_index]
        parts.append(Text(""))
        title = (f"{conv.kind} {conv.id or conv.key} · {_plural(len(turns), 'turn')} · "
                 f"billed in {num(conv.input_tokens)} · cost {usd(conv.cost_usd)}")
        parts.append(turns_table(turns, plain(title)))
        for t in turns:
            if EXPLAIN_MARKERS.intersection(t.markers):
                parts.append(Text(f"  turn {t.index}: ", style="bold") +
                                  Text(plain(" ".join(t.explanation[:6]))))
    parts.append(_totals(analysis))
    used = sorted({m for t in analysis.turns for m in t.markers})
    if used:
        parts.append(Text("\nmarkers:"))
        parts.extend(Text(f"  {MARKER_SHORT.get(m, m):<8} {m}: {MARKER_LEGEND[m]}")
                     for m in used if m in MARKER_LEGEND)
    parts.append(Text("unexpl. = billed input − expected input (an estimate); "
                      "hosted: ✓ captured ∅ empty ✗ missing", style="dim"))
    if analysis.capture.exchanges:
        parts.append(Text(f"{len(analysis.capture.exchanges)} non-turn exchanges recorded "
                          "(listings, retrieves, deletes); see --format json."))
    if analysis.problems:
        parts.append(Text(f"\n{len(analysis.problems)} problems while reading:", style="bold"))
        for p in analysis.problems:
            parts.append(Text(plain(f"  {p.source}:{p.line} {p.kind}: {p.message}")))
    console.print(Group(*parts))


def _totals(analysis: Analysis) -> Text:
    t = analysis.totals
    lat = t.get("latency_ms", {})
    return Text(
        f"\ntotals: {t.get('turns')} turns · billed in {num(t.get('input_tokens'))} "
        f"({num(t.get('cached_tokens'))} cached) · out {num(t.get('output_tokens'))} · "
        f"{t.get('hosted_calls')} hosted calls · cost {usd(t.get('cost_usd'))}"
        + (f" ({t['cost_unknown_turns']} turns unpriced)" if t.get("cost_unknown_turns") else "")
        + f" · latency p50 {num(lat.get('p50'))} ms, p95 {num(lat.get('p95'))} ms"
    )
