"""Recorder + simulator + traceview's own reader: the story the tool exists to tell."""

from __future__ import annotations

import pytest

import traceview.analysis as analysis  # noqa: E402
import traceview.capture as capture_mod  # noqa: E402
import traceview.record
from traceview.sim.scenario import run_claims


def _analyse(path):
    return analysis.analyze(capture_mod.load([str(path)]), analysis.Options())


@pytest.mark.parametrize("stream", [False, True])
def test_deposit_after_an_uncaptured_file_search(sim, capture, stream):
    client = traceview.record.client(capture, base_url=sim.base_url, api_key="sk-e2e-0000000000000",
                                     max_retries=0)
    run_claims(client, include=False, stream=stream)
    an = _analyse(capture)
    assert [t.input_tokens for t in an.turns][:3] == [1210, 1690, 6110]
    assert an.turns[1].output_tokens == 402
    search = an.turns[1].hosted_calls
    assert [(c["type"], c["evidence"]) for c in search] == [("file_search_call", "missing")]
    assert search[0]["include"] == "file_search_call.results"
    assert "deposit" in an.turns[2].markers
    assert an.turns[2].user_words == 9
    assert an.turns[3].request_bytes < 1000 < 6000 < an.turns[3].input_tokens


def test_evidence_captured_when_include_was_set(sim, capture):
    client = traceview.record.client(capture, base_url=sim.base_url, api_key="sk-e2e-0000000000000",
                                     max_retries=0)
    run_claims(client, include=True)
    an = _analyse(capture)
    evidence = [c["evidence"] for t in an.turns for c in t.hosted_calls]
    assert evidence == ["captured", "captured"]
    assert "deposit" in an.turns[2].markers  # still billed; now explained by captured chunks
