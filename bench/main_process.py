"""The main process's own per-turn work during a load, without the facts' cost.

While worker processes extract facts, the main process appends their columns, pairs the
lines, and analyses the turns; on a 2-core machine every one of its CPU microseconds
competes with the workers. Extracting facts dominates any timing that includes it (and
varies by more than these stages cost on a shared machine), so here it is done first and
only the rest is timed, CPU µs per turn, best of --repeat:

- `workers`: chunks extracted beforehand and pickled (as workers send them), then a whole
  `Session.run_to_end()` fed from them: take + pairing (CaptureBuilder.feed_run) + the
  session's loop + the analyzer + the end of load. The hosted-state passes are left out
  (they have their own benches: hosted_passes.py).
- `one process`: the same with TRACEVIEW_WORKERS=1, each line's facts answered from a small
  cycle of precomputed ones (hot in the cache, as a line's just-made facts are): read loop
  + store (Side.add) + pairing + the session + the analyzer + the end of load.
- `analyzer`: Analyzer.add_all over the loaded turns (Analyzer.add per turn where there is
  no add_all).

Each beside the orjson loop (orjson.loads per line), as floors.py prints it. Measure a
branch against another by running each one's copy from its own directory (the current
directory comes first on sys.path).

    python bench/main_process.py /tmp/h50.jsonl --repeat 5
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import pickle
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, os.getcwd())
sys.path.insert(1, str(Path(__file__).resolve().parent))

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402


def best_cpu(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            c0 = time.process_time()
            fn()
            best = min(best, time.process_time() - c0)
        finally:
            gc.enable()
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    path, repeat = args.path, max(1, args.repeat)
    os.environ["TRACEVIEW_PARALLEL_MIN_BYTES"] = "0"

    from traceview.analysis import session
    from traceview.analysis.analyzer import Analyzer
    from traceview.capture import capture, parallel, reader

    real_attach = session.attach_hosted_state
    session.attach_hosted_state = lambda _a: None  # type: ignore[assignment]
    try:
        run(path, repeat, session, Analyzer, capture, parallel, reader)
    finally:
        session.attach_hosted_state = real_attach


def run(path: str, repeat: int, session: Any, Analyzer: Any, capture: Any,  # noqa: N803
        parallel: Any, reader: Any) -> None:
    with open(path, "rb") as f:
        lines = f.readlines()

    def loop() -> None:
        loads = orjson.loads
        for raw in lines:
            loads(raw)

    loop_s = best_cpu(loop, repeat)
    size = os.path.getsize(path)
    blobs = [pickle.dumps(parallel.extract(path, s, e))
             for s, e in parallel.split(path, size, parallel.chunk_bytes())]

    class Given:
        """An Extractor whose chunks were made beforehand."""

        def __init__(self, _n: int) -> None:
            pass

        def run(self, tasks: Iterator[Any]) -> Iterator[Any]:
            for task, blob in zip(tasks, blobs, strict=False):
                yield task, pickle.loads(blob)  # noqa: S301 - our own bytes

        def close(self) -> None:
            pass

    real_extractor, real_facts = capture.Extractor, reader.line_facts
    turns = 0

    def load() -> None:
        nonlocal turns
        a = session.Session(path).run_to_end()
        turns = len(a.turns)
        a.capture.close()

    os.environ["TRACEVIEW_WORKERS"] = "2"
    capture.Extractor = Given  # type: ignore[assignment, misc]
    try:
        workers_s = best_cpu(load, repeat)
    finally:
        capture.Extractor = real_extractor  # type: ignore[misc]

    os.environ["TRACEVIEW_WORKERS"] = "1"
    hot = [real_facts(raw, raw[-1:] == b"\n", True) for raw in lines[:2048]]
    cycle: Iterator[Any] = iter(())

    def answered(raw: bytes, ended: bool, keep: bool = False) -> Any:  # noqa: ARG001
        return next(cycle)

    def one() -> None:
        nonlocal cycle
        cycle = itertools.cycle(hot)
        load()

    reader.line_facts = answered  # type: ignore[assignment]
    try:
        one_s = best_cpu(one, repeat)
    finally:
        reader.line_facts = real_facts

    cap = capture.load(path)
    names, turn_list = cap.sources, list(cap.turns)

    def analyse() -> None:
        an = Analyzer()
        if hasattr(an, "add_all"):
            an.add_all(turn_list, names, [].append)
        else:
            for t in turn_list:
                an.add(t, names[t.source])

    an_s = best_cpu(analyse, repeat)
    cap.close()

    n = max(turns, 1)
    us = 1e6 / n
    print(f"{path}: {turns:,} turns, {size / 1e6:.1f} MB; CPU µs/turn, best of {repeat}")
    print(f"  orjson loop        {loop_s * us:6.2f}")
    for label, secs in (("workers (main)", workers_s), ("one process", one_s),
                        ("analyzer", an_s)):
        print(f"  {label:18} {secs * us:6.2f}  ({secs / loop_s:.2f}× the loop)")


if __name__ == "__main__":
    main()
