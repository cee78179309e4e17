"""`traceview hydrate`: a capture rebuilt from response ids, against the simulator."""

from __future__ import annotations

import json
from collections.abc import Iterator

import openai
import pytest

import traceview.provider.fetch as fetch_mod
from traceview.analysis.session import analyze
from traceview.cli import main
from traceview.provider.hydrate import response_ids
from traceview.sim import SimServer
from traceview.sim.scenario import run_claims

KEY = "sk-proj-HYDRATEkey0000000000000000000000"


@pytest.fixture
def claims(monkeypatch) -> Iterator[tuple[SimServer, list[str]]]:
    with SimServer(seed="hydrate") as sim:
        client = openai.OpenAI(base_url=sim.base_url, api_key=KEY, max_retries=0)
        run_claims(client)
        ids = list(sim.state.responses)  # the four turns' response ids, in order
        monkeypatch.setenv("OPENAI_BASE_URL", sim.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield sim, ids


def test_hydrate_rebuilds_the_claims_run_from_ids_in_a_log(claims, tmp_path, monkeypatch,
                                                           capsys):
    sim, ids = claims
    assert len(ids) == 4
    log = tmp_path / "app.log"
    log.write_text("".join(f"2026-01-01 INFO turn done response_id={rid} ok\n" for rid in ids))
    monkeypatch.setattr(fetch_mod, "PAGE_LIMIT", 2)  # every listing takes several pages
    out = tmp_path / "rebuilt.jsonl"
    assert main(["hydrate", str(log), "-o", str(out)]) == 0
    assert "4 of 4 responses rebuilt" in capsys.readouterr().err
    assert KEY not in out.read_text()
    report = analyze(str(out)).to_report()
    assert report["problems"] == []
    turns = report["turns"]
    assert [t["input_tokens"] for t in turns] == [1210, 1690, 6110, 6580]
    assert all(t["request_bytes"] is None and t["elapsed_ms"] is None for t in turns)
    assert "rebuilt" in " ".join(turns[0]["notes"]) and "not a wire capture" in \
        " ".join(turns[0]["notes"])
    # every page of input_items was read; each request holds only the turn's own items,
    # the rest (earlier inputs and outputs) is carried by the chain
    records = [json.loads(line) for line in out.read_text().splitlines()]
    last_req = records[-2]
    listed = sim.api.dispatch("GET", f"/v1/responses/{ids[-1]}/input_items",
                              {"limit": ["100"], "order": ["asc"]}, None).body["data"]
    assert last_req["body"]["input"] == listed[-2:] and len(listed) == 10
    assert last_req["origin"]["carried_items"] == 8
    assert all(r["origin"]["format"] == "provider" for r in records)
    # Carried context apart from new input: the claims run's one deposit (4,001 re-billed,
    # as on the wire capture) and the other turns within a few tokens (the whole stored
    # input as the request made them read -4,843 and the like).
    assert [(t["unexplained_tokens"], "deposit" in t["markers"]) for t in turns] == [
        (None, False), (17, False), (4001, True), (10, False)]


def test_hydrate_writes_turns_in_created_order_whatever_the_order_given(claims, tmp_path,
                                                                          capsys):
    _, ids = claims
    shuffled = [ids[2], ids[0], ids[3], ids[1]]
    out = tmp_path / "rebuilt.jsonl"
    assert main(["hydrate", *shuffled, "-o", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["body"]["id"] for r in records if r["dir"] == "res"] == ids
    turns = analyze(str(out)).to_report()["turns"]
    assert not any("compaction_likely" in t["markers"] for t in turns)


def test_an_id_the_provider_no_longer_has_is_reported_not_fatal(claims, tmp_path, capsys):
    _, ids = claims
    out = tmp_path / "rebuilt.jsonl"
    assert main(["hydrate", ids[0], "resp_0000000000000000gone", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "resp_0000000000000000gone" in err and "1 of 2 responses rebuilt" in err
    assert len(out.read_text().splitlines()) == 2


def test_ids_are_found_in_any_text_once_each(tmp_path):
    export = tmp_path / "trace.json"
    export.write_text(json.dumps({"spans": [{"span_data": {"response_id": "resp_abc12345678"}},
                                            {"span_data": {"response_id": "resp_abc12345678"}},
                                            {"span_data": {"response_id": "resp_def12345678"}}]}))
    assert response_ids([str(export), "resp_zzz12345678"]) == [
        "resp_abc12345678", "resp_def12345678", "resp_zzz12345678"]


def test_no_ids_is_a_usage_error(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("nothing here")
    assert main(["hydrate", str(empty), "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "no response ids" in capsys.readouterr().err


def test_ids_can_come_from_stdin(monkeypatch):
    import io

    ids = "resp_abc12345678\nresp_def12345678 resp_abc12345678"
    monkeypatch.setattr("sys.stdin", io.StringIO(ids))
    assert response_ids(["-"]) == ["resp_abc12345678", "resp_def12345678"]
