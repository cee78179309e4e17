"""analysis/account/carried.py: the one count of a hosted turn's carried conversation from
the provider's listing — what precedes the turn's own input, tokenised like any input."""

from __future__ import annotations

from traceview.analysis.account.carried import count_carried

MODEL = "gpt-4.1-2025-04-14"
ASK = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
REPLY = {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Hello! How can I help?"}]}
AGAIN = {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "What is 2+2?"}]}


def test_the_items_before_the_turns_own_input_are_counted_one_by_one() -> None:
    count = count_carried(MODEL, "resp_2", 1, [ASK, REPLY, AGAIN])
    assert count is not None
    assert (count.held, count.basis, count.listing) == (2, "known", "input_items")
    assert [(c["component"], c["name"]) for c in count.lines] == [
        ("message", "user"), ("message", "assistant")]
    assert count.tokens == sum(c["tokens"] for c in count.lines) == 16
    assert count.reason == ("2 items the provider listed before this turn's own input"
                            " (input_items of resp_2)")


def test_a_listing_shorter_than_the_turns_own_input_is_not_its_listing() -> None:
    assert count_carried(MODEL, "resp_2", 2, [AGAIN]) is None


def test_an_item_that_cannot_be_sized_leaves_the_line_unknown() -> None:
    pdf = {"type": "message", "role": "user", "content": [
        {"type": "input_file", "file_id": "file_1"}]}
    count = count_carried(MODEL, "resp_2", 1, [pdf, REPLY, AGAIN], "conversation")
    assert count is not None and (count.tokens, count.basis) == (None, "unknown")
    lines = [{"component": "carried", "name": "conv_1", "tokens": 40, "basis": "estimated",
              "source_turn": 1, "reason": "by difference"}]
    count.fill(lines)
    assert (lines[0]["tokens"], lines[0]["basis"]) == (None, "unknown")
    assert lines[0]["reason"].startswith("2 items the provider listed")
