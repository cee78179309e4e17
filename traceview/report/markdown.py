"""Markdown that pastes into a postmortem document."""

from __future__ import annotations

from collections.abc import Iterator

from traceview.analysis.by_index import finder
from traceview.analysis.session import Analysis
from traceview.report.copy_text import copy_markdown
from traceview.report.cost_text import cost_markdown
from traceview.report.fmt import hosted_cell, latency, ms, num, signed, size, timing_lines, usd
from traceview.safety.sanitise import plain, visible


def _cell(s: str) -> str:
    return plain(s).replace("|", "\\|").replace("\n", " ")


def render_markdown(analysis: Analysis) -> str:
    return "".join(iter_markdown(analysis))


def iter_markdown(analysis: Analysis) -> Iterator[str]:
    """The report a conversation at a time (a million turns must not be one string), each
    chunk made visible and redacted at this one boundary whatever its fields held."""
    for chunk in _chunks(analysis):
        yield visible("\n".join(chunk) + "\n", multiline=True)


def _chunks(analysis: Analysis) -> Iterator[list[str]]:
    out: list[str] = [f"# traceview report: {_cell(', '.join(analysis.capture.sources))}", ""]
    by_index = finder(analysis.turns)  # no map of every turn: its reports are made on read
    for conv in analysis.conversations:
        out.append(f"## {conv.kind} `{_cell(conv.id or conv.key)}` — {len(conv.turns)} turns, "
                   f"billed input {num(conv.input_tokens)}, cost {usd(conv.cost_usd)}")
        out.append("")
        out.append("| # | user | sent | billed in | unexplained (est.) | cached | out | hosted "
                   "| ms | markers |")
        out.append("|---:|---|---:|---:|---:|---:|---:|---|---:|---|")
        turns = [t for t in map(by_index, conv.turns) if t is not None]
        for n, t in enumerate(turns):
            if n and not n % 2000:
                yield out
                out = []
            out.append(
                f"| {t.index} | {_cell((t.user_text or '')[:60])} | {size(t.request_bytes)} "
                f"| {num(t.input_tokens)} | {signed(t.unexplained_tokens)} "
                f"| {num(t.cached_tokens)} | {num(t.output_tokens)} "
                f"| {_cell(hosted_cell(t.hosted_calls, t.unknown_items))} | {latency(t)} "
                f"| {', '.join(t.markers)} |")
        out.append("")
        for t in turns:
            if t.markers:
                out.append(f"- **Turn {t.index}** ({', '.join(t.markers)}): "
                           + _cell(" ".join(t.explanation)))
        out.append("")
        yield out
        out = []
    tot = analysis.totals
    lat = tot.get("latency_ms", {})
    out.append(f"**Totals:** {tot.get('turns')} turns, billed input "
               f"{num(tot.get('input_tokens'))} ({num(tot.get('cached_tokens'))} cached), output "
               f"{num(tot.get('output_tokens'))}, {tot.get('hosted_calls')} hosted calls, cost "
               f"{usd(tot.get('cost_usd'))}, latency p50 {ms(lat.get('p50'))} ms / p95 "
               f"{ms(lat.get('p95'))} ms.")
    out += [f"- {line}" for line in timing_lines(tot)]
    out += cost_markdown(analysis.cost, _cell)  # issue 33: the text report's cost section
    copy = analysis.provider_copy  # --items/--live: the carried lines it counted
    out += copy_markdown(copy.to_dict() if copy is not None else None, _cell)
    if analysis.problems:
        out += ["", "## Problems", ""]
        for n, p in enumerate(analysis.problems):
            out.append(f"- `{_cell(p.source)}` line {p.line}: **{p.kind}** — {_cell(p.message)}")
            if not (n + 1) % 2000:
                yield out
                out = []
    yield out
