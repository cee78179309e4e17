"""Memory of `traceview report --format json`, stage by stage, against its measured floor.

Issue #11's target is peak RSS ≤ 25 % of the file on both shapes, "or the closing note
shows the measured floor". This prints, for each capture given:

    stage | held B/turn | floor B/turn | held/floor | RSS MB | peak RSS so far MB

*Held*: the Python heap the stage leaves allocated (tracemalloc's current size, in a run
of its own: tracing inflates RSS; less the floor walks' own records), per turn. Stages:
after imports, after reading (the turn table: capture.load), after the analyzer
(TurnReports, conversations, totals), after each hosted-state pass (objects inventory,
ledger, fidelity), and during writing (the JSON writer to /dev/null: tracemalloc's peak
over the write minus what was held before it).

*Floor*: the bytes the same values need at their tightest, found by walking every object
the stage made (reachable from what it returns, not counted by an earlier stage): each
number at the smallest item size that holds it (an array's items at the size its own
min/max needs; a bool one bit), each distinct string's UTF-8 bytes once (a pooled string
is paid once however many rows name it), bytes and buffers at their length, and 4 bytes
of offset or length per container. Types, modules and functions are not data. For the
writer the floor is its largest single chunk (the write cannot hold less than what it
hands on).

*RSS*: /proc/self/status VmRSS at the same points in a run without tracing, and the peak
so far (VmHWM; reset before the write with /proc/self/clear_refs so the write's own peak
is seen). Under the table: the interpreter + imports baseline, the plain CLI's peak RSS
(`python -m traceview report --format json`, os.wait4's ru_maxrss) with one process and
with two workers, best of --repeat, as MB, % of the file and bytes per turn; RSS after the
analysis minus the imports' RSS and the heap held (freed but not returned to the system;
negative where arrays' spare capacity was never touched), and the write's peak above it.

    python bench/memory.py /tmp/traceview-hosted-200mb.jsonl /tmp/traceview-bench-200mb.jsonl

A script, not a test: tests/bench/test_memory_runs.py only checks that every row prints.
"""

from __future__ import annotations

import argparse
import array
import gc
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any, TextIO

from capture_arg import capture_file  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

STAGES = [
    ("imports", "after imports"),
    ("table", "after reading (table)"),
    ("analyzer", "after the analyzer"),
    ("objects", "after hosted: objects"),
    ("ledger", "after hosted: ledger"),
    ("fidelity", "after hosted: fidelity"),
    ("writer", "during writing (peak)"),
]
MB = 1 << 20


# ----------------------------------------------------------------------------- the floor
_SKIP = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
         types.MethodType, types.CodeType, types.FrameType, types.CellType,
         types.MethodDescriptorType, types.WrapperDescriptorType, types.GetSetDescriptorType,
         types.MemberDescriptorType, property, staticmethod, classmethod)


def _int_bytes(lo: int, hi: int) -> int:
    """The smallest array item size (1, 2, 4, 8) that holds every value in lo … hi."""
    for size in (1, 2, 4, 8):
        bound = 1 << (8 * size - 1)
        if -bound <= lo and hi < bound:
            return size
    return 16


