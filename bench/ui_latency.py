"""Inspector latency on a large capture, headless, next to the bare cost of reading it.

Prints: the bare cost (read every byte; orjson.loads every line), the time until the
first rows are on screen, key latency (j pressed while the capture is still loading:
time until the key is handled and the screen refreshed), and the time to load fully.

    python bench/ui_latency.py                 # generates ~1 GB (hosted shape) in a temp dir
    python bench/ui_latency.py --shape bench   # the bigger-turn shape
    python bench/ui_latency.py --size 200MB
    python bench/ui_latency.py --capture big.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson
from textual import events

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9}


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMG]?B?)\s*", text.upper())
    if not match:
        raise argparse.ArgumentTypeError(f"size like 200MB or 1GB, not {text!r}")
    unit = match.group(2)
    unit = unit if unit.endswith("B") or not unit else unit + "B"
    return int(float(match.group(1)) * UNITS[unit])


def bare_costs(path: Path) -> tuple[float, float]:
    """Seconds to read every byte, and to read + orjson.loads every line (of every file,
    when `path` is a directory of captures)."""
    files = sorted(p for p in path.rglob("*.jsonl")) if path.is_dir() else [path]
    started = time.perf_counter()
    for file in files:
        with file.open("rb") as f:
            while f.read(1 << 24):
                pass
    read_s = time.perf_counter() - started
    started = time.perf_counter()
    for file in files:
        with file.open("rb") as f:
            for line in f:
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass
    return read_s, time.perf_counter() - started


async def measure(path: Path, keys: int) -> dict[str, float | int | list[float]]:
    from traceview.ui.app import make_app

    started = time.perf_counter()
    app = make_app([str(path)])
    result: dict[str, float | int | list[float]] = {}
    async with app.run_test(size=(160, 48)) as pilot:
        # Poll, as the key loop below does: Pilot.pause() waits for the message queue to
        # drain, which a busy load worker delays by up to a second — not what a user sees.
        while not app.main.rows and not app.state.done:
            await asyncio.sleep(0.002)
        result["first_screen_s"] = time.perf_counter() - started
        result["rows_at_first_screen"] = len(app.main.rows)
        latencies: list[float] = []
        table, chart = app.main.table, app.main.query_one("#chart")
        while len(latencies) < keys and not app.state.done:
            # Pilot.press waits for the whole process to go idle, which a busy load worker
            # never does; post the key like a driver would and wait for its effect: the
            # cursor moved and the Highlighted handler redrew the chart and summary.
            before = table.cursor
            if before >= len(table.rows) - 1:
                table.cursor = 0
                await pilot.pause()
                before = 0
            t0 = time.perf_counter()
            app.post_message(events.Key("j", "j"))
            while not (table.cursor == before + 1 and chart.cursor == table.cursor):
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - t0)
        result["keys_while_loading"] = latencies
        await app.workers.wait_for_complete()
        await pilot.pause()
        result["full_load_s"] = time.perf_counter() - started
        result["turns"] = len(app.state.turns)
        result["conversations"] = len(app.state.by_key)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capture", type=Path, help="use this capture instead of generating")
    parser.add_argument("--size", type=parse_size, default=parse_size("1GB"),
                        help="size of the generated capture (default 1GB)")
    parser.add_argument("--keys", type=int, default=50, help="keys to time while loading")
    parser.add_argument("--shape", choices=("hosted", "bench"), default="hosted",
                        help="generated capture: many ~4 kB hosted-state turns (gen_hosted, "
                             "the default) or bigger turns (gen_capture)")
    ns = parser.parse_args(argv)

    temp = None
    path = ns.capture
    if path is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        if ns.shape == "hosted":
            from gen_hosted import generate
        else:
            from gen_capture import generate

        temp = tempfile.TemporaryDirectory(prefix="traceview-bench-")
        path = Path(temp.name) / "big.jsonl"
        t0 = time.perf_counter()
        generate(path, ns.size)
        print(f"generated {path.stat().st_size / 1e6:,.0f} MB in {time.perf_counter() - t0:.1f} s")
    try:
        read_s, parse_s = bare_costs(path)
        result = asyncio.run(measure(path, ns.keys))
    finally:
        if temp is not None:
            temp.cleanup()

    keys = result["keys_while_loading"]
    assert isinstance(keys, list)
    if path.is_dir():
        size_mb = sum(f.stat().st_size for f in path.rglob("*.jsonl")) / 1e6
    else:
        size_mb = path.stat().st_size / 1e6 if path.exists() else ns.size / 1e6
    print(f"capture                      {size_mb:,.0f} MB, {result['turns']:,} turns, "
          f"{result['conversations']:,} conversations")
    print(f"bare: read every byte        {read_s:8.3f} s")
    print(f"bare: orjson.loads per line  {parse_s:8.3f} s")
    print(f"first screen (rows shown)    {result['first_screen_s']:8.3f} s   "
          f"({result['rows_at_first_screen']:,} rows)   target < 1 s")
    if keys:
        ms = sorted(k * 1000 for k in keys)
        p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
        print(f"key latency while loading    p50 {statistics.median(ms):6.1f} ms   "
              f"p95 {p95:6.1f} ms   max {ms[-1]:6.1f} ms   ({len(ms)} keys)   target < 100 ms")
    else:
        print("key latency while loading    (load finished before any key was pressed)")
    print(f"full load (all turns)        {result['full_load_s']:8.3f} s   "
          f"= {result['full_load_s'] / parse_s:.1f}x orjson.loads of every line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
