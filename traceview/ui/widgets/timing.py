"""Time as the caller saw it, rendered: a turn's timing in the detail view, the capture's
p50/p95 panel, and per-turn latency bars with the hosted share visible.

Every number is the core's (analysis/timing.py, the report's `timing` and totals);
drawing a bar's length is the only arithmetic here.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from traceview.report.fmt import timing_lines
from traceview.ui import format as fmt
from traceview.ui.safe_text import safe

# Bar segments, readable without colour: provider processing, network and queue, backoff
# between attempts; a turn whose time is not split is drawn whole.
PROCESSING, NETWORK, BACKOFF, WHOLE, HOSTED = "█", "▒", "░", "▆", "▓"
#: (symbol, meaning) of the bars, in the order the legend lists them.
LEGEND_ENTRIES = ((HOSTED, "hosted calls running"), (PROCESSING, "provider processing"),
                  (NETWORK, "network/queue"), (BACKOFF, "backoff"), (WHOLE, "not split"),
                  ("H:", "hosted tools ran"))
LEGEND = "  ".join(f"{symbol} {meaning}" for symbol, meaning in LEGEND_ENTRIES)


def legend_entries(style: str = "") -> list[Text]:
    """One Text per bar symbol, to be laid out whole (ui/legend.py)."""
    return [Text(f"{symbol} {meaning}", style=style) for symbol, meaning in LEGEND_ENTRIES]


def _ms(v: Any) -> str:
    return fmt.DASH if v is None else f"{fmt.num(v)} ms"


def timing_text(turn: Any) -> Text:
    """The turn's timing and stream evidence in a few lines (report key `timing`)."""
    t = getattr(turn, "timing", None)
    if t is None:
        return Text("")
    out = Text()
    out.append("timing ", style="dim")
    basis = t["caller_latency_basis"]
    out.append(f"caller {_ms(t['caller_latency_ms'])}", style="bold")
    if basis == "elapsed_sum_no_ts":
        out.append(" (no ts: backoff not included)", style="dim")
    if t["backoff_ms"] is not None:
        out.append(f" · backoff {_ms(t['backoff_ms'])}")
    out.append(f" · ttft {_ms(t['ttft_ms'])} · generation {_ms(t['generation_ms'])}")
    rate = t["output_tokens_per_s"]
    out.append(f" · {fmt.num(rate)} tok/s" if rate is not None else " · — tok/s")
    if t["hosted_ms"] is not None:
        out.append(f" · hosted calls {_ms(t['hosted_ms'])}")
    if t["processing_ms"] is not None:
        share = t["processing_share"]
        out.append(f"\n       provider {_ms(t['processing_ms'])}"
                   f" ({'—' if share is None else f'{share * 100:.0f} %'}) · network/queue "
                   f"{_ms(t['network_queue_ms'])}")
    if t["background_polls"] is not None:
        out.append(f"\n       background job {_ms(t['background_ms'])} create → terminal, "
                   f"{t['background_polls']} polls ({t['background_basis'] or 'unknown'})")
    if t["stream_events_by_type"]:
        counts = ", ".join(f"{k.removeprefix('response.')} {v}"
                           for k, v in t["stream_events_by_type"].items())
        out.append("\n       stream events ", style="dim")
        out.append_text(safe(counts))
        if t["stream_sequence_faults"]:
            out.append(f" · {t['stream_sequence_faults']} sequence faults", style="bold")
        if t["stream_text_mismatch"]:
            out.append(" · ")
            out.append_text(safe(t["stream_text_mismatch"], "bold"))
    return out


def attempts_text(turn: Any) -> Text:
    """Each attempt with what the provider said about retrying (Retry-After, limits)."""
    out = Text()
    for n, a in enumerate(getattr(turn, "attempts", None) or (), 1):
        out.append(f"attempt {n}: {a.get('http_status') or a.get('status')} "
                   f"{_ms(a.get('elapsed_ms'))}")
        limits = a.get("limits")
        if limits:
            out.append(" · ")
            out.append_text(safe(", ".join(f"{k} {v}" for k, v in limits.items())))
        out.append("\n")
    out.rstrip()
    return out


def percentile_panel(totals: dict[str, Any] | None) -> Text:
    """p50/p95 of caller latency and TTFT, with and without hosted tools."""
    lines = timing_lines(totals or {})
    if not lines:
        return Text("percentiles are computed once the whole capture is read", style="dim")
    return Text("\n".join(lines))


def _segments(t: Any, length: int) -> str:
    """A bar of `length` cells split into the turn's hosted-call time, backoff, provider
    processing and network/queue time, where the core knows them (else drawn whole)."""
    total = t["caller_latency_ms"] or 0
    if total <= 0:
        return WHOLE * length
    hosted = min(round(length * (t["hosted_ms"] or 0) / total), length)
    backoff = min(round(length * (t["backoff_ms"] or 0) / total), length - hosted)
    rest = length - hosted - backoff
    if t["processing_share"] is None:
        middle = WHOLE * rest
    else:
        proc = round(rest * t["processing_share"])
        middle = PROCESSING * proc + NETWORK * (rest - proc)
    return HOSTED * hosted + middle + BACKOFF * backoff


def latency_bars(turns: list[Any], width: int, cursor: int | None = None) -> Text:
    """One line per turn: its number, H when hosted tools ran, caller latency, TTFT and a
    bar scaled to the slowest turn shown."""
    timed = [(t, t.timing) for t in turns if getattr(t, "timing", None) is not None]
    top = max((tm["caller_latency_ms"] or 0 for _, tm in timed), default=0)
    label = 28
    room = max(8, width - label - 1)
    out = Text()
    for turn, tm in timed:
        hosted = "H" if turn.hosted_calls else " "
        head = (f"{turn.index:>5} {hosted} {fmt.num(tm['caller_latency_ms']):>9} ms "
                f"{fmt.num(tm['ttft_ms']):>6} ")
        out.append(head.ljust(label), style="bold" if turn.index == cursor else "")
        ms = tm["caller_latency_ms"]
        if ms is None or top <= 0:
            out.append(fmt.DASH + "\n", style="dim")
            continue
        length = max(1, round(room * ms / top))
        out.append(_segments(tm, length) + "\n")
    out.rstrip()
    return out
