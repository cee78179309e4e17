"""The ab runner against the simulator, through the real openai SDK over loopback."""

from __future__ import annotations

import io
import json
import threading
from collections import Counter
from pathlib import Path

import pytest

import traceview.record
from traceview.analysis import analyze
from traceview.analysis.compare import compare
from traceview.analysis.compare_arms import load_arms
from traceview.experiment import manifest as mf
from traceview.experiment.arms import simulated_clock
from traceview.experiment.demo import DEMO_MODEL, record_source
from traceview.experiment.steps import PlanRequest, execute, make_clients, plan_manifest
from traceview.sim import corpus
from traceview.sim.demo import DEMO_KEY
from traceview.sim.latency import LatencyModel
from traceview.sim.server import SimServer


@pytest.fixture(scope="module")
def ab_sim():
    with SimServer(seed="ab-test", latency=LatencyModel(seed=1), stateless_cache=True) as s:
        yield s


@pytest.fixture(scope="module")
def source(tmp_path_factory, ab_sim) -> Path:
    path = tmp_path_factory.mktemp("source") / "source.jsonl"
    with traceview.record.client(path, base_url=ab_sim.base_url, api_key=DEMO_KEY,
                                 max_retries=0) as client:
        record_source(path, client)
    return path


@pytest.fixture
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "policy.md").write_text(corpus.policy_text(), encoding="utf-8")
    return folder


def plan(source: Path, docs: Path, *, sample: int = 4, runs: int = 2) -> dict:
    request = PlanRequest(model=DEMO_MODEL, source=[str(source)], sample=sample, runs=runs,
                          seed=5, docs=str(docs))
    m = plan_manifest(request, io.StringIO())
    assert isinstance(m, dict)
    return m


def play(folder: Path, m: dict, ab_sim: SimServer, docs: Path, **kw) -> dict:
    folder.mkdir(exist_ok=True)
    clients = make_clients(folder, ab_sim.base_url, 0, api_key=DEMO_KEY, clock=simulated_clock())
    try:
        execute(folder, m, sorted(docs.iterdir()), clients, progress=None, **kw)
    finally:
        for c in clients.values():
            c.close()
    return m


def turns_by_unit(m: dict) -> dict[str, int]:
    turns = {c["key"]: len(c["user_messages"]) for c in m["sample"]}
    return {tag: turns[tag.split(":", 1)[1].rsplit(":", 1)[0]] for tag in m["order"]}


def ledger(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "ledger.jsonl").read_text().splitlines()]


def whole(folder: Path, m: dict) -> None:
    """Every record pairs up, and the arms hold exactly the finished units' turns."""
    per_unit = turns_by_unit(m)
    for arm in ("A", "B"):
        a = analyze(str(folder / f"{arm}.jsonl"))
        assert not a.problems
        assert not any(set(t.markers) & {"request_only", "response_only"} for t in a.turns)
        expected = sum(per_unit[t] for t in m["completed"] if t.startswith(arm + ":"))
        assert len(a.turns) == expected
    assert len(ledger(folder)) == sum(per_unit[t] for t in m["completed"])


def test_both_arms_run_through_the_sdk_as_specified(tmp_path, ab_sim, source, docs):
    out = tmp_path / "out"
    m = play(out, plan(source, docs), ab_sim, docs)
    assert m["status"] == "complete" and not m["failed"]
    whole(out, m)
    a, b = analyze(str(out / "A.jsonl")), analyze(str(out / "B.jsonl"))
    # A: no handle, no tools, its own transcript resent (2 items per earlier turn).
    assert all(t.conversation is None and t.tools_offered == [] for t in a.turns)
    bodies = [a.capture.read(t.request_ref)["body"] for t in a.turns]
    lines = ledger(out)
    a_lines = [x for x in lines if x["arm"] == "A"]
    for body, line in zip(bodies, a_lines, strict=True):
        users = [i for i in body["input"] if i["role"] == "user"]
        assert len(users) == line["turn"]
        assert body["instructions"] == m["sample"][0]["instructions"]
    # B: a conversation handle, one message, hosted file_search over the store it made.
    assert all(t.conversation and t.tools_offered == ["file_search"] for t in b.turns)
    endpoints = Counter(e.endpoint for e in b.capture.exchanges)
    assert endpoints["POST /v1/vector_stores"] == 1
    assert endpoints[f"DELETE /v1/vector_stores/{m['vector_store']}"] == 1
    assert m["deleted"] is True and not getattr(ab_sim.state, "vector_stores", {})
    # Interleaved: the ledger alternates A then B unit by unit, in the planned order.
    units = []
    for x in lines:
        tag = f"{x['arm']}:{x['conversation']}:{x['run']}"
        if not units or units[-1] != tag:
            units.append(tag)
    assert units == m["order"]
    # Latency at the caller = A's state work + the SDK call + the simulated time.
    for x in lines:
        assert x["latency_ms"] == pytest.approx(x["state_ms"] + x["call_ms"]
                                                + x["simulated_ms"], abs=0.01)


