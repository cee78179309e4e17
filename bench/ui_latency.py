"""Inspector latency on a large capture, headless, next to the bare cost of reading it.

Prints: the bare cost (read every byte; orjson.loads every line), the time until the
first rows are on screen, key latency (j pressed while the capture is still loading:
time until the key is handled and the screen refreshed), and the time to load fully.

Wall-clock latency on a shared machine is noisy, so it also prints what blocks the event
loop: the longest stall a 5 ms monitor timer saw (every cause: handlers, rendering, the
load thread holding the GIL), and per message handler the longest run in wall time and
in the main thread's CPU time (work the event loop itself did). `--repeat N` loads the
capture N times and prints the best of each figure.

    python bench/ui_latency.py                 # generates ~1 GB (hosted shape) in a temp dir
    python bench/ui_latency.py --shape bench   # the bigger-turn shape
    python bench/ui_latency.py --size 200MB
    python bench/ui_latency.py --capture big.jsonl --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson
from textual import events

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9}


def _existing(text: str) -> Path:
    """A capture file or a directory of captures; argparse's message otherwise."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such capture: {text!r}")
    return path


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


class Monitor:
    """What blocks the event loop while the app runs: a timer's lateness, and each
    message handler's duration (wall, and CPU of the main thread alone)."""

    TICK = 0.005

    def __init__(self) -> None:
        self.stalls: list[float] = []
        self.at: list[float] = []  # when each tick ended (perf_counter)
        self.stall_cpu: list[float] = []  # the event loop's own CPU time in each gap
        self.handlers: dict[str, list[float]] = {}  # name -> [count, max wall, max cpu, cpu]
        self.running = True
        self._original = None

    async def watch(self) -> None:
        last, last_cpu = time.perf_counter(), time.thread_time()
        while self.running:
            await asyncio.sleep(self.TICK)
            now, cpu = time.perf_counter(), time.thread_time()
            self.stalls.append(now - last - self.TICK)
            self.stall_cpu.append(cpu - last_cpu)
            self.at.append(now)
            last, last_cpu = now, cpu

    def gc_callback(self, phase: str, info: dict[str, int]) -> None:
        """A collection holds the GIL from start to stop, whichever thread runs it."""
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        took = time.perf_counter() - self._gc_started
        key = (info["generation"], threading.current_thread() is threading.main_thread())
        row = self.gc.setdefault(key, [0, 0.0, 0.0])
        row[0] += 1
        row[1] = max(row[1], took)
        row[2] += took

    def install(self) -> None:
        from textual.message_pump import MessagePump

        self.gc: dict[tuple[int, bool], list[float]] = {}
        self._gc_started = 0.0
        gc.callbacks.append(self.gc_callback)

        original = self._original = MessagePump._dispatch_message
        handlers = self.handlers

        async def timed(pump: MessagePump, message: object) -> None:
            w0, c0 = time.perf_counter(), time.thread_time()
            await original(pump, message)
            wall, cpu = time.perf_counter() - w0, time.thread_time() - c0
            name = f"{type(pump).__name__}.{type(message).__name__}"
            row = handlers.setdefault(name, [0, 0.0, 0.0, 0.0, 0.0])
            row[0] += 1
            row[1] = max(row[1], wall)
            if cpu > row[2]:
                row[2], row[4] = cpu, w0
            row[3] += cpu

        MessagePump._dispatch_message = timed  # type: ignore[method-assign]

    def uninstall(self) -> None:
        from textual.message_pump import MessagePump

        if self._original is not None:
            MessagePump._dispatch_message = self._original  # type: ignore[method-assign]
        if self.gc_callback in gc.callbacks:
            gc.callbacks.remove(self.gc_callback)


async def measure(path: Path, keys: int, gap: float) -> dict[str, Any]:
    from traceview.ui.app import make_app

    monitor = Monitor()
    monitor.install()
    started = time.perf_counter()
    cpu0 = time.thread_time()
    app = make_app([str(path)])
    result: dict[str, Any] = {}
    watcher = asyncio.create_task(monitor.watch())
    try:
        await _drive(app, keys, gap, started, monitor, result)
    finally:
        monitor.running = False
        await watcher
        monitor.uninstall()
    result["main_cpu_s"] = time.thread_time() - cpu0
    result["stalls"] = monitor.stalls
    result["worst_stalls"] = sorted(
        ((stall, cpu, at - started)
         for stall, cpu, at in zip(monitor.stalls, monitor.stall_cpu, monitor.at, strict=True)),
        reverse=True)[:5]
    result["stall_cpu"] = monitor.stall_cpu
    for row in monitor.handlers.values():
        row[4] -= started
    result["handlers"] = monitor.handlers
    result["gc"] = monitor.gc
    return result