class Floor:
    """Tight bytes of everything reachable from what it is given, each object once across
    calls (a later stage is not charged for what an earlier one made)."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.strings: set[str] = set()
        self.keep: list[Any] = []  # ids stay unique while the walk's objects live

    def bookkeeping(self) -> int:
        """Bytes the walks' own records take (the set of ids seen, an int object each, the
        list keeping the walked alive, the strings seen): traced like the stage's own, so
        subtracted from what a stage holds (else a stage is charged for walking the one
        before it: ~100 bytes an object walked)."""
        return (sys.getsizeof(self.seen) + sys.getsizeof(self.keep)
                + sys.getsizeof(self.strings) + sum(map(sys.getsizeof, self.seen)))

    def walk(self, *roots: Any) -> int:
        total = 0
        stack = list(roots)
        seen, strings = self.seen, self.strings
        while stack:
            obj = stack.pop()
            if obj is None or isinstance(obj, _SKIP):
                continue
            if isinstance(obj, bool):
                total += 1  # counted in bits below would need per-row grouping: a byte
                continue
            if isinstance(obj, int):
                total += _int_bytes(obj, obj)
                continue
            if isinstance(obj, float):
                total += 8
                continue
            if isinstance(obj, str):
                if obj not in strings:
                    strings.add(obj)
                    total += len(obj.encode("utf-8", "surrogatepass")) + 4
                continue
            i = id(obj)
            if i in seen:
                continue
            seen.add(i)
            self.keep.append(obj)
            if isinstance(obj, (bytes, bytearray, memoryview)):
                total += len(obj) + 4
            elif isinstance(obj, array.array):
                if len(obj) and obj.typecode not in "fd":
                    total += len(obj) * _int_bytes(min(obj), max(obj))
                else:
                    total += len(obj) * obj.itemsize
            elif isinstance(obj, (list, tuple, dict, set, frozenset)):
                total += 4
                stack.extend(gc.get_referents(obj))
            else:
                stack.extend(gc.get_referents(obj))
        return total


# ----------------------------------------------------------------------------- the runs
def _status() -> dict[str, int]:
    """VmRSS and VmHWM in bytes (Linux); elsewhere ru_maxrss for both."""
    try:
        with open("/proc/self/status") as fh:
            vals = {k: int(v.split()[0]) * 1024 for k, v in
                    (line.split(":", 1) for line in fh) if k in ("VmRSS", "VmHWM")}
        return {"rss": vals["VmRSS"], "hwm": vals["VmHWM"]}
    except (OSError, KeyError, ValueError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return {"rss": peak, "hwm": peak}


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def child(mode: str, path: str) -> None:
    """One run in this process: print one JSON line per stage."""
    import tracemalloc

    heap = mode == "heap"
    from traceview.analysis import session
    from traceview.analysis.hosted import attach as hosted_state
    from traceview.capture.capture import load
    from traceview.report.json_out import iter_json

    rows: dict[str, dict[str, Any]] = {}
    floor = Floor()

    def mark(stage: str, *roots: Any) -> None:
        row = rows[stage] = dict(_status())
        if heap:
            row["held"] = tracemalloc.get_traced_memory()[0] - floor.bookkeeping()
            row["floor"] = floor.walk(*roots)

    gc.collect()
    mark("imports")
    base = 0
    if heap:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
    cap = load(path)
    gc.collect()
    mark("table", cap)
    turns = len(cap.turns)

    wrapped = {"inventory": "objects", "build_ledger": "ledger", "assess": "fidelity"}
    originals = {name: getattr(hosted_state, name) for name in wrapped}

    def wrap(name: str) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            result = originals[name](*args, **kwargs)
            mark(wrapped[name], result)
            return result
        return run

    real_attach = session.attach_hosted_state

    def attach(a: Any) -> None:
        mark("analyzer", a.turns, a.conversations, a.totals)
        real_attach(a)

    for name in wrapped:
        setattr(hosted_state, name, wrap(name))
    session.attach_hosted_state = attach
    try:
        analysis = session.analyze(cap)
    finally:
        for name, fn in originals.items():
            setattr(hosted_state, name, fn)
        session.attach_hosted_state = real_attach
    gc.collect()
    after = dict(_status())
    if heap:
        after["held"] = tracemalloc.get_traced_memory()[0] - floor.bookkeeping()
        tracemalloc.reset_peak()
    _reset_peak()
    biggest = 0
    with open(os.devnull, "wb") as sink:
        for chunk in iter_json(analysis):
            biggest = max(biggest, len(chunk))
            sink.write(chunk)
    row = rows["writer"] = dict(_status())
    if heap:
        row["floor"] = biggest
        row["held"] = after["held"]
        row["transient"] = (tracemalloc.get_traced_memory()[1] - floor.bookkeeping()
                            - after["held"])
        for r in (*rows.values(), after):
            r["held"] = r["held"] - base if r is not rows["imports"] else 0
    rows["_"] = {"turns": turns, "after": after}
    print(json.dumps(rows))
    analysis.capture.close()


def _child(mode: str, path: str) -> dict[str, Any]:
    env = dict(os.environ, TRACEVIEW_WORKERS="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, __file__, "--child", mode, path], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def cli_peak(path: str, workers: int) -> int:
    """Peak RSS in bytes of a plain `traceview report --format json` (output to /dev/null)."""
    env = dict(os.environ, TRACEVIEW_WORKERS=str(workers), PYTHONPATH=str(ROOT))
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "traceview", "report", "--format",
                                 "json", path], env=env, stdout=sink,
                                stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
    return usage.ru_maxrss * 1024


def baseline() -> int:
    """RSS of the interpreter with what the JSON report imports, nothing read."""
    code = ("import traceview.cli, traceview.analysis.session, traceview.report.json_out;"
            "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    return int(out.split()[-1]) * 1024


def report(path: str, repeat: int, out: TextIO) -> None:
    size = os.path.getsize(path)
    heap = _child("heap", path)
    rss = min((_child("rss", path) for _ in range(repeat)),
              key=lambda r: r["writer"]["hwm"])
    turns = max(1, heap["_"]["turns"])
    print(f"\n{path}: {size / MB:,.1f} MB, {turns:,} turns ({size / turns:,.0f} B/turn)",
          file=out)
    print(f"{'stage':<26} {'held B/turn':>12} {'floor B/turn':>13} {'held/floor':>11}"
          f" {'RSS MB':>8} {'peak MB':>8}", file=out)
    prev_held = 0
    for key, label in STAGES:
        h, r = heap[key], rss[key]
        held = h["transient"] if key == "writer" else h["held"] - prev_held
        floor = h["floor"]
        ratio = f"{held / floor:10.1f}×" if floor > 0 else f"{'—':>11}"
        print(f"{label:<26} {held / turns:12,.0f} {floor / turns:13,.1f} {ratio}"
              f" {r['rss'] / MB:8.1f} {r['hwm'] / MB:8.1f}", file=out)
        if key != "writer":
            prev_held = h["held"]
    held_end = heap["_"]["after"]["held"]
    floor_end = sum(heap[k]["floor"] for k, _ in STAGES[1:-1])
    print(f"{'held after analysis':<26} {held_end / turns:12,.0f} {floor_end / turns:13,.1f}"
          f" {held_end / max(1, floor_end):10.1f}× {rss['_']['after']['rss'] / MB:8.1f}",
          file=out)
    base = min(baseline() for _ in range(repeat))
    print(f"interpreter + imports baseline: {base / MB:.1f} MB", file=out)
    after_rss = rss["_"]["after"]["rss"]
    print(f"RSS after analysis − imports RSS − held: "
          f"{(after_rss - rss['imports']['rss'] - held_end) / MB:+.1f} MB (freed but not"
          f" returned; negative: capacity allocated, never touched); the write's peak above"
          f" RSS after analysis: {(rss['writer']['hwm'] - after_rss) / MB:+.1f} MB", file=out)
    for workers in (1, 2):
        peak = min(cli_peak(path, workers) for _ in range(repeat))
        label = "one process" if workers == 1 else f"{workers} workers"
        print(f"CLI peak RSS, {label}: {peak / MB:.1f} MB = {100 * peak / size:.1f} % of the"
              f" file, {peak / turns:,.0f} B/turn (above the baseline:"
              f" {(peak - base) / turns:,.0f} B/turn); floor (baseline + floor):"
              f" {(base + floor_end) / MB:.1f} MB = {100 * (base + floor_end) / size:.1f} %",
              file=out)


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=capture_file)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", choices=["heap", "rss"])
    ns = ap.parse_args(argv)
    if ns.child:
        child(ns.child, ns.paths[0])
        return 0
    for path in ns.paths:
        report(path, max(1, ns.repeat), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
