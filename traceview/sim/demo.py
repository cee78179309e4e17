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
    import openai

    import traceview.record
    from traceview.record.recorder import Recorder
    from traceview.sim.scenario import run_claims

    # strict: the capture is what the demo makes, so a record that cannot be written (a
    # full disk) fails it with the OSError; an application's recorder only warns.
    recorder = Recorder(path, strict=True)
    client = traceview.record.client(recorder, base_url=base_url, api_key=DEMO_KEY,
                                     max_retries=0)
    try:
        return run_claims(client, include=include, stream=stream)
    except openai.APIConnectionError as exc:
        if isinstance(exc.__cause__, OSError):  # the SDK wraps what its transport raised
            raise exc.__cause__ from None
        raise
    finally:
        client.close()
        recorder.close()


def record_demo(path: str | Path, *, include: bool = False, stream: bool = False) -> str:
    """Run the scenario into ``path`` on a simulator of its own; returns the conversation id."""
    from traceview.sim.server import SimServer

    with SimServer() as sim:
        return record_claims(path, sim.base_url, include=include, stream=stream)
