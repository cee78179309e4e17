"""What the serial analysis in the main process costs per turn, stage by stage.

The capture is read once (`traceview.capture.load`); then, best of `--repeat`, each stage
runs over the same turns as the report runs it, timed with `process_time` (no profiler):
`Analyzer.add` for every turn, `conversations()`, and the hosted-state passes (the ledger
with its tool configurations, the objects inventory, replay fidelity, and their glue).
Beside them the floors, the bare CPython cost of the same irreducible work on the same
pre-extracted values: the analyzer's per-turn arithmetic (a conversation lookup, expected
input, the deposit test, the price, the running sums); the ledger's per-charged-turn
arithmetic (the apportioned rate, appended to its columns); and fidelity's re-reading of
the records it reads (pread + orjson.loads of the same byte ranges, nothing done with
them). What is left above a floor is reading facts through objects and keeping results.

    python bench/analysis_stage.py /tmp/h50.jsonl --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from array import array
from typing import Any

os.environ.setdefault("TRACEVIEW_WORKERS", "1")

import orjson  # noqa: E402
from capture_arg import capture_file  # noqa: E402
from hosted_passes import timed  # noqa: E402

from traceview.analysis import hosted_state  # noqa: E402
from traceview.analysis.analyzer import Analyzer  # noqa: E402
from traceview.analysis.session import Analysis, _attach_exchanges  # noqa: E402
from traceview.capture import load  # noqa: E402

PASSES = ("build_ledger", "inventory", "assess")


def _analyse(cap: Any) -> tuple[Analysis, float, float]:
    an = Analyzer()
    names = cap.sources
    add = an.add
    gc.collect()
    t0 = time.process_time()
    for turn in cap.turns:
        add(turn, names[turn.source])
    t_add = time.process_time() - t0
    t0 = time.process_time()
    a = Analysis(cap, problems=cap.problems)
    an.reports.sort(key=lambda r: r.turn.index)
    a.turns = an.reports
    a.conversations = an.conversations()
    _attach_exchanges(a)
    a.totals = an.totals.to_dict()
    t_conv = time.process_time() - t0
    a.pricing_table = an.pricing
    return a, t_add, t_conv


def _ledger_floor(a: Analysis) -> float:
    """Per turn with billed input: its cached share, the rate at its model's prices, and
    the three appends the ledger makes for a charged turn (values pre-extracted)."""
    pricing = a.pricing_table
    rows = []
    for t in a.turns:
        prices = pricing.model_prices(t.model)
        if t.input_tokens and prices is not None:
            rows.append((t.index, t.input_tokens, t.cached_tokens or 0, prices["input"],
                         prices.get("cached_input", prices["input"])))
    charged, rates, priced = array("q"), array("d"), bytearray()
    gc.collect()
    t0 = time.process_time()
    for index, inp, cached, p_in, p_cached in rows:
        share = min(max(cached / inp, 0.0), 1.0)
        charged.append(index)
        rates.append((share * p_cached + (1 - share) * p_in) / 1e6)
        priced.append(True)
    return time.process_time() - t0


def _fidelity_floor(a: Analysis) -> tuple[float, int]:
    """The records replay fidelity reads, read again: pread + orjson.loads each."""
    from traceview.analysis.fidelity import assess

    cap = a.capture
    refs: list[Any] = []
    real = cap.read

    def read(ref: Any) -> Any:
        refs.append(ref)
        return real(ref)

    cap.read = read  # type: ignore[method-assign]
    try:
        assess(a, objects=a.objects, label="floor")
    finally:
        del cap.read
    gc.collect()
    t0 = time.process_time()
    for ref in refs:
        raw = cap.read_raw(ref)
        if raw is not None:
            orjson.loads(raw)
    return time.process_time() - t0, len(refs)


def _hosted(a: Analysis) -> dict[str, float]:
    got: dict[str, float] = {}
    saved = {n: getattr(hosted_state, n) for n in PASSES}
    for n, fn in saved.items():
        setattr(hosted_state, n, timed(fn, n, got))
    try:
        gc.collect()
        t0 = time.process_time()
        hosted_state._attach(a)
        got["hosted_state"] = time.process_time() - t0
    finally:
        for n, fn in saved.items():
            setattr(hosted_state, n, fn)
    return got


def _floor(cap: Any) -> float:
    """The analyzer's irreducible arithmetic on pre-extracted values: per turn a
    conversation key lookup, expected input, the deposit and compaction tests, the price,
    and the running sums (conversation and totals)."""
    rows = []
    for t in cap.turns:
        req, res = t.req, t.res
        rows.append((t.conversation_id or t.index, req.new_input_tokens if req else 0,
                     res.input_tokens if res else None, res.cached_tokens if res else None,
                     res.output_tokens if res else None, res.reasoning_tokens if res else None,
                     req.request_bytes if req else None, res.output_bytes if res else 0))
    price_in, price_cached, price_out = 1.25, 0.125, 10.0
    gc.collect()
    t0 = time.process_time()
    states: dict[Any, list[Any]] = {}
    tot_in = tot_out = 0
    tot_cost = 0.0
    out = []
    for key, new, inp, cached, outp, reasoning, req_bytes, out_bytes in rows:
        st = states.get(key)
        if st is None:
            st = states[key] = [None, 0, 0, 0]
        prev = st[0]
        expected = prev + st[1] + new if prev is not None else None
        marker = (inp is not None and expected is not None
                  and inp - expected >= max(500, 0.25 * expected))
        if inp is not None and outp is not None:
            c = cached or 0
            tot_cost += ((inp - c) * price_in + c * price_cached + outp * price_out) / 1e6
            st[0], st[1] = inp, outp - (reasoning or 0)
            st[3] += inp
            tot_in += inp
            tot_out += outp
        st[2] += (req_bytes or 0) + out_bytes
        out.append((expected, marker))
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=capture_file)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cap = load(args.path)
    n = len(cap.turns)
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        a, t_add, t_conv = _analyse(cap)
        got = {"Analyzer.add": t_add, "conversations+totals": t_conv, **_hosted(a)}
        got["floor (analyzer arithmetic)"] = _floor(cap)
        got["floor (ledger arithmetic)"] = _ledger_floor(a)
        got["floor (fidelity re-reads)"], reads = _fidelity_floor(a)
        for k, v in got.items():
            best[k] = min(best.get(k, v), v)
        del a
    print(f"{args.path}: {n:,} turns (best of {args.repeat}, process_time)")
    print(f"{'stage':<30}{'CPU s':>8}{'µs/turn':>9}")
    for k in ("Analyzer.add", "conversations+totals", "build_ledger", "inventory", "assess",
              "hosted_state", "floor (analyzer arithmetic)", "floor (ledger arithmetic)",
              "floor (fidelity re-reads)"):
        v = best.get(k, 0.0)
        print(f"{k:<30}{v:>8.3f}{v / n * 1e6:>9.1f}")
    print(f"(fidelity re-reads {reads:,} records)")


if __name__ == "__main__":
    main()
