"""Markdown that pastes into a postmortem document."""

from __future__ import annotations

from traceview.analysis.session import Analysis
from traceview.report.fmt import hosted_cell, latency, num, signed, size, usd
from traceview.report.safe import plain


def _cell(s: str) -> str:
    return plain(s).replace("|", "\\|").replace("\n", " ")


def render_markdown(analysis: Analysis) -> str:
    out: list[str] = [f"# traceview report: {_cell(', '.join(analysis.capture.sources))}", ""]
    by_index = {t.index: t for t in analysis.turns}
    for conv in analysis.conversations:
        out.append(f"## {conv.kind} `{_cell(conv.id or conv.key)}` — {len(conv.turns)} turns, "
                   f"billed input {num(conv.input_tokens)}, cost {usd(conv.cost_usd)}")
        out.append("")
        out.append("| # | user | sent | billed in | unexplained (est.) | cached | out | hosted "
                   "| ms | markers |")
        out.append("|---:|---|---:|---:|---:|---:|---:|---|---:|---|")
        turns = [by_index[i] for i in conv.turns if i in by_index]
        for t in turns:
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
    tot = analysis.totals
    lat = tot.get("latency_ms", {})
    out.append(f"**Totals:** {tot.get('turns')} turns, billed input "
               f"{num(tot.get('input_tokens'))} ({num(tot.get('cached_tokens'))} cached), output "
               f"{num(tot.get('output_tokens'))}, {tot.get('hosted_calls')} hosted calls, cost "
               f"{usd(tot.get('cost_usd'))}, latency p50 {num(lat.get('p50'))} ms / p95 "
               f"{num(lat.get('p95'))} ms.")
    if analysis.problems:
        out += ["", "## Problems", ""]
        out += [f"- `{_cell(p.source)}` line {p.line}: **{p.kind}** — {_cell(p.message)}"
                for p in analysis.problems]
    return "\n".join(out) + "\n"
