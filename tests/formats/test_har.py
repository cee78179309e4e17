"""HAR import: the provider calls in a HAR become the capture the recorder would have written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from tests.formats.har_writer import HarTransport, har_document
from traceview.analysis.session import analyze
from traceview.capture.capture import load
from traceview.record import FrozenClock, Recorder, RecordingTransport, counter_links
from traceview.sim import SimServer
from traceview.sim.scenario import run_claims

KEY = "sk-proj-HARTESTkey000000000000000000000"


def _claims(tmp_path: Path, *, stream: bool) -> tuple[Path, Path]:
    """The claims run once, recorded by the recorder and by a HAR of the same exchanges."""
    capture = tmp_path / "claims.jsonl"
    recorder = Recorder(capture, clock=FrozenClock(), link_ids=counter_links(deterministic=True))
    har = HarTransport(httpx2.HTTPTransport())
    with SimServer(seed="har") as sim:
        client = openai.OpenAI(base_url=sim.base_url, api_key=KEY, max_retries=0,
                               http_client=httpx2.Client(
                                   transport=RecordingTransport(recorder, har)))
        run_claims(client, stream=stream)
        client.close()
    path = tmp_path / "claims.har"
    path.write_text(json.dumps(har_document(har.entries), indent=2))
    return capture, path


def _numbers(report: dict[str, Any]) -> dict[str, Any]:
    # an imported turn says where it came from; its source is the HAR's name
    drop = {"notes", "explanation", "source"}
    return {"turns": [{k: v for k, v in t.items() if k not in drop} for t in report["turns"]],
            "totals": report["totals"],
            "conversations": [{k: v for k, v in c.items() if k not in drop}
                              for c in report["conversations"]],
            "exchanges": report["exchanges"]}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse-base64"])
def test_har_of_the_claims_run_reproduces_the_recorders_report(tmp_path, stream):
    capture, har = _claims(tmp_path, stream=stream)
    recorded = analyze(str(capture)).to_report()
    imported = analyze(str(har)).to_report()
    assert imported["problems"] == [] and recorded["problems"] == []
    assert _numbers(imported) == _numbers(recorded)
    # pinned: the claims scenario's billed input, turn by turn, and the deposit on turn 3
    assert [t["input_tokens"] for t in imported["turns"]] == [1210, 1690, 6110, 6580]
    assert "deposit" in imported["turns"][2]["markers"]
    assert imported["imports"] == [{
        "source": str(har), "format": "har", "provider_calls": 6, "ignored": 2,
        "ignored_kinds": {"not a provider call": 2}, "cannot_carry": []}]
    assert imported["turns"][0]["notes"][0].startswith("imported from HAR, entry 3")


def test_har_bodies_are_exact_and_keys_never_leak(tmp_path):
    capture, har = _claims(tmp_path, stream=True)
    cap = load(str(har))
    turn = cap.turns[0]
    req = cap.read(turn.request)
    assert req is not None and req["endpoint"] == "POST /v1/responses"
    entry = json.loads(har.read_text())["log"]["entries"][2]
    assert req["bytes"] == len(entry["request"]["postData"]["text"].encode())
    res = cap.read(turn.response)
    assert res is not None and res["events"][-1]["type"] == "response.completed"
    assert res["body"] == res["events"][-1]["response"]
    assert res["status_code"] == 200 and res["headers"]["x-request-id"].startswith("req_")
    assert KEY not in har.read_text()


def test_a_har_without_provider_calls_is_one_problem(tmp_path):
    path = tmp_path / "browse.har"
    path.write_text(json.dumps(har_document([]), indent=2))
    report = analyze(str(path)).to_report()
    assert [p["kind"] for p in report["problems"]] == ["no_provider_calls"]
    assert "this is a HAR file with 0 provider calls (2 other entries ignored)" in \
        report["problems"][0]["message"]
    assert report["turns"] == []
