"""The explanation's sentence for each lineage, stream and cost marker (issues 33-35): what
happened on the turn, in its own ids and numbers (which citation and retrieval, which
include flag, which sequence numbers, which budget and by how much)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.analysis.test_timing import _stream
from tests.builders import req, res, write
from tests.fixtures_shared import REAL, SAMPLES
from tests.lineage.lineage_capture import write_capture
from traceview.analysis.session import analyze
from traceview.cli import main

TENANTS = str(SAMPLES / "tenants.jsonl")


@pytest.fixture(scope="module")
def lineage_turns(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    return analyze(str(write_capture(tmp_path_factory.mktemp("lin") / "case.jsonl"))).turns


def test_citation_unretrieved_names_the_citation_no_retrieval_returned(
        lineage_turns: list[Any]) -> None:
    assert ("No captured retrieval of this conversation returned the source of citation 2 "
            "(file_citation file-ghost, 'ghost.pdf', output item 1).") \
        in lineage_turns[0].explanation
    assert ("No captured retrieval of this conversation returned the source of citation 2 "
            "(url_citation https://blog.example/post, 'Blog', output item 1, characters "
            "22–27).") in lineage_turns[3].explanation


def test_citation_unretrieved_names_the_call_and_include_flag_when_not_captured(
        lineage_turns: list[Any]) -> None:
    assert ("Citation 1 (file_citation file-theft, 'theft.pdf', output item 1) could not be "
            "checked: the file_search call fs_2 returned results the capture does not hold "
            '(the request lacked include=["file_search_call.results"]).') \
        in lineage_turns[1].explanation


def test_citation_unidentified_says_which_citation_has_no_source(
        lineage_turns: list[Any]) -> None:
    assert ("Nothing identifies the source of citation 3 (file_citation, 'x', output item 1):"
            " it has no url or file id to check against a retrieval.") \
        in lineage_turns[0].explanation


def test_tool_choice_unmet_names_the_tool_the_request_forced(
        lineage_turns: list[Any]) -> None:
    assert lineage_turns[2].explanation[-1] == (
        "The request's tool_choice named function tool file_claim, but the response holds "
        "no call of it: the model answered without the tool it was told to call.")
    assert not any("tool_choice" in s for s in lineage_turns[1].explanation)  # met


def test_a_real_file_citation_whose_search_results_were_not_captured() -> None:
    [turn] = analyze(str(REAL / "pai_file_search_stream.jsonl")).turns
    [said] = [s for s in turn.explanation if s.startswith("Citation 1")]
    assert said == (
        "Citation 1 (file_citation file-9RhPAs9YqVajpGXRfcgavJ, 'tmp8l5_2pzy.txt', output "
        "item 1) could not be checked: the file_search call "
        "fs_006dcb10dc68b990006931d758d64c819b8936fb07f31c09d4 returned results the capture "
        'does not hold (the request lacked include=["file_search_call.results"]).')


def test_stream_sentences_give_the_sequence_numbers_and_the_text_that_disagrees(
        tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [
        req({"model": "m", "input": "hi", "stream": True}),
        res(None, events=_stream(["a", "b", "c"], seqs=[0, 1, 2, 2, 1, 5, 6])),
        req({"model": "m", "input": "one", "stream": True}),
        res(None, events=_stream(["Hel", "lo"], done_text="Hello!"))])
    first, second = analyze(str(p)).turns
    assert ("The stream's sequence numbers are not the provider's: 3 faults — event 3 "
            "repeats 2, event 4 repeats 1, event 5 has 5 after 2 (2 missing): the capture's "
            "copy of the stream has replayed, resent or dropped events.") in first.explanation
    assert ("The stream's text disagrees with itself: event 4: the deltas of output 0 add up "
            "to 5 characters, its .done text has 6; the captured deltas are not the text the "
            "provider said it produced.") in second.explanation
    assert not any("stream's" in s for s in first.explanation if "text" in s)


def _explained(capsysbinary: pytest.CaptureFixture[bytes], *args: str) -> dict[int, Any]:
    assert main(["report", TENANTS, "--format", "json", "--explain", *args]) in (0, 1)
    return {t["index"]: t for t in json.loads(capsysbinary.readouterr().out)["turns"]}


def test_over_budget_gives_the_budget_the_total_and_by_how_much(
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    turns = _explained(capsysbinary, "--budget", "usd=0.06,per=conversation")
    assert turns[2]["explanation"][-1] == (
        "Over budget: conversation conv_692d4b3c90e0371236d9d59db2b4df2aae9aad2486f7a6e9 "
        "came to ≈ $0.0765 over 3 turns, $0.0165 past the --budget of $0.0600 a "
        "conversation; its running total first passed the budget on this turn.")
    assert turns[4]["explanation"][-1].startswith(
        "Over budget: conversation conv_692d4bff767c24180b83c0721e53c1a36123106409d0ba3b "
        "came to ≈ $0.0762 over 2 turns, $0.0162 past")
    assert not any(s.startswith("Over budget") for s in turns[3]["explanation"])


def test_moderation_flagged_names_the_call_and_its_categories(
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    turns = _explained(capsysbinary)
    assert turns[7]["explanation"][-1] == (
        "The moderation call on line 23 flagged its input (harassment); this is the turn "
        "next by line, the one it guarded.")
