"""Media sized on an earlier turn of the same capture (analysis/account/sized.py).

Built from real captures converted from public projects' cassettes
(tests/fixtures/cassettes, SOURCES.md): a PDF or an image resent unchanged is billed the
same each time, so the turn that first sent it as its only unknown line measures it for
the turns after, never for itself.
"""

from __future__ import annotations

import pytest

from tests.analysis.account.test_cassettes import turn
from traceview.analysis.account import account
from traceview.analysis.account.model import Component
from traceview.analysis.account.sized import measured, media_key

PDF = "ellmer___vcr__openai-pdf.jsonl.gz"


def _file_line(t: dict[str, object]) -> dict[str, object]:
    lines = t["input_account"]
    assert isinstance(lines, list)
    return next(c for c in lines if c["component"] == "file")


def test_a_pdf_resent_is_sized_by_the_turn_that_first_sent_it() -> None:
    """ellmer, gpt-4.1-nano, chat: the same PDF on three turns billed 1,054, 1,080 and
    1,101. Turn 1's PDF is its only unknown line (1,054 less 21 of text and framing:
    1,033); turns 2 and 3 send it again and are known, exactly."""
    first = turn(PDF, 1)
    assert (first["input_tokens"], first["expected_input"]) == (1054, None)
    assert _file_line(first)["tokens"] is None  # never sized by its own bill
    for index, billed in ((2, 1080), (3, 1101)):
        t = turn(PDF, index)
        line = _file_line(t)
        assert (t["input_tokens"], t["expected_input"]) == (billed, billed)
        assert (line["tokens"], line["basis"], line["source_turn"]) == (1033, "estimated", 1)
        assert "sized on turn 1" in str(line["reason"])


@pytest.mark.parametrize(("name", "index", "billed", "expected"), [
    # chatlas, gpt-5.4, Responses input_file
    ("chatlas__test_provider_openai__test_openai_pdf.jsonl.gz", 2, 109, 107),
    # chatlas, gpt-5.4, chat `file` part
    ("chatlas__test_provider_openai_completions__test_openai_pdf.jsonl.gz", 2, 1084, 1082),
    # ellmer, gpt-5.4-nano: an image with no published rule, sized on turn 2
    ("ellmer___vcr__openai-v2-tool-image.jsonl.gz", 4, 545, 541),
])
def test_resent_media_within_two_percent(name: str, index: int, billed: int,
                                         expected: int) -> None:
    t = turn(name, index)
    assert (t["input_tokens"], t["expected_input"]) == (billed, expected)


def test_a_different_image_is_not_sized_by_another() -> None:
    """chatlas, gpt-5.4: turn 1 sends a PNG as a data URL (its only unknown line), turn 2
    a remote logo: a different part, so turn 2 stays unknown."""
    t = turn("chatlas__test_provider_openai__test_openai_images.jsonl.gz", 2)
    image = next(c for c in t["input_account"] if c["component"] == "image")
    assert (t["expected_input"], image["tokens"], image["source_turn"]) == (None, None, None)


def test_the_key_is_the_part_and_the_model() -> None:
    part = {"type": "input_file", "file_id": "file-1"}
    key = media_key("gpt-5.4", part)
    assert key == media_key("gpt-5.4", dict(reversed(part.items())))
    assert key != media_key("gpt-5.4-mini", part)
    assert key != media_key("gpt-5.4", {**part, "file_id": "file-2"})
    body = {"model": "gpt-5.4", "input": [{"role": "user", "content": [part]}]}
    acc = account(body, item_tokens={key: (500, 3)})
    line = next(c for c in acc.components if c.component == "file")
    assert (line.tokens, line.basis, line.source_turn) == (500, "estimated", 3)
    assert account(body, model="gpt-5.4-mini", item_tokens={key: (500, 3)}).expected is None


