"""Issue 5's "done when", against the simulator and through the recorder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import traceview.record as record  # noqa: E402
import traceview.sim as sim_mod  # noqa: E402
from traceview.cli import main

TOOLS = [{"type": "file_search", "vector_store_ids": ["vs_1"]}]


def test_recorded_conversation_vs_sim_then_after_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cap = tmp_path / "capture.jsonl"
    with sim_mod.SimServer() as sim:
        client = record.client(str(cap), base_url=sim.base_url, api_key="sk-test",
                               max_retries=0)
        conv = client.conversations.create()
        for q in ["My washing machine broke", "Is accidental damage covered?",
                  "What's the excess?"]:
            client.responses.create(model="gpt-4.1", conversation=conv.id, input=q, tools=TOOLS)
        args = ["diff", str(cap), "--live", "--base-url", sim.base_url, "--format", "json"]
        assert main(args) == 1
        doc = json.loads(capsys.readouterr().out)
        assert doc["complete"] is True
        different = [r for r in doc["rows"] if r["kind"] != "same"]
        assert different and all(r["type"] == "file_search_call" for r in different)
        assert all(r["kind"] in ("changed", "provider_only") for r in different)
        assert "file-search results" in doc["verdict"]

        client.responses.create(
            model="gpt-4.1", conversation=conv.id, tools=TOOLS,
            input=[{"role": "user", "content": "Summarise the claim"},
                   {"type": "compaction_trigger"}])
        assert main(args) == 1
        doc = json.loads(capsys.readouterr().out)
    kinds = {(r["turn"], r["kind"]) for r in doc["rows"]}
    assert {(t, "capture_only") for t in (1, 2, 3)} <= kinds
    assert {r["kind"] for r in doc["rows"] if r["turn"] == 4} == {"same"}
    assert doc["counts"]["provider_only"] == 0 and doc["counts"]["changed"] == 0
