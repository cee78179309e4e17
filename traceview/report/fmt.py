"""Number formatting shared by every renderer, so the same number reads the same everywhere."""

from __future__ import annotations

from typing import Any

from traceview.analysis.explain_words import bytes_text


def num(v: int | float | None) -> str:
    """Thousands separators; one decimal for a fractional float; a dash for unknown."""
    if v is None:
        return "—"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.1f}"
    return f"{int(v):,}"


def signed(v: int | float | None) -> str:
    """Signed with separators (``+3,970``); a dash for unknown."""
    return "—" if v is None else f"{int(v):+,}"


def caller_ms(turn: object) -> int | None:
    """What the caller waited for the turn (failed attempts included), else its elapsed_ms."""
    return getattr(turn, "caller_elapsed_ms", getattr(turn, "elapsed_ms", None))


def latency(turn: object) -> str:
    """A turn's caller latency in ms; ``×N`` when it took N attempts (the failed tries'
    time is included in the number)."""
    ms = num(caller_ms(turn))
    n = len(getattr(turn, "attempts", None) or ())
    return f"{ms}×{n}" if n > 1 else ms


def size(v: int | None) -> str:
    if v is None:
        return "—"
    if v < 1000:
        return f"{v} B"
    return bytes_text(v)  # humanize.naturalsize(v, format="%.1f"), without its lookups


def usd(v: float | None) -> str:
    """Four decimals under a dollar (token prices are that small), cents above."""
    if v is None:
        return "—"
    if 0 < v < 0.00005:
        return "<$0.0001"
    return f"${v:.4f}" if v < 1 else f"${v:,.2f}"


def hosted_cell(calls: list[dict[str, Any]], unknown: list[dict[str, Any]] | None = None) -> str:
    """Hosted calls with their evidence, readable without colour: ✓ captured, ∅ empty, ✗ missing;
    then any output item of an unknown type (it may be a hosted call this version cannot read)."""
    sym = {"captured": "✓", "empty": "∅", "missing": "✗"}
    parts = [f"{c['type'].removesuffix('_call')} {sym.get(c['evidence'], '?')}" for c in calls]
    parts += [f"unknown item type {u['type']}" for u in unknown or ()]
    return " ".join(parts) or "—"


def ms(v: float | None) -> str:
    """Whole milliseconds: a median of two turns is not more precise than its inputs."""
    return num(None if v is None else round(v))


def _pair(block: dict[str, Any] | None) -> str:
    """"p50 X / p95 Y ms" of a percentile block (whole ms); a dash for unknown."""
    block = block or {}
    return f"p50 {ms(block.get('p50'))} / p95 {ms(block.get('p95'))} ms"


def timing_lines(totals: dict[str, Any]) -> list[str]:
    """Caller latency and time to first token, p50/p95, all turns and split by whether a
    hosted tool ran (the report's totals.caller_latency_ms / ttft_ms)."""
    out = []
    for key, label in (("caller_latency_ms", "caller latency (backoff included)"),
                       ("ttft_ms", "time to first token")):
        b = totals.get(key)
        if not b:
            continue
        line = (f"{label}: {_pair(b)} · with hosted tools {_pair(b.get('with_hosted_tools'))}"
                f" · without {_pair(b.get('without'))}")
        if key == "ttft_ms" and not b.get("turns"):
            line = f"{label}: — (no stream arrival times in the capture)"
        elif key == "caller_latency_ms" and b.get("retried_without_ts"):
            line += f" ({b['retried_without_ts']} retried turns without ts: backoff unknown)"
        out.append(line)
    return out
