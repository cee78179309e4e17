"""The plan: pinned models, a sample that keeps the turn-count distribution, the order."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.experiment.plan import (
    allocate,
    model_problem,
    run_order,
    stratified_sample,
)
from traceview.experiment.source import SourceConversation, extract

from ..ui.conftest import SAMPLES


def conv(key: str, turns: int) -> SourceConversation:
    return SourceConversation(key, tuple(f"q{i}" for i in range(turns)), None, None, 0, 0, 0)


@pytest.mark.parametrize("model", ["gpt-4.1", "gpt-4o-mini", "o3"])
def test_an_alias_is_refused_unless_allowed(model):
    problem = model_problem(model, allow_alias=False)
    assert problem is not None and "alias" in problem and "--allow-alias" in problem
    assert model_problem(model, allow_alias=True) is None


@pytest.mark.parametrize("model", ["gpt-4.1-2025-04-14", "gpt-4o-mini-2024-07-18"])
def test_a_pinned_snapshot_is_accepted(model):
    assert model_problem(model, allow_alias=False) is None


def test_the_sample_keeps_the_sources_turn_count_distribution():
    # 50 one-turn, 30 two-turn, 15 three-turn, 5 ten-turn conversations; sample 20.
    source = [conv(f"c{i}", t) for i, t in enumerate([1] * 50 + [2] * 30 + [3] * 15 + [10] * 5)]
    picked = stratified_sample(source, 20, seed=3)
    assert Counter(c.turns for c in picked) == {1: 10, 2: 6, 3: 3, 10: 1}
    assert len({c.key for c in picked}) == 20
    assert picked == stratified_sample(source, 20, seed=3)  # seeded
    assert picked != stratified_sample(source, 20, seed=4)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.integers(1, 12), st.integers(1, 40), min_size=1, max_size=6),
       st.integers(1, 80))
def test_allocation_is_proportional_within_one_seat(counts, n):
    seats = allocate(Counter(counts), n)
    total = sum(counts.values())
    assert sum(seats.values()) == min(n, total)
    for k, c in counts.items():
        assert seats[k] <= c
        assert abs(seats[k] - c * min(n, total) / total) < 1 + 1e-9


def test_the_demo_sample_matches_its_source():
    source, _ = extract(str(SAMPLES / "ab" / "source.jsonl"))
    dist = Counter(c.turns for c in source)
    assert dist == {1: 5, 2: 3, 3: 2, 4: 2}
    picked = stratified_sample(source, 8, seed=7)
    assert Counter(c.turns for c in picked) == {1: 4, 2: 2, 3: 1, 4: 1}
    # Full user messages, in order, not the report's shortened text.
    longest = max(source, key=lambda c: c.turns)
    assert longest.user_messages[0] == "I spilled paint on the living room carpet."


def test_runs_are_interleaved_a_then_b_in_a_seeded_shuffled_order():
    keys = ["c1", "c2", "c3", "c4", "c5"]
    units = run_order(keys, runs=3, seed=11)
    assert len(units) == 5 * 3 * 2
    assert [u.arm for u in units] == ["A", "B"] * 15
    for a, b in zip(units[::2], units[1::2], strict=True):
        assert (a.conversation, a.run) == (b.conversation, b.run)
    for run in (1, 2, 3):
        assert sorted(u.conversation for u in units[::2] if u.run == run) == keys
    orders = [[u.conversation for u in units[::2] if u.run == r] for r in (1, 2, 3)]
    assert orders != [keys] * 3  # shuffled, and afresh each run
    assert units == run_order(keys, runs=3, seed=11)
    assert units != run_order(keys, runs=3, seed=12)
