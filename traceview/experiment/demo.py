"""``traceview demo --ab``: a small experiment against the simulator, then its comparison.

No key, no network. A "production" capture is recorded first (conversations of one to
four turns, stateless, as an application that owns its state writes them), then the
experiment samples it and plays both arms on a simulator with its latency model on:
latencies are *simulated* (reported by the simulator, not slept) and every output says
so. The retrieval documents are the simulator's bundled policy wording.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, TextIO

from traceview.sim.demo import DEMO_KEY

DEMO_MODEL = "gpt-4.1-2025-04-14"
INSTRUCTIONS = (
    "You are Claire, the claims assistant for Harbour Mutual home contents insurance. Answer "
    "from the policy wording. Say what is and is not covered, name the section you rely on and "
    "state the excess. Never promise a claim will be paid: the handler decides."
)
# The production conversations: user messages in order (turn counts 1–4).
CONVERSATIONS: tuple[tuple[str, ...], ...] = (
    ("What's the excess I would pay on an escape of water claim?",),
    ("Hello, I want to change the address on my account.",),
    ("Is accidental damage covered for a cracked television screen?",),
    ("Thanks for your help earlier.",),
    ("Can I pay monthly instead of annually?",),
    ("Our washing machine leaked and soaked the kitchen rug. Can I start a claim?",
     "Is accidental damage covered for the rug?"),
    ("My bike was stolen from the garden shed last night.",
     "Are personal possessions covered away from the home too?"),
    ("I need to report a burst pipe in the loft.",
     "Thanks. How long will the handler take to call me back?"),
    ("A storm blew tiles off the roof and rain came through the ceiling.",
     "What's the excess for storm damage?",
     "Which receipts and photos should I send for the damaged carpet?"),
    ("Someone broke in and took my laptop and jewellery.",
     "Is there a limit for jewellery?",
     "Do you need the police crime reference number?"),
    ("I spilled paint on the living room carpet.",
     "Is accidental damage covered for carpets?",
     "Will you settle by replacing the carpet or paying cash?",
     "Please summarise what I need to do next."),
    ("I want to cancel my policy.",
     "Is there a fee if I cancel mid-term?",
     "Will I get a refund for the months left?",
     "OK, please go ahead and confirm by email."),
)


def record_source(path: Path, client: Any) -> None:
    """The production capture: each conversation resends its transcript (owned state)."""
    for messages in CONVERSATIONS:
        history: list[dict[str, str]] = []
        for text in messages:
            history.append({"role": "user", "content": text})
            resp = client.responses.create(model=DEMO_MODEL, instructions=INSTRUCTIONS,
                                           input=list(history))
            history.append({"role": "assistant", "content": resp.output_text})


def run_ab_demo(folder: Path, *, sample: int = 8, runs: int = 2, seed: int = 7,
                progress: TextIO | None = None, stop: threading.Event | None = None,
                after_call: Any = None, resume: bool = False) -> dict[str, Any]:
    """Record the source and run the experiment into ``folder``; returns the manifest."""
    import io

    import traceview.record
    from traceview.experiment import manifest as mf
    from traceview.experiment.arms import simulated_clock
    from traceview.experiment.steps import PlanRequest, execute, make_clients, plan_manifest
    from traceview.sim import corpus
    from traceview.sim.latency import LatencyModel
    from traceview.sim.server import SimServer

    folder.mkdir(parents=True, exist_ok=True)
    docs = folder / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "policy.md").write_text(corpus.policy_text(), encoding="utf-8")
    source = folder / "source.jsonl"
    with SimServer(seed="ab-demo", latency=LatencyModel(seed=seed),
                   stateless_cache=True) as sim:
        if not resume:
            with traceview.record.client(source, base_url=sim.base_url, api_key=DEMO_KEY,
                                         max_retries=0) as client:
                record_source(source, client)
            request = PlanRequest(model=DEMO_MODEL, source=[str(source)], sample=sample,
                                  runs=runs, seed=seed, docs=str(docs))
            planned = plan_manifest(request, progress or io.StringIO())
            assert planned is not None  # not a dry run
            m = planned
            m["latency"] = "simulated"
            m["options"]["base_url"] = "simulator (loopback)"
        else:
            m = mf.read(folder)
        clients = make_clients(folder, sim.base_url, 0, api_key=DEMO_KEY,
                               clock=simulated_clock())
        try:
            execute(folder, m, [docs / "policy.md"], clients, stop=stop, progress=progress,
                    after_call=after_call)
        finally:
            for c in clients.values():
                c.close()
    return m
