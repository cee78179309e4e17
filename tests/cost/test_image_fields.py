"""Issue 33: an image generation call is priced by the size and quality the capture
carries as fields of the hosted call (capture/items.py -> analysis/pricing.py), never by
reading them back out of the call's `detail` text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cost.helpers import one, response
from tests.fixtures_shared import REAL
from traceview.analysis.session import analyze


def _image(tmp_path: Path, **item: str) -> dict:
    call = {"type": "image_generation_call", "id": "ig_1", "status": "completed", **item}
    a = one(tmp_path, {"model": "gpt-4.1", "input": "draw"},
            response("gpt-4.1", 100, 10, output=[call]))
    return a.turns[0].to_dict()


def test_the_real_capture_carries_size_and_quality_on_the_call() -> None:
    t = analyze([str(REAL / "pai_image_generation_jpeg.jsonl")]).turns[0]
    [call] = t.turn.res.hosted_calls
    assert (call.size, call.quality) == ("1536x1024", "high")
    assert t.to_dict()["hosted_calls"][0]["detail"] == "image 1536x1024 high, 187,880 base64 chars"
    assert t.cost_hosted_usd == pytest.approx(0.25)


def test_an_image_without_its_result_is_still_priced_by_its_fields(tmp_path: Path) -> None:
    """The detail says only "no image (status completed)": the price comes from the fields."""
    t = _image(tmp_path, size="1024x1024", quality="low")
    assert t["hosted_calls"][0]["detail"] == "no image (status completed)"
    assert t["cost"]["lines"][-1]["line_item"] == "image generation (1024x1024 low)"
    assert t["cost"]["hosted_usd"] == pytest.approx(0.011)


def test_sizes_and_qualities_the_wire_does_not_name_are_not_carried(tmp_path: Path) -> None:
    t = _image(tmp_path, result="QUJD", size="huge", quality="high")
    assert t["hosted_calls"][0]["detail"] == "image, 4 base64 chars"
    assert t["cost"]["hosted_usd"] == pytest.approx(0.042)  # the flat rate
    t = _image(tmp_path, result="QUJD", size="1536x1024", quality="auto")
    assert t["hosted_calls"][0]["detail"] == "image 1536x1024 auto, 4 base64 chars"
    assert t["cost"]["hosted_usd"] == pytest.approx(0.042)