async def _drive(app: Any, keys: int, gap: float, started: float, monitor: Monitor,
                 result: dict[str, Any]) -> None:
    async with app.run_test(size=(160, 48)) as pilot:
        # Poll, as the key loop below does: Pilot.pause() waits for the message queue to
        # drain, which a busy load worker delays by up to a second — not what a user sees.
        while not app.main.rows and not app.state.done:
            await asyncio.sleep(0.002)
        result["first_screen_s"] = time.perf_counter() - started
        result["rows_at_first_screen"] = len(app.main.rows)
        latencies: list[float] = []
        table, chart = app.main.table, app.main.query_one("#chart")
        # Keys all through the load (a user pausing `gap` between them), not only at its
        # start: the end of the load (sorting, the hosted-state passes) counts too.
        while len(latencies) < keys and not app.state.done:
            # Pilot.press waits for the whole process to go idle, which a busy load worker
            # never does; post the key like a driver would and wait for its effect: the
            # cursor moved and the Highlighted handler redrew the chart and summary.
            before = table.cursor
            if before >= len(table.rows) - 1:
                table.cursor = 0
                await asyncio.sleep(gap)
                continue
            t0 = time.perf_counter()
            app.post_message(events.Key("j", "j"))
            while not (table.cursor == before + 1 and chart.cursor == table.cursor):
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - t0)
            # A steady typist: the next key `gap` after this one was pressed, so a faster
            # inspector is not made to answer more keys (and spend more CPU) than a slow one.
            await asyncio.sleep(max(0.0, t0 + gap - time.perf_counter()))
        result["keys_while_loading"] = latencies
        await app.workers.wait_for_complete()
        await pilot.pause()
        result["full_load_s"] = time.perf_counter() - started
        monitor.running = False
        result["turns"] = len(app.state.turns)
        result["conversations"] = len(app.state.by_key)


