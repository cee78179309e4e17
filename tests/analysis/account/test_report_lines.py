"""The report's `input_account` lines (rules/account.py `report_lines`): a batch of rows
shares the dicts of the lines its turns repeat, and each turn's carried line stays its own
(it is named and sized per turn, and a provider copy fills it in place)."""

from __future__ import annotations

from traceview.analysis.account.model import Component
from traceview.analysis.rules.account import report_lines

FRAMING = Component("request", "framing", 2, "known", None, "reply priming")
CARRIED = Component("carried", "", None, "unknown", None, "on the provider's side")
USER = Component("message", "user", 24, "known")


def test_a_batch_shares_repeated_lines_and_sizes_each_carried_line_alone() -> None:
    made: dict[Component, dict[str, object]] = {}
    first = report_lines((FRAMING, CARRIED, USER), "resp_1", 100, 3, made=made)
    second = report_lines((FRAMING, CARRIED, USER), "resp_2", 50, 4, made=made)
    assert first[0] is second[0] and first[2] is second[2]  # made once for the batch
    assert first[1] is not second[1]
    assert (first[1]["name"], first[1]["tokens"], first[1]["source_turn"]) == ("resp_1", 74, 3)
    assert (second[1]["name"], second[1]["tokens"], second[1]["source_turn"]) == ("resp_2", 24, 4)
    assert first[0] == {"component": "request", "name": "framing", "tokens": 2,
                        "basis": "known", "source_turn": None, "reason": "reply priming"}


def test_without_a_batch_every_line_is_the_turns_own() -> None:
    one = report_lines((FRAMING, USER), None, None, None)
    two = report_lines((FRAMING, USER), None, None, None)
    assert one == two and one[0] is not two[0]
