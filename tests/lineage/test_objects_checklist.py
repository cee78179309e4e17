"""`traceview objects`: a case's deletion checklist, and `--verify --live` against the
simulator through the real SDK — present, deleted, 404, 5xx, partial (issue 35)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import traceview.record as record
import traceview.sim as sim_mod
from tests.lineage.lineage_capture import write_capture
from traceview.cli import main

CASE = "CS-88213"


def _json(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_checklist_of_a_case_lists_its_objects_with_the_calls_that_delete_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_capture(tmp_path / "case.jsonl")
    assert main(["objects", str(path), "--case", CASE, "--format", "json"]) == 1
    doc = _json(capsys)
    assert doc["turns"] == [1, 2, 3]  # the case's conversation, not turns 4-5
    ids = [(o["kind"], o["id"]) for o in doc["objects"]]
    assert ids[0] == ("conversation", "conv_case88213")
    assert ("response", "resp_4") not in ids
    assert {("response", f"resp_{n}") for n in (1, 2, 3)} <= set(ids)
    assert ("vector_store", "vs_policy") in ids
    conv = doc["objects"][0]
    assert conv["delete"] == {"http": "DELETE /v1/conversations/conv_case88213",
                              "sdk": "client.conversations.delete('conv_case88213')"}
    assert conv["state"] == "exists" and "kept until deleted" in conv["retention"]
    resp = next(o for o in doc["objects"] if o["id"] == "resp_1")
    assert resp["expires_around"] == "2025-11-08"  # created + 30 days


def test_checklist_by_conversation_and_unknown_case(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_capture(tmp_path / "case.jsonl")
    main(["objects", str(path), "--conversation", "conv_case88213", "--format", "json"])
    assert _json(capsys)["turns"] == [1, 2, 3]
    # Nothing to list is "could not do what was asked" (2), not "done with problems" (1).
    assert main(["objects", str(path), "--case", "CS-0"]) == 2
    assert capsys.readouterr().err == "traceview: no turn of case CS-0 in the capture\n"
    assert main(["objects", str(path), "--conversation", "conv_0"]) == 2
    assert capsys.readouterr().err == "traceview: no turn of conv_0 in the capture\n"
    # An empty ID matched no turn yet printed an empty checklist, exit 0.
    for flag in ("--case", "--conversation"):
        assert main(["objects", str(path), flag, ""]) == 2
        captured = capsys.readouterr()
        assert captured.err == "traceview: --case and --conversation need an ID\n"
        assert captured.out == ""


def test_containers_come_from_code_interpreter_calls(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.builders import req, res, response, write
    path = write(tmp_path / "ci.jsonl", [
        req({"model": "gpt-4.1", "input": "plot", "metadata": {"case_id": CASE},
             "tools": [{"type": "code_interpreter", "container": {"type": "auto"}}]}),
        res(response("resp_ci", 100, 10, output=[
            {"id": "ci_1", "type": "code_interpreter_call", "status": "completed",
             "code": "1", "container_id": "cntr_9", "outputs": None},
            {"id": "m", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "chart", "annotations": [
                 {"type": "container_file_citation", "container_id": "cntr_9",
                  "file_id": "cfile_1", "filename": "c.png", "start_index": 0,
                  "end_index": 5}]}]}]))])
    main(["objects", str(path), "--case", CASE, "--format", "json"])
    doc = _json(capsys)
    (cntr,) = [o for o in doc["objects"] if o["kind"] == "container"]
    assert cntr["id"] == "cntr_9"
    assert cntr["delete"]["http"] == "DELETE /v1/containers/cntr_9"
    main(["report", str(path), "--format", "json"])
    cite = _json(capsys)["turns"][0]["lineage"]["citations"][0]
    assert cite["source"] == "retrieved" and cite["retrieved_by"]["call"] == "ci_1"


def _record_case(cap: Path, sim: Any, api_key: str = "sk-test") -> dict[str, str]:
    """A case recorded through the SDK: a store, a conversation, two responses, the second
    deleted in the capture."""
    client = record.client(str(cap), base_url=sim.base_url, api_key=api_key, max_retries=0)
    vs = client.vector_stores.create(name="policy")
    conv = client.conversations.create(metadata={"case_id": CASE})
    tools: Any = [{"type": "file_search", "vector_store_ids": [vs.id]}]
    r1 = client.responses.create(model="gpt-4.1", conversation=conv.id, input="Excess?",
                                 tools=tools, include=["file_search_call.results"])
    r2 = client.responses.create(model="gpt-4.1", conversation=conv.id, input="Theft?",
                                 tools=tools)
    client.responses.delete(r2.id)  # deleted in the capture
    return {"vs": vs.id, "conv": conv.id, "r1": r1.id, "r2": r2.id}


def _verify(cap: Path, sim: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    status = main(["objects", str(cap), "--case", CASE, "--verify", "--live",
                   "--base-url", sim.base_url, "--max-retries", "0", "--format", "json"])
    return status, _json(capsys)


def test_verify_live_against_the_simulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cap = tmp_path / "case.jsonl"
    with sim_mod.SimServer() as sim:
        ids = _record_case(cap, sim)
        # Retrieval per call, recorded through the SDK: file ids, names, scores, the store.
        main(["report", str(cap), "--format", "json"])
        turns = _json(capsys)["turns"]
        (fs,) = turns[0]["lineage"]["retrieval"]
        assert fs["results"] and all(r["file_id"] and r["filename"] and
                                     r["vector_store"] == ids["vs"] for r in fs["results"])
        assert all(isinstance(r["score"], float) for r in fs["results"])
        before = hashlib.sha256(cap.read_bytes()).hexdigest()

        status, doc = _verify(cap, sim, capsys)
        live = {o["id"]: (o["capture_state"], o["live"]) for o in doc["verify"]["objects"]}
        assert live[ids["conv"]] == ("exists", "present")
        assert live[ids["r1"]] == ("exists", "present")
        assert live[ids["r2"]] == ("deleted", "gone")  # deleted, and the provider says 404
        assert doc["verify"]["verdict"] == "partial" and status == 1
        sidecar = Path(doc["sidecar"])
        assert sidecar.parent == cap.parent and sidecar.name.startswith(
            "case.jsonl.objects-verify-")
        assert json.loads(sidecar.read_text())["verify"]["counts"] == doc["verify"]["counts"]
        assert hashlib.sha256(cap.read_bytes()).hexdigest() == before  # never the capture
        sidecar.unlink()

        # 5xx: not answered is never counted as gone.
        sim.inject(status=503, path="/v1/vector_stores/", times=1)
        for key in ("conv", "r1"):
            path = "conversations" if key == "conv" else "responses"
            _delete(sim, path, ids[key])
        status, doc = _verify(cap, sim, capsys)
        vs = next(o for o in doc["verify"]["objects"] if o["id"] == ids["vs"])
        assert vs["live"] == "error" and vs["http_status"] == 503 and "503" in vs["error"]
        assert doc["verify"]["verdict"] == "partial" and status == 1
        Path(doc["sidecar"]).unlink()

        _delete(sim, "vector_stores", ids["vs"])
        status, doc = _verify(cap, sim, capsys)
    assert doc["verify"]["counts"] == {"present": 0, "gone": len(doc["objects"]),
                                       "error": 0}
    assert doc["verify"]["verdict"] == "verified" and status == 0


def _delete(sim: Any, path: str, oid: str) -> None:
    """Delete through the SDK, not recorded (as another tool would)."""
    import openai
    client = openai.OpenAI(api_key="sk-test", base_url=sim.base_url, max_retries=0)
    getattr(client, path).delete(oid)


def test_verify_needs_live(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_capture(tmp_path / "case.jsonl")
    assert main(["objects", str(path), "--verify"]) == 2
    assert "--verify and --live go together" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [path]
