"""`traceview ab`: its own work per call, beyond the SDK call (target ≤ 2 ms).

Runs an experiment against the loopback simulator (latency model off: nothing is
slept) and splits the wall time of the run into
  * the SDK calls (timed by the runner around each ``responses.create``, and here around
    B's ``conversations.create``),
  * arm A's state work (its SQLite store and the message array; measured and reported
    apart, as DESIGN.md asks, not hidden in either figure),
  * the runner's own work: everything else (ledger, manifest after every unit,
    progress, bookkeeping), per call.
Prints the per-call figures, their ratio to the median SDK call, and peak RSS.

    python bench/ab_overhead.py                 # 12 conversations × 3 runs × 2 arms
    python bench/ab_overhead.py --runs 10
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sample", type=int, default=12)
    args = ap.parse_args()

    import traceview.record
    from traceview.experiment.demo import DEMO_MODEL, record_source
    from traceview.experiment.steps import PlanRequest, execute, make_clients, plan_manifest
    from traceview.sim import corpus
    from traceview.sim.demo import DEMO_KEY
    from traceview.sim.server import SimServer

    with tempfile.TemporaryDirectory() as tmp, SimServer(seed="bench") as sim:
        base = Path(tmp)
        source = base / "source.jsonl"
        with traceview.record.client(source, base_url=sim.base_url, api_key=DEMO_KEY,
                                     max_retries=0) as client:
            record_source(source, client)
        docs = base / "docs"
        docs.mkdir()
        (docs / "policy.md").write_text(corpus.policy_text(), encoding="utf-8")
        request = PlanRequest(model=DEMO_MODEL, source=[str(source)], sample=args.sample,
                              runs=args.runs, seed=1, docs=str(docs), keep=True)
        m = plan_manifest(request, io.StringIO())
        assert isinstance(m, dict)
        out = base / "out"
        out.mkdir()
        clients = make_clients(out, sim.base_url, 0, api_key=DEMO_KEY)
        # Time B's conversation creation too: an SDK call, not the runner's work.
        handles: list[float] = []
        create = clients["B"].conversations.create

        def timed_create(*a, **kw):
            t0 = time.perf_counter()
            try:
                return create(*a, **kw)
            finally:
                handles.append((time.perf_counter() - t0) * 1000)

        clients["B"].conversations.create = timed_create
        setup = []
        t0 = time.perf_counter()
        from traceview.experiment import command

        real_setup = command.setup_retrieval

        def timed_setup(*a, **kw):
            s = time.perf_counter()
            real_setup(*a, **kw)
            setup.append((time.perf_counter() - s) * 1000)

        command.setup_retrieval = timed_setup
        execute(out, m, [docs / "policy.md"], clients, progress=None)
        wall = (time.perf_counter() - t0) * 1000
        lines = [json.loads(x) for x in (out / "ledger.jsonl").read_text().splitlines()]
        for c in clients.values():
            c.close()

    calls = len(lines)
    sdk = sum(x["call_ms"] for x in lines) + sum(handles) + sum(setup)
    state = sum(x["state_ms"] for x in lines)
    own = wall - sdk - state
    median_call = statistics.median(x["call_ms"] for x in lines)
    a_calls = sum(1 for x in lines if x["arm"] == "A")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"ab against the simulator: {calls} calls ({len(m['order'])} units), "
          f"wall {wall:,.0f} ms")
    print(f"  SDK calls           {sdk:9,.1f} ms   median call {median_call:.2f} ms "
          "(the bare cost)")
    print(f"  A's state work      {state:9,.1f} ms   {state / max(a_calls, 1):.3f} ms per A call "
          "(store read + message array + store write; reported, not hidden)")
    print(f"  runner's own work   {own:9,.1f} ms   {own / calls:.3f} ms per call "
          f"= {own / calls / median_call:.2f}× the median SDK call   target ≤ 2 ms per call")
    print(f"  peak RSS            {rss:,.0f} MB")
    return 0 if own / calls <= 2.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