def headless_load(path: Path, thread: bool = True) -> tuple[float, float]:
    """Wall and CPU seconds (this process) for the core alone to load the capture: what
    the inspector's full load adds is the rest.

    In a thread by default, as the inspector runs it: a process with threads reads with a
    forkserver pool, one without forks plain children (capture/parallel.py), and the two
    transports differ by more than the app costs."""
    from traceview.analysis.session import Session

    timing: list[float] = []

    def load() -> None:
        w0, c0 = time.perf_counter(), time.process_time()
        Session([str(path)]).run_to_end()
        timing[:] = [time.perf_counter() - w0, time.process_time() - c0]

    if thread:
        worker = threading.Thread(target=load, name="headless load")
        worker.start()
        worker.join()
    else:
        load()
    return timing[0], timing[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def summary(result: dict[str, Any], parse_s: float) -> dict[str, float]:
    """One load's figures, in ms where they are latencies."""
    keys = [k * 1000 for k in result["keys_while_loading"]]
    stalls = [s * 1000 for s in result["stalls"]]
    return {
        "first_screen_s": result["first_screen_s"],
        "key_p50_ms": statistics.median(keys) if keys else float("nan"),
        "key_p95_ms": percentile(keys, 0.95) if keys else float("nan"),
        "key_max_ms": max(keys) if keys else float("nan"),
        "keys": len(keys),
        "stall_max_ms": max(stalls, default=0.0),
        # The event loop's own CPU in its longest gap: work it did, not time it waited
        # (for the GIL, or for a core the machine's other processes had).
        "stall_cpu_max_ms": max(result["stall_cpu"], default=0.0) * 1000,
        "stall_p99_ms": percentile(stalls, 0.99),
        "stalls_over_50ms": sum(1 for s in stalls if s > 50),
        "handler_max_cpu_ms": max((row[2] for row in result["handlers"].values()),
                                  default=0.0) * 1000,
        "main_cpu_s": result["main_cpu_s"],
        "full_load_s": result["full_load_s"],
        "full_load_x": result["full_load_s"] / parse_s,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capture", type=_existing,
                        help="use this capture (a file, or a directory of them)")
    parser.add_argument("--size", type=parse_size, default=parse_size("1GB"),
                        help="size of the generated capture (default 1GB)")
    parser.add_argument("--keys", type=int, default=5000,
                        help="at most this many keys, pressed all through the load")
    parser.add_argument("--gap", type=float, default=0.05,
                        help="seconds from one key to the next (default 0.05)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="load the capture this many times; print the best of each figure")
    parser.add_argument("--handlers", type=int, default=8,
                        help="list this many of the slowest message handlers (last run)")
    parser.add_argument("--headless", nargs="?", const="thread", choices=("thread", "both"),
                        help="also time the core's load alone (Session.run_to_end, no app) "
                             "from a thread, as the inspector loads; 'both': also from the "
                             "main thread (the CLI's forked workers)")
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
        if path.is_dir():
            size_mb = sum(f.stat().st_size for f in path.rglob("*.jsonl")) / 1e6
        else:
            size_mb = path.stat().st_size / 1e6
        runs = []
        for _ in range(max(1, ns.repeat)):
            result = asyncio.run(measure(path, ns.keys, ns.gap))
            runs.append(summary(result, parse_s))
        headless = headless_load(path) if ns.headless else None
        plain = headless_load(path, thread=False) if ns.headless == "both" else None
    finally:
        if temp is not None:
            temp.cleanup()

    def best(name: str) -> float:
        return min(run[name] for run in runs)

    def each(name: str, spec: str) -> str:
        return " / ".join(format(run[name], spec) for run in runs)

    n = len(runs)
    label = f"best of {n}" if n > 1 else ""
    print(f"capture                      {size_mb:,.0f} MB, {result['turns']:,} turns, "
          f"{result['conversations']:,} conversations   {label}")
    print(f"bare: read every byte        {read_s:8.3f} s")
    print(f"bare: orjson.loads per line  {parse_s:8.3f} s")
    print(f"first screen (rows shown)    {best('first_screen_s'):8.3f} s   "
          f"({result['rows_at_first_screen']:,} rows)   target <= 0.5 s   "
          f"[{each('first_screen_s', '.3f')}]")
    if any(run["keys"] for run in runs):
        print(f"key latency while loading    p50 {best('key_p50_ms'):6.1f} ms   "
              f"p95 {best('key_p95_ms'):6.1f} ms   max {best('key_max_ms'):6.1f} ms   "
              f"({each('keys', '.0f')} keys)   target p95 <= 100 ms   "
              f"[p95 {each('key_p95_ms', '.0f')}]")
    else:
        print("key latency while loading    (load finished before any key was pressed)")
    print(f"event-loop stall (5 ms tick) max {best('stall_max_ms'):6.1f} ms   "
          f"p99 {best('stall_p99_ms'):6.1f} ms   over 50 ms: {best('stalls_over_50ms'):.0f}   "
          f"[max {each('stall_max_ms', '.0f')}]")
    print(f"event loop's CPU in one gap  {best('stall_cpu_max_ms'):6.1f} ms   "
          f"(handlers + rendering between two ticks)   [{each('stall_cpu_max_ms', '.0f')}]")
    print(f"longest handler, main CPU    {best('handler_max_cpu_ms'):6.1f} ms   "
          f"target <= 50 ms   [{each('handler_max_cpu_ms', '.0f')}]")
    print(f"event loop's CPU, whole load {best('main_cpu_s'):8.3f} s")
    print(f"full load (all turns)        {best('full_load_s'):8.3f} s   "
          f"= {best('full_load_x'):.1f}x orjson.loads of every line   target <= 4x   "
          f"[{each('full_load_x', '.1f')}]")
    if headless is not None:
        print(f"core alone (no app, thread)  {headless[0]:8.3f} s   "
              f"= {headless[0] / parse_s:.1f}x orjson.loads   (main process CPU "
              f"{headless[1]:.1f} s)   app adds {best('full_load_s') - headless[0]:+.3f} s")
    if plain is not None:
        print(f"core alone (main thread)     {plain[0]:8.3f} s   "
              f"= {plain[0] / parse_s:.1f}x orjson.loads   (main process CPU "
              f"{plain[1]:.1f} s)")
    handlers = sorted(result["handlers"].items(), key=lambda kv: -kv[1][2])[:ns.handlers]
    print("worst stalls (last run), ms (event loop's CPU ms) @ s since start: " + ", ".join(
        f"{stall * 1000:.0f} ({cpu * 1000:.0f}) @ {at:.2f}"
        for stall, cpu, at in result["worst_stalls"]))
    print("garbage collections (last run): generation, thread, count, max ms, total s")
    for (generation, main_thread), (count, longest, total) in sorted(result["gc"].items()):
        thread = "event loop" if main_thread else "load"
        print(f"    gen {generation} {thread:10} {count:7,} {longest * 1000:9.1f} {total:8.2f}")
    print("slowest handlers (last run): name, count, max wall ms, max CPU ms (@ s), "
          "total CPU s")
    for name, (count, wall, cpu, total, at) in handlers:
        print(f"    {name:40} {count:7,} {wall * 1000:8.1f} {cpu * 1000:8.1f} (@ {at:5.1f})"
              f" {total:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
