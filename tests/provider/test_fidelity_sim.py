"""Replay fidelity where the provider must answer: the simulator, the real SDK, real HTTP.

The claims samples are re-recorded against a simulator with the samples' seed (the bytes
equal the committed files), so the verdicts here are the samples' verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import traceview.record as record
from tests.fixtures_shared import SAMPLES
from traceview.cli import main
from traceview.sim import SimServer
from traceview.sim.scenario import run_claims

SEED = "traceview-sample-CS-88213"
TOOLS = [{"type": "file_search", "vector_store_ids": ["vs_1"]}]


def _record_claims(sim: SimServer, path: Path, include: bool) -> None:
    rec = record.Recorder(path, clock=record.FrozenClock(),
                          link_ids=record.counter_links(deterministic=True))
    client = record.client(rec, base_url=sim.base_url, api_key="sk-sample-0000000000000000",
                           max_retries=0)
    try:
        run_claims(client, include=include)
    finally:
        client.close()
        rec.close()


@pytest.fixture
def claims_sim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
               ) -> Iterator[tuple[SimServer, Path]]:
    """A simulator holding the claims conversation, and the capture of it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    yield from _claims(tmp_path, include=True)


def _claims(tmp_path: Path, include: bool) -> Iterator[tuple[SimServer, Path]]:
    with SimServer(seed=SEED) as sim:
        cap = tmp_path / ("claims_included.jsonl" if include else "claims.jsonl")
        _record_claims(sim, cap, include)
        yield sim, cap


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict]:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def test_claims_included_replays_live(claims_sim: tuple[SimServer, Path],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    sim, cap = claims_sim
    assert cap.read_bytes() == (SAMPLES / "claims_included.jsonl").read_bytes()
    code, doc = _json(capsys, ["fidelity", str(cap), "--live", "--base-url", sim.base_url,
                               "--format", "json"])
    [score] = doc["scores"]
    assert score["label"] == "now: live" and score["score_pct"] == 100.0 and code == 0
    [v] = score["verdicts"]
    assert v["status"] == "replays" and v["mode"] == "hosted" and v["final_turn"] == 4
    assert v["rebuilt_sha256"] == v["received_sha256"]
    # the system note, three turns in and out (+ a file search), a note, the last ask
    assert v["received_items"] == 10


def test_claims_without_include_does_not_replay_live(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for sim, cap in _claims(tmp_path, include=False):
        assert cap.read_bytes() == (SAMPLES / "claims.jsonl").read_bytes()
        code, doc = _json(capsys, ["fidelity", str(cap), "--live", "--base-url", sim.base_url,
                                   "--format", "json"])
    [v] = doc["scores"][0]["verdicts"]
    assert code == 1 and v["status"] == "fails" and v["reason"] == "evidence_missing"
    assert 'include=["file_search_call.results"]' in v["detail"]
    # the provider's copy was read and really differs from the rebuild
    assert v["received_sha256"] and v["received_sha256"] != v["rebuilt_sha256"]


def test_fetch_saves_input_items_and_a_later_404_is_expired_with_the_snapshot_date(
        claims_sim: tuple[SimServer, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    sim, cap = claims_sim
    snap = tmp_path / "snap.json"
    assert main(["fetch", str(cap), "-o", str(snap), "--base-url", sim.base_url]) == 0
    capsys.readouterr()
    saved = json.loads(snap.read_text())
    assert saved["input_items"]["complete"] is True
    assert saved["input_items"]["item_count"] == 10
    # offline, from the snapshot alone
    code, doc = _json(capsys, ["fidelity", str(cap), "--items", str(snap), "--format", "json"])
    [then] = doc["scores"]
    assert then["label"].startswith("then: snapshot taken ") and then["score_pct"] == 100.0
    # the provider's copy goes away (retention ended): live now says expired, dated
    final = then["verdicts"][0]["final_response"]
    with sim.state.lock:
        del sim.state.responses[final]
    code, doc = _json(capsys, ["fidelity", str(cap), "--items", str(snap), "--live",
                               "--base-url", sim.base_url, "--format", "json"])
    then, now = doc["scores"]
    assert then["verdicts"][0]["status"] == "replays"
    [v] = now["verdicts"]
    assert v["status"] == "fails" and v["reason"] == "expired"
    assert f"the snapshot taken {saved['input_items']['fetched_at']} still held 10" in v["detail"]
    assert code == 1


def test_input_items_listing_reads_every_page(claims_sim: tuple[SimServer, Path]) -> None:
    import openai

    from traceview.provider.fetch import fetch_input_items

    sim, cap = claims_sim
    client = openai.OpenAI(base_url=sim.base_url, api_key="sk-test", max_retries=0)
    with sim.state.lock:
        rid = list(sim.state.responses)[-1]
    import traceview.provider.fetch as fetch_mod

    old = fetch_mod.PAGE_LIMIT
    fetch_mod.PAGE_LIMIT = 4
    try:
        copy = fetch_input_items(client, rid)
    finally:
        fetch_mod.PAGE_LIMIT = old
        client.close()
    assert copy.pages == 3 and copy.complete and copy.item_count == 10
    assert len({i["id"] for i in copy.items}) == 10


def test_conversation_deleted_in_the_capture_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cap = tmp_path / "deleted.jsonl"
    with SimServer() as sim:
        client = record.client(str(cap), base_url=sim.base_url, api_key="sk-test",
                               max_retries=0)
        conv = client.conversations.create()
        for q in ["My washing machine broke", "What's the excess?"]:
            client.responses.create(model="gpt-4.1", conversation=conv.id, input=q)
        client.conversations.delete(conv.id)
        client.close()
        code, doc = _json(capsys, ["fidelity", str(cap), "--live", "--base-url", sim.base_url,
                                   "--format", "json"])
        report_code = main(["report", str(cap), "--format", "json", "--explain"])
        report = json.loads(capsys.readouterr().out)
        diff_code = main(["diff", str(cap), "--live", "--base-url", sim.base_url])
        diff_err = capsys.readouterr().err
    [v] = doc["scores"][0]["verdicts"]
    assert v["reason"] == "deleted" and "provider copy deleted (line 7)" in v["detail"]
    assert report_code == 0
    [obj] = [o for o in report["objects"]["objects"] if o["kind"] == "conversation"]
    assert obj["state"] == "deleted" and obj["deleted_line"] == 7 and obj["created_line"] == 1
    notes = [t["provider_copy"] for t in report["turns"]]
    assert all(n and n["line"] == 7 for n in notes)
    assert any("provider copy deleted (line 7)" in s for s in report["turns"][0]["explanation"])
    assert diff_code == 2 and "provider copy deleted (line 7)" in diff_err


def test_bad_input_is_a_message_and_exit_2_never_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["fidelity", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err
    snap = tmp_path / "old.json"
    snap.write_text('{"schema": "traceview.snapshot/1", "items": []}')
    claims = str(SAMPLES / "claims.jsonl")
    assert main(["fidelity", claims, "--items", str(snap)]) == 2
    # what to do, in the present tense (it said "which now saves it": project history)
    assert capsys.readouterr().err == (
        f"traceview fidelity: {snap}: this snapshot holds no input_items listing; take one "
        "that does with `traceview fetch CAPTURE -o FILE` (it saves the final response's "
        "input items), or read them from the provider with --live\n")
    assert main(["fidelity", claims, "--live", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "no API key" in capsys.readouterr().err


def test_fidelity_text_of_a_hostile_capture_is_literal_and_redacted(
        capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("text", "markdown", "json"):
        main(["fidelity", str(SAMPLES / "hostile.jsonl"), "--format", fmt])
        out = capsys.readouterr().out
        assert "\x1b" not in out and "sk-proj-FAKEKEY" not in out


def test_items_added_by_another_client_make_the_hashes_differ(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import openai

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cap = tmp_path / "outside.jsonl"
    with SimServer() as sim:
        recorded = record.client(str(cap), base_url=sim.base_url, api_key="sk-test",
                                 max_retries=0)
        other = openai.OpenAI(base_url=sim.base_url, api_key="sk-test", max_retries=0)
        conv = recorded.conversations.create()
        recorded.responses.create(model="gpt-4.1", conversation=conv.id, input="Hello")
        # another client writes to the same conversation; the capture never sees it
        other.conversations.items.create(conv.id, items=[
            {"type": "message", "role": "user", "content": "note from the CRM"}])
        recorded.responses.create(model="gpt-4.1", conversation=conv.id, input="And now?")
        recorded.close()
        other.close()
        code, doc = _json(capsys, ["fidelity", str(cap), "--live", "--base-url", sim.base_url,
                                   "--format", "json"])
    [v] = doc["scores"][0]["verdicts"]
    assert code == 1 and (v["status"], v["reason"]) == ("fails", "outside_capture")
    assert v["received_items"] == v["rebuilt_items"] + 1
    assert v["received_sha256"] != v["rebuilt_sha256"]


def test_objects_of_a_recorded_upload_vector_store_and_their_deletion(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import openai

    cap = tmp_path / "objects.jsonl"
    with SimServer() as sim:
        client = record.client(str(cap), base_url=sim.base_url, api_key="sk-test",
                               max_retries=0)
        f = client.files.create(file=("policy.md", b"# Policy\nEscape of water..."),
                                purpose="assistants")
        vs = client.vector_stores.create(name="claims policy", file_ids=[f.id])
        client.responses.create(model="gpt-4.1", input="Is a leak covered?",
                                tools=[{"type": "file_search", "vector_store_ids": [vs.id]}])
        client.vector_stores.delete(vs.id)
        client.files.delete(f.id)
        with pytest.raises(openai.NotFoundError):
            client.vector_stores.retrieve(vs.id)
        client.close()
    assert main(["report", str(cap), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["objects"]
    by_id = {o["id"]: o for o in doc["objects"]}
    store, upload = by_id[vs.id], by_id[f.id]
    assert (store["created_line"], store["deleted_line"], store["missing_line"]) == (3, 7, 11)
    assert store["name"] == "claims policy" and store["turns"] == [1]
    assert store["state"] == "deleted" and store["expiry"] == "provider copy deleted (line 7)"
    assert (upload["created_line"], upload["deleted_line"]) == (1, 9)
    assert upload["name"] == "policy.md"
