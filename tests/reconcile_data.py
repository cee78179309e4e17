"""A crafted capture and the bill that matches it, for the reconcile tests.

Bundled prices (per 1M tokens): gpt-4.1 input 2.0, cached 0.5, output 8.0; gpt-4.1-mini
input 0.4, output 1.6. The capture's attribution, worked by hand:

- 2026-12-01, gpt-4.1: turn 1 (10,000 in of which 4,000 cached, 1,000 out)
  = (6,000×2 + 4,000×0.5 + 1,000×8)/1e6 = $0.022; turn 2 (5,000 in, 500 out)
  = (5,000×2 + 500×8)/1e6 = $0.014; the day: $0.036.
- 2026-12-02, gpt-4.1-mini: turn 3 (100,000 in, 10,000 out)
  = (100,000×0.4 + 10,000×1.6)/1e6 = $0.056.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.builders import req, res, response, write

DAY1, DAY2 = 1796083200, 1796083200 + 86_400  # 2026-12-01 and 2026-12-02, UTC
PROJECT = "proj_claims"


def crafted_capture(path: Path) -> Path:
    turns = [("resp_1", "gpt-4.1-2025-04-14", 10_000, 1_000, 4_000, DAY1 + 3600),
             ("resp_2", "gpt-4.1-2025-04-14", 5_000, 500, 0, DAY1 + 7200),
             ("resp_3", "gpt-4.1-mini-2025-04-14", 100_000, 10_000, 0, DAY2 + 3600)]
    records: list[Any] = []
    for rid, model, inp, out, cached, at in turns:
        records.append(req({"model": model.rsplit("-", 3)[0], "input": "hello"}))
        records.append(res(response(rid, inp, out, model=model, cached=cached,
                                    created_at=float(at))))
    return write(path, records)


def bill_lines() -> list[tuple[str, str | None, str | None, float]]:
    """The provider's lines for the capture's traffic: day 1 exactly what the capture
    attributes, split the provider's way; day 2 twice the capture (one request the capture
    does not hold, shown by the usage API)."""
    return [
        ("2026-12-01", PROJECT, "gpt-4.1-2025-04-14, input", 0.022),
        ("2026-12-01", PROJECT, "gpt-4.1-2025-04-14, cached input", 0.002),
        ("2026-12-01", PROJECT, "gpt-4.1-2025-04-14, output", 0.012),
        ("2026-12-02", PROJECT, "gpt-4.1-mini-2025-04-14, input", 0.08),
        ("2026-12-02", PROJECT, "gpt-4.1-mini-2025-04-14, output", 0.032),
        ("2026-12-02", "proj_other", "gpt-4o-2024-08-06, input", 1.5),
    ]


def usage_lines() -> list[tuple[str, str | None, dict[str, Any]]]:
    return [
        ("2026-12-01", PROJECT, {"model": "gpt-4.1-2025-04-14", "num_model_requests": 2,
                                 "input_tokens": 15_000, "output_tokens": 1_500,
                                 "input_cached_tokens": 4_000}),
        ("2026-12-02", PROJECT, {"model": "gpt-4.1-mini-2025-04-14", "num_model_requests": 2,
                                 "input_tokens": 200_000, "output_tokens": 20_000}),
    ]


def costs_page(lines: list[tuple[str, str | None, str | None, float]], *,
               has_more: bool = False, days: tuple[str, ...] = ("2026-12-01", "2026-12-02")
               ) -> dict[str, Any]:
    """A saved Costs API page (group_by=project_id,line_item), one bucket a day."""
    starts = {"2026-12-01": DAY1, "2026-12-02": DAY2}
    data = [{"object": "bucket", "start_time": starts[d], "end_time": starts[d] + 86_400,
             "results": [{"object": "organization.costs.result",
                          "amount": {"value": usd, "currency": "usd"},
                          "line_item": line, "project_id": proj}
                         for day, proj, line, usd in lines if day == d]} for d in days]
    return {"object": "page", "data": data, "has_more": has_more,
            "next_page": "page_2" if has_more else None}
