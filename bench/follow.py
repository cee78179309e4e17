"""Follow mode: how soon an appended turn is on screen, and what idling costs.

A headless inspector (`make_app(..., follow=True)`) on a capture this script appends to,
one turn (request and response) per write as the recorder does; the time from the write to
the refresh that shows the new row; then the app's CPU over an idle period. Bare cost: a
`stat` plus `orjson.loads` of the appended lines. Targets (DESIGN.md): on screen ≤ 250 ms
after the write; CPU near idle while nothing is written.

    python bench/follow.py                         # 40 appends, 5 s idle
    python bench/follow.py --appends 200 --idle 10 --other /work/prev
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from side import ROOT, checkouts, child_runs, measured_root, ms, parser, table

SAMPLE = ROOT / "sample_traces" / "claims.jsonl"


async def measure(appends: int, idle: float) -> dict[str, Any]:
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
            c0, t0 = time.process_time(), time.perf_counter()
            await asyncio.sleep(idle)
            idle_share = (time.process_time() - c0) / (time.perf_counter() - t0)
        start = time.perf_counter()  # the bare cost: a stat and the turn's orjson.loads
        for _ in range(100):
            path.stat()
            for line in pair.splitlines():
                orjson.loads(line)
        base = (time.perf_counter() - start) / 100
    ordered = sorted(latencies)
    return {"p50": statistics.median(ordered), "max": ordered[-1], "bare": base,
            "p95": ordered[max(0, int(len(ordered) * 0.95) - 1)], "idle": idle_share}


def main() -> int:
    ap = parser(__doc__, repeat=1)
    ap.add_argument("--appends", type=int, default=40)
    ap.add_argument("--idle", type=float, default=5.0)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.child:
        print(json.dumps({**asyncio.run(measure(ns.appends, ns.idle)),
                          "root": measured_root()}))
        return 0
    trees = checkouts(ns.other)
    got = child_runs(__file__, trees, ["--appends", str(ns.appends), "--idle", str(ns.idle)],
                     ns.repeat)
    labels = [t.label for t in trees]
    base = got["this"]["bare"]
    print(f"{ns.appends} appends of one turn; bare cost (stat + orjson.loads of the turn) "
          f"{base * 1e6:.0f} µs; best of {ns.repeat}")
    table("follow", [
        ("write → row on screen, p50 (× bare)",
         [f"{ms(got[x]['p50'])} ({got[x]['p50'] / base:,.0f}×)" for x in labels]),
        ("write → row on screen, p95 (≤ 250 ms)", [ms(got[x]["p95"]) for x in labels]),
        ("write → row on screen, max", [ms(got[x]["max"]) for x in labels]),
        (f"idle CPU over {ns.idle:g} s (share of a core)",
         [f"{got[x]['idle']:.1%}" for x in labels]),
    ], labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
