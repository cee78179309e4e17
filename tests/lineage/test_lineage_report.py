"""Evidence lineage in `traceview report --format json`: citations tied to the retrieval
that returned them, retrieval per hosted call, choices and settings (issue 35)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lineage.lineage_capture import records, write_capture
from tests.sdk_captures import body as sdk_body
from traceview.cli import main


@pytest.fixture
def turns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    path = write_capture(tmp_path / "case.jsonl")
    assert main(["report", str(path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["turns"]  # type: ignore[no-any-return]


def test_crafted_bodies_are_shapes_the_sdk_accepts() -> None:
    bodies = [r["body"] for r in records() if r["dir"] == "res" and
              r["body"].get("object") == "response"]
    assert len(bodies) == 5
    dropped = 0
    for b in bodies:  # every output item as the SDK types it (strict on item shapes)
        for item in b["output"]:  # but the unidentified citation, which the SDK rejects
            for part in item.get("content") or ():
                kept = [a for a in part["annotations"] if a.get("file_id", "") is not None]
                dropped += len(part["annotations"]) - len(kept)
                part["annotations"] = kept
        sdk_body("r", 1, 1, b["output"])
    assert dropped == 1


def test_each_citation_is_tied_to_the_retrieval_that_returned_it(turns: list[Any]) -> None:
    cites = turns[0]["lineage"]["citations"]
    assert [(c["type"], c["file_id"], c["source"]) for c in cites] == [
        ("file_citation", "file-policy", "retrieved"),
        ("file_citation", "file-ghost", "not_returned"),
        ("file_citation", None, "unidentified")]
    assert cites[0]["retrieved_by"] == {"turn": 1, "call": "fs_1"}
    assert cites[0]["start_index"] == 18 and cites[0]["title"] == "policy.pdf"
    assert turns[0]["markers"] == ["citation_unretrieved", "citation_unidentified"]


def test_a_citation_whose_evidence_was_not_captured_names_the_include_flag(
        turns: list[Any]) -> None:
    (cite,) = turns[1]["lineage"]["citations"]
    assert cite["source"] == "not_captured"
    assert cite["include"] == "file_search_call.results"
    assert cite["retrieved_by"] == {"turn": 2, "call": "fs_2"}
    assert "citation_unretrieved" in turns[1]["markers"]


def test_url_citations_match_search_sources_despite_tracking_parameters(
        turns: list[Any]) -> None:
    cites = turns[3]["lineage"]["citations"]
    assert [c["source"] for c in cites] == ["retrieved", "not_returned"]
    assert cites[0]["retrieved_by"] == {"turn": 4, "call": "ws_1"}


def test_retrieval_per_hosted_call(turns: list[Any]) -> None:
    (fs,) = turns[0]["lineage"]["retrieval"]
    assert fs == {"type": "file_search_call", "id": "fs_1",
                  "queries": ["accidental damage excess"],
                  "results": [{"file_id": "file-policy", "filename": "policy.pdf",
                               "score": 0.91, "vector_store": None}],
                  "sources": None, "vector_stores": ["vs_policy"], "container_id": None,
                  "include": None}
    (missing,) = turns[1]["lineage"]["retrieval"]
    assert missing["results"] is None and missing["include"] == "file_search_call.results"
    (ws,) = turns[3]["lineage"]["retrieval"]
    assert ws["queries"] == ["insurer excess"]
    assert ws["sources"] == ["https://insurer.example/excess"]


def test_tool_choice_and_its_unmet_marker(turns: list[Any]) -> None:
    assert turns[1]["lineage"]["tool_choice"] == "required"
    assert turns[1]["lineage"]["tool_choice_met"] is True  # the file search is a call
    assert turns[2]["lineage"]["tool_choice"] == "function:file_claim"
    assert turns[2]["lineage"]["tool_choice_met"] is False
    assert "tool_choice_unmet" in turns[2]["markers"]
    assert "tool_choice_unmet" not in turns[1]["markers"]


def test_sampling_settings_effort_and_notes(turns: list[Any]) -> None:
    assert turns[0]["lineage"]["sampling"] == {"temperature": 0.2, "top_p": 0.9,
                                               "seed": None, "reasoning_effort": None}
    assert "temperature (0.2) and top_p (0.9) both set" in turns[0]["lineage"]["notes"][0]
    assert turns[2]["lineage"]["sampling"]["reasoning_effort"] == "low"
    (note,) = turns[3]["lineage"]["notes"]
    assert note.startswith("seed 7 was sent on turn 2 too, served by fp_a; this turn by fp_b")
    assert turns[1]["lineage"]["notes"] == []  # the seed's first use


def test_logprobs_summary(turns: list[Any]) -> None:
    assert turns[0]["lineage"]["logprobs"] == {"tokens": 2, "mean_probability": 0.75,
                                               "min_probability": 0.5}
    assert turns[1]["lineage"]["logprobs"] is None


def test_safety_checks_and_their_acknowledgement(turns: list[Any]) -> None:
    assert turns[3]["lineage"]["safety_checks"] == [
        {"call_id": "call_cu1", "id": "sc_1", "code": "malicious_instructions",
         "acknowledged": True}]


def test_safety_check_not_acknowledged(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    recs = records()
    recs[-2]["body"]["input"][0]["acknowledged_safety_checks"] = []
    from tests.builders import write
    path = write(tmp_path / "c.jsonl", recs)
    main(["report", str(path), "--format", "json"])
    turns = json.loads(capsys.readouterr().out)["turns"]
    assert turns[3]["lineage"]["safety_checks"][0]["acknowledged"] is False


def test_case_metadata_and_no_lineage_is_null(turns: list[Any], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert turns[0]["lineage"]["case"] == {"metadata.case_id": "CS-88213"}
    from tests.builders import req, res, response, write
    path = write(tmp_path / "plain.jsonl", [req({"model": "gpt-4o-mini", "input": "hi"}),
                                            res(response("r1", 10, 2))])
    main(["report", str(path), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["turns"][0]["lineage"] is None


def test_chat_annotations_and_logprobs(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from tests.builders import write
    body = {"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": "See x",
                "annotations": [{"type": "url_citation", "url_citation": {
                    "url": "https://a.example/", "title": "A", "start_index": 4,
                    "end_index": 5}}]},
                "logprobs": {"content": [{"token": "See", "logprob": 0.0, "bytes": None,
                                          "top_logprobs": []}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}
    path = write(tmp_path / "chat.jsonl", [
        {"dir": "req", "body": {"model": "gpt-4o", "messages": [
            {"role": "user", "content": "q"}], "tool_choice": "none", "seed": 3}},
        {"dir": "res", "body": body}])
    main(["report", str(path), "--format", "json"])
    (turn,) = json.loads(capsys.readouterr().out)["turns"]
    lin = turn["lineage"]
    assert lin["citations"][0]["url"] == "https://a.example/"
    assert lin["citations"][0]["source"] == "not_returned"
    assert lin["logprobs"] == {"tokens": 1, "mean_probability": 1.0, "min_probability": 1.0}
    assert lin["tool_choice"] == "none" and lin["sampling"]["seed"] == 3
    assert turn["markers"] == ["citation_unretrieved"]
