"""A response's message parts as lineage reads them (capture/lineage.py): a part that
holds annotations or logprobs is read whatever the other holds, and a part with neither
(the usual empty list and null) adds nothing."""

from __future__ import annotations

import math

from traceview.capture.lineage import response_lineage


def _message(*parts: dict[str, object]) -> dict[str, object]:
    return {"type": "message", "role": "assistant", "content": list(parts)}


def test_each_part_is_read_for_what_it_holds() -> None:
    cite = {"type": "url_citation", "url": "https://example.com/a", "start_index": 0,
            "end_index": 4, "title": "A"}
    lin = response_lineage([_message(
        {"type": "output_text", "text": "x", "annotations": [], "logprobs": None},
        {"type": "output_text", "text": "y", "annotations": [],
         "logprobs": [{"token": "y", "logprob": math.log(0.5)}]},
        {"type": "output_text", "text": "z", "annotations": [cite]},
        {"type": "output_text", "text": "w"})], None)
    assert lin is not None
    assert [c[1] for c in lin["citations"]] == ["https://example.com/a"]
    assert lin["citations"][0][-1] == 0  # the output item it is in
    assert lin["logprobs"][0] == 1 and math.isclose(lin["logprobs"][1], 0.5)


def test_parts_with_neither_leave_no_lineage() -> None:
    assert response_lineage([_message({"type": "output_text", "text": "x", "annotations": [],
                                       "logprobs": []},
                                      {"type": "output_text", "text": "y"})], None) is None
