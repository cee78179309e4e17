"""What the hosted-state passes (analysis/hosted_state.py) cost, pass by pass.

The capture is read and analysed once without them; then the three passes run as the
report runs them — the carried-context ledger (with the tool configurations it reads),
the provider objects inventory and replay fidelity — and each one's CPU seconds are
printed, best of `--repeat`, beside the bare `orjson.loads` loop over the same file.
With the ledger built while the capture loads (analysis/ahead.py): the loader thread's CPU
in its slices (total, and the longest slice, which holds the inspector's turn that long)
and the end's three passes once, with what it left to finish.
A second, separate run under tracemalloc prints the bytes each pass still holds per turn
once it has returned (what the report keeps alive until it is written), and what the
report's own objects / ledger / fidelity sections cost to build at write time.

    python bench/hosted_passes.py /tmp/h50.jsonl --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import os
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TRACEVIEW_WORKERS", "1")

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402

from traceview.analysis import ahead, hosted_state, session  # noqa: E402

PASSES = ("build_ledger", "inventory", "assess")


def _analysed(path: str, slices: list[float] | None = None) -> Any:
    """The analysis without the end's passes; the thread CPU of each slice of the ledger
    built ahead appended to `slices`."""
    real = session.attach_hosted_state
    feed = ahead.LedgerAhead.feed
    session.attach_hosted_state = lambda a: None

    def timed_feed(self: Any) -> None:
        t0 = time.thread_time()
        done = self.done
        feed(self)
        if slices is not None and self.done != done:
            slices.append(time.thread_time() - t0)

    ahead.LedgerAhead.feed = timed_feed  # type: ignore[method-assign]
    try:
        return session.analyze(path)
    finally:
        session.attach_hosted_state = real
        ahead.LedgerAhead.feed = feed  # type: ignore[method-assign]


def _orjson_loop(path: str) -> float:
    t0 = time.process_time()
    with open(path, "rb") as f:
        for raw in f:
            try:
                orjson.loads(raw)
            except orjson.JSONDecodeError:
                pass
    return time.process_time() - t0


def _wrapped(measure: Callable[[str, Callable[..., Any]], Callable[..., Any]]) -> None:
    for name in PASSES:
        real = getattr(hosted_state, name)
        setattr(hosted_state, name, measure(name, real))


def timed(fn: Callable[..., Any], name: str, got: dict[str, float]) -> Callable[..., Any]:
    """`fn`, adding the CPU time of each call to `got[name]` (bench/analysis_stage.py too)."""
    def run(*args: Any, **kw: Any) -> Any:
        t0 = time.process_time()
        out = fn(*args, **kw)
        got[name] = got.get(name, 0.0) + time.process_time() - t0
        return out
    return run


def _unwrap(saved: dict[str, Any]) -> None:
    for name, fn in saved.items():
        setattr(hosted_state, name, fn)


def cpu(path: str, repeat: int) -> dict[str, float]:
    slices: list[float] = []
    a = _analysed(path, slices)
    built_ahead, a.ahead = a.ahead, None  # the whole passes first
    best: dict[str, float] = {}
    saved = {n: getattr(hosted_state, n) for n in PASSES}
    for _ in range(repeat):
        got: dict[str, float] = {}
        _wrapped(lambda name, fn, got=got: timed(fn, name, got))
        gc.collect()
        t0 = time.process_time()
        hosted_state._attach(a)
        got["attach"] = time.process_time() - t0
        _unwrap(saved)
        t0 = time.process_time()
        _write(a)
        got["write"] = time.process_time() - t0
        for k, v in got.items():
            best[k] = min(best.get(k, v), v)
    best["turns"] = len(a.turns)
    best["ahead slices"] = sum(slices)
    best["longest slice"] = max(slices, default=0.0)
    best["slices"] = len(slices)
    if built_ahead is not None:  # once: the ledger built ahead is handed over
        a.ahead = built_ahead
        t0 = time.process_time()
        hosted_state._attach(a)
        best["attach ahead"] = time.process_time() - t0
        best["finished ahead"] = float(a.ahead is None and built_ahead.off
                                       and built_ahead.done > 0)
    return best


def _write(a: Any) -> int:
    """The report's sections these passes feed, built as the writer builds them."""
    n = 0
    if a.objects is not None:
        n += sum(len(o.to_dict()) for o in a.objects.objects)
    for t in a.turns:
        n += len(t.carried_context)
        n += t.provider_copy is not None
    for c in a.conversations:
        n += len(c.to_dict())
    if a.fidelity is not None:
        n += len(a.fidelity.to_dict())
    return n


def held(path: str) -> dict[str, int]:
    a = _analysed(path)
    gc.collect()
    got: dict[str, int] = {}
    saved = {n: getattr(hosted_state, n) for n in PASSES}
    keep: list[Any] = []

    def measure(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kw: Any) -> Any:
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            out = fn(*args, **kw)
            keep.append(out)
            gc.collect()
            got[name] = tracemalloc.get_traced_memory()[0] - before
            got[name + " peak"] = tracemalloc.get_traced_memory()[1] - before
            tracemalloc.reset_peak()
            return out
        return run

    _wrapped(measure)
    tracemalloc.start()
    hosted_state._attach(a)
    gc.collect()
    got["attach"] = tracemalloc.get_traced_memory()[0]
    _unwrap(saved)
    tracemalloc.stop()
    got["turns"] = len(a.turns)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-memory", action="store_true")
    args = ap.parse_args()
    loop = min(_orjson_loop(args.path) for _ in range(2))
    c = cpu(args.path, args.repeat)
    n = c["turns"]
    print(f"{args.path}: {n:,.0f} turns; orjson loop {loop:.2f} s CPU")
    print(f"{'pass':<14}{'CPU s':>8}{'× loop':>8}{'µs/turn':>9}")
    for k in ("build_ledger", "inventory", "assess", "attach", "write", "ahead slices",
              "attach ahead"):
        v = c.get(k, 0.0)
        print(f"{k:<14}{v:>8.3f}{v / loop:>8.2f}{v / n * 1e6:>9.1f}")
    longest = c["longest slice"] * 1e3
    print(f"ledger built ahead in {c['slices']:.0f} slices, the longest {longest:.1f} ms of "
          f"thread CPU; taken at the end: {bool(c.get('finished ahead'))}")
    if args.no_memory:
        return
    m = held(args.path)
    n = m["turns"]
    print(f"{'pass':<14}{'held B':>12}{'B/turn':>9}{'peak B/turn':>13}")
    for k in ("build_ledger", "inventory", "assess", "attach"):
        v = m.get(k, 0)
        p = m.get(k + " peak")
        print(f"{k:<14}{v:>12,}{v / n:>9.1f}"
              + (f"{p / n:>13.1f}" if p is not None else ""))


if __name__ == "__main__":
    main()
