"""A table per conversation that reads in a 100-column terminal, colour optional."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from traceview.analysis.markers import MARKER_LEGEND, MARKER_SHORT, MARKER_SYMBOLS
from traceview.analysis.session import Analysis
from traceview.analysis.turn_report import TurnReport
from traceview.report.fmt import hosted_cell, latency, num, signed, size, usd
from traceview.report.safe import plain, visible

EXPLAIN_MARKERS = {"deposit", "compaction", "compaction_likely", "evidence_missing", "failed",
                   "stream_cut", "incomplete"}


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _markers(t: TurnReport) -> str:
    return " ".join(f"{MARKER_SYMBOLS.get(m, '?')}{MARKER_SHORT.get(m, m)}" for m in t.markers)


# (heading, widest it may grow, right-aligned): columns fit their content up to the cap,
# so a typical conversation reads in 100 columns; markers come last and are never cut.
_COLUMNS = [("#", 7, True), ("user", 17, False), ("sent", 8, True), ("billed in", 11, True),
            ("unexpl.", 9, True), ("cached", 9, True), ("out", 8, True), ("hosted", 14, False),
            ("ms", 8, True), ("markers", 0, False)]


def _cell(value: str, width: int, right: bool) -> str:
    if len(value) > width:
        value = value[: width - 1] + "…"
    return value.rjust(width) if right else value.ljust(width)


def turns_table(turns: list[TurnReport]) -> Text:
    """The turns of one conversation as fixed-width lines: a hundred thousand rows print
    in seconds (a rich.Table measures every cell, ~2 ms a row)."""
    rows = [
        (str(t.index), plain(t.user_text or ""), size(t.request_bytes), num(t.input_tokens),
         signed(t.unexplained_tokens), num(t.cached_tokens), num(t.output_tokens),
         plain(hosted_cell(t.hosted_calls, t.unknown_items)), latency(t), _markers(t))
        for t in turns
    ]
    widths = [min(cap, max([len(h)] + [len(r[i]) for r in rows])) if cap else 0
              for i, (h, cap, _) in enumerate(_COLUMNS)]
    out = Text()
    header = "  ".join(_cell(h, w, r) if w else h
                       for (h, _, r), w in zip(_COLUMNS, widths, strict=True))
    out.append(header.rstrip() + "\n", style="bold underline")
    for row in rows:
        line = "  ".join(_cell(v, w, r) if w else v
                         for v, w, (_, _, r) in zip(row, widths, _COLUMNS, strict=True))
        out.append(line.rstrip() + "\n")
    out.rstrip()
    return out


def _fill(text: str, width: int) -> str:
    """Greedy word wrap with a hanging indent (textwrap's regex split is ~20x slower, which
    matters when a large capture has thousands of marked turns)."""
    lines: list[str] = []
    line = "  "
    for word in text.split(" "):
        if len(line) + len(word) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = "    "
        line += word + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def render_text(analysis: Analysis, console: Console) -> None:
    width = console.width
    parts: list = []
    laid_out: set[int] = set()  # ids: Text compares by value, which would be quadratic
    by_index = {t.index: t for t in analysis.turns}
    src = ", ".join(analysis.capture.sources)
    parts.append(Text(f"traceview · {src} · {_plural(len(analysis.turns), 'turn')} · "
                      f"{_plural(len(analysis.conversations), 'conversation')}", style="bold"))
    for conv in analysis.conversations:
        turns = [by_index[i] for i in conv.turns if i in by_index]
        parts.append(Text(""))
        title = (f"{conv.kind} {conv.id or conv.key} · {_plural(len(turns), 'turn')} · "
                 f"billed in {num(conv.input_tokens)} · cost {usd(conv.cost_usd)}")
        parts.append(Text(plain(title)))
        table = turns_table(turns)
        parts.append(table)
        laid_out.add(id(parts[-1]))
        # The notes wrap at the table's width: one column of reading, not two.
        table_width = max((len(line) for line in table.plain.splitlines()), default=width)
        note_width = max(60, min(width, table_width))
        notes = [_fill(f"turn {t.index}: " + plain(" ".join(t.explanation[:6])), note_width)
                 for t in turns if EXPLAIN_MARKERS.intersection(t.markers)]
        if notes:
            parts.append(Text("\n".join(notes)))
            laid_out.add(id(parts[-1]))
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
    for imp in getattr(analysis.capture, "imports", ()):
        parts.append(Text(plain(_imported(imp))))
    if analysis.problems:
        parts.append(Text(f"\n{_plural(len(analysis.problems), 'problem')} while reading:",
                          style="bold"))
        for p in analysis.problems:
            parts.append(Text(plain(f"  {p.source}:{p.line} {p.kind}: {p.message}")))
    plain_out = not console.is_terminal and not console.record
    write = console.file.write
    for part in parts:
        # The one boundary every line passes: whatever a field held (a file name, a model,
        # a status), no control reaches the terminal and no key is written.
        text = part.plain
        safe = visible(text, multiline=True)
        if safe != text:
            part.plain = safe
        # Tables and notes are laid out here already; Rich's cell-aware re-wrap of every
        # line would cost seconds on a large capture. Into a pipe or file (no styles), a
        # line that needs no wrapping is written as is: console.print costs ~0.3 ms a call,
        # minutes for a capture of a million one-turn conversations.
        if plain_out and (id(part) in laid_out or (len(safe) <= width and "\n" not in safe)):
            write(safe + "\n")
            continue
        console.print(part, soft_wrap=id(part) in laid_out)


def _ms(v: float | None) -> str:
    """Whole milliseconds: a median of two turns is not more precise than its inputs."""
    return num(None if v is None else round(v))


def _imported(imp: dict) -> str:
    """One line per imported file: what it was, how many calls, what was left out."""
    line = (f"imported {imp.get('source')} as {imp.get('format')}: "
            f"{imp.get('provider_calls')} provider calls")
    if imp.get("ignored"):
        kinds = ", ".join(f"{n} {k}" for k, n in (imp.get("ignored_kinds") or {}).items())
        line += f", {imp['ignored']} other entries ignored ({kinds})"
    if imp.get("cannot_carry"):
        line += "; the format cannot carry: " + "; ".join(imp["cannot_carry"])
    return line


def _coverage(t: dict) -> str:
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
        + f" · latency p50 {_ms(lat.get('p50'))} ms, p95 {_ms(lat.get('p95'))} ms"
    )
