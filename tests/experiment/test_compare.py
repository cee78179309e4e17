"""The comparison core: exact decomposition, seeded bootstrap, warnings, the claim."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fixtures_shared import ROOT, SAMPLES
from traceview.analysis.compare import (
    Arm,
    ArmTurn,
    arm_costs,
    bootstrap_median_diff,
    compare,
)
from traceview.analysis.compare_arms import arm_from_capture, load_arms
from traceview.analysis.pricing import Pricing

PRICING = Pricing.load()
MODELS = ["gpt-4.1-2025-04-14", "gpt-4o-mini-2024-07-18", "gpt-5", "not-a-model"]
HOSTED = ["file_search_call", "web_search_call", "code_interpreter_call", "mcp_call"]


@st.composite
def arm_turns(draw):
    inp = draw(st.integers(0, 400_000))
    return ArmTurn(
        conversation=draw(st.sampled_from(["c1", "c2", "c3"])),
        latency_ms=draw(st.one_of(st.none(), st.floats(0, 60_000))),
        input_tokens=inp if draw(st.booleans()) or inp else None,
        cached_tokens=draw(st.integers(0, inp)),
        output_tokens=draw(st.integers(0, 50_000)),
        hosted=tuple(draw(st.dictionaries(st.sampled_from(HOSTED), st.integers(1, 4),
                                          max_size=3)).items()),
        model=draw(st.sampled_from(MODELS)),
    )


def check_sums(doc, a: Arm, b: Arm) -> None:
    cost = doc["difference"]["cost"]
    assert cost["sums_to_net"] is True
    assert sum(s["micro_usd"] for s in cost["decomposition"]) == cost["net_micro_usd"]
    (pa, _), (pb, _) = arm_costs(a, PRICING), arm_costs(b, PRICING)
    net = sum(pb.values(), Fraction(0)) - sum(pa.values(), Fraction(0))
    assert abs(net * 1_000_000 - cost["net_micro_usd"]) <= Fraction(1, 2)
    # Each exact step goes from A's total to B's total.
    steps = cost["decomposition"]
    assert steps[0]["start_usd"] == doc["arms"]["A"]["cost"]["total_usd"]
    assert steps[-1]["end_usd"] == doc["arms"]["B"]["cost"]["total_usd"]


@settings(max_examples=120, deadline=None)
@given(st.lists(arm_turns(), max_size=25), st.lists(arm_turns(), max_size=25))
def test_the_decomposition_sums_exactly_to_the_net_difference(ta, tb):
    a, b = Arm("A", "a", ta), Arm("B", "b", tb)
    check_sums(compare(a, b, PRICING, resamples=50), a, b)


FIXTURES = sorted((ROOT / "tests" / "fixtures" / "real").glob("*.jsonl")) + sorted(
    p for p in SAMPLES.glob("*.jsonl"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_the_decomposition_sums_to_the_net_on_every_fixture(path: Path):
    a = arm_from_capture("A", [str(SAMPLES / "claims_owned_state.jsonl")])
    b = arm_from_capture("B", [str(path)])
    doc = compare(a, b, PRICING, resamples=50)
    check_sums(doc, a, b)
    assert doc["schema"] == "traceview.compare/1"


def test_the_bootstrap_is_seeded_and_reproducible():
    a = [100, 110, 120, 130, 140, 150, 160]
    b = [200, 190, 230, 260, 240, 210, 205]
    first = bootstrap_median_diff(a, b, seed=0, resamples=500)
    assert first == bootstrap_median_diff(a, b, seed=0, resamples=500)
    assert (first["ms"], first["low"], first["high"]) == (80, 55, 120)
    other = bootstrap_median_diff(a, b, seed=1, resamples=500)
    assert (other["low"], other["high"]) == (55, 130)


def test_the_claim_names_a_direction_only_when_the_interval_excludes_zero():
    def doc(la, lb):
        ta = [ArmTurn("c", x, 10, 0, 1, model=MODELS[0]) for x in la]
        tb = [ArmTurn("c", x, 10, 0, 1, model=MODELS[0]) for x in lb]
        return compare(Arm("A", "a", ta), Arm("B", "b", tb), PRICING, resamples=500)

    slower = doc([100, 110, 120, 130, 140, 150, 160], [200, 190, 230, 260, 240, 210, 205])
    assert slower["difference"]["latency_median_ms"]["claim"].startswith(
        "B's median latency is higher than A's by 80 ms")
    faster = doc([200, 190, 230, 260, 240, 210, 205], [100, 110, 120, 130, 140, 150, 160])
    assert faster["difference"]["latency_median_ms"]["claim"].startswith(
        "B's median latency is lower than A's by 80 ms")
    mixed = doc([100, 300, 120, 330, 140, 150, 160], [90, 310, 130, 100, 240, 110, 205])
    assert mixed["difference"]["latency_median_ms"]["claim"].startswith("no direction")


def test_different_models_and_aliases_are_warned_about_at_the_top():
    a = Arm("A", "a", [ArmTurn("c", 1, 10, 0, 1, model="gpt-4.1-2025-04-14")])
    b = Arm("B", "b", [ArmTurn("c", 1, 10, 0, 1, model="gpt-4.1")])
    warnings = compare(a, b, PRICING, resamples=50)["warnings"]
    assert any(w.startswith("models differ: arm A recorded gpt-4.1-2025-04-14, arm B "
                            "recorded gpt-4.1") for w in warnings)
    assert any("arm B used an alias" in w for w in warnings)
    same = compare(a, Arm("B", "b", list(a.turns)), PRICING, resamples=50)["warnings"]
    assert same == []


def test_the_demo_results_compare_as_pinned():
    a, b, meta = load_arms([str(SAMPLES / "ab")])
    doc = compare(a, b, PRICING, latency=meta["latency"])
    assert doc["latency_source"] == "simulated"
    A, B = doc["arms"]["A"], doc["arms"]["B"]
    assert (A["sample"]["conversations"], A["sample"]["turns"]) == (16, 30)
    assert A["sample"]["runs_per_conversation"] == 2
    assert A["sample"]["models"] == B["sample"]["models"] == ["gpt-4.1-2025-04-14"]
    # Hosted calls only on B; the latency split says so with its n.
    assert A["latency_ms"]["with_hosted"]["n"] == 0
    assert B["latency_ms"]["with_hosted"]["n"] == B["tokens"]["hosted_calls"] > 0
    assert B["tokens"]["cached_share"] > A["tokens"]["cached_share"]
    # A's store work is part of its latency; B has none.
    assert A["latency_ms"]["state_ms"]["n"] == 30 and B["latency_ms"]["state_ms"]["p95"] == 0
    parts = [s["component"] for s in doc["difference"]["cost"]["decomposition"]]
    assert parts == ["fresh_input", "cached_input", "output", "fee:file_search_call"]
    fee = doc["difference"]["cost"]["decomposition"][-1]
    assert fee["micro_usd"] == 2500 * B["tokens"]["hosted_calls"]
    # The simulator's shape: B better at the median, worse in the tail.
    assert B["latency_ms"]["all"]["p50"] < A["latency_ms"]["all"]["p50"]
    assert B["latency_ms"]["all"]["p95"] > A["latency_ms"]["all"]["p95"]


def test_hosted_fees_follow_the_providers_counters_where_present(tmp_path):
    # One turn whose output holds one web_search_call item but whose usage counter says 3.
    req = {"dir": "req", "body": {"model": "gpt-4.1-2025-04-14", "input": "latest news?"}}
    res = {"dir": "res", "elapsed_ms": 900, "body": {
        "id": "resp_1", "object": "response", "status": "completed",
        "model": "gpt-4.1-2025-04-14",
        "output": [{"type": "web_search_call", "id": "ws_1", "status": "completed",
                    "action": {"type": "search", "query": "news"}}],
        "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 110, "server_tool_use": {"web_search_requests": 3}}}}
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (req, res)) + "\n")
    arm = arm_from_capture("B", [str(path)])
    assert arm.turns[0].hosted == (("web_search_call", 3),)
    empty = Arm("A", "a", [])
    doc = compare(empty, arm, PRICING, resamples=50)
    fee = PRICING.hosted["web_search_call"]["per_call"]
    step = doc["difference"]["cost"]["decomposition"][-1]
    assert step["component"] == "fee:web_search_call"
    assert step["micro_usd"] == round(3 * fee * 1_000_000)