def test_a_turn_measures_only_its_one_unknown_part() -> None:
    framing = Component("request", "framing", 3, "known")
    file = Component("file", "user #1 file", None, "unknown")
    image = Component("image", "user #2 image_url", None, "unknown")
    hosted = Component("hosted_pass", "web_search_call", None, "unknown")
    assert measured((framing, file), ["sized:a"], 100) == ("sized:a", 97)
    assert measured((framing, file, image), ["sized:a", "sized:b"], 100) is None
    assert measured((framing, file, hosted), ["sized:a"], 100) is None
    assert measured((framing, file), ["sized:a"], None) is None
    assert measured((framing, file), ["sized:a"], 3) is None  # nothing left for the file


@pytest.mark.parametrize(("name", "index", "billed", "expected", "source"), [
    # gpt-5.4 replaying an Anthropic run: the item measured at 149 on turn 1
    ("pai__test_tool_search__test_cross_provider_capability_replay_anthropic-claude-sonnet-"
     "4-5-openai-responses-gpt-5.4_.jsonl.gz", 2, 525, 517, 1),
    # gpt-5.4 first, then its history replayed: measured at 139 on turn 2
    ("pai__test_tool_search__test_cross_provider_capability_replay_openai-responses-gpt-5.4-"
     "anthropic-claude-sonnet-4-5_.jsonl.gz", 3, 334, 329, 2),
])
def test_tools_added_mid_conversation_resent_are_sized_by_the_first(
        name: str, index: int, billed: int, expected: int, source: int) -> None:
    """An `additional_tools` item has no constant (its preamble varies by model and turn:
    test_cassettes.py) but the same item resent to the same model bills what it billed
    the first time within 8 tokens (-1.5 %); the measuring turn stays unknown."""
    t = turn(name, index)
    added = next(c for c in t["input_account"] if c["component"] == "additional_tools")
    assert (t["input_tokens"], t["expected_input"]) == (billed, expected)
    assert (added["basis"], added["source_turn"]) == ("estimated", source)
    assert turn(name, source)["expected_input"] is None


@pytest.mark.parametrize(("name", "index", "billed", "expected"), [
    # tool_search run by the client: get_exchange_rate loaded, stock_lookup still deferred
    ("pai__test_tool_search__test_openai_client_tool_search_streaming.jsonl.gz", 3, 477, 475),
    # hosted tool_search: the one deferred tool loaded on turn 1
    ("pai__test_tool_search__test_openai_hosted_tool_search_stateless_continuation.jsonl.gz",
     3, 264, 262),
    # gpt-5.4-mini: one of two deferred tools loaded
    ("pai__test_tool_search__test_openai_promotes_local_search_history_round_trip.jsonl.gz",
     2, 631, 629),
])
def test_tool_search_is_sized_by_the_turn_with_the_same_tools_loaded(
        name: str, index: int, billed: int, expected: int) -> None:
    """A tool search's billed size has no constant (what is still to be found is listed:
    about 135 with every deferred tool loaded, 285-515 otherwise, by model); the turn
    before, with the same tools offered and loaded, measured it."""
    t = turn(name, index)
    search = next(c for c in t["input_account"] if c["name"] == "tool_search")
    assert (t["input_tokens"], t["expected_input"]) == (billed, expected)
    assert (search["basis"], search["source_turn"]) == ("estimated", index - 1)


def test_tool_search_is_not_sized_across_a_change_of_loaded_tools() -> None:
    """pydantic-ai, gpt-5.6-sol: turn 1 offers tool_search with one deferred tool (billed
    392, all but the definition 54); turn 2 adds that tool by an `additional_tools` item,
    so what the search lists changed: its line stays unknown."""
    t = turn("pai__test_openai_tool_availability_delta__"
             "test_openai_live_delta_preserves_the_warmed_cache_prefix.jsonl.gz", 2)
    search = next(c for c in t["input_account"] if c["name"] == "tool_search")
    assert (search["tokens"], search["source_turn"]) == (None, None)


def test_odd_items_beside_a_tool_search_are_not_a_crash() -> None:
    """An item whose type is not a string (hostile or broken input) is not a loaded tool."""
    body = {"model": "gpt-5.4", "tools": [{"type": "tool_search"}],
            "input": [{"type": ["tool_search_output"]}, {"type": {"a": 1}}, "text"]}
    acc = account(body)
    assert acc.expected is None
    assert [c.component for c in acc.unknown] == ["tools", "item", "item", "item"]
