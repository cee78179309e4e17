"""The claims demo: the scenario recorded through the real openai SDK against the simulator.

Needs no API key and no network: the simulator runs on a free loopback port and the SDK
talks to it through the recorder (``traceview demo``, the samples, tests).
"""

from __future__ import annotations

from pathlib import Path

DEMO_KEY = "sk-traceview-demo-0000000000000000"  # not a key; the simulator accepts any


def record_claims(path: str | Path, base_url: str, *, include: bool = False,
                  stream: bool = False) -> str:
    """Run the scenario against the simulator at ``base_url`` into ``path``; returns the
    conversation id."""
    import traceview.record
    from traceview.sim.scenario import run_claims

    client = traceview.record.client(path, base_url=base_url, api_key=DEMO_KEY, max_retries=0)
    try:
        return run_claims(client, include=include, stream=stream)
    finally:
        client.close()


def record_demo(path: str | Path, *, include: bool = False, stream: bool = False) -> str:
    """Run the scenario into ``path`` on a simulator of its own; returns the conversation id."""
    from traceview.sim.server import SimServer

    with SimServer() as sim:
        return record_claims(path, sim.base_url, include=include, stream=stream)
