"""The proxy writes its records just after the relay (record/backlog.py): in order, whole
lines, bounded, and nothing lost when it stops (lifespan end, recorder close, SIGTERM)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.record.conftest import proxy_process, read_records
from traceview.record.backlog import RecordBacklog
from traceview.record.proxy import RecordingProxy
from traceview.record.recorder import Recorder
from traceview.sim import SimServer


def _exchange(recorder: Recorder, n: int) -> None:
    link = recorder.request("POST", "/v1/responses", b'{"input":"%d"}' % n,
                            "application/json", None)
    recorder.response(link, status_code=200, elapsed_ms=1, raw=b'{"n":%d}' % n,
                      content_type="application/json", headers={}, stream=False)


def test_records_wait_for_the_step_then_go_in_order(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    recorder = Recorder(out)

    async def main() -> list[int]:
        recorder.backlog = RecordBacklog(asyncio.get_running_loop())
        for n in range(3):
            _exchange(recorder, n)
        during = len(out.read_bytes().splitlines())  # still this step: nothing written
        await asyncio.sleep(0)  # the step ends: the backlog runs
        return [during, len(read_records(out))]

    assert asyncio.run(main()) == [0, 6]
    records = read_records(out)
    assert [r["dir"] for r in records] == ["req", "res"] * 3
    assert [r["body"].get("n", r["body"].get("input")) for r in records] == [
        "0", 0, "1", 1, "2", 2]
    assert all(records[i]["id"] == records[i + 1]["id"] for i in range(0, 6, 2))


def test_a_full_backlog_is_written_at_once_in_order(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    recorder = Recorder(out)

    async def main() -> int:
        recorder.backlog = RecordBacklog(asyncio.get_running_loop(), max_records=3,
                                         max_bytes=1 << 20)
        _exchange(recorder, 0)
        _exchange(recorder, 1)  # the fourth record: past three waiting, all four written
        return len(recorder.backlog)

    assert asyncio.run(main()) == 0
    assert [r["dir"] for r in read_records(out)] == ["req", "res"] * 2


def test_a_stopping_proxy_writes_what_waits(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    recorder = Recorder(out)
    app = RecordingProxy(recorder, "http://127.0.0.1:9/v1")

    async def main() -> tuple[int, int]:
        app._upstream()  # the backlog of this loop, as on the first request
        for n in range(2):
            _exchange(recorder, n)
        waiting = len(recorder.backlog or ())
        await app.aclose()  # the lifespan's end: written before it returns
        return waiting, len(out.read_bytes().splitlines())

    assert asyncio.run(main()) == (4, 4)
    assert [r["dir"] for r in read_records(out)] == ["req", "res"] * 2
    assert recorder.backlog is None  # later records are written at once


def test_closing_the_recorder_writes_what_waits(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    recorder = Recorder(out)

    async def main() -> None:
        recorder.backlog = RecordBacklog(asyncio.get_running_loop())
        _exchange(recorder, 0)
        recorder.close()

    asyncio.run(main())
    assert [r["dir"] for r in read_records(out)] == ["req", "res"]


def test_sigterm_stops_the_proxy_with_every_record_written(tmp_path: Path) -> None:
    out = tmp_path / "term.jsonl"
    with SimServer() as sim:
        with proxy_process(out, sim.base_url, signal.SIGTERM) as (proc, client):
            for n in range(20):
                client.responses.create(model="gpt-4.1", input=f"task {n}")
            with client.responses.create(model="gpt-4.1", input="s", stream=True) as stream:
                kinds = [event.type for event in stream]
        # uvicorn shuts down gracefully, then dies of the signal it caught, as told to
        assert proc.wait(30) in (0, -signal.SIGTERM)
    records = read_records(out)
    assert [r["dir"] for r in records] == ["req", "res"] * 21
    assert [e["type"] for e in records[-1]["events"]] == kinds