def test_a_stop_between_units_leaves_whole_captures_and_resume_finishes(
        tmp_path, ab_sim, source, docs):
    out = tmp_path / "out"
    stop = threading.Event()
    calls = []

    def after(call):
        calls.append(call)
        if len(calls) == 3:
            stop.set()  # what the first Ctrl-C does

    m = play(out, plan(source, docs), ab_sim, docs, stop=stop, after_call=after)
    assert m["status"] == "partial" and 0 < len(m["completed"]) < len(m["order"])
    assert m["vector_store"] and "deleted" not in m  # kept for the resume
    whole(out, m)
    a, b, _ = load_arms([str(out)])
    assert any("the run is partial" in w for w in compare(a, b, resamples=50)["warnings"])
    resumed = play(out, mf.read(out), ab_sim, docs)
    assert resumed["status"] == "complete"
    whole(out, resumed)
    assert len(resumed["sessions"]) == 2
    a, b, _ = load_arms([str(out)])
    assert not any("partial" in w for w in compare(a, b, resamples=50)["warnings"])


def test_an_interrupt_inside_a_unit_is_cut_back_and_resume_finishes(
        tmp_path, ab_sim, source, docs):
    out = tmp_path / "out"
    m0 = plan(source, docs)
    per_unit = turns_by_unit(m0)
    first_long = next(i for i, t in enumerate(m0["order"]) if per_unit[t] >= 2)
    k = sum(per_unit[t] for t in m0["order"][:first_long]) + 1  # its first turn

    def after(call):
        after.n += 1
        if after.n == k:
            raise KeyboardInterrupt  # a second Ctrl-C, mid-conversation

    after.n = 0
    m = play(out, m0, ab_sim, docs, after_call=after)
    assert m["status"] == "partial" and len(m["completed"]) == first_long
    assert any(n.startswith("cut ") for n in m["notes"])
    whole(out, m)
    resumed = play(out, mf.read(out), ab_sim, docs)
    assert resumed["status"] == "complete"
    whole(out, resumed)


def test_a_run_killed_outright_resumes_from_its_journal(tmp_path, ab_sim, source, docs):
    out = tmp_path / "out"
    m0 = plan(source, docs)
    started = json.loads(json.dumps(m0))
    stop = threading.Event()

    def after(call):
        after.n += 1
        if after.n == 4:
            stop.set()

    after.n = 0
    m = play(out, m0, ab_sim, docs, stop=stop, after_call=after)
    done = list(m["completed"])
    assert done
    # As if the process had been killed: no final manifest, and a torn unit at the end.
    started["vector_store"], started["files"] = m["vector_store"], m["files"]
    mf.write(out, started)
    with open(out / "A.jsonl", "ab") as handle:
        handle.write(b'{"dir":"req","id":"rec_torn","body":{"model":"x"}}\n')
    replayed = []
    resumed = play(out, mf.read(out), ab_sim, docs, after_call=replayed.append)
    assert resumed["status"] == "complete"
    assert resumed["completed"][: len(done)] == done
    assert not {f"{c.arm}:{c.conversation}:{c.run}" for c in replayed} & set(done)
    whole(out, resumed)
