"""Follow mode: how soon an appended record is on screen, and what idling costs.

Headless app (``make_app(..., follow=True)``) on a capture that a writer appends to
from this process. For each appended turn (a request and its response, written as one
append like the recorder does), measures the time from the write to the first screen
refresh that shows the new row. Then measures the app's CPU time over an idle period.
Bare cost for comparison: ``os.stat`` + reading the appended bytes + ``orjson.loads``.

    python bench/follow.py                # 40 appends, 5 s idle
    python bench/follow.py --appends 200 --idle 10

Target (DESIGN.md): a record on screen ≤ 250 ms after it is written; CPU near idle.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_traces" / "claims.jsonl"


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def bare(pair: bytes, path: Path) -> float:
    start = time.perf_counter()
    for _ in range(100):
        os.stat(path)
        for line in pair.splitlines():
            orjson.loads(line)
    return (time.perf_counter() - start) / 100


async def run(appends: int, idle: float) -> None:
    from traceview.ui.app import make_app
    from traceview.ui.messages import TurnsLoaded

    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    head, pair = b"".join(lines[:4]), b"".join(lines[4:6])  # a turn of an open conversation
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "live.jsonl"
        path.write_bytes(head)
        arrived = asyncio.Event()

        def hook(message: object) -> None:
            if isinstance(message, TurnsLoaded):
                arrived.set()

        app = make_app([str(path)], follow=True)
        latencies: list[float] = []
        async with app.run_test(size=(120, 36), message_hook=hook) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            for _ in range(appends):
                before = len(app.main.rows)
                arrived.clear()
                start = time.perf_counter()
                with path.open("ab") as out:
                    out.write(pair)
                await asyncio.wait_for(arrived.wait(), 5)
                while len(app.main.rows) == before:
                    await pilot.pause()
                await pilot.pause()  # the refresh that paints the row
                latencies.append(time.perf_counter() - start)
            c0, t0 = cpu(), time.perf_counter()
            await asyncio.sleep(idle)  # measuring idle CPU: nothing to wait for
            c1, t1 = cpu(), time.perf_counter()
        base = bare(pair, path)
    p50 = statistics.median(latencies)
    p95 = sorted(latencies)[max(0, int(len(latencies) * 0.95) - 1)]
    print(f"appends: {appends}; bare cost (stat + orjson.loads of the pair): "
          f"{base * 1e6:.0f} µs")
    print(f"write → row on screen: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
          f"max {max(latencies) * 1000:.0f} ms  (target ≤ 250 ms; "
          f"p50 = {p50 / base:,.0f}× bare, dominated by the {0.1 * 1000:.0f} ms poll interval)")
    share = (c1 - c0) / (t1 - t0)
    print(f"idle CPU: {share:.1%} of one core over {t1 - t0:.1f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=40)
    parser.add_argument("--idle", type=float, default=5.0)
    ns = parser.parse_args()
    asyncio.run(run(ns.appends, ns.idle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
