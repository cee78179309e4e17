"""Issue 33, bullet 1: prices by tier and mode, hosted-tool fees by tool and model class."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.cost.helpers import one, response, web_search, write
from tests.fixtures_shared import REAL, ROOT, SAMPLES
from traceview.analysis.pricing import Pricing
from traceview.analysis.session import analyze

# gpt-4.1 standard: $2.00 in, $0.50 cached, $8.00 out per 1M tokens.
STANDARD = (800_000 * 2.00 + 200_000 * 0.50 + 100_000 * 8.00) / 1e6  # $2.50


def _cost(tmp_path: Path, res_tier: str | None, req_tier: str | None = None) -> dict:
    req = {"model": "gpt-4.1", "input": "hi"}
    if req_tier:
        req["service_tier"] = req_tier
    a = one(tmp_path, req, response("gpt-4.1", 1_000_000, 100_000, cached=200_000,
                                    tier=res_tier))
    return a.turns[0].to_dict()


def test_standard_flex_priority_and_scale_tiers(tmp_path: Path) -> None:
    assert _cost(tmp_path, "default")["cost_usd"] == pytest.approx(STANDARD)
    flex = _cost(tmp_path, "flex")
    assert flex["cost_usd"] == pytest.approx(STANDARD / 2)  # was priced at STANDARD
    assert flex["cost"]["tier"] == "flex"
    assert [x["line_item"] for x in flex["cost"]["lines"]] == [
        "gpt-4.1, input, flex", "gpt-4.1, cached input, flex", "gpt-4.1, output, flex"]
    # priority has its own table: $3.50 / $0.875 / $14.00 for gpt-4.1
    prio = _cost(tmp_path, "priority")
    assert prio["cost_usd"] == pytest.approx((800_000 * 3.5 + 200_000 * 0.875
                                              + 100_000 * 14) / 1e6)
    scale = _cost(tmp_path, "scale")
    assert scale["cost_usd"] is None and "reserved capacity" in scale["cost"]["reason"]


def test_the_request_tier_counts_when_the_response_does_not_say(tmp_path: Path) -> None:
    assert _cost(tmp_path, None, "flex")["cost_usd"] == pytest.approx(STANDARD / 2)
    # The response names the tier that served: a flex request served at default is default.
    assert _cost(tmp_path, "default", "flex")["cost_usd"] == pytest.approx(STANDARD)
    assert _cost(tmp_path, None, "auto")["cost_usd"] == pytest.approx(STANDARD)


def test_a_model_without_a_priority_price_is_unknown_not_standard(tmp_path: Path) -> None:
    req = {"model": "o3", "input": "hi"}
    a = one(tmp_path, req, response("o3", 1000, 10, tier="priority"))
    t = a.turns[0].to_dict()
    assert t["cost_usd"] is None and "no priority price" in t["cost"]["reason"]


def test_batch_lines_are_priced_at_half(tmp_path: Path) -> None:
    body = {"model": "gpt-4.1", "input": "hi"}
    inp = write(tmp_path / "in.jsonl", [{"custom_id": "a", "method": "POST",
                                          "url": "/v1/responses", "body": body}])
    res = response("gpt-4.1", 1_000_000, 100_000, cached=200_000)
    out = write(tmp_path / "out.jsonl", [{"custom_id": "a", "id": "batch_req_1", "response": {
        "status_code": 200, "request_id": "r1", "body": res}, "error": None}])
    a = analyze([str(inp), str(out)])
    t = a.turns[0].to_dict()
    assert t["cost"]["tier"] == "batch"
    assert t["cost_usd"] == pytest.approx(STANDARD / 2)
    assert a.totals["cost_usd"] == pytest.approx(STANDARD / 2)


@pytest.mark.parametrize(("model", "tools", "fee"), [
    ("gpt-4o-mini", [{"type": "web_search_preview"}], 0.025),  # was $0.010
    ("o4-mini", [{"type": "web_search_preview"}], 0.010),
    ("gpt-5-chat-latest", [{"type": "web_search_preview"}], 0.025),
    ("gpt-4o-mini", [{"type": "web_search"}], 0.010),
])
def test_web_search_fee_by_tool_and_model_class(tmp_path: Path, model: str, tools: list,
                                                fee: float) -> None:
    a = one(tmp_path, {"model": model, "input": "hi", "tools": tools},
            response(model, 100, 10, output=web_search(3)))
    assert a.turns[0].cost_hosted_usd == pytest.approx(3 * fee)


def test_code_interpreter_container_by_memory(tmp_path: Path) -> None:
    tool = {"type": "code_interpreter", "container": {"type": "auto", "memory_limit": "4g"}}
    call = {"type": "code_interpreter_call", "id": "ci_1", "status": "completed",
            "code": "1+1", "container_id": "cntr_1", "outputs": None}
    a = one(tmp_path, {"model": "gpt-4.1", "input": "hi", "tools": [tool]},
            response("gpt-4.1", 100, 10, output=[call, dict(call, id="ci_2")]))
    lines = a.turns[0].to_dict()["cost"]["lines"]
    assert lines[-1] == {"line_item": "code interpreter sessions (4g)", "usd": 0.12,
                         "quantity": 1, "rate": 0.12, "unit": "container"}


def test_real_ga_web_search_keeps_its_rate() -> None:
    """The real capture offers GA web_search (tool_choice names the preview): $10 / 1k."""
    a = analyze([str(REAL / "dotnet_web_search_with_sources.jsonl")])
    assert a.turns[0].cost_hosted_usd == pytest.approx(0.010)


def test_bundled_table_names_source_and_date_of_every_rate_family() -> None:
    table = orjson.loads((ROOT / "traceview/analysis/pricing.json").read_bytes())
    assert Pricing.load().taken == table["taken"]
    for part in ("tiers", "hosted_tools", "exchanges"):
        assert table[part]["taken"] == "2026-12-06" and table[part]["source"]
    assert table["taken"] and table["source"]


def test_sample_preview_turn_and_its_sentence() -> None:
    """tenants.jsonl turn 1: two web_search_preview calls on gpt-4o-mini at $25 / 1k, and
    the cost sentence names every rate."""
    a = analyze([str(SAMPLES / "tenants.jsonl")])
    t = a.turns[0]
    assert t.cost_hosted_usd == pytest.approx(0.05)
    sentence = next(s for s in t.explanation if s.startswith("Cost"))
    assert "$0.15/1M" in sentence and "$25.00/1k" in sentence, sentence


def test_image_generation_priced_by_size_and_quality() -> None:
    """The real capture's image is 1536x1024 at high quality: $0.25, not the flat $0.042
    of a 1024x1024 medium image it was priced at before."""
    t = analyze([str(REAL / "pai_image_generation_jpeg.jsonl")]).turns[0].to_dict()
    assert t["cost"]["hosted_usd"] == 0.25
    assert t["cost"]["lines"][-1]["line_item"] == "image generation (1536x1024 high)"
    assert t["hosted_calls"][0]["detail"].startswith("image 1536x1024 high, ")


def test_an_image_of_auto_size_keeps_the_flat_rate(tmp_path: Path) -> None:
    call = {"type": "image_generation_call", "id": "ig_1", "status": "completed",
            "result": "QUJD", "size": "auto", "quality": "auto"}
    a = one(tmp_path, {"model": "gpt-4.1", "input": "draw"},
            response("gpt-4.1", 100, 10, output=[call]))
    assert a.turns[0].cost_hosted_usd == pytest.approx(0.042)


def test_a_turns_hosted_fees_follow_its_own_settings_when_its_calls_repeat() -> None:
    """One Pricing prices many turns with the same calls: each turn's fee still follows
    its own model class, tools offered, container and image shape (issue 29: the fees of
    a set of calls are made once and shared)."""
    from traceview.analysis.pricing import Pricing
    from traceview.capture.model import HostedCall

    p = Pricing.load()
    search = (HostedCall("web_search_call", "ws_1", "completed", "missing", None),)
    preview = ("web_search_preview",)

    def fee(model: str, calls: tuple[HostedCall, ...], tools: tuple[str, ...] = (),
            container: str | None = None) -> float:
        return p.cost(model, 10, 0, 5, calls, tools=tools, container=container).hosted_usd

    assert fee("gpt-4o-mini", search, preview) == 0.025  # non-reasoning preview
    assert fee("o4-mini", search, preview) == 0.010  # reasoning preview
    assert fee("gpt-4o-mini", search, ("web_search",)) == 0.010  # GA
    assert fee("gpt-4o-mini", search, preview) == 0.025
    box = (HostedCall("code_interpreter_call", "ci_1", "completed", "captured", None),)
    assert fee("gpt-4o-mini", box, container="4g") == 0.12
    assert fee("gpt-4o-mini", box) == 0.03
    image = HostedCall("image_generation_call", "ig_1", "completed", "captured", None,
                       size="1024x1024", quality="high")
    assert fee("gpt-4o-mini", (image,)) == 0.167
    assert fee("gpt-4o-mini", (image, image)) == 2 * 0.167
    cheap = HostedCall("image_generation_call", "ig_2", "completed", "captured", None,
                       size="1024x1024", quality="low")
    assert fee("gpt-4o-mini", (cheap,)) == 0.011
    assert fee("gpt-4o-mini", search, preview, container="4g") == 0.025
