"""The inspector on a large capture, headless: first rows, key latency while it loads,
the longest event-loop handler, and the full load against the bare cost of reading it.

Each load runs in a fresh process; keys (`j`), one every `--gap` seconds, are timed until
the cursor and the chart moved. Targets (issue 29): first rows ≤ 0.5 s, key p95 ≤ 100 ms
while loading, no handler over 50 ms, full load ≤ 1.5× the previous main's.

    python bench/ui_latency.py                         # generates 1 GB of the hosted shape
    python bench/ui_latency.py --capture big.jsonl --other /work/prev --repeat 2
    python bench/ui_latency.py --mb 200 --keys 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import side

STARTED = time.perf_counter()  # the child's imports count towards its first screen


class Monitor:
    """What blocks the event loop: a 5 ms timer's lateness, and handlers' main-thread CPU."""

    TICK = 0.005

    def __init__(self) -> None:
        self.stalls: list[float] = []
        self.handler_cpu = 0.0
        self.running = True

    async def watch(self) -> None:
        last = time.perf_counter()
        while self.running:
            await asyncio.sleep(self.TICK)
            now = time.perf_counter()
            self.stalls.append(now - last - self.TICK)
            last = now

    def install(self) -> None:
        from textual.message_pump import MessagePump

        original = MessagePump._dispatch_message

        async def timed(pump: MessagePump, message: object) -> None:
            c0 = time.thread_time()
            await original(pump, message)
            self.handler_cpu = max(self.handler_cpu, time.thread_time() - c0)

        MessagePump._dispatch_message = timed  # type: ignore[method-assign]


async def measure(path: Path, keys: int, gap: float) -> dict[str, Any]:
    """One load in this process: the figures, in seconds."""
    from textual import events

    from traceview.ui.app import make_app

    monitor = Monitor()
    monitor.install()
    started = time.perf_counter()
    out: dict[str, Any] = {"imports": started - STARTED}
    app = make_app([str(path)])
    watcher = asyncio.create_task(monitor.watch())
    async with app.run_test(size=(160, 48)) as pilot:
        # Poll: Pilot.pause() waits for the queue to drain, which a busy load delays.
        while not app.main.rows and not app.state.done:
            await asyncio.sleep(0.002)
        out["first_rows"] = time.perf_counter() - started
        latencies: list[float] = []
        table_, chart = app.main.table, app.main.query_one("#chart")
        while len(latencies) < keys and not app.state.done:
            before = table_.cursor
            if before >= len(table_.rows) - 1:
                table_.cursor = 0
                await asyncio.sleep(gap)
                continue
            t0 = time.perf_counter()
            app.post_message(events.Key("j", "j"))  # as a driver would: Pilot.press idles
            while not (table_.cursor == before + 1 and chart.cursor == table_.cursor):
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - t0)
            await asyncio.sleep(max(0.0, t0 + gap - time.perf_counter()))
        await app.workers.wait_for_complete()
        await pilot.pause()
        out["full_load"] = time.perf_counter() - started
        out["turns"] = len(app.state.turns)
    monitor.running = False
    await watcher
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] if ordered else None
    return {**out, "keys": len(ordered), "key_p50": statistics.median(ordered) if ordered else None,
            "key_p95": p95, "stalls_over_50ms": sum(1 for s in monitor.stalls if s > 0.05),
            "handler_max_cpu": monitor.handler_cpu}


def main(argv: list[str] | None = None) -> int:
    ap = side.parser(__doc__, repeat=1)
    ap.add_argument("--capture", type=side.capture_file,
                    help="capture to open (default: generated)")
    ap.add_argument("--mb", type=int, default=1000, help="size of the generated capture")
    ap.add_argument("--keys", type=int, default=5000, help="at most this many keys")
    ap.add_argument("--gap", type=float, default=0.05, help="seconds between keys")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.child:
        print(json.dumps({**asyncio.run(measure(ns.capture, ns.keys, ns.gap)),
                          "root": side.measured_root()}))
        return 0
    path = (ns.capture or side.generated("hosted", ns.mb)).resolve()
    trees = side.checkouts(ns.other)
    read_s, loop_s = side.bare_costs([path])
    got = side.child_runs(__file__, trees, ["--capture", str(path), "--keys", str(ns.keys),
                                       "--gap", str(ns.gap)], ns.repeat)
    print(f"capture: {path} — {path.stat().st_size / 1e6:,.0f} MB, "
          f"{got['this']['turns']:,} turns; best of {ns.repeat}; bare cost: read "
          f"{read_s:.2f} s, read + orjson.loads every line {loop_s:.2f} s (the loop)")
    labels = [t.label for t in trees]
    rows = [
        ("imports (Textual, the app)", [f"{got[x]['imports']:.3f} s" for x in labels]),
        ("first rows, after imports (≤ 0.5 s)", [f"{got[x]['first_rows']:.3f} s" for x in labels]),
        ("key p50 while loading", [side.ms(got[x]["key_p50"]) for x in labels]),
        ("key p95 while loading (≤ 100 ms)", [side.ms(got[x]["key_p95"]) for x in labels]),
        ("keys pressed", [str(got[x]["keys"]) for x in labels]),
        ("longest handler, CPU (≤ 50 ms)", [side.ms(got[x]["handler_max_cpu"]) for x in labels]),
        ("event-loop stalls over 50 ms", [f"{got[x]['stalls_over_50ms']:.0f}" for x in labels]),
        ("full load (× loop)", [f"{got[x]['full_load']:.2f} s "
                                f"({got[x]['full_load'] / loop_s:.1f}×)" for x in labels]),
    ]
    if len(labels) > 1:
        rows.append(("full load, this ÷ other", ["—"] + [
            f"{got['this']['full_load'] / got[x]['full_load']:.2f}" for x in labels[1:]]))
    side.table("inspector", rows, labels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
